import Foundation

extension CoreDataModel {
    /// The model in a store's `Z_MODELCACHE`: raw DEFLATE of an
    /// NSKeyedArchiver archive of the `NSManagedObjectModel`.
    ///
    /// Entities come in the order of `entityNumbers` (the store's
    /// `Z_ENT`s); properties by name. Fetched properties are left out
    /// (they are queries, not data).
    /// - Parameters:
    ///   - compressed: `Z_CONTENT`.
    ///   - entityNumbers: `Z_PRIMARYKEY`'s `Z_NAME` → `Z_ENT`.
    ///   - file: The store's name, for errors.
    /// - Throws: ``CoreDataError`` of kind `.damaged` located at
    ///   `Z_MODELCACHE` when the blob does not inflate, or the archive's
    ///   error (`.malformedArchive`).
    static func fromModelCache(
        _ compressed: Data, entityNumbers: [String: Int], file: String
    ) throws(CoreDataError) -> CoreDataModel {
        guard let inflated = Inflate.raw(compressed) else {
            throw CoreDataError(
                .damaged, "the model cache (\(compressed.count) bytes) is not complete raw DEFLATE", file: file,
                at: "Z_MODELCACHE")
        }
        do {
            return try ModelArchiveDecoder(archive: KeyedArchive(data: inflated, file: file))
                .model(entityNumbers: entityNumbers)
        } catch {
            throw error.located(in: "Z_MODELCACHE", file: file)
        }
    }
}

/// Reads an archived `NSManagedObjectModel`: `NSEntities` (a
/// dictionary, usually Core Data's `NSKnownKeysDictionary`) of
/// `NSEntityDescription`s, each with `NSProperties` of
/// `NSAttributeDescription`s and `NSRelationshipDescription`s.
struct ModelArchiveDecoder {
    let archive: KeyedArchive

    func model(entityNumbers: [String: Int]) throws(CoreDataError) -> CoreDataModel {
        guard let root = try archive.fields(of: archive.rootObject) else {
            throw CoreDataError(.malformedArchive, "the root is not an object", file: archive.file)
        }
        guard let entitiesIndex = try archive.reference("NSEntities", in: root),
            let entries = try archive.entries(of: entitiesIndex)
        else {
            throw CoreDataError(.malformedArchive, "the model has no NSEntities dictionary", file: archive.file)
        }
        var entities: [CoreDataModel.Entity] = []
        for entry in entries {
            entities.append(try entity(entry.value))
        }
        // Own properties: those the parent does not have.
        let byName = Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for index in entities.indices {
            guard let parent = entities[index].parent.flatMap({ byName[$0] }) else { continue }
            let inherited = Set(parent.attributes.map(\.name) + parent.relationships.map(\.name))
            entities[index].ownPropertyNames.subtract(inherited)
        }
        entities.sort { (entityNumbers[$0.name] ?? Int.max, $0.name) < (entityNumbers[$1.name] ?? Int.max, $1.name) }
        var versions: [String] = []
        if let versionIndex = try archive.reference("NSVersionIdentifiers", in: root),
            let items = try archive.elements(of: versionIndex)
        {
            for item in items {
                if let text = try archive.stringObject(item) { versions.append(text) }
            }
        }
        return CoreDataModel(source: .modelCache, entities: entities, versionIdentifiers: versions.sorted())
    }

    private func entity(_ index: Int) throws(CoreDataError) -> CoreDataModel.Entity {
        guard let fields = try archive.fields(of: index), let name = try entityName(index) else {
            throw CoreDataError(.malformedArchive, "entity object \(index) has no NSEntityName", file: archive.file)
        }
        var parent: String?
        if let parentIndex = try archive.reference("NSSuperentity", in: fields) {
            parent = try entityName(parentIndex)
        }
        var attributes: [CoreDataModel.Attribute] = []
        var relationships: [CoreDataModel.Relationship] = []
        if let propertiesIndex = try archive.reference("NSProperties", in: fields),
            let properties = try archive.entries(of: propertiesIndex)
        {
            for property in properties {
                guard let propertyFields = try archive.fields(of: property.value),
                    let className = try archive.className(of: property.value)
                else { continue }
                switch className {
                case "NSAttributeDescription", "NSDerivedAttributeDescription":
                    attributes.append(try attribute(propertyFields, derived: className == "NSDerivedAttributeDescription"))
                case "NSRelationshipDescription":
                    relationships.append(try relationship(propertyFields))
                default:
                    // NSFetchedPropertyDescription, composite attributes:
                    // nothing stored in the entity's own columns.
                    continue
                }
            }
        }
        return CoreDataModel.Entity(
            name: name, parent: parent, isAbstract: try archive.bool("NSIsAbstract", in: fields),
            attributes: attributes.sorted { $0.name < $1.name },
            relationships: relationships.sorted { $0.name < $1.name })
    }

    private func entityName(_ index: Int) throws(CoreDataError) -> String? {
        guard let fields = try archive.fields(of: index), let nameIndex = try archive.reference("NSEntityName", in: fields)
        else { return nil }
        return try archive.stringObject(nameIndex)
    }

    private func propertyName(_ fields: [String: Int]) throws(CoreDataError) -> String {
        guard let nameIndex = try archive.reference("NSPropertyName", in: fields),
            let name = try archive.stringObject(nameIndex)
        else {
            throw CoreDataError(.malformedArchive, "a property without NSPropertyName", file: archive.file)
        }
        return name
    }

    private func attribute(_ fields: [String: Int], derived: Bool) throws(CoreDataError) -> CoreDataModel.Attribute {
        let name = try propertyName(fields)
        let code = try archive.integer("NSAttributeType", in: fields) ?? 0
        var attribute = CoreDataModel.Attribute(
            name: name, type: CoreDataModel.AttributeType(rawValue: Int(code)) ?? .undefined,
            isOptional: try archive.bool("NSIsOptional", in: fields),
            isTransient: try archive.bool("NSIsTransient", in: fields), isDerived: derived)
        if let defaultIndex = try archive.reference("NSDefaultValue", in: fields) {
            attribute.defaultValue = Self.text(try? archive.decodeValue(defaultIndex))
        } else if let inline = try archive.value("NSDefaultValue", in: fields) {
            attribute.defaultValue = Self.text(inline)
        }
        if let transformer = try archive.reference("NSValueTransformerName", in: fields) {
            attribute.transformerName = try archive.stringObject(transformer)
        }
        if attribute.type == .transformable, let className = try archive.reference("NSAttributeValueClassName", in: fields) {
            attribute.valueClassName = try archive.stringObject(className)
        }
        if attribute.type == .binary || attribute.type == .transformable {
            let allows = try archive.bool("NSAllowsExternalBinaryDataStorage", in: fields)
            let stores = try archive.bool("NSStoresBinaryDataExternally", in: fields)
            attribute.allowsExternalStorage = allows || stores
        }
        if let predicates = try archive.reference("NSValidationPredicates", in: fields) {
            let (minimum, maximum) = try bounds(predicates, depth: 0)
            attribute.minimum = minimum
            attribute.maximum = maximum
        }
        return attribute
    }

    /// Minimum and maximum from validation predicates: comparisons of
    /// the value (or its `length`) with a constant, `>=` and `<=`.
    private func bounds(_ index: Int, depth: Int) throws(CoreDataError) -> (String?, String?) {
        guard depth < 8 else { return (nil, nil) }
        var minimum: String?
        var maximum: String?
        let children: [Int]
        if let items = try archive.elements(of: index) {
            children = items
        } else if let fields = try archive.fields(of: index), let sub = try archive.reference("NSSubpredicates", in: fields),
            let items = try archive.elements(of: sub)
        {
            children = items
        } else {
            children = []
        }
        for child in children {
            let (low, high) = try bounds(child, depth: depth + 1)
            minimum = minimum ?? low
            maximum = maximum ?? high
        }
        if try archive.className(of: index) == "NSComparisonPredicate", let fields = try archive.fields(of: index),
            let operatorIndex = try archive.reference("NSPredicateOperator", in: fields),
            let operatorFields = try archive.fields(of: operatorIndex),
            let type = try archive.integer("NSOperatorType", in: operatorFields),
            let right = try archive.reference("NSRightExpression", in: fields),
            let rightFields = try archive.fields(of: right)
        {
            let constant: String?
            if let reference = try archive.reference("NSConstantValue", in: rightFields) {
                constant = Self.text(try? archive.decodeValue(reference))
            } else {
                constant = Self.text(try archive.value("NSConstantValue", in: rightFields))
            }
            if let constant, constant.first.map({ $0.isNumber || $0 == "-" }) == true {
                // NSPredicateOperatorType: 1 is <=, 3 is >=.
                if type == 1 { maximum = constant }
                if type == 3 { minimum = constant }
            }
        }
        return (minimum, maximum)
    }

    private func relationship(_ fields: [String: Int]) throws(CoreDataError) -> CoreDataModel.Relationship {
        let name = try propertyName(fields)
        var destination: String?
        if let index = try archive.reference("NSDestinationEntity", in: fields) {
            destination = try entityName(index)
        }
        if destination == nil, let index = try archive.reference("_NSDestinationEntityName", in: fields) {
            destination = try archive.stringObject(index)
        }
        var inverse: String?
        if let index = try archive.reference("NSInverseRelationship", in: fields), let inverseFields = try archive.fields(of: index) {
            inverse = try propertyName(inverseFields)
        }
        if inverse == nil, let index = try archive.reference("_NSInverseRelationshipName", in: fields) {
            inverse = try archive.stringObject(index)
        }
        let maxCount = Int(try archive.integer("NSMaxCount", in: fields) ?? 0)
        return CoreDataModel.Relationship(
            name: name, destination: destination, isToMany: maxCount != 1, inverse: inverse,
            deleteRule: CoreDataModel.DeleteRule(rawValue: Int(try archive.integer("NSDeleteRule", in: fields) ?? 1))
                ?? .nullify,
            isOrdered: try archive.bool("NSIsOrdered", in: fields),
            isOptional: try archive.bool("NSIsOptional", in: fields),
            minCount: Int(try archive.integer("NSMinCount", in: fields) ?? 0), maxCount: maxCount)
    }

    /// A default or constant value as the model editor shows it.
    static func text(_ value: ArchivedValue?) -> String? {
        switch value {
        case .string(let text)?: text
        case .integer(let number)?: String(number)
        case .real(let number)?: ValueText.double(number)
        case .bool(let flag)?: flag ? "YES" : "NO"
        case .date(let seconds)?: ValueText.iso8601(seconds)
        case .uuid(let uuid)?: uuid.uuidString
        case .url(let text)?: text
        case .object(let className)?: "a \(className)"
        default: nil
        }
    }

    static func text(_ object: PlistObject?) -> String? {
        switch object {
        case .string(let text)?: text == "$null" ? nil : text
        case .integer(let number)?: String(number)
        case .real(let number)?: ValueText.double(number)
        case .bool(let flag)?: flag ? "YES" : "NO"
        default: nil
        }
    }
}

extension KeyedArchive {
    /// Object `index` decoded as a value tree (see ``decodeRoot()``).
    func decodeValue(_ index: Int) throws(CoreDataError) -> ArchivedValue {
        var copy = self
        copy = KeyedArchive(plist: plist, objects: objects, rootObject: index)
        return try copy.decodeRoot()
    }

    init(plist: BinaryPlistObjects, objects: [Int], rootObject: Int) {
        self.plist = plist
        self.objects = objects
        self.rootObject = rootObject
    }
}

/// The model decoder on an inflated archive, for the fuzz target and the
/// tests: what ``CoreDataStore`` does with `Z_MODELCACHE` once inflated.
public enum CoreDataModelDecoding {
    /// Decodes an archived `NSManagedObjectModel`.
    /// - Throws: ``CoreDataError`` (`.malformedArchive`).
    public static func model(fromArchive data: Data, file: String) throws(CoreDataError) -> CoreDataModel {
        try ModelArchiveDecoder(archive: KeyedArchive(data: data, file: file)).model(entityNumbers: [:])
    }
}
