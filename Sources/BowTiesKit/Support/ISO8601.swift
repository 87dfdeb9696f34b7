import Foundation

/// ISO 8601 in UTC with whole seconds (`2014-06-19T18:15:24Z`), the form
/// property lists use, written without a formatter: exports write one per
/// row, and `ISO8601DateFormatter` is slow and not `Sendable`.
public enum ISO8601 {
    public static func string(from date: Date) -> String {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        var days = seconds / 86_400
        var rest = seconds % 86_400
        if rest < 0 {
            rest += 86_400
            days -= 1
        }
        let (year, month, day) = civil(fromDays: days)
        let hour = rest / 3600
        let minute = (rest % 3600) / 60
        let second = rest % 60
        guard (0...9999).contains(year) else {
            return pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T"
                + pad(hour, 2) + ":" + pad(minute, 2) + ":" + pad(second, 2) + "Z"
        }
        // The 20 bytes written in place: seven `String(Int)`s and thirteen
        // concatenations took 16,000 instructions a date (`history` writes
        // one a wear, `export` one a row).
        return String(unsafeUninitializedCapacity: 20) { bytes in
            func put(_ value: Int64, _ width: Int, at start: Int) {
                var value = value
                for index in (start..<start + width).reversed() {
                    bytes[index] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: value % 10)
                    value /= 10
                }
            }
            put(year, 4, at: 0)
            put(month, 2, at: 5)
            put(day, 2, at: 8)
            put(hour, 2, at: 11)
            put(minute, 2, at: 14)
            put(second, 2, at: 17)
            (bytes[4], bytes[7], bytes[10]) = (UInt8(ascii: "-"), UInt8(ascii: "-"), UInt8(ascii: "T"))
            (bytes[13], bytes[16], bytes[19]) = (UInt8(ascii: ":"), UInt8(ascii: ":"), UInt8(ascii: "Z"))
            return 20
        }
    }

    /// The date forms every part of bowties reads: cells of an imported
    /// CSV, TSV or JSON file, `wear --on`, `set` and `edit`. One parser,
    /// so that a date one of them takes, all of them take:
    ///
    /// ```swift
    /// ISO8601.date(from: "2014-06-19")                 // that day, 00:00 UTC
    /// ISO8601.date(from: "2014-06-19T18:15:24Z")       // what exports write
    /// ISO8601.date(from: "2014-06-19T18:15:24.5Z")     // fractional seconds
    /// ISO8601.date(from: "2014-06-19T20:15:24+02:00")  // an offset (or +0200)
    /// ISO8601.date(from: "2014-02-30")                 // nil: no such day
    /// ```
    ///
    /// A date and time needs its seconds and its zone (`Z` or an offset):
    /// a time without a zone could be anywhere. `t`, `z` and a space for
    /// the `T` are read as RFC 3339 allows; spaces around the text are
    /// ignored. Written without a formatter: an import reads one per
    /// record.
    ///
    /// - Returns: The date, or nil for anything else.
    public static func date(from text: String) -> Date? {
        var bytes = Array(text.utf8)
        if bytes.first == 0x20 || bytes.last == 0x20 {
            bytes = Array(bytes.drop { $0 == 0x20 }.reversed().drop { $0 == 0x20 }.reversed())
        }
        guard bytes.count == 10 || (bytes.count >= 20 && bytes.count <= 40) else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for index in range {
                let byte = bytes[index]
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int64(byte - 0x30)
            }
            return value
        }
        func byte(_ index: Int, is character: Unicode.Scalar) -> Bool { bytes[index] == UInt8(ascii: character) }
        guard let year = number(0..<4), byte(4, is: "-"), let month = number(5..<7), byte(7, is: "-"),
            let day = number(8..<10), (1...12).contains(month), (1...daysIn(month, of: year)).contains(day)
        else { return nil }
        let days = days(fromCivil: year, month, day)
        if bytes.count == 10 { return Date(timeIntervalSince1970: Double(days * 86_400)) }
        guard byte(10, is: "T") || byte(10, is: " ") || byte(10, is: "t"), let hour = number(11..<13),
            byte(13, is: ":"), let minute = number(14..<16), byte(16, is: ":"), let second = number(17..<19),
            hour < 24, minute < 60, second < 60
        else { return nil }
        var index = 19
        var fraction = 0.0
        if byte(index, is: ".") {
            index += 1
            var scale = 0.1
            let start = index
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                fraction += Double(bytes[index] - 0x30) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        // The zone: Z, or +HH:MM / -HH:MM (the colon may be left out).
        var offset: Int64 = 0
        let zone = bytes.count - index
        if zone == 1, byte(index, is: "Z") || byte(index, is: "z") {
            offset = 0
        } else if zone == 6 || zone == 5, byte(index, is: "+") || byte(index, is: "-") {
            let minutesAt = zone == 6 ? index + 4 : index + 3
            guard let hours = number(index + 1..<index + 3), zone == 5 || byte(index + 3, is: ":"),
                let minutes = number(minutesAt..<minutesAt + 2), hours < 24, minutes < 60
            else { return nil }
            offset = (hours * 3600 + minutes * 60) * (byte(index, is: "-") ? -1 : 1)
        } else {
            return nil
        }
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    private static func daysIn(_ month: Int64, of year: Int64) -> Int64 {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Howard Hinnant's `days_from_civil`: a date to days since 1970-01-01.
    static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// Howard Hinnant's `civil_from_days`: days since 1970-01-01 to a date.
    static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}
