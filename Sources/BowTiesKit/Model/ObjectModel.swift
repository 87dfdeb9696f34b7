/// A whole object model: its entities and the relationships between
/// them, like `NSManagedObjectModel`.
///
/// ```swift
/// let model = ObjectModel(entities: [BowTieModel.entity, BowTieModel.wear, BowTieModel.tag])
/// try model.validate()
/// ```
public struct ObjectModel: Sendable {
    public var entities: [EntityDescription]

    public init(entities: [EntityDescription]) {
        self.entities = entities
    }

    /// The entity named `name`.
    public subscript(name: String) -> EntityDescription? {
        entities.first(where: { $0.name == name })
    }

    /// The relationship at the other end of `relationship`.
    public func inverse(of relationship: RelationshipDescription) -> RelationshipDescription? {
        self[relationship.destination]?.relationship(named: relationship.inverse)
    }

    /// Checks that the declaration can be stored: every relationship has a
    /// destination and an inverse that names it back, delete rules the
    /// store can enforce, derived attributes that follow a to-many, and
    /// names that are unique.
    ///
    /// - Throws: ``ModelError`` naming the first thing wrong.
    public func validate() throws {
        var tables: Set<String> = []
        for entity in entities {
            guard tables.insert(entity.tableName).inserted else {
                throw ModelError("two entities use the table \(entity.tableName)")
            }
            var names: Set<String> = []
            for name in entity.attributes.map(\.name) + entity.relationships.map(\.name) {
                guard names.insert(name).inserted else { throw ModelError("\(entity.name).\(name) is declared twice") }
            }
            guard entity.attributes.filter(\.isPrimaryKey).count <= 1 else {
                throw ModelError("\(entity.name) declares more than one primary key")
            }
            for relationship in entity.relationships {
                let path = "\(entity.name).\(relationship.name)"
                guard let inverse = inverse(of: relationship) else {
                    throw ModelError("\(path): no relationship \(relationship.destination).\(relationship.inverse)")
                }
                guard inverse.inverse == relationship.name, inverse.destination == entity.name else {
                    throw ModelError("\(path) and its inverse \(relationship.destination).\(inverse.name) disagree")
                }
                if relationship.isToMany, inverse.isToMany, relationship.deleteRule == .cascade {
                    throw ModelError("\(path): a many-to-many relationship cannot cascade")
                }
                if !relationship.isToMany, !inverse.isToMany {
                    throw ModelError("\(path): one-to-one relationships are not supported; make one end to-many")
                }
                if !relationship.isToMany, relationship.minCount > 0, inverse.deleteRule == .nullify {
                    throw ModelError(
                        "\(path) is required, so deleting its \(relationship.destination) cannot nullify it")
                }
                if relationship.importKey != nil, self[relationship.destination]?.nameAttribute == nil {
                    throw ModelError("\(path) is imported by name, but \(relationship.destination) has no name")
                }
            }
            for attribute in entity.attributes {
                guard let derivation = attribute.derivation else { continue }
                guard let relationship = entity.relationship(named: derivation.relationship), relationship.isToMany,
                    let inverse = inverse(of: relationship), !inverse.isToMany
                else {
                    throw ModelError(
                        "\(entity.name).\(attribute.name) must follow a one-to-many relationship")
                }
                if case .latest(_, let name) = derivation,
                    self[relationship.destination]?[name]?.type != attribute.type
                {
                    throw ModelError(
                        "\(entity.name).\(attribute.name) follows \(relationship.destination).\(name) of another type")
                }
            }
        }
    }
}

/// A declaration the store cannot hold.
public struct ModelError: Error, CustomStringConvertible {
    public var description: String

    init(_ description: String) {
        self.description = "invalid object model: " + description
    }
}
