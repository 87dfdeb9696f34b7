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

                --format xcdatamodel writes the declaration as Xcode's model file (the \
                `contents` file inside a .xcdatamodel folder), so that an app on Apple's systems \
                can be built on the same model: `bowties model --format xcdatamodel > \
                BowTies.xcdatamodeld/BowTies.xcdatamodel/contents`. Its BowTie entity agrees, \
                attribute by attribute, with the Core Data sample's model, except where bowties' \
                declaration deliberately differs: id, name, rating, timesWorn and isFavorite are \
                required (the sample makes every attribute optional); name (1 to 500) and \
                searchKey (1 to 64) have lengths, and searchKey is unique; timesWorn is at least \
                0; tintColor's class is written UIColor (NSColor on macOS). The Wear and Tag \
                entities and BowTie's wears and tags are bowties' own. Rules a Core Data model \
                cannot hold are left out: patterns, "not only spaces", case-insensitive tags, the \
                derivation of timesWorn and lastWorn from wears, import keys.
                """)

        @OptionGroup var options: CatalogOptions

        @Option(
            name: .long,
            help: ArgumentHelp(
                "text (the default) or xcdatamodel (Xcode's model file, on standard output).", valueName: "format"))
        var format: ModelFormat = .text

        enum ModelFormat: String, ExpressibleByArgument, CaseIterable {
            case text, xcdatamodel
        }

        func run() throws {
            if format == .xcdatamodel {
                Terminal.standardOutput.write(XcodeModelDocument.contents(of: BowTieModel.entities))
                return
            }
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

/// Every key always present, null when unbounded (``ExplicitNull``).
private struct RelationshipJSON: Encodable {
    var name: String
    var destination: String
    var inverse: String
    var toMany: Bool
    var deleteRule: String
    var minCount: Int
    @ExplicitNull var maxCount: Int?

    init(_ relationship: RelationshipDescription) {
        name = relationship.name
        destination = relationship.destination
        inverse = relationship.inverse
        toMany = relationship.isToMany
        deleteRule = relationship.deleteRule.rawValue
        minCount = relationship.minCount
        maxCount = relationship.maxCount
    }
}

/// Every key always present, null when it does not apply (``ExplicitNull``).
private struct AttributeJSON: Encodable {
    var name: String
    var type: String
    var optional: Bool
    var unique: Bool
    @ExplicitNull var minValue: Double?
    @ExplicitNull var maxValue: Double?
    @ExplicitNull var minLength: Int?
    @ExplicitNull var maxLength: Int?
    @ExplicitNull var defaultValue: String?
    var allowsExternalStorage: Bool
    @ExplicitNull var valueTransformerName: String?
    var importKey: String
    var primaryKey: Bool
    var indexed: Bool
    @ExplicitNull var pattern: String?
    /// The string must hold a character other than white space.
    var requiresNonSpace: Bool
    var caseInsensitive: Bool
    /// A value must read as a plain word among command arguments (search keys).
    var queryWord: Bool
    /// How a derived value follows from a relationship: `baseline + wears.@count`.
    @ExplicitNull var derivation: String?

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
}
