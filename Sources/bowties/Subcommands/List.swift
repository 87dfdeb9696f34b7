import ArgumentParser
import BowTiesKit
import Foundation

extension BowTieOrder: ExpressibleByArgument {}

extension BowTies {
    /// `bowties list`: a table of the catalog.
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the bow ties in the catalog.",
            discussion: """
                Shows one line per tie: search key, name, rating, times worn, last worn, \
                favourite (*) and colour (a swatch when the terminal has colour; set NO_COLOR \
                to turn it off).
                """)

        @Flag(help: "Show only favourites.")
        var favorites = false

        @Option(help: ArgumentHelp("Show only the ties with this tag (ignoring case).", valueName: "name"))
        var tag: String?

        @Option(help: "Order by added, key, name, rating, timesWorn or lastWorn.")
        var sort: BowTieOrder = .added

        @Flag(help: "Reverse the order.")
        var reverse = false

        @OptionGroup var options: CatalogOptions

        func run() throws {
            let catalog = try options.openCatalog(.readOnly)
            let ties = try catalog.bowTies(favoritesOnly: favorites, tag: tag, order: sort, reverse: reverse)
            if options.json {
                try Output.json(ties.map { BowTieJSON($0, catalog: catalog) })
                return
            }
            if ties.isEmpty, let tag {
                Output.line("No bow tie is tagged \"\(Output.escaped(tag))\"\(favorites ? " among the favourites" : "").")
                return
            }
            if ties.isEmpty {
                Output.line(
                    favorites
                        ? "No favourites yet: mark one with `bowties favorite KEY`."
                        : "The catalog is empty: add ties with `bowties import`.")
                return
            }
            let header = ["KEY", "NAME", "RATING", "WORN", "LAST WORN", "FAV", "COLOUR"]
            let rows = ties.map { tie in
                [
                    tie.searchKey ?? "-",
                    tie.name ?? "",
                    Output.number(tie.rating),
                    String(tie.timesWorn),
                    tie.lastWorn.map { String(Output.date($0).prefix(10)) } ?? "never",
                    tie.isFavorite ? "*" : "",
                    tie.tintColor.map { color in
                        let swatch = Output.swatch(color)
                        return swatch.isEmpty ? color.hexString : swatch + " " + color.hexString
                    } ?? "",
                ]
            }
            for line in Table(header: header, rows: rows, rightAligned: [2, 3]).lines {
                Output.line(line)
            }
            let favourites = ties.filter(\.isFavorite).count
            Output.line()
            Output.line(
                "\(ties.count) bow tie\(ties.count == 1 ? "" : "s"), \(favourites) favourite\(favourites == 1 ? "" : "s")"
            )
        }
    }
}
