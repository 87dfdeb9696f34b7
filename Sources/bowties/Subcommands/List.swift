import ArgumentParser
import BowTiesKit
import Foundation

/// The orders `list --sort` offers by name. Each but `added` is the
/// query's `sort:FIELD` term (``term``), ordered as every `sort:` term is;
/// `added` is the order every query ends with.
enum ListOrder: String, CaseIterable, ExpressibleByArgument {
    case added, key, name, rating, timesWorn, lastWorn

    /// `sort:searchKey`; nil for `added`.
    var term: String? {
        switch self {
        case .added: nil
        case .key: BowTieModel.entity.keyAttribute.map { "sort:" + $0 }
        default: "sort:" + rawValue
        }
    }
}

extension BowTieTable.Widths: ExpressibleByArgument {}

extension BowTies {
    /// `bowties list`: a table of the catalog, or any export format.
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the bow ties in the catalog.",
            discussion: """
                Shows one line per tie: search key, name, rating, times worn, last worn, \
                favourite (*) and colour (a swatch when the terminal has colour; set NO_COLOR \
                to turn it off), then how many ties and favourites were listed. A query, \
                --tag or --favorites that matches nothing says so and exits 1, as tag:NAME does.

                --format csv, tsv, json, jsonl or plist writes the ties as `export` does \
                (see `bowties export --help`), with --photos and --fields; --json is \
                --format json. Every format streams: the first lines come at once and memory \
                stays flat however large the catalog. On a terminal or into a pipe the table \
                sizes its columns from the first 100 ties, so that the first line comes at \
                once (a later, wider cell pushes the rest of its line to the right); into a \
                file, from every tie listed, read once before the table, so that every line \
                lines up. --widths all or --widths page chooses either way. \
                On a terminal the table goes through $PAGER (default: less -FRX), still \
                a row at a time; --no-pager, an empty PAGER or PAGER=cat print it directly, \
                and the other formats never use it. When the reader goes away \
                (`bowties list | head -1`, or q in the pager), list stops quietly and \
                exits 0.

                \(QueryArgument.help)
                """)

        @Flag(help: "Show only favourites.")
        var favorites = false

        @Option(help: ArgumentHelp("Show only the ties with this tag (ignoring case).", valueName: "name"))
        var tag: String?

        @Option(help: "Order by added, key, name, rating, timesWorn or lastWorn (sort: terms come first).")
        var sort: ListOrder = .added

        @Flag(help: "Reverse the order.")
        var reverse = false

        @Option(help: BowTieTable.Widths.help(table: "the table"))
        var widths: BowTieTable.Widths?

        @OptionGroup var format: FormatOptions

        @OptionGroup var options: CatalogOptions

        @OptionGroup var query: QueryArgument

        func validate() throws {
            _ = try format.resolved(default: .table, json: options.json)
            if let tag, tag.trimmingCharacters(in: .whitespaces).isEmpty {
                throw ArgumentParser.ValidationError("--tag needs a tag name, such as --tag formal.")
            }
        }

        /// True when something narrows the list (a query, --favorites or
        /// --tag): finding nothing is then an answer scripts can test, exit 1.
        private var filters: Bool { !query.terms.isEmpty || favorites || tag != nil }

        func run() throws {
            let outputFormat = try format.resolved(default: .table, json: options.json)
            let catalog = try options.openCatalog(.readOnly)
            var selection = try query.query(for: catalog)
            if favorites { selection = selection.and(try catalog.query(["is:favorite"])) }
            if let tag { selection = selection.and(try catalog.query(["tag:" + tag])) }
            // --sort is the sort: term it names, unless the query has its own.
            if selection.sortKeys.isEmpty, let term = sort.term {
                selection = selection.and(try catalog.query([term]))
            }
            // A closed pipe must end the writing with EPIPE, quietly, not kill it.
            signal(SIGPIPE, SIG_IGN)
            let output = ExportOutput()
            guard let exportFormat = outputFormat.exportFormat else {
                try table(catalog, selection, output)
                return
            }
            var exportOptions = format.exportOptions(exportFormat)
            exportOptions.reverse = reverse
            let summary = try catalog.export(to: .standardOutput, query: selection, options: exportOptions)
            Export.warnAboutReplacements(summary)
            if summary.count == 0, filters {
                // As Taskwarrior does: nothing to show is a status scripts can test.
                throw ExitCode(ExitStatus.noSuchRecord.rawValue)
            }
        }

        private func table(_ catalog: Catalog, _ selection: Query, _ output: ExportOutput) throws {
            let table = BowTieTable(catalog: catalog, selection: selection, reverse: reverse)
            // Asked before the pager takes standard output: the table is
            // still laid out for the terminal (first-page widths), and
            // streams into the pager a row at a time.
            let sizing = widths ?? .automatic(standardOutput: 1)
            Pager.start(disabled: options.noPager)
            let counts = try table.write(to: output, widths: sizing)
            if counts.ties == 0 {
                if !query.terms.isEmpty {
                    try output.write("No bow tie matches \(Output.escaped(selection.description)).\n")
                    throw ExitCode(ExitStatus.noSuchRecord.rawValue)
                }
                if let tag {
                    try output.write(
                        "No bow tie is tagged \"\(Output.escaped(tag))\"\(favorites ? " among the favourites" : "").\n")
                } else if favorites {
                    try output.write("No favourites yet: mark one with `bowties favorite KEY`.\n")
                } else {
                    try output.write("The catalog is empty: add ties with `bowties import`.\n")
                }
                if filters { throw ExitCode(ExitStatus.noSuchRecord.rawValue) }
                return
            }
            let ties = counts.ties
            let favourites = counts.favourites
            try output.write(
                "\n\(ties) bow tie\(ties == 1 ? "" : "s"), \(favourites) favourite\(favourites == 1 ? "" : "s")\n")
        }
    }
}
