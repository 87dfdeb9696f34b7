import ArgumentParser
import BowTiesKit
import CoreDataStore
import Foundation

extension BowTies.CoreData {
    /// `bowties coredata inspect STORE`: the store's model and facts.
    struct Inspect: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "inspect",
            abstract: "Show a Core Data store's model (entities, attributes, relationships) and facts.",
            discussion: """
                For each entity: its parent, whether it is abstract, its table and how many \
                objects of exactly that entity the store holds; its attributes with their Core \
                Data types as Xcode names them (Integer 32, String, Date, Binary, UUID, \
                Transformable...) and rules; its relationships with destination, inverse, \
                to-one or to-many, delete rule and whether they are ordered. Attributes and \
                relationships an entity inherits are listed under its parent.

                Facts: the store's UUID, the Core Data framework version that wrote it, the \
                model's version identifiers, where the model was read from (modelcache: the \
                store's own copy of the app's model; tables: only the tables, so names are \
                lower-cased and there are no rules), whether rows still wait in the -wal file, \
                and the persistent-history tables (not objects of the model).

                --json: {"uuid", "frameworkVersion", "modelSource", "entities": [{"name", \
                "parent", "abstract", "table", "count", "attributes": [{"name", "type", ...}], \
                "relationships": [{"name", "destination", "toMany", "inverse", "deleteRule", \
                "ordered"}]}], ...}.
                """)

        @Argument(help: ArgumentHelp("The store: the app's .sqlite file.", valueName: "store"))
        var store: String

        @OptionGroup var colorOption: ColorOption

        @Flag(name: .long, help: "Print JSON for scripts.")
        var json = false

        func run() throws {
            let store = try CoreDataStore.open(self.store)
            let counts = try store.objectCounts()
            let report = InspectJSON(store: store, counts: counts)
            if json {
                try Output.json(report)
                return
            }
            Output.line("Core Data store \(Output.escaped(self.store))")
            var facts: [[String]] = [
                ["UUID", report.uuid],
                ["Framework version", report.frameworkVersion ?? "unknown"],
                [
                    "Model",
                    store.model.source == .modelCache
                        ? "from Z_MODELCACHE (the app's model, archived in the store)"
                        : "from the tables (no Z_MODELCACHE: names lower-cased, no rules)",
                ],
                [
                    "Model versions",
                    report.modelVersionIdentifiers.isEmpty ? "none" : report.modelVersionIdentifiers.joined(separator: ", "),
                ],
                [
                    "Write-ahead log",
                    store.walFrames > 0
                        ? "\(Output.count(store.walFrames, "page")) not yet in the .sqlite file (read from the -wal)"
                        : "empty",
                ],
            ]
            if !report.historyTables.isEmpty {
                facts.append(["Persistent history", report.historyTables.joined(separator: ", ") + " (not objects)"])
            }
            for line in Table(header: ["", ""], rows: facts).lines.dropFirst() { Output.line("  " + line) }
            for entity in report.entities {
                Output.line()
                var heading = "\(Output.escaped(entity.name)) (" + Output.count(entity.count, "object")
                if let table = entity.table { heading += ", table \(table)" }
                if let parent = entity.parent { heading += ", sub-entity of \(Output.escaped(parent))" }
                if entity.abstract { heading += ", abstract" }
                Output.line(heading + ")")
                if !entity.attributes.isEmpty {
                    let table = Table(
                        header: ["ATTRIBUTE", "TYPE", "RULES"],
                        rows: entity.attributes.map { [Output.escaped($0.name), $0.type, $0.rules.joined(separator: ", ")] })
                    for line in table.lines { Output.line("  " + line) }
                }
                if !entity.relationships.isEmpty {
                    let table = Table(
                        header: ["RELATIONSHIP", "DESTINATION", "INVERSE", "TYPE", "DELETE RULE"],
                        rows: entity.relationships.map { relationship in
                            [
                                Output.escaped(relationship.name), Output.escaped(relationship.destination ?? "?"),
                                Output.escaped(relationship.inverse ?? "-"),
                                (relationship.toMany ? "to-many" : "to-one") + (relationship.ordered ? ", ordered" : ""),
                                relationship.deleteRule,
                            ]
                        })
                    for line in table.lines { Output.line("  " + line) }
                }
            }
        }
    }
}

/// `bowties coredata inspect --json`.
struct InspectJSON: Encodable {
    var uuid: String
    var frameworkVersion: String?
    var storeType: String?
    var modelSource: String
    var modelVersionIdentifiers: [String]
    var walFrames: Int
    var rowsInWAL: Bool
    var historyTables: [String]
    var entities: [Entity]

    struct Entity: Encodable {
        var name: String
        var parent: String?
        var abstract: Bool
        var table: String?
        var count: Int
        var attributes: [Attribute]
        var relationships: [Relationship]

        enum CodingKeys: String, CodingKey {
            case name, parent, abstract, table, count, attributes, relationships
        }

        func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            // Present, as null, for a root entity: every entity has the
            // same keys.
            try container.encode(parent, forKey: .parent)
            try container.encode(abstract, forKey: .abstract)
            try container.encode(table, forKey: .table)
            try container.encode(count, forKey: .count)
            try container.encode(attributes, forKey: .attributes)
            try container.encode(relationships, forKey: .relationships)
        }
    }

    struct Attribute: Encodable {
        var name: String
        var type: String
        var optional: Bool?
        var transient: Bool?
        var derived: Bool?
        var `default`: String?
        var min: String?
        var max: String?
        var externalStorage: Bool?
        var transformer: String?
        var valueClass: String?

        /// For people: `optional, default 0, min 3, max 50, external storage`.
        var rules: [String] {
            var rules: [String] = []
            if optional == true { rules.append("optional") }
            if transient == true { rules.append("transient (not stored)") }
            if derived == true { rules.append("derived") }
            if let value = `default` { rules.append("default \(Output.escaped(value))") }
            if let min { rules.append("min \(min)") }
            if let max { rules.append("max \(max)") }
            if externalStorage == true { rules.append("allows external storage") }
            if let transformer { rules.append("transformer \(Output.escaped(transformer))") }
            if let valueClass { rules.append("class \(Output.escaped(valueClass))") }
            return rules
        }
    }

    struct Relationship: Encodable {
        var name: String
        var destination: String?
        var toMany: Bool
        var inverse: String?
        var deleteRule: String
        var ordered: Bool

        enum CodingKeys: String, CodingKey {
            case name, destination, toMany, inverse, deleteRule, ordered
        }

        func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(destination, forKey: .destination)
            try container.encode(toMany, forKey: .toMany)
            try container.encode(inverse, forKey: .inverse)
            try container.encode(deleteRule, forKey: .deleteRule)
            try container.encode(ordered, forKey: .ordered)
        }
    }

    init(store: CoreDataStore, counts: [String: Int]) {
        uuid = store.uuid
        frameworkVersion = store.metadata.frameworkVersion
        storeType = store.metadata.storeType
        modelSource = store.model.source.rawValue
        modelVersionIdentifiers = store.metadata.modelVersionIdentifiers
        walFrames = store.walFrames
        rowsInWAL = store.walFrames > 0
        historyTables = store.historyTables
        let fromCache = store.model.source == .modelCache
        entities = store.model.entities.map { entity in
            Entity(
                name: entity.name, parent: entity.parent, abstract: entity.isAbstract, table: store.table(of: entity.name),
                count: counts[entity.name] ?? 0,
                attributes: entity.ownAttributes.map { attribute in
                    Attribute(
                        name: attribute.name, type: attribute.type.name, optional: fromCache ? attribute.isOptional : nil,
                        transient: attribute.isTransient ? true : nil, derived: attribute.isDerived ? true : nil,
                        default: attribute.defaultValue, min: attribute.minimum, max: attribute.maximum,
                        externalStorage: attribute.allowsExternalStorage == true ? true : nil,
                        transformer: attribute.transformerName, valueClass: attribute.valueClassName)
                },
                relationships: entity.ownRelationships.map { relationship in
                    Relationship(
                        name: relationship.name, destination: relationship.destination, toMany: relationship.isToMany,
                        inverse: relationship.inverse, deleteRule: relationship.deleteRule.name,
                        ordered: relationship.isOrdered)
                })
        }
    }
}
