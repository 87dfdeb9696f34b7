import ArgumentParser
import BowTiesKit
import Foundation

extension BowTies {
    /// `bowties export [--output FILE]`.
    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Export the catalog as CSV (or JSON with --json).",
            discussion: """
                CSV per RFC 4180 (UTF-8, CRLF line ends), a header row, then one row per tie: \
                \(Catalog.csvColumns.joined(separator: ", ")). \
                lastWorn is ISO 8601 UTC, tintColor #RRGGBB, photoBytes and photoSHA256 \
                describe the photo. A file given with --output is written atomically.

                Cells are exactly what the catalog holds, so an export reads back unchanged. \
                If the file is for a spreadsheet and its text comes from others, add \
                --spreadsheet-safe: text starting with =, +, -, @, a tab or a carriage return \
                (which a spreadsheet would run as a formula) then gets a ' in front.

                With a query, only the ties it selects, in its order (a query that selects none \
                gives the header alone).

                \(QueryArgument.help)
                """)

        @Option(
            help: ArgumentHelp("Write to this file instead of standard output.", valueName: "file"), completion: .file()
        )
        var output: String?

        @Flag(help: "Prefix cells a spreadsheet would run as formulas with ' (OWASP's CSV-injection advice).")
        var spreadsheetSafe = false

        @OptionGroup var options: CatalogOptions

        @OptionGroup var query: QueryArgument

        func validate() throws {
            if spreadsheetSafe && options.json {
                throw ValidationError("--spreadsheet-safe applies to CSV; JSON strings are never run as formulas.")
            }
        }

        func run() throws {
            let catalog = try options.openCatalog(.readOnly)
            let destination = output.map { ExportDestination.file(URL(fileURLWithPath: $0)) } ?? .standardOutput
            let selection = try query.query(for: catalog)
            if options.json {
                let json = try Output.jsonData(
                    catalog.bowTies(matching: selection).map { BowTieJSON($0, catalog: catalog) })
                if let output {
                    try Catalog.writeFile(json + Data("\n".utf8), to: URL(fileURLWithPath: output))
                } else {
                    Output.line(String(decoding: json, as: UTF8.self))
                }
                return
            }
            let count = try catalog.exportCSV(to: destination, query: selection, spreadsheetSafe: spreadsheetSafe)
            if let output {
                Terminal.standardError.write("Exported \(count) bow tie\(count == 1 ? "" : "s") to \(output).\n")
            }
        }
    }
}
