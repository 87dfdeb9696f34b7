import Foundation

/// A value of an attribute, independent of the Swift type that holds it:
/// what validation, the importer and the exporter work on.
public enum AttributeValue: Sendable, Equatable {
    case string(String)
    case bool(Bool)
    case date(Date)
    case double(Double)
    /// Integers of every width, so a value too large for its attribute can
    /// still be reported rather than trapped on.
    case integer(Int64)
    case uuid(UUID)
    /// A URI as text: validation decides whether it is acceptable.
    case uri(String)
    /// Binary data, described by its size, hash and place (the bytes may
    /// live in a file, and are read only when asked for).
    case blob(PhotoInfo)
    case color(Color)

    /// The value as an error message or a table shows it.
    public var displayText: String {
        switch self {
        case .string(let text): "\"\(text)\""
        case .bool(let flag): flag ? "true" : "false"
        case .date(let date): ISO8601.string(from: date)
        case .double(let number): Self.format(number)
        case .integer(let number): String(number)
        case .uuid(let id): id.uuidString
        case .uri(let text): text
        case .blob(let info): "\(info.byteCount) bytes"
        case .color(let color): color.hexString
        }
    }

    /// The value as an error message shows it: ``displayText``, shortened
    /// and kept on one line by ``abbreviated(_:)``.
    ///
    /// An imported file decides how long its strings are (libxml2 allows
    /// 10 MB of text); a message that quoted them whole would be as large,
    /// and a line break or escape sequence in them would forge output.
    public var messageText: String {
        switch self {
        case .string(let text): "\"\(Self.abbreviated(text))\""
        case .uri(let text): Self.abbreviated(text)
        default: displayText
        }
    }

    /// How many Unicode scalars of a value a message quotes.
    static let messageLimit = 80

    /// `text` cut to ``messageLimit`` scalars (`...` marks the cut),
    /// with control characters and bidirectional controls escaped as
    /// everywhere else (``ControlCharacters``).
    ///
    /// ```
    /// abbreviated("two\nlines")                     // two\nlines, on one line
    /// abbreviated(String(repeating: "x", count: 9_000_000))  // 80 x, then ...
    /// ```
    public static func abbreviated(_ text: String) -> String {
        var result = ""
        var count = 0
        for scalar in text.unicodeScalars {
            if count == messageLimit {
                return result + "..."
            }
            count += 1
            ControlCharacters.append(scalar, to: &result)
        }
        return result
    }

    /// Shortest text that reads back as the same Double (`4.5`, `4`, `nan`).
    static func format(_ number: Double) -> String {
        if number.isNaN { return "nan" }
        if number.isInfinite { return number < 0 ? "-inf" : "inf" }
        if number == number.rounded(), abs(number) < 1e15 {
            return String(Int64(number))
        }
        return String(number)
    }
}

extension AttributeValue {
    /// `3.5`, `4`, `4.75`, `3.33` (for 3.333…): a number for people,
    /// rounded to at most two decimals, as the table, `show` and the report
    /// write ratings. Nil when it is not finite or too large to round so.
    public static func twoDecimalText(_ value: Double) -> String? {
        guard value.isFinite, abs(value) < 1e15 else { return nil }
        if abs(value) < 1e9 {
            // Whole hundredths, written from their digits: the same text as
            // below without `String(format:)`, which `list` would call
            // for each of a million ties.
            let cents = Int64((value * 100).rounded())
            let whole = String((cents / 100).magnitude)
            let sign = cents < 0 ? "-" : ""
            let hundredths = Int(cents.magnitude % 100)
            if hundredths == 0 { return sign + whole }
            let tenths = Character(Unicode.Scalar(UInt8(ascii: "0") + UInt8(hundredths / 10)))
            let last = hundredths % 10
            return sign + whole + "." + String(tenths)
                + (last == 0 ? "" : String(Character(Unicode.Scalar(UInt8(ascii: "0") + UInt8(last)))))
        }
        let rounded = (value * 100).rounded() / 100
        if rounded == rounded.rounded() { return String(Int64(rounded)) }
        var text = String(format: "%.2f", rounded)
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }
}
