/// The shape nearly every link in a catalog has, `https://host/path?query`,
/// recognised byte by byte: a text of that shape is one that Foundation's
/// `URL(string:)` accepts, so the importer asks Foundation only about the
/// others.
///
/// `URL(string:)` runs an RFC 3986 parser and builds a URL, about 2,000
/// instructions a link, for every record imported. The shape here is a
/// strict subset of what it accepts:
/// - an ASCII scheme (`letter *( letter / digit / + - . )`), then `://`;
/// - a host of letters, digits, `-` and `.` (no user, no IP literal),
///   with at most a port of 1 to 5 digits up to 65,535;
/// - then path, query and fragment characters only: unreserved,
///   sub-delimiters, `: @ / ?`, one `#`, and `%` with two hex digits.
///
/// Anything else (spaces, non-ASCII, brackets, a bare `%`) is left to
/// `URL(string:)`, which decides as before.
enum PlainURI {
    /// True when `text` has the plain shape, so `URL(string: text)` is
    /// not nil.
    static func matches(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            var position = 0
            let count = bytes.count
            // Scheme.
            guard count > 0, isLetter(bytes[0]) else { return false }
            position = 1
            while position < count, isSchemeByte(bytes[position]) { position += 1 }
            guard position + 3 <= count, bytes[position] == colon, bytes[position + 1] == slash,
                bytes[position + 2] == slash
            else { return false }
            position += 3
            // Host.
            let hostStart = position
            while position < count, isHostByte(bytes[position]) { position += 1 }
            guard position > hostStart else { return false }
            // Port.
            if position < count, bytes[position] == colon {
                position += 1
                var port = 0
                var digits = 0
                while position < count, isDigit(bytes[position]) {
                    port = port * 10 + Int(bytes[position] - zero)
                    digits += 1
                    position += 1
                    guard digits <= 5 else { return false }
                }
                guard digits > 0, port <= 65_535 else { return false }
            }
            // Path, query, fragment.
            guard position == count || bytes[position] == slash || bytes[position] == question
                || bytes[position] == hash
            else { return false }
            var inFragment = false
            while position < count {
                let byte = bytes[position]
                if byte == percent {
                    guard position + 2 < count, isHexDigit(bytes[position + 1]), isHexDigit(bytes[position + 2])
                    else { return false }
                    position += 3
                    continue
                }
                if byte == hash {
                    guard !inFragment else { return false }
                    inFragment = true
                } else if !isPathByte(byte) {
                    return false
                }
                position += 1
            }
            return true
        }
    }

    private static let colon = UInt8(ascii: ":")
    private static let slash = UInt8(ascii: "/")
    private static let question = UInt8(ascii: "?")
    private static let hash = UInt8(ascii: "#")
    private static let percent = UInt8(ascii: "%")
    private static let zero = UInt8(ascii: "0")

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte | 0x20)
    }

    private static func isSchemeByte(_ byte: UInt8) -> Bool {
        isLetter(byte) || isDigit(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: ".")
    }

    private static func isHostByte(_ byte: UInt8) -> Bool {
        isLetter(byte) || isDigit(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
    }

    /// RFC 3986's pchar without `%` (unreserved, sub-delims, `:` and `@`),
    /// plus `/` and `?`.
    private static func isPathByte(_ byte: UInt8) -> Bool {
        if isLetter(byte) || isDigit(byte) { return true }
        switch byte {
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"),
            UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"),
            UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"),
            UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="),
            UInt8(ascii: ":"), UInt8(ascii: "@"), UInt8(ascii: "/"), UInt8(ascii: "?"):
            return true
        default:
            return false
        }
    }
}
