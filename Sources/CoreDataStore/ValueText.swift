import Foundation

/// Text forms of values, shared by the model's defaults and the dump:
/// fast, locale-free, and the same on every machine.
public enum ValueText {
    /// The shortest text that reads back as the same `Double` (`10.11`,
    /// `5`, `-0.5`), `null`-free: non-finite values as `nan`, `inf`, `-inf`.
    public static func double(_ value: Double) -> String {
        guard value.isFinite else { return value.isNaN ? "nan" : (value < 0 ? "-inf" : "inf") }
        if value == value.rounded(), abs(value) < 1e15 {
            return String(Int64(value))
        }
        return value.description
    }

    /// Seconds since 2001-01-01 00:00:00 UTC (Core Data's dates) as ISO
    /// 8601 UTC: `2024-05-10T08:34:06Z`, with the fraction to the
    /// microsecond when there is one (`…06.843063Z`).
    public static func iso8601(_ referenceSeconds: Double) -> String {
        guard referenceSeconds.isFinite, abs(referenceSeconds) < 1e13 else { return double(referenceSeconds) }
        // 978,307,200 seconds from 1970 to 2001.
        let unix = referenceSeconds + 978_307_200
        var whole = unix.rounded(.down)
        var micros = Int64(((unix - whole) * 1_000_000).rounded())
        if micros >= 1_000_000 {
            whole += 1
            micros -= 1_000_000
        }
        let seconds = Int64(whole)
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        var text = ""
        text.reserveCapacity(27)
        if year < 0 { text.append("-") }
        append(&text, abs(year), width: 4)
        text.append("-")
        append(&text, month, width: 2)
        text.append("-")
        append(&text, day, width: 2)
        text.append("T")
        append(&text, secondOfDay / 3600, width: 2)
        text.append(":")
        append(&text, secondOfDay / 60 % 60, width: 2)
        text.append(":")
        append(&text, secondOfDay % 60, width: 2)
        if micros > 0 {
            var digits = String(micros)
            digits = String(repeating: "0", count: 6 - digits.count) + digits
            while digits.last == "0" { digits.removeLast() }
            text.append(".")
            text.append(digits)
        }
        text.append("Z")
        return text
    }

    private static func append(_ text: inout String, _ value: Int64, width: Int) {
        let digits = String(value)
        if digits.count < width { text.append(String(repeating: "0", count: width - digits.count)) }
        text.append(digits)
    }

    /// Howard Hinnant's `civil_from_days`: the proleptic Gregorian date
    /// `days` after 1970-01-01.
    static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
