import Foundation

/// The two encodings of a property list, told apart by content, never by
/// file name.
///
/// ```swift
/// switch PropertyListFormat.detect(firstBytes) {
/// case .binary: ... BinaryPropertyListReader(contentsOf: url) ...
/// case .xml: ... PropertyListReader(contentsOf: url) ...
/// case .unknown: ...
/// }
/// ```
public enum PropertyListFormat: Sendable, Hashable {
    /// An XML document (`<?xml`, `<!DOCTYPE` or `<plist`, after an optional
    /// byte-order mark and whitespace), or UTF-16 text.
    case xml
    /// A binary property list: the 8 bytes `bplist00`.
    case binary
    /// Neither: the readers would refuse it.
    case unknown

    /// How many bytes ``detect(_:)`` needs to decide, at most.
    public static let sniffLength = 64

    /// Tells the format from the first bytes of a file.
    ///
    /// Only the `bplist00` version is ``binary``; `bplist15` and later
    /// (Apple's private formats) are ``unknown``.
    ///
    /// - Parameter prefix: the file's first bytes (``sniffLength`` is
    ///   enough; more are ignored).
    /// - Returns: the format, or ``unknown``.
    public static func detect(_ prefix: Data) -> PropertyListFormat {
        let bytes = [UInt8](prefix.prefix(sniffLength))
        if bytes.starts(with: "bplist00".utf8) {
            return .binary
        }
        // UTF-16 byte-order marks: only XML is written in UTF-16.
        if bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0xFF, 0xFE]) {
            return .xml
        }
        var rest = bytes[...]
        if rest.starts(with: [0xEF, 0xBB, 0xBF]) {
            rest = rest.dropFirst(3)
        }
        rest = rest.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        for opening in ["<?xml", "<!DOCTYPE", "<plist", "<!--"] where rest.starts(with: opening.utf8) {
            return .xml
        }
        return .unknown
    }

    /// The first `count` bytes of the regular file at `url`, and its size,
    /// read without blocking (a FIFO is refused, not waited on): what a
    /// caller looks at to choose a reader.
    ///
    /// - Throws: ``PropertyListError/Kind/fileNotFound`` or
    ///   ``PropertyListError/Kind/unreadable`` (a directory, a device, no
    ///   permission).
    public static func prefix(of url: URL, count: Int, displayName: String) throws(PropertyListError)
        -> (bytes: [UInt8], size: Int)
    {
        do {
            let file = try OpenFile(path: url.path)
            return (try file.prefix(count), file.size)
        } catch {
            switch error {
            case .notFound(let reason):
                throw PropertyListError(.fileNotFound, "cannot open file: \(reason)", file: displayName)
            case .unreadable(let reason):
                throw PropertyListError(.unreadable, "cannot read file: \(reason)", file: displayName)
            }
        }
    }
}
