import Foundation

/// Reads the text of `<integer>`, `<real>`, `<date>` and `<data>` from the
/// UTF-8 bytes libxml2 hands over, without Foundation's formatters (a
/// `DateFormatter` costs more than parsing the whole record).
///
/// Each function returns `nil` when the text is not valid for its type;
/// the reader turns that into an ``PropertyListError/Kind/invalidValue``
/// error that quotes the text. Surrounding XML whitespace is ignored, as
/// Apple's parser does for these elements.
enum ScalarDecoder {
    /// Reads an `<integer>`: optional sign, then decimal digits or `0x`
    /// and hexadecimal digits; the value must fit `Int64`.
    ///
    /// ```
    /// integer("42"), integer("-7"), integer("+0x1F")  // 42, -7, 31
    /// integer("12x"), integer("9223372036854775808")  // nil, nil
    /// ```
    static func integer(_ text: [UInt8]) -> Int64? {
        var index = firstNonWhitespace(text)
        let end = endOfNonWhitespace(text, from: index)
        guard index < end else { return nil }

        var isNegative = false
        if text[index] == UInt8(ascii: "-") || text[index] == UInt8(ascii: "+") {
            isNegative = text[index] == UInt8(ascii: "-")
            index += 1
        }
        var radix: UInt64 = 10
        if end - index > 2, text[index] == UInt8(ascii: "0"),
            text[index + 1] | 0x20 == UInt8(ascii: "x")
        {
            radix = 16
            index += 2
        }
        guard index < end else { return nil }

        var magnitude: UInt64 = 0
        while index < end {
            guard let digit = digitValue(text[index]), UInt64(digit) < radix else { return nil }
            let (shifted, overflow1) = magnitude.multipliedReportingOverflow(by: radix)
            let (sum, overflow2) = shifted.addingReportingOverflow(UInt64(digit))
            guard !overflow1, !overflow2 else { return nil }
            magnitude = sum
            index += 1
        }

        if isNegative {
            // Int64.min's magnitude does not fit Int64 itself.
            guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
            return Int64(bitPattern: 0 &- magnitude)
        }
        guard magnitude <= UInt64(Int64.max) else { return nil }
        return Int64(magnitude)
    }

    /// Reads a `<real>`: a decimal number with an optional exponent, or
    /// one of `nan`, `inf`, `+inf`, `-inf`, `infinity`, `+infinity`,
    /// `-infinity` in any case.
    ///
    /// ```
    /// real("3.25"), real("-1.5e-3"), real(".5"), real("-INF")
    /// real("1,5"), real("0x1p3"), real("")            // nil: not decimal
    /// ```
    static func real(_ text: [UInt8]) -> Double? {
        let start = firstNonWhitespace(text)
        let end = endOfNonWhitespace(text, from: start)
        guard start < end else { return nil }
        let trimmed = text[start..<end]

        if let special = specialReal(trimmed) {
            return special
        }
        guard isDecimalNumber(trimmed) else { return nil }
        // The syntax is checked; Swift's parser is locale-independent and
        // correctly rounded (unlike `strtod` under a non-C locale).
        return Double(String(decoding: trimmed, as: UTF8.self))
    }

    /// Reads a `<date>`: exactly `YYYY-MM-DDTHH:MM:SSZ`, in UTC, with
    /// month, day (leap years included), hour, minute and second in range.
    static func date(_ text: [UInt8]) -> Date? {
        let start = firstNonWhitespace(text)
        let end = endOfNonWhitespace(text, from: start)
        guard end - start == 20 else { return nil }

        // Positions of the separators in "YYYY-MM-DDTHH:MM:SSZ".
        let separators: [(Int, UInt8)] = [
            (4, UInt8(ascii: "-")), (7, UInt8(ascii: "-")), (10, UInt8(ascii: "T")),
            (13, UInt8(ascii: ":")), (16, UInt8(ascii: ":")), (19, UInt8(ascii: "Z")),
        ]
        for (offset, separator) in separators where text[start + offset] != separator {
            return nil
        }
        func number(at offset: Int, digits: Int) -> Int? {
            var value = 0
            for index in (start + offset)..<(start + offset + digits) {
                guard let digit = digitValue(text[index]), digit < 10 else { return nil }
                value = value * 10 + digit
            }
            return value
        }
        guard let year = number(at: 0, digits: 4),
            let month = number(at: 5, digits: 2),
            let day = number(at: 8, digits: 2),
            let hour = number(at: 11, digits: 2),
            let minute = number(at: 14, digits: 2),
            let second = number(at: 17, digits: 2),
            (1...12).contains(month),
            (1...daysInMonth(month, year: year)).contains(day),
            hour < 24, minute < 60, second < 60
        else { return nil }

        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// Decodes `<data>`: Base64 with whitespace and line breaks anywhere,
    /// optional `=` padding at the end only.
    static func base64(_ text: [UInt8]) -> Data? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.count / 4 * 3)
        var quantum: UInt32 = 0
        var sextets = 0
        var padding = 0

        for byte in text {
            if isWhitespace(byte) {
                continue
            }
            if byte == UInt8(ascii: "=") {
                padding += 1
                continue
            }
            // Nothing but padding and whitespace may follow padding.
            guard padding == 0, let value = base64Value(byte) else { return nil }
            quantum = quantum << 6 | UInt32(value)
            sextets += 1
            if sextets == 4 {
                bytes.append(UInt8(truncatingIfNeeded: quantum >> 16))
                bytes.append(UInt8(truncatingIfNeeded: quantum >> 8))
                bytes.append(UInt8(truncatingIfNeeded: quantum))
                quantum = 0
                sextets = 0
            }
        }

        switch sextets {
        case 0:
            guard padding == 0 else { return nil }
        case 2:
            guard padding == 0 || padding == 2 else { return nil }
            bytes.append(UInt8(truncatingIfNeeded: quantum >> 4))
        case 3:
            guard padding == 0 || padding == 1 else { return nil }
            bytes.append(UInt8(truncatingIfNeeded: quantum >> 10))
            bytes.append(UInt8(truncatingIfNeeded: quantum >> 2))
        default:
            // One sextet cannot hold a byte.
            return nil
        }
        return Data(bytes)
    }

    /// Whether `byte` is XML whitespace (space, tab, line feed, carriage
    /// return).
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D
    }

    // MARK: - Helpers

    private static func firstNonWhitespace(_ text: [UInt8]) -> Int {
        var index = 0
        while index < text.count, isWhitespace(text[index]) {
            index += 1
        }
        return index
    }

    private static func endOfNonWhitespace(_ text: [UInt8], from start: Int) -> Int {
        var end = text.count
        while end > start, isWhitespace(text[end - 1]) {
            end -= 1
        }
        return end
    }

    /// The value of a decimal or hexadecimal digit, any case.
    private static func digitValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(byte - UInt8(ascii: "a")) + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(byte - UInt8(ascii: "A")) + 10
        default: nil
        }
    }

    private static func base64Value(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }

    /// `nan`, `inf`, `infinity` with an optional sign (none for `nan`),
    /// any case.
    private static func specialReal(_ text: ArraySlice<UInt8>) -> Double? {
        guard text.count <= 9 else { return nil }
        var word = text
        var sign = 1.0
        if let first = word.first, first == UInt8(ascii: "+") || first == UInt8(ascii: "-") {
            sign = first == UInt8(ascii: "-") ? -1 : 1
            word = word.dropFirst()
        }
        let lowercased = String(decoding: word.map { $0 | 0x20 }, as: UTF8.self)
        switch lowercased {
        case "inf", "infinity": return sign * .infinity
        case "nan" where word.count == text.count: return .nan
        default: return nil
        }
    }

    /// `[+-]? (digits ('.' digits?)? | '.' digits) ([eE] [+-]? digits)?`
    private static func isDecimalNumber(_ text: ArraySlice<UInt8>) -> Bool {
        var index = text.startIndex
        let end = text.endIndex
        func isDigit(_ position: Int) -> Bool {
            position < end && text[position] >= UInt8(ascii: "0") && text[position] <= UInt8(ascii: "9")
        }
        func skipDigits() -> Int {
            let start = index
            while isDigit(index) { index += 1 }
            return index - start
        }

        if index < end, text[index] == UInt8(ascii: "+") || text[index] == UInt8(ascii: "-") {
            index += 1
        }
        var mantissaDigits = skipDigits()
        if index < end, text[index] == UInt8(ascii: ".") {
            index += 1
            mantissaDigits += skipDigits()
        }
        guard mantissaDigits > 0 else { return false }
        if index < end, text[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < end, text[index] == UInt8(ascii: "+") || text[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard skipDigits() > 0 else { return false }
        }
        return index == end
    }

    private static func daysInMonth(_ month: Int, year: Int) -> Int {
        switch month {
        case 2:
            let isLeap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
            return isLeap ? 29 : 28
        case 4, 6, 9, 11:
            return 30
        default:
            return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard
    /// Hinnant's `days_from_civil`).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
