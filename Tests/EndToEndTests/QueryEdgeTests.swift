import Foundation
import Testing

/// Issue 20, items 11 and 10 (queries): an empty match exits 1 whichever
/// way it was asked for, an empty range is an error, `--tag ""` is
/// blamed on the option; the colour can be searched and is suggested by
/// its label.
@Suite("Query edges: empty matches, empty ranges, colours")
struct QueryEdgeTests {
    @Test("list --tag nosuch and list tag:nosuch agree: each says nothing matches and exits 1")
    func unknownTagAgrees() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let option = try bowties.run("list", "--tag", "nosuch")
        #expect(option.status == 1, "\(option)")
        #expect(option.stdout == "No bow tie is tagged \"nosuch\".\n", "\(option)")
        let term = try bowties.run("list", "tag:nosuch")
        #expect(term.status == 1, "\(term)")
        #expect(term.stdout == "No bow tie matches tag:nosuch.\n", "\(term)")
        let json = try bowties.run("list", "--tag", "nosuch", "--format", "json")
        #expect(json.status == 1 && json.stdout == "[]\n", "\(json)")
    }

    @Test(
        "a range whose start is after its end is an error naming the term, exit 64",
        arguments: [
            (
                "rating:5..3",
                "term 1 (rating:5..3): the range 5..3 is empty: its start is after its end; did you mean \"rating:3..5\"?"
            ),
            ("lastWorn:2014-06..2014-01", "term 1 (lastWorn:2014-06..2014-01): the range 2014-06..2014-01 is empty"),
        ])
    func emptyRange(term: String, message: String) throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let result = try bowties.run("list", term)
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.hasPrefix("bowties: error: " + message), "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        // Still a range when both ends meet.
        #expect(try bowties.run("count", "rating:4..4").stdout == "1\n")
    }

    @Test("list --tag \"\" is blamed on the option, not on a term")
    func emptyTagOption() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        for name in ["", "  "] {
            let result = try bowties.run("list", "--tag", name)
            #expect(result.status == 64, "\(result)")
            #expect(result.stderr.contains("--tag needs a tag name, such as --tag formal."), "\(result)")
            #expect(!result.stderr.contains("term 1"), "\(result)")
        }
    }

    @Test("has:colour suggests tintColor, by its label (the table's COLOUR)")
    func colourSuggestion() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let has = try bowties.run("list", "has:colour")
        #expect(has.status == 64, "\(has)")
        #expect(has.stderr.contains("did you mean \"tintColor\"?"), "\(has)")
        let field = try bowties.run("list", "colour:#C81E2D")
        #expect(field.status == 64 && field.stderr.contains("did you mean \"tintColor\"?"), "\(field)")
        // Still bounded: a word far from every name gets the list instead.
        let far = try bowties.run("list", "has:xyzzy")
        #expect(far.status == 64 && !far.stderr.contains("did you mean") && far.stderr.contains("tintColor"), "\(far)")
    }

    @Test("tintColor:#C81E2D finds the red tie: exact, hex digits in any case")
    func colourSearch() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        for term in ["tintColor:#C81E2D", "tintcolor:#c81e2d", "tintColor:=C81E2D"] {
            let result = try bowties.run("list", "--json", term)
            #expect(result.status == 0, "\(result)")
            #expect(try QueryCommandTests.keys(result) == ["R"], "\(term): \(result)")
        }
        #expect(try bowties.run("count", "^tintColor:#C81E2D").stdout == "6\n")
        #expect(try bowties.run("count", "tintColor:#C81E2C").stdout == "0\n")
        let bad = try bowties.run("list", "tintColor:red")
        #expect(bad.status == 64 && bad.stderr.contains("takes a colour #RRGGBB"), "\(bad)")
    }
}
