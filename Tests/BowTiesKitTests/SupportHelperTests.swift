import Foundation
import Testing

@testable import BowTiesKit

@Suite("one helper each: escaping, explicit nulls, the rating's scale, rows by name")
struct SupportHelperTests {
    @Test("a message quotes a value with every control escaped as the terminal's table does")
    func abbreviatedEscapesAsTheTable() {
        #expect(AttributeValue.abbreviated("a\u{061C}b\u{200E}c\u{200F}d") == "a\\u{61C}b\\u{200E}c\\u{200F}d")
        #expect(
            AttributeValue.abbreviated("two\nlines\t\u{1B}[31m\u{7}\u{202E}") == "two\\nlines\\t\\e[31m\\x07\\u{202E}")
        for text in ["x\u{061C}", "\u{200E}", "\u{200F}y", "\u{1B}", "\u{85}", "\u{2066}", "plain é 蝶"] {
            #expect(AttributeValue.abbreviated(text) == ControlCharacters.escaped(text), "\(text.debugDescription)")
        }
        // The cut still counts scalars of the value, not of its escapes.
        let long = String(repeating: "\u{200E}", count: 100)
        #expect(AttributeValue.abbreviated(long) == String(repeating: "\\u{200E}", count: 80) + "...")
    }

    @Test("the edit distance stops at its bound, and answers as before within it")
    func editDistanceBound() {
        #expect(EditDistance.between("kitten", "sitting", atMost: 3) == 3)
        #expect(EditDistance.between("kitten", "sitting", atMost: 2) == 3)
        #expect(EditDistance.between("lsit", "list", atMost: 1) == 1)
        #expect(EditDistance.between("fabric", "rating", atMost: 2) == 3)
        #expect(EditDistance.between(String(repeating: "x", count: 100_000), "rating", atMost: 3) == 4)
        for (a, b) in [("timesworn", "timesWorn"), ("ratng", "rating"), ("colour", "tintColor"), ("", "abc")] {
            let exact = EditDistance.between(a, b)
            for limit in 0...6 {
                #expect(EditDistance.between(a, b, atMost: limit) == min(exact, limit + 1), "\(a) \(b) \(limit)")
            }
        }
    }

    @Test("ExplicitNull writes null for nil and the value otherwise")
    func explicitNull() throws {
        struct Wear: Encodable {
            var date: String
            @ExplicitNull var note: String?
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let none = try encoder.encode(Wear(date: "d", note: nil))
        #expect(String(decoding: none, as: UTF8.self) == #"{"date":"d","note":null}"#)
        let some = try encoder.encode(Wear(date: "d", note: "n"))
        #expect(String(decoding: some, as: UTF8.self) == #"{"date":"d","note":"n"}"#)
    }

    @Test("the rating's scale comes from the declaration, and the report's stars follow it")
    func ratingScale() throws {
        let rating = try #require(BowTieModel.entity["rating"])
        #expect(BowTieModel.ratingScale == (rating.minValue ?? -1)...(rating.maxValue ?? -1))
        #expect(BowTieModel.ratingScale == 0...5)
        let stars = HTMLReport.stars(3.5)
        #expect(stars.components(separatedBy: "★").count - 1 == 5)
        #expect(stars.contains("aria-label=\"rated 3.5 of 5\"") && stars.contains(">3.5/5<"))
    }

    @Test("a row's fields are found by export name; one it does not hold is an error")
    func rowsByName() throws {
        let directory = try TemporaryDirectory()
        let catalog = try Catalog.temporary(in: directory)
        _ = try catalog.save(BowTie(name: "Tie", searchKey: "T", rating: 4.5))
        var seen: [String] = []
        try catalog.forEachRow(
            of: ["name", "rating"], matching: catalog.query([]),
            resolving: { row in (try row.field("rating"), try row.field("name")) },
            each: { row, fields in seen.append("\(row.text(fields.1) ?? "") \(row.number(fields.0) ?? 0)") })
        #expect(seen == ["Tie 4.5"])
        #expect(throws: ExportFieldError.self) {
            try catalog.forEachRow(
                of: ["name"], matching: catalog.query([]), resolving: { try $0.field("rating") }, each: { _, _ in })
        }
    }
}
