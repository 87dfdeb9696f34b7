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
        var bytes: [UInt8] = []
        appendISO8601(referenceSeconds, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// ``iso8601(_:)``, appended to `bytes` as UTF-8: no string is made,
    /// for the dump, which writes a date in most rows.
    public static func appendISO8601(_ referenceSeconds: Double, to bytes: inout [UInt8]) {
        guard referenceSeconds.isFinite, abs(referenceSeconds) < 1e13 else {
            bytes.append(contentsOf: double(referenceSeconds).utf8)
            return
        }
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
        if year < 0 { bytes.append(UInt8(ascii: "-")) }
        if abs(year) > 9999 {
            bytes.append(contentsOf: String(abs(year)).utf8)
        } else {
            digits(abs(year), 4, &bytes)
        }
        bytes.append(UInt8(ascii: "-"))
        digits(month, 2, &bytes)
        bytes.append(UInt8(ascii: "-"))
        digits(day, 2, &bytes)
        bytes.append(UInt8(ascii: "T"))
        digits(secondOfDay / 3600, 2, &bytes)
        bytes.append(UInt8(ascii: ":"))
        digits(secondOfDay / 60 % 60, 2, &bytes)
        bytes.append(UInt8(ascii: ":"))
        digits(secondOfDay % 60, 2, &bytes)
        if micros > 0 {
            var width = 6
            while micros % 10 == 0 {
                micros /= 10
                width -= 1
            }
            bytes.append(UInt8(ascii: "."))
            digits(micros, width, &bytes)
        }
        bytes.append(UInt8(ascii: "Z"))
    }

    /// `value` (0 ≤ value < 10^width) in exactly `width` decimal digits.
    private static func digits(_ value: Int64, _ width: Int, _ bytes: inout [UInt8]) {
        var divisor: Int64 = 1
        for _ in 1..<max(width, 1) { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest / divisor))
            rest %= divisor
            divisor /= 10
        }
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
