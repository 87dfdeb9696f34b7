/// An entity: a named list of attributes and relationships, like
/// `NSEntityDescription`.
public struct EntityDescription: Sendable {
    public var name: String
    /// The attributes in declaration order, which is also the order of the
    /// table's columns and of the CSV export.
    public var attributes: [AttributeDescription]
    public var relationships: [RelationshipDescription]
    /// The SQL table that holds the entity's objects.
    public var tableName: String
    /// The attribute people find an object by, shown first in messages
    /// (`searchKey`); nil when there is none.
    public var keyAttribute: String?
    /// The attribute that names an object (`name`), shown quoted in
    /// messages; for a relationship's destination, what an import's array
    /// of names (``RelationshipDescription/importKey``) matches.
    public var nameAttribute: String?
    /// When an imported object has no value for the primary key, it gets
    /// one derived from these attributes' values, so that importing the
    /// same file twice finds the same objects. Empty: a new one each time.
    public var derivedIDAttributes: [String]

    public init(
        name: String, tableName: String? = nil, attributes: [AttributeDescription],
        relationships: [RelationshipDescription] = [], keyAttribute: String? = nil, nameAttribute: String? = nil,
        derivedIDAttributes: [String] = []
    ) {
        self.name = name
        self.tableName = tableName ?? name.lowercased()
        self.attributes = attributes
        self.relationships = relationships
        self.keyAttribute = keyAttribute
        self.nameAttribute = nameAttribute
        self.derivedIDAttributes = derivedIDAttributes
    }

    /// The attribute named `name`, if the entity declares one.
    public subscript(name: String) -> AttributeDescription? {
        attributes.first(where: { $0.name == name })
    }

    /// The relationship named `name`, if the entity declares one.
    public func relationship(named name: String) -> RelationshipDescription? {
        relationships.first(where: { $0.name == name })
    }

    /// The position of the attribute named `name` in ``attributes``.
    public func index(ofAttribute name: String) -> Int? {
        // Through a pointer: `firstIndex(where:)` copies each declaration
        // it passes to the closure, and records look attributes up by name.
        attributes.withUnsafeBufferPointer { declarations in
            guard let first = declarations.baseAddress else { return nil }
            for index in declarations.indices where (first + index).pointee.name == name { return index }
            return nil
        }
    }

    /// The attribute read from the property-list key `key`, if any.
    public func attribute(forImportKey key: String) -> AttributeDescription? {
        attributes.first(where: { $0.importKey == key })
    }

    /// The attribute declared as the primary key (``AttributeDescription/isPrimaryKey``);
    /// nil when the store numbers the objects itself.
    public var primaryKeyAttribute: AttributeDescription? {
        attributes.first(where: \.isPrimaryKey)
    }

    /// The column of the primary key: the declared attribute's, else
    /// `pk`, an integer SQLite assigns (Core Data's `Z_PK`).
    public var primaryKeyColumn: String {
        primaryKeyAttribute?.columnName ?? "pk"
    }

    /// The column a table uses to refer to one of this entity's objects
    /// when no relationship name fits (a join table): `bowTie_id`, `tag_pk`.
    var referenceColumn: String {
        // Strings throughout: `Substring.lowercased()` and `String +
        // Substring` were first-time generic calls, 0.3 M instructions at
        // every start (every catalog builds its codecs with these names).
        String(name.prefix(1)).lowercased() + String(name.dropFirst()) + "_" + primaryKeyColumn
    }
}
