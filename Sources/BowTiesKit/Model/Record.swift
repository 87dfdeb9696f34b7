import Foundation

/// One object of an entity, its values held by attribute, like an
/// `NSManagedObject`: what the store, validation, import and export
/// work on, whatever the entity.
///
/// ```swift
/// var record = Record(entity: BowTieModel.entity)
/// record["name"] = .string("Paisley")
/// ```
public struct Record: Sendable {
    public let entity: EntityDescription
    /// Values by the position of their attribute in ``EntityDescription/attributes``.
    public var values: [AttributeValue?]
    /// The objects each to-one relationship leads to, by the position of
    /// the relationship in ``EntityDescription/relationships`` (nil for
    /// to-many ones and empty links): the destination's primary key.
    public var links: [AttributeValue?]
    /// For the to-many relationships whose destination has a name
    /// (``EntityDescription/nameAttribute``): the names of the objects
    /// they lead to, sorted ignoring case. Absent when not loaded; an
    /// import leaves a relationship out when the file does not mention it.
    public var names: [String: [String]]
    /// The number the store gave an object of an entity without a
    /// declared primary key (``EntityDescription/primaryKeyColumn`` `pk`).
    public var rowKey: Int64?

    /// An empty object of `entity`, every attribute at its default.
    public init(entity: EntityDescription) {
        self.entity = entity
        values = entity.attributes.map(\.defaultValue)
        links = Array(repeating: nil, count: entity.relationships.count)
        names = [:]
    }

    /// An object with these values (in attribute order).
    init(entity: EntityDescription, values: [AttributeValue?]) {
        self.entity = entity
        self.values = values
        links = Array(repeating: nil, count: entity.relationships.count)
        names = [:]
    }

    /// The value of the attribute named `name`; setting one the entity
    /// does not declare does nothing.
    public subscript(name: String) -> AttributeValue? {
        get { entity.index(ofAttribute: name).flatMap { values[$0] } }
        set {
            guard let index = entity.index(ofAttribute: name) else { return }
            values[index] = newValue
        }
    }

    /// The primary key of the object at the end of the to-one
    /// relationship `name`.
    public func link(_ name: String) -> AttributeValue? {
        entity.relationships.firstIndex(where: { $0.name == name }).flatMap { links[$0] }
    }

    public mutating func setLink(_ name: String, to key: AttributeValue?) {
        guard let index = entity.relationships.firstIndex(where: { $0.name == name }) else { return }
        links[index] = key
    }

    /// The value of the declared primary key, or the store's number.
    public var primaryKey: AttributeValue? {
        if let attribute = entity.attributes.firstIndex(where: \.isPrimaryKey) { return values[attribute] }
        return rowKey.map(AttributeValue.integer)
    }

    /// How messages name the object: its key, then its name in quotes
    /// (`R "Red Bow Tie"`); else its primary key.
    public var label: String {
        func text(_ attribute: String?) -> String? {
            guard let attribute, case .string(let text)? = self[attribute] else { return nil }
            return text
        }
        return Self.label(
            key: text(entity.keyAttribute), name: text(entity.nameAttribute),
            fallback: primaryKey.map {
                entity.primaryKeyAttribute == nil ? "\(entity.name) \($0.displayText)" : $0.displayText
            })
    }

    /// `R "Red Bow Tie"`: both parts shortened as ``AttributeValue/messageText``
    /// is, since a record is labelled before validation, from whatever a
    /// file holds.
    static func label(key: String?, name: String?, fallback: @autoclosure () -> String?) -> String {
        var parts: [String] = []
        if let key, !key.isEmpty { parts.append(AttributeValue.abbreviated(key)) }
        if let name { parts.append("\"\(AttributeValue.abbreviated(name))\"") }
        if parts.isEmpty, let fallback = fallback() { parts.append(fallback) }
        return parts.joined(separator: " ")
    }
}

extension Record: Equatable {
    public static func == (lhs: Record, rhs: Record) -> Bool {
        lhs.entity.name == rhs.entity.name && lhs.values == rhs.values && lhs.links == rhs.links
            && lhs.names == rhs.names && lhs.rowKey == rhs.rowKey
    }
}
