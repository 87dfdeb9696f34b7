import ArgumentParser
import BowTiesKit
import Foundation

extension BowTies {
    /// `bowties favorite KEY [--off]`, also spelt `favourite`, as its
    /// messages spell the word.
    struct Favorite: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "favorite",
            abstract: "Mark a bow tie as a favourite (or not, with --off).",
            discussion: KeyArgument.discussion
                + """


                A tie that already is (or is not) a favourite stays as it is: bowties \
                says so, exits 0, and logs nothing to undo. `favourite` is the same command.
                """,
            aliases: ["favourite"])

        @Argument(help: KeyArgument.help, completion: Completions.searchKeys)
        var key: String

        @Flag(help: "Remove the favourite mark instead.")
        var off = false

        @OptionGroup var options: CatalogOptions

        func run() throws {
            try Self.favorite(key, off: off, options: options.settings)
        }

        /// The command's work, from plain values (``FastPath`` calls it).
        static func favorite(_ key: String, off: Bool, options: CatalogSettings) throws {
            let catalog = try options.openCatalog(.pointWrite)
            // Nothing to change is no action: the undo history keeps only
            // changes, and the words say what was already so.
            let current = try catalog.bowTie(matching: key)
            let unchanged = current.isFavorite == !off
            let tie = unchanged ? current : try catalog.setFavorite(key, !off)
            if options.json {
                try Output.json(BowTieJSON(tie, catalog: catalog))
                return
            }
            if unchanged {
                Output.line("\(Output.title(tie)) \(tie.isFavorite ? "is already" : "is not") a favourite.")
            } else {
                Output.line("\(Output.title(tie)) is \(tie.isFavorite ? "now" : "no longer") a favourite.")
            }
        }
    }
}
