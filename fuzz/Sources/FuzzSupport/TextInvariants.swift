import Foundation
import PropertyList

/// What the JSON and CSV targets check besides "no crash".
public enum TextInvariants {
    /// How many lines `bytes` has, as the readers count them (LF, CRLF or
    /// a lone CR ends a line): no location may lie beyond the last.
    public static func lineCount(_ bytes: [UInt8]) -> Int {
        var lines = 1
        var afterCarriageReturn = false
        for byte in bytes {
            if byte == 0x0A {
                if !afterCarriageReturn { lines += 1 }
                afterCarriageReturn = false
            } else if byte == 0x0D {
                lines += 1
                afterCarriageReturn = true
            } else {
                afterCarriageReturn = false
            }
        }
        return lines
    }

    /// A location in the document: named after it, line 1 to `lines`,
    /// column 1 or more.
    public static func check(_ location: SourceLocation, lines: Int, _ what: @autoclosure () -> String) {
        guard location.file == Invariants.displayName, (1...lines).contains(location.line), location.column >= 1
        else {
            fatalError("location \(location) outside the document (\(lines) lines): \(what())")
        }
    }

    /// A text reader's error: located inside the document, with a message.
    public static func check(_ error: PropertyListError, lines: Int) {
        guard error.file == Invariants.displayName, !error.message.isEmpty else {
            fatalError("unnamed or empty error: \(error)")
        }
        guard let location = error.location else {
            switch error.kind {
            case .unreadable, .fileNotFound: return
            default: fatalError("unlocated \(error.kind) error: \(error)")
            }
        }
        check(location, lines: lines, error.description)
    }

    /// Every value and key of `item` is located inside the document.
    public static func checkLocations(_ item: PropertyListItem, lines: Int) {
        var pending = [item]
        while let item = pending.popLast() {
            check(item.location, lines: lines, "a value")
            switch item.value {
            case .array(let items):
                pending.append(contentsOf: items)
            case .dictionary(let dictionary):
                for entry in dictionary.entries {
                    check(entry.keyLocation, lines: lines, "the key \(entry.key)")
                    pending.append(entry.item)
                }
            default:
                break
            }
        }
    }

    /// `value` written as JSON that reads back to the same value: strings
    /// escaped, reals always with a fraction or an exponent (Swift's
    /// shortest round-tripping form), no null.
    public static func json(_ value: PropertyListValue, into text: inout String) {
        switch value {
        case .string(let string):
            text += "\""
            for scalar in string.unicodeScalars {
                switch scalar {
                case "\"": text += "\\\""
                case "\\": text += "\\\\"
                case "\n": text += "\\n"
                case _ where scalar.value < 0x20:
                    let digits = String(scalar.value, radix: 16)
                    text += "\\u" + String(repeating: "0", count: 4 - digits.count) + digits
                default: text.unicodeScalars.append(scalar)
                }
            }
            text += "\""
        case .integer(let integer):
            text += String(integer)
        case .real(let real):
            text += "\(real)"
        case .bool(let flag):
            text += flag ? "true" : "false"
        case .array(let items):
            text += "["
            for (index, item) in items.enumerated() {
                if index > 0 { text += "," }
                json(item.value, into: &text)
            }
            text += "]"
        case .dictionary(let dictionary):
            text += "{"
            for (index, entry) in dictionary.entries.enumerated() {
                if index > 0 { text += "," }
                json(.string(entry.key), into: &text)
                text += ":"
                json(entry.item.value, into: &text)
            }
            text += "}"
        case .date, .data:
            fatalError("a JSON reader returned \(value.elementName)")
        }
    }
}
