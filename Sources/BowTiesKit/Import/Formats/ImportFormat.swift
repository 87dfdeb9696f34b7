import Foundation
import PropertyList

/// The formats `bowties import` reads, told apart by content, never by
/// file name (``detect(_:columns:file:)``), or named with `--format`.
public enum ImportFormat: String, Sendable, CaseIterable {
    /// An XML or binary property list (`bplist00`), told apart by their
    /// first bytes.
    case plist
    /// A JSON array of objects.
    case json
    /// JSON Lines: one object per line.
    case jsonl
    /// RFC 4180 CSV with a header row.
    case csv
    /// Tab-separated values with a header row.
    case tsv
    /// A Core Data SQLite store (one with `Z_METADATA` and
    /// `Z_PRIMARYKEY`): the objects of its `BowTie` entity, or of the
    /// entity `--entity` names. Told by opening the file
    /// (``ImportInput/Opened``), not by its first bytes, which only say
    /// SQLite.
    case coreData = "coredata"

    /// How many bytes ``detect(_:columns:file:)`` looks at, at most.
    public static let sniffLength = 4096

    /// Tells the format from the first bytes of a file.
    ///
    /// - `bplist00`, or `<?xml`, `<!DOCTYPE`, `<plist`, `<!--`, or a
    ///   UTF-16 byte-order mark before `<`: ``plist``;
    /// - a UTF-16 byte-order mark before anything else: the format the
    ///   text would be in UTF-8, so that its reader refuses the encoding
    ///   (an XML property list is the only format read in UTF-16);
    /// - first non-blank character `[`: ``json``; `{`: ``jsonl``;
    /// - a first line whose fields (split by tabs, else commas) include a
    ///   column the model knows (`columns`, matched as
    ///   ``CSVColumnNames`` matches them: `Search Key` is `searchKey`):
    ///   ``tsv`` or ``csv``;
    /// - any other `<`, and a file with nothing in it: ``plist``, whose
    ///   reader says what is wrong with them.
    ///
    /// - Parameter file: The name errors show.
    /// - Throws: ``ImportError`` when none fits, saying what the file
    ///   looks like (an image, a spreadsheet, `;`-separated values, a CSV
    ///   header that names no known column, other text) and what bowties
    ///   reads.
    public static func detect(_ prefix: [UInt8], columns: [String], file: String) throws(ImportError)
        -> ImportFormat
    {
        let names = CSVColumnNames(columns)
        if let format = sniff(prefix, columns: names) { return format }
        throw unrecognized(prefix, columns: names, file: file)
    }

    /// ``detect(_:columns:file:)``, nil when no format fits.
    private static func sniff(_ prefix: [UInt8], columns: CSVColumnNames) -> ImportFormat? {
        if let utf16 = utf16Text(prefix) {
            // Told by its first characters: an XML property list is read
            // (libxml2 reads UTF-16); JSON or CSV in UTF-16 goes to its
            // reader, which says that only UTF-8 is read.
            let text = utf16.drop { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
            if text.first != "<", let format = sniff(Array(text.utf8), columns: columns) { return format }
            return .plist
        }
        if PropertyListFormat.detect(Data(prefix.prefix(PropertyListFormat.sniffLength))) != .unknown {
            return .plist
        }
        var rest = prefix[...]
        if rest.starts(with: [0xEF, 0xBB, 0xBF]) { rest = rest.dropFirst(3) }
        let text = rest.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        switch text.first {
        case UInt8(ascii: "[")?: return .json
        case UInt8(ascii: "{")?: return .jsonl
        // XML that is not a property list, or nothing at all: the XML
        // reader says which.
        case UInt8(ascii: "<")?, nil: return .plist
        default: break
        }
        let fields = { (separator: UInt8) in headerFields(rest, separator: separator) }
        func header(_ fields: [String]) -> Bool {
            fields.count > 1 || fields.count == 1 && columns.column(for: fields[0]) != nil
                ? fields.contains { columns.column(for: $0) != nil } : false
        }
        if rest.prefix(while: { $0 != 0x0A && $0 != 0x0D }).contains(0x09), header(fields(0x09)) { return .tsv }
        if header(fields(UInt8(ascii: ","))) { return .csv }
        return nil
    }

    /// The fields of the first line of `text`, split at `separator`,
    /// without quotes or surrounding spaces.
    private static func headerFields(_ text: ArraySlice<UInt8>, separator: UInt8) -> [String] {
        text.prefix { $0 != 0x0A && $0 != 0x0D }.split(separator: separator, omittingEmptySubsequences: false).map {
            String(decoding: $0, as: UTF8.self).trimmingCharacters(in: CharacterSet(charactersIn: "\" "))
        }
    }

    /// What bowties reads, for the hint under an unrecognised file.
    static let formatsRead =
        "bowties reads XML or binary property lists, JSON (an array of objects), JSON Lines, CSV or TSV "
        + "whose first row names the columns (`bowties import --help` lists them), and Core Data stores; "
        + "--format names the format."

    /// The error for a file no format fits: what it looks like, located
    /// at its first line when it is text.
    private static func unrecognized(_ prefix: [UInt8], columns: CSVColumnNames, file: String) -> ImportError {
        func failure(_ message: String, line: Bool = true, hint: String = formatsRead) -> ImportError {
            line
                ? ImportError(location: SourceLocation(file: file, line: 1, column: 1), message: message, hint: hint)
                : ImportError(location: nil, message: "\(file): " + message, hint: hint)
        }
        let image = ImageFormat(data: Data(prefix.prefix(12)))
        if image != .unknown {
            return failure(
                "this is a \(image.rawValue) image, not a file of bow ties", line: false,
                hint: "A photo is given to a tie with `bowties photo KEY --set FILE`, or named by imageName "
                    + "in the file you import. " + formatsRead)
        }
        for (signature, what) in binarySignatures where prefix.starts(with: signature) {
            return failure("this is \(what), not a file of bow ties", line: false)
        }
        var rest = prefix[...]
        if rest.starts(with: [0xEF, 0xBB, 0xBF]) { rest = rest.dropFirst(3) }
        // The prefix may end inside a character: only the last three
        // bytes may be cut short.
        let isText =
            !rest.contains(0)
            && (0...min(3, rest.count)).contains { String(validating: rest.dropLast($0), as: UTF8.self) != nil }
        guard isText else { return failure("this is binary data, not text in a format bowties reads", line: false) }

        let firstLine = String(decoding: rest.prefix { $0 != 0x0A && $0 != 0x0D }, as: UTF8.self)
        let shown = AttributeValue.abbreviated(firstLine.trimmingCharacters(in: .whitespaces))
        let semicolonFields = headerFields(rest, separator: UInt8(ascii: ";"))
        if semicolonFields.count > 1 {
            let known = semicolonFields.filter { columns.column(for: $0) != nil }
            return failure(
                "the file looks like values separated by semicolons (\"\(shown)\")"
                    + (known.isEmpty ? "" : ", with the columns \(known.joined(separator: ", "))")
                    + ": bowties reads CSV separated by commas, or TSV separated by tabs",
                hint: "Save it again as CSV with commas (a spreadsheet calls it \"CSV, comma-separated\"), "
                    + "or as tab-separated text.")
        }
        let separator: UInt8 = firstLine.contains("\t") ? 0x09 : UInt8(ascii: ",")
        let fields = headerFields(rest, separator: separator)
        if fields.count > 1 {
            let described = fields.prefix(8).map { field -> String in
                let name = "\"\(AttributeValue.abbreviated(field))\""
                return columns.suggestion(for: field).map { "\(name) (did you mean \"\($0)\"?)" } ?? name
            }
            return failure(
                "the file looks like \(separator == 0x09 ? "TSV" : "CSV"), but its header names no column "
                    + "bowties reads: \(described.joined(separator: ", "))\(fields.count > 8 ? ", ..." : "")",
                hint: "The columns bowties reads: \(columns.names.joined(separator: ", ")) "
                    + "(case, spaces, _ and - do not matter).")
        }
        return failure("the file is text in no format bowties reads (it begins \"\(shown)\")")
    }

    /// Files people import by mistake, told by their first bytes.
    private static let binarySignatures: [([UInt8], String)] = [
        (Array("%PDF".utf8), "a PDF document"),
        (
            [0x50, 0x4B, 0x03, 0x04],
            "a ZIP archive (a spreadsheet such as .xlsx, .ods or .numbers is one: export it as CSV)"
        ),
        (Array("SQLite format 3".utf8) + [0], "an SQLite database (a bowties catalog is opened with --store)"),
        ([0x1F, 0x8B], "a gzip-compressed file (decompress it first)"),
    ]

    /// The text after a UTF-16 byte-order mark, decoded; nil without one.
    private static func utf16Text(_ prefix: [UInt8]) -> Substring? {
        let bigEndian: Bool
        if prefix.starts(with: [0xFE, 0xFF]) {
            bigEndian = true
        } else if prefix.starts(with: [0xFF, 0xFE]) {
            bigEndian = false
        } else {
            return nil
        }
        var units: [UInt16] = []
        var index = 2
        while index + 1 < prefix.count {
            let (high, low) = bigEndian ? (prefix[index], prefix[index + 1]) : (prefix[index + 1], prefix[index])
            units.append(UInt16(high) << 8 | UInt16(low))
            index += 2
        }
        return String(decoding: units, as: UTF16.self)[...]
    }
}
