import ArgumentParser
import BowTiesKit
import CoreDataStore
import Foundation

extension DumpWriter.Format: ExpressibleByArgument {}
extension DumpWriter.BinaryForm: ExpressibleByArgument {}

extension BowTies.CoreData {
    /// `bowties coredata dump STORE`: every object, streamed.
    struct Dump: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "dump",
            abstract: "Write every object of a Core Data store as JSON, JSON Lines or CSV.",
            discussion: """
                Each object has its "entity" and its "objectID" as Core Data writes it \
                (x-coredata://STORE-UUID/Entity/pN), then its attributes and relationships by \
                name. Objects of a sub-entity carry their own entity's name; the \
                persistent-history tables are not objects and are left out.

                Values: dates in ISO 8601 UTC; UUIDs as text; booleans; numbers; to-one \
                relationships as the target's objectID, to-many ones as a list of objectIDs \
                (ordered ones in their order). Transformable values archived by the app \
                (NSKeyedArchiver) are decoded: strings, numbers, dates, arrays, dictionaries, \
                URLs, UUIDs, colours as #RRGGBB; an object of the app's own class shows its \
                class name and its bytes. Binary values, also those Core Data keeps in files \
                beside the store (.NAME_SUPPORT/_EXTERNAL_DATA), as --binary says: \
                {"size"} (none), {"size", "sha256"} (hash, the default) or {"size", "base64"}; \
                in CSV, the digest, the Base64 text or nothing.

                Objects are written as they are read, table by table in Z_PK order: memory \
                stays flat whatever the store's size.
                """)

        @Argument(help: ArgumentHelp("The store: the app's .sqlite file.", valueName: "store"))
        var store: String

        @OptionGroup var colorOption: ColorOption

        @Option(
            name: .long,
            help: ArgumentHelp(
                "Only the objects of this entity (and its sub-entities); repeat for more.", valueName: "name"))
        var entity: [String] = []

        @Option(name: .long, help: ArgumentHelp("json (an array), jsonl (an object a line) or csv.", valueName: "format"))
        var format: DumpWriter.Format = .json

        @Option(name: .long, help: ArgumentHelp("Binary values: none, hash or base64.", valueName: "form"))
        var binary: DumpWriter.BinaryForm = .hash

        func run() throws {
            let store = try CoreDataStore.open(self.store)
            let entities = entity.isEmpty ? nil : entity
            for name in entity where store.model.entity(named: name) == nil {
                throw UsageError(
                    "no entity '\(Output.escaped(name))' in \(Output.escaped(self.store)); it has "
                        + store.model.entities.map(\.name).joined(separator: ", "))
            }
            // A reader that goes away (`| head`) ends the dump quietly.
            signal(SIGPIPE, SIG_IGN)
            let output = ExportOutput()
            let writer = DumpWriter(store: store, format: format, binary: binary, entities: entities) { bytes in
                try output.write(String(decoding: bytes, as: UTF8.self))
            }
            try store.forEachObject(of: entities) { object in try writer.write(object) }
            try writer.finish()
        }
    }
}
