import ArgumentParser
import BowTiesKit
import Foundation

extension BowTies {
    /// `bowties export [--format F] [--output FILE]`.
    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Export the catalog as CSV (or TSV, JSON, JSON Lines, a property list or the table).",
            discussion: """
                Every format streams the ties straight from the catalog: memory stays flat \
                however large it is. A file given with --output is written atomically.

                CSV (the default) per RFC 4180 (UTF-8, CRLF line ends), a header row, then one \
                row per tie: \(Catalog.csvColumns.joined(separator: ", ")). lastWorn is ISO 8601 \
                UTC, tintColor #RRGGBB, photoBytes and photoSHA256 describe the photo, tags are \
                joined by ", ", wears is JSON text (as in JSON). TSV has the same columns, tab-separated with LF line ends; a tab, \
                line feed, carriage return or backslash in a cell is written \\t, \\n, \\r or \\\\.

                JSON (--format json, or --json) is an array of one object per tie, one object \
                per line; JSON Lines (jsonl) is the objects alone, one per line. Each object has \
                every field, null when it has no value: \
                \(Catalog.exportFieldNames.joined(separator: ", ")). Dates are ISO 8601 UTC \
                (2014-06-19T18:15:24Z), colours #RRGGBB, tags an array of names, wears an array \
                of {"date", "note"} objects, oldest first. timesWornBefore and lastWornBefore \
                are the counts before the history began (timesWorn is timesWornBefore plus the \
                wears; lastWorn the latest of lastWornBefore and the wears' dates): with them, \
                an import restores the tie exactly. A property list (plist) is Apple's XML \
                format: an array of one dict per tie with the same keys, less those with no value \
                (a property list has no null). XML 1.0 cannot hold control characters other than \
                tab, line feed and carriage return: each is written as U+FFFD, and export says \
                how many on standard error.

                Photos (--photos): hash (the default) describes each photo, as an object of \
                bytes, sha256, storage (inline or external) and file (external ones) in JSON and \
                property lists; inline writes its bytes, read and checked, as a Base64 string in \
                JSON, <data> in a property list, and an extra photoBase64 column in CSV and TSV; \
                none leaves photos out (null in JSON, no column in CSV and TSV). --fields a,b,c \
                writes those fields only, in that order.

                Every format imports back (bowties import): into the same catalog, every tie is \
                unchanged; into another, the same ties. Photos travel with inline; with hash, \
                the catalog imported into must hold them, or --images DIR (a catalog's photo \
                folder, or the images they came from) must have them; with none, an import \
                restores no photo (new ties have none, updated ones keep theirs).

                Cells are exactly what the catalog holds, so an export reads back unchanged. \
                If a CSV file is for a spreadsheet and its text comes from others, add \
                --spreadsheet-safe: text starting with =, +, -, @, a tab or a carriage return \
                (which a spreadsheet would run as a formula) then gets a ' in front.

                The table (--format table) is list's, escaped for a terminal. Into a file it \
                sizes its columns from every tie, read once first, so every line lines up; on a \
                terminal or into a pipe from the first 100 ties, so the first line comes at once \
                (a later, wider cell pushes the rest of its line to the right). --widths all or \
                --widths page chooses either way.

                With a query, only the ties it selects, in its order (a query that selects none \
                gives the header alone, or an empty array).

                \(QueryArgument.help)
                """)

        @Option(
            help: ArgumentHelp("Write to this file instead of standard output.", valueName: "file"), completion: .file()
        )
        var output: String?

        @Flag(help: "Prefix cells a spreadsheet would run as formulas with ' (OWASP's CSV-injection advice).")
        var spreadsheetSafe = false

        @Option(help: BowTieTable.Widths.help(table: "--format table"))
        var widths: BowTieTable.Widths?

        @OptionGroup var format: FormatOptions

        @OptionGroup var options: CatalogOptions

        @OptionGroup var query: QueryArgument

        func validate() throws {
            let resolved = try format.resolved(default: .csv, json: options.json)
            if spreadsheetSafe && resolved != .csv && resolved != .tsv {
                throw ValidationError(
                    "--spreadsheet-safe applies to CSV and TSV; other formats are never run as formulas.")
            }
            if widths != nil && resolved != .table {
                throw ValidationError("--widths applies to --format table; the other formats have no columns to size.")
            }
        }

        func run() throws {
            let outputFormat = try format.resolved(default: .csv, json: options.json)
            let catalog = try options.openCatalog(.readOnly)
            let destination = output.map { ExportDestination.file(URL(fileURLWithPath: $0)) } ?? .standardOutput
            let selection = try query.query(for: catalog)
            // A closed pipe must end the writing with EPIPE, quietly, not kill it.
            signal(SIGPIPE, SIG_IGN)
            let count: Int
            var withoutPhotos = false
            if let exportFormat = outputFormat.exportFormat {
                var exportOptions = format.exportOptions(exportFormat)
                exportOptions.spreadsheetSafe = spreadsheetSafe
                let summary = try catalog.export(to: destination, query: selection, options: exportOptions)
                Self.warnAboutReplacements(summary)
                count = summary.count
                withoutPhotos = exportOptions.photos == .none && (exportOptions.fields?.contains("photo") ?? true)
            } else {
                let file = try output.map { try ExportOutput(file: URL(fileURLWithPath: $0)) } ?? ExportOutput()
                let table = BowTieTable(catalog: catalog, selection: selection, reverse: false)
                // A file is kept: every line lines up. On a terminal or into
                // a pipe (`export --format table | head`) the first line comes
                // at once, sized from the first page, as list's does.
                let sizing = widths ?? (output == nil ? .automatic(standardOutput: 1) : .all)
                count = try table.write(to: file, widths: sizing).ties
                try file.commit()
            }
            if let output {
                Terminal.standardError.write("Exported \(count) bow tie\(count == 1 ? "" : "s") to \(output).\n")
                if withoutPhotos {
                    // Said once, here, rather than by the import of every
                    // record: the file cannot bring photos back.
                    Terminal.standardError.write(
                        "Without photos (--photos none): importing it restores none; "
                            + "ties already in a catalog keep theirs.\n")
                }
            }
        }

        /// Says how many characters a property list could not hold.
        static func warnAboutReplacements(_ summary: ExportSummary) {
            let replaced = summary.replacedCharacters
            guard replaced > 0 else { return }
            Output.warning(
                "\(replaced) control character\(replaced == 1 ? "" : "s") that XML 1.0 cannot hold "
                    + "\(replaced == 1 ? "was" : "were") written as U+FFFD.")
        }
    }
}
