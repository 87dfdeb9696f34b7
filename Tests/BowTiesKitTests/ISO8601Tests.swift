import Foundation
import Testing

@testable import BowTiesKit

/// ``ISO8601/date(from:)``: the one date parser of import cells,
/// `wear --on`, `set` and `edit`.
@Suite("ISO8601: the date forms bowties reads")
struct ISO8601Tests {
    /// 2024-03-15T10:30:00Z.
    static let instant = Date(timeIntervalSince1970: 1_710_498_600)

    static let accepted: [(String, Date)] = [
        ("2024-03-15", Date(timeIntervalSince1970: 1_710_460_800)),
        ("2024-03-15T10:30:00Z", instant),
        ("2024-03-15t10:30:00z", instant),
        ("2024-03-15 10:30:00Z", instant),
        (" 2024-03-15T10:30:00Z ", instant),
        ("2024-03-15T10:30:00+00:00", instant),
        ("2024-03-15T12:30:00+02:00", instant),
        ("2024-03-15T09:30:00-01:00", instant),
        ("2024-03-15T16:00:00+0530", instant),
        ("2024-03-15T10:30:00.5Z", instant.addingTimeInterval(0.5)),
        ("2024-02-29", Date(timeIntervalSince1970: 1_709_164_800)),
    ]

    @Test("a day, or a date and time with seconds and a zone", arguments: accepted.map(\.0))
    func accepts(_ text: String) throws {
        let expected = try #require(Self.accepted.first { $0.0 == text }?.1)
        let date = try #require(ISO8601.date(from: text))
        #expect(abs(date.timeIntervalSince(expected)) < 0.001)
        // `set` and `edit` read a date attribute through the same parser.
        let value = try BowTieModel.entity["lastWorn"]?.value(fromText: text)
        #expect(value == .date(date))
    }

    @Test(
        "anything else is refused, days that do not exist included",
        arguments: [
            "", "2024", "2024-03", "2024-3-15", "15/03/2024", "2024-02-30", "2023-02-29", "2024-13-01",
            "2024-03-15T10:30Z", "2024-03-15T10:30:00", "2024-03-15T24:00:00Z", "2024-03-15T10:30:00+2",
            "2024-03-15T10:30:00+02:60", "2024-03-15T10:30:00.Z", "2024-03-15T10:30:00 UTC", "yesterday",
        ])
    func refuses(_ text: String) throws {
        #expect(ISO8601.date(from: text) == nil)
        if !text.isEmpty {
            #expect(throws: ValueTextError.self) { try BowTieModel.entity["lastWorn"]?.value(fromText: text) }
        }
    }

    @Test("what string(from:) writes reads back")
    func roundTrip() {
        let date = Date(timeIntervalSince1970: 1_403_201_724)
        #expect(ISO8601.date(from: ISO8601.string(from: date)) == date)
    }

    @Test("string(from:) pads every field, rounds down to the second, and writes years past 9999 whole")
    func written() {
        #expect(ISO8601.string(from: Date(timeIntervalSince1970: 1_403_201_724.9)) == "2014-06-19T18:15:24Z")
        #expect(ISO8601.string(from: Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00Z")
        #expect(ISO8601.string(from: Date(timeIntervalSince1970: -1)) == "1969-12-31T23:59:59Z")
        // 0001-02-03T04:05:06Z and 9999-12-31T23:59:59Z, the first and last
        // years written in four digits; then 10000.
        #expect(ISO8601.string(from: Date(timeIntervalSince1970: -62_132_730_894)) == "0001-02-03T04:05:06Z")
        #expect(ISO8601.string(from: Date(timeIntervalSince1970: 253_402_300_799)) == "9999-12-31T23:59:59Z")
        #expect(ISO8601.string(from: Date(timeIntervalSince1970: 253_402_300_800)) == "10000-01-01T00:00:00Z")
    }
}
