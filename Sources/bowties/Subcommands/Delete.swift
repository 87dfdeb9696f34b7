import ArgumentParser
import BowTiesKit
import Foundation

extension BowTies {
    /// `bowties delete KEY`.
    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete",
            abstract: "Delete a bow tie (and its photo file, when no other tie uses it).",
            discussion: KeyArgument.discussion)

        @Argument(help: KeyArgument.help)
        var key: String

        @OptionGroup var options: CatalogOptions

        func run() throws {
            let catalog = try options.openCatalog(.mustExist)
            let tie = try catalog.delete(key)
            if options.json {
                try Output.json(BowTieJSON(tie, catalog: catalog))
                return
            }
            Output.line("Deleted \(Output.title(tie)).")
        }
    }
}
