import Foundation

extension URL {
    /// The path of this file URL, as `path` gives it (percent-decoded,
    /// without a trailing slash), for the URLs bowties makes with
    /// `URL(fileURLWithPath:)`.
    ///
    /// Foundation's `path`, `lastPathComponent` and
    /// `deletingLastPathComponent()` build a `Set<UInt8>` at each call,
    /// and the first one in a process makes the Swift runtime check
    /// `UInt8: Hashable` by scanning every protocol conformance of the
    /// executable: 0.42 M instructions of a `show` that otherwise takes
    /// 6 M (bench/README.md, "Point commands, session 11"). This decodes
    /// `path(percentEncoded: true)` itself; a URL that is not a file's
    /// absolute path gets `path`.
    public var fileSystemPath: String {
        let encoded = path(percentEncoded: true)
        guard isFileURL, encoded.utf8.first == UInt8(ascii: "/") else { return path }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(encoded.utf8.count)
        var index = encoded.utf8.startIndex
        let end = encoded.utf8.endIndex
        while index < end {
            let byte = encoded.utf8[index]
            if byte == UInt8(ascii: "%"),
                let first = encoded.utf8.index(index, offsetBy: 1, limitedBy: end), first < end,
                let second = encoded.utf8.index(first, offsetBy: 1, limitedBy: end), second < end,
                let high = Self.hexDigit(encoded.utf8[first]), let low = Self.hexDigit(encoded.utf8[second])
            {
                bytes.append(high << 4 | low)
                index = encoded.utf8.index(after: second)
            } else {
                bytes.append(byte)
                index = encoded.utf8.index(after: index)
            }
        }
        if bytes.count > 1, bytes.last == UInt8(ascii: "/") { bytes.removeLast() }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// ``fileSystemPath`` of the folder that holds this file, as
    /// `deletingLastPathComponent().path` gives it.
    public var fileSystemFolder: String {
        let path = fileSystemPath
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return path }
        return slash == path.utf8.startIndex ? "/" : String(path[..<slash])
    }

    /// The last component of ``fileSystemPath``, as `lastPathComponent`
    /// gives it.
    public var fileSystemName: String {
        let path = fileSystemPath
        guard path != "/", let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return path }
        return String(path[path.utf8.index(after: slash)...])
    }

    private static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
