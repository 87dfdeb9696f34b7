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
    ///   UTF-16 byte-order mark: ``plist``;
    /// - first non-blank character `[`: ``json``; `{`: ``jsonl``;
    /// - a first line whose fields (split by tabs, else commas) include a
    ///   column the model knows (`columns`): ``tsv`` or ``csv``.
    ///
    /// - Returns: nil when none fits (an empty file included): the caller
    ///   then lets the XML reader say what is wrong, as before.
    public static func detect(_ prefix: [UInt8], columns: Set<String>) -> ImportFormat? {
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
}
