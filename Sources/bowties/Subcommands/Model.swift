import ArgumentParser
import BowTiesKit
import Foundation

extension BowTies {
    /// `bowties model`: the declared object model, as Xcode's model editor
    /// shows it.
    struct Model: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "model",
            abstract: "Show the object model: each entity, its attributes and its relationships.",
            discussion: """
                Everything bowties stores, checks, imports and exports follows from this one \
                declaration: the store's tables, validation (with Core Data's error codes), \
                the property-list keys and the export columns. Relationships show their \
                destination, inverse, delete rule (what deleting this object does to the \
                objects at the other end: cascade deletes them, nullify unlinks them, deny \
                refuses) and how many objects they may hold. It needs no catalog.
                """)

        @OptionGroup var options: CatalogOptions

        func run() throws {
            if !options.json { Pager.start(disabled: options.noPager) }
            if options.json {
                try Output.json(ModelJSON(entities: BowTieModel.entities.map(EntityJSON.init)))
                return
            }
            for (number, entity) in BowTieModel.entities.enumerated() {
                if number > 0 { Output.line() }
                var count = Output.count(entity.attributes.count, "attribute")
                if !entity.relationships.isEmpty {
                    count += ", " + Output.count(entity.relationships.count, "relationship")
                }
                Output.line("\(entity.name) (\(count))")
                let table = Table(
                    header: ["ATTRIBUTE", "TYPE", "RULES"],
                    rows: entity.attributes.map { attribute in
                        [attribute.name, attribute.type.displayName, attribute.ruleSummary.joined(separator: ", ")]
                    })
                for line in table.lines { Output.line("  " + line) }
                guard !entity.relationships.isEmpty else { continue }
                let relationships = Table(
                    header: ["RELATIONSHIP", "DESTINATION", "INVERSE", "TYPE", "DELETE RULE", "RULES"],
                    rows: entity.relationships.map { relationship in
                        [
                            relationship.name, relationship.destination, relationship.inverse,
                            relationship.isToMany ? "to-many" : "to-one", relationship.deleteRule.rawValue,
                            relationship.ruleSummary.joined(separator: ", "),
                        ]
                    })
                for line in relationships.lines { Output.line("  " + line) }
            }
        }
    }
}

private struct ModelJSON: Encodable {
    var entities: [EntityJSON]
}

private struct EntityJSON: Encodable {
    var name: String
    var attributes: [AttributeJSON]
    var relationships: [RelationshipJSON]

    init(_ entity: EntityDescription) {
        name = entity.name
        attributes = entity.attributes.map(AttributeJSON.init)
        relationships = entity.relationships.map(RelationshipJSON.init)
    }
}

private struct RelationshipJSON: Encodable {
    var name: String
    var destination: String
    var inverse: String
    var toMany: Bool
    var deleteRule: String
    var minCount: Int
    var maxCount: Int?

    init(_ relationship: RelationshipDescription) {
        name = relationship.name
        destination = relationship.destination
        inverse = relationship.inverse
        toMany = relationship.isToMany
        deleteRule = relationship.deleteRule.rawValue
        minCount = relationship.minCount
        maxCount = relationship.maxCount
    }

    enum CodingKeys: String, CodingKey {
        case name, destination, inverse, toMany, deleteRule, minCount, maxCount
    }

    func encode(to encoder: any Encoder) throws {
        // Every key always present, null when unbounded.
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(destination, forKey: .destination)
        try container.encode(inverse, forKey: .inverse)
        try container.encode(toMany, forKey: .toMany)
        try container.encode(deleteRule, forKey: .deleteRule)
        try container.encode(minCount, forKey: .minCount)
        try container.encode(maxCount, forKey: .maxCount)
    }
}

private struct AttributeJSON: Encodable {
    var name: String
    var type: String
    var optional: Bool
    var unique: Bool
    var minValue: Double?
    var maxValue: Double?
    var minLength: Int?
    var maxLength: Int?
    var defaultValue: String?
    var allowsExternalStorage: Bool
    var valueTransformerName: String?
    var importKey: String
    var primaryKey: Bool
    var indexed: Bool
    var pattern: String?
    /// The string must hold a character other than white space.
    var requiresNonSpace: Bool
    var caseInsensitive: Bool
    /// A value must read as a plain word among command arguments (search keys).
    var queryWord: Bool
    /// How a derived value follows from a relationship: `baseline + wears.@count`.
    var derivation: String?

    init(_ attribute: AttributeDescription) {
        name = attribute.name
        type = attribute.type.displayName
        optional = attribute.isOptional
        unique = attribute.isUnique
        minValue = attribute.minValue
        maxValue = attribute.maxValue
        minLength = attribute.minLength
        maxLength = attribute.maxLength
        defaultValue = attribute.defaultValue?.displayText
        allowsExternalStorage = attribute.allowsExternalStorage
        valueTransformerName = attribute.valueTransformerName
        importKey = attribute.importKey
        primaryKey = attribute.isPrimaryKey
        indexed = attribute.isIndexed
        pattern = attribute.pattern
        requiresNonSpace = attribute.requiresNonSpace
        caseInsensitive = attribute.isCaseInsensitive
        queryWord = attribute.isQueryWord
        switch attribute.derivation {
        case .count(let relationship)?: derivation = "baseline + \(relationship).@count"
        case .latest(let relationship, let name)?: derivation = "max(baseline, \(relationship).@max.\(name))"
        case nil: derivation = nil
        }
    }

    enum CodingKeys: String, CodingKey {
        case name, type, optional, unique, minValue, maxValue, minLength, maxLength, defaultValue
        case allowsExternalStorage, valueTransformerName, importKey
        case primaryKey, indexed, pattern, requiresNonSpace, caseInsensitive, queryWord, derivation
    }

    func encode(to encoder: any Encoder) throws {
        // Every key always present, null when it does not apply.
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(type, forKey: .type)
        try container.encode(optional, forKey: .optional)
        try container.encode(unique, forKey: .unique)
        try container.encode(minValue, forKey: .minValue)
        try container.encode(maxValue, forKey: .maxValue)
        try container.encode(minLength, forKey: .minLength)
        try container.encode(maxLength, forKey: .maxLength)
        try container.encode(defaultValue, forKey: .defaultValue)
        try container.encode(allowsExternalStorage, forKey: .allowsExternalStorage)
        try container.encode(valueTransformerName, forKey: .valueTransformerName)
        try container.encode(importKey, forKey: .importKey)
        try container.encode(primaryKey, forKey: .primaryKey)
        try container.encode(indexed, forKey: .indexed)
        try container.encode(pattern, forKey: .pattern)
        try container.encode(requiresNonSpace, forKey: .requiresNonSpace)
        try container.encode(caseInsensitive, forKey: .caseInsensitive)
        try container.encode(queryWord, forKey: .queryWord)
        try container.encode(derivation, forKey: .derivation)
    }
}
