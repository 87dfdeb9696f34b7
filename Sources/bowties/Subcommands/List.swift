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
                to turn it off). A query that matches nothing says so and exits 1.

                \(QueryArgument.help)
                """)

        @Flag(help: "Show only favourites.")
        var favorites = false

        @Option(help: ArgumentHelp("Show only the ties with this tag (ignoring case).", valueName: "name"))
        var tag: String?

        @Option(help: "Order by added, key, name, rating, timesWorn or lastWorn (sort: terms come first).")
        var sort: BowTieOrder = .added

        @Flag(help: "Reverse the order.")
        var reverse = false

        @OptionGroup var options: CatalogOptions

        @OptionGroup var query: QueryArgument

        func run() throws {
            let catalog = try options.openCatalog(.readOnly)
            var selection = try query.query(for: catalog)
            if favorites { selection = selection.and(try catalog.query(["is:favorite"])) }
            if let tag { selection = selection.and(try catalog.query(["tag:" + tag])) }
            let ties = try catalog.bowTies(matching: selection, order: sort, reverse: reverse)
            if ties.isEmpty, !query.terms.isEmpty {
                // As Taskwarrior does: nothing to show is a status scripts can test.
                if options.json {
                    Output.line("[]")
                } else {
                    Output.line("No bow tie matches \(Output.escaped(selection.description)).")
                }
                throw ExitCode(ExitStatus.noSuchRecord.rawValue)
            }
            if options.json {
                try Output.json(ties.map { BowTieJSON($0, catalog: catalog) })
                return
            }
            if ties.isEmpty, let tag {
                Output.line(
                    "No bow tie is tagged \"\(Output.escaped(tag))\"\(favorites ? " among the favourites" : "").")
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
