import ArgumentParser
import BowTiesKit
import Foundation

extension BowTies {
    /// `bowties rate KEY VALUE`.
    struct Rate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rate",
            abstract: "Rate a bow tie from \(Output.ratingScale) (decimals allowed).",
            discussion: KeyArgument.discussion
                + "\n\nA rating outside \(Output.ratingRange) is refused (\"rating is too large.\", code 1610; "
                + "\"rating is too small.\", 1620) and nothing changes.")

        @Argument(help: KeyArgument.help, completion: Completions.searchKeys)
        var key: String

        @Argument(help: ArgumentHelp("The rating, from \(Output.ratingScale) (e.g. 4.5).", valueName: "rating"))
        var value: Double

        @OptionGroup var options: CatalogOptions

        func run() throws {
            try Self.rate(key, value, options: options.settings)
        }

        /// The command's work, from plain values (``FastPath`` calls it).
        static func rate(_ key: String, _ value: Double, options: CatalogSettings) throws {
            let catalog = try options.openCatalog(.pointWrite)
            let tie = try catalog.rate(key, value)
            if options.json {
                try Output.json(BowTieJSON(tie, catalog: catalog))
                return
            }
            Output.line("Rated \(Output.title(tie)): \(Output.rating(tie.rating))")
        }
    }
}
