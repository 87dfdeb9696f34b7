import Foundation
import PropertyList

/// The formats `bowties import` reads, told apart by content, never by
/// file name (``detect(_:columns:)``), or named with `--format`.
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

    /// How many bytes ``detect(_:columns:)`` looks at, at most.
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
    ///   column the model knows (`columns`): ``tsv`` or ``csv``.
    ///
    /// - Returns: nil when none fits (an empty file included): the caller
    ///   then lets the XML reader say what is wrong, as before.
    public static func detect(_ prefix: [UInt8], columns: Set<String>) -> ImportFormat? {
        if let utf16 = utf16Text(prefix) {
            // Told by its first characters: an XML property list is read
            // (libxml2 reads UTF-16); JSON or CSV in UTF-16 goes to its
            // reader, which says that only UTF-8 is read.
            let text = utf16.drop { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
            if text.first != "<", let format = detect(Array(text.utf8), columns: columns) { return format }
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
        default: break
        }
        let firstLine = rest.prefix { $0 != 0x0A && $0 != 0x0D }
        func header(_ separator: UInt8) -> Bool {
            let fields = firstLine.split(separator: separator, omittingEmptySubsequences: false).map {
                String(decoding: $0, as: UTF8.self).trimmingCharacters(in: CharacterSet(charactersIn: "\" "))
            }
            return fields.count > 1 || fields.count == 1 && columns.contains(fields[0])
                ? fields.contains(where: columns.contains) : false
        }
        if firstLine.contains(0x09), header(0x09) { return .tsv }
        if header(UInt8(ascii: ",")) { return .csv }
        return nil
    }

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
