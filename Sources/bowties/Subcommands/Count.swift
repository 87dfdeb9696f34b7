import ArgumentParser
import BowTiesKit
import Foundation

extension BowTies {
    /// `bowties count [QUERY...]`: how many ties a query selects.
    struct Count: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "count",
            abstract: "Count the bow ties a query selects (all of them without one).",
            discussion: """
                Prints the number (0 when none match: that is an answer, exit 0). \
                With --json: {"count": N}.

                \(QueryArgument.help)
                """)

        @OptionGroup var options: CatalogOptions

        @OptionGroup var query: QueryArgument

        func run() throws {
            try Self.count(query.terms, options: options.settings)
        }

        /// The command's work, from plain values (``FastPath`` calls it).
        static func count(_ terms: [String], options: CatalogSettings) throws {
            let catalog = try options.openCatalog(.readOnly)
            let count = try catalog.count(matching: QueryArgument.query(terms, for: catalog))
            if options.json {
                try Output.json(["count": count])
            } else {
                Output.line(String(count))
            }
        }
    }
}
