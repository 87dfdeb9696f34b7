import ArgumentParser
import BowTiesKit
import Foundation

extension BowTies {
    /// `bowties favorite KEY [--off]`.
    struct Favorite: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "favorite",
            abstract: "Mark a bow tie as a favourite (or not, with --off).",
            discussion: KeyArgument.discussion)

        @Argument(help: KeyArgument.help, completion: Completions.searchKeys)
        var key: String

        @Flag(help: "Remove the favourite mark instead.")
        var off = false

        @OptionGroup var options: CatalogOptions

        func run() throws {
            let catalog = try options.openCatalog(.mustExist)
            let tie = try catalog.setFavorite(key, !off)
            if options.json {
                try Output.json(BowTieJSON(tie, catalog: catalog))
                return
            }
            Output.line("\(Output.title(tie)) is \(tie.isFavorite ? "now" : "no longer") a favourite.")
        }
    }
}
