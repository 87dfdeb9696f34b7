import ArgumentParser
import BowTiesKit
import Foundation

extension BowTies {
    /// `bowties export [--output FILE]`.
    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Export the catalog as CSV (or JSON with --json).",
            discussion: """
                CSV per RFC 4180 (UTF-8, CRLF line ends), a header row, then one row per tie: \
                \(Catalog.csvColumns.joined(separator: ", ")). \
                lastWorn is ISO 8601 UTC, tintColor #RRGGBB, photoBytes and photoSHA256 \
                describe the photo. A file given with --output is written atomically.
                """)

        @Option(
            help: ArgumentHelp("Write to this file instead of standard output.", valueName: "file"), completion: .file()
        )
        var output: String?

        @OptionGroup var options: CatalogOptions

        func run() throws {
            let catalog = try options.openCatalog(.mustExist)
            let destination = output.map { ExportDestination.file(URL(fileURLWithPath: $0)) } ?? .standardOutput
            if options.json {
                let json = try Output.jsonData(catalog.bowTies().map { BowTieJSON($0, catalog: catalog) })
                if let output {
                    try Catalog.writeFile(json + Data("\n".utf8), to: URL(fileURLWithPath: output))
                } else {
                    Output.line(String(decoding: json, as: UTF8.self))
                }
                return
            }
            let count = try catalog.exportCSV(to: destination)
            if let output {
                Terminal.standardError.write("Exported \(count) bow tie\(count == 1 ? "" : "s") to \(output).\n")
            }
        }
    }
}
