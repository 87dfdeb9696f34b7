/// An entity: a named list of attribute descriptions, like
/// `NSEntityDescription`.
public struct EntityDescription: Sendable {
    public var name: String
    /// The attributes in declaration order, which is also the order of the
    /// table's columns and of the CSV export.
    public var attributes: [AttributeDescription]

    public init(name: String, attributes: [AttributeDescription]) {
        self.name = name
        self.attributes = attributes
    }

    /// The attribute named `name`, if the entity declares one.
    public subscript(name: String) -> AttributeDescription? {
        attributes.first(where: { $0.name == name })
    }

    /// The attribute read from the property-list key `key`, if any.
    public func attribute(forImportKey key: String) -> AttributeDescription? {
        attributes.first(where: { $0.importKey == key })
    }
}
