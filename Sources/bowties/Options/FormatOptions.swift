import ArgumentParser
import BowTiesKit
import Foundation

/// What `list` and `export` can print: the table, or one of the export
/// formats (``ExportFormat``).
enum OutputFormat: String, CaseIterable, ExpressibleByArgument {
    case table, csv, tsv, json, jsonl, plist

    /// The export format, nil for the table.
    var exportFormat: ExportFormat? { ExportFormat(rawValue: rawValue) }
}

extension PhotoExport: ExpressibleByArgument {}

/// `--format`, `--photos` and `--fields`: the options `list` and `export`
/// share. The shared `--json` (``CatalogOptions``) means `--format json`.
struct FormatOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The output format: table, csv, tsv, json, jsonl or plist.", discussion: "--json means --format json.",
            valueName: "format"))
    var format: OutputFormat?

    @Option(
        help: ArgumentHelp(
            "How photos travel: none, hash (size, SHA-256 and place; the default) or inline (Base64).",
            valueName: "how"))
    var photos: PhotoExport?

    @Option(
        help: ArgumentHelp(
            "The fields to write, comma-separated, in this order (not for the table).",
            discussion: "Fields: \(Catalog.exportFieldNames.joined(separator: ", ")).",
            valueName: "a,b,c"),
        completion: Completions.fieldNames)
    var fields: String?

    /// The format asked for, given the command's default and `--json`.
    /// - Throws: `ValidationError` when `--json` and another `--format`
    ///   disagree, or `--fields`/`--photos` come with the table.
    func resolved(default fallback: OutputFormat, json: Bool) throws -> OutputFormat {
        if json, let format, format != .json {
            throw ValidationError("--json means --format json; it cannot go with --format \(format.rawValue).")
        }
        let resolved = json ? .json : format ?? fallback
        if resolved == .table {
            if fields != nil { throw ValidationError("--fields does not apply to the table, which has set columns.") }
            if photos != nil { throw ValidationError("--photos does not apply to the table, which shows no photos.") }
        }
        return resolved
    }

    /// The export options for `format` (not the table).
    func exportOptions(_ format: ExportFormat) -> ExportOptions {
        ExportOptions(
            format: format, photos: photos ?? .hash,
            fields: fields.map {
                $0.split(separator: ",", omittingEmptySubsequences: false).map {
                    String($0).trimmingCharacters(in: .whitespaces)
                }
            })
    }
}
