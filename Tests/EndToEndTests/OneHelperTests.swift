import Foundation
import Testing

/// What one helper each (escaping, explicit nulls) and the declaration
/// (sort, the rating's scale) show a user: the same text everywhere.
@Suite("one helper each, and the declaration's sort and scale")
struct OneHelperTests {
    /// The sample data and three more ties that tie with others: `r2`
    /// named as R ignoring case and rated as R; `Z` rated as Y; `a`
    /// rated as R. The three are never worn.
    static func catalogWithEquals() throws -> BowTiesRunner {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        for arguments in [
            ["add", "--name", "classic red bow tie", "--key", "r2", "--rating", "3.5"],
            ["add", "--name", "Zed", "--key", "Z", "--rating", "0.5"],
            ["add", "--name", "Alpha", "--key", "a", "--rating", "3.5"],
        ] {
            let result = try bowties.run(arguments: arguments)
            try #require(result.status == 0, "\(result)")
        }
        return bowties
    }

    /// The keys `list` shows, in order.
    static func keys(_ bowties: BowTiesRunner, _ arguments: [String]) throws -> [String] {
        let result = try bowties.run(arguments: ["list", "--format", "tsv", "--fields", "searchKey"] + arguments)
        #expect(result.status == 0, "\(result)")
        return Array(result.stdoutLines.dropFirst().filter { !$0.isEmpty })
    }

    @Test(
        "list --sort X [--reverse] is the sort:X term: the same order as before, equals in the order added",
        arguments: [
            ("added", ["R", "O", "Y", "G", "B", "I", "V", "r2", "Z", "a"]),
            ("key", ["a", "B", "G", "I", "O", "R", "r2", "V", "Y", "Z"]),
            ("name", ["a", "R", "r2", "G", "I", "B", "O", "V", "Y", "Z"]),
            ("rating", ["Y", "Z", "V", "G", "R", "r2", "a", "I", "O", "B"]),
            ("timesWorn", ["Y", "r2", "Z", "a", "I", "O", "V", "G", "R", "B"]),
            ("lastWorn", ["r2", "Z", "a", "Y", "I", "V", "O", "G", "R", "B"]),
        ])
    func sortOrders(_ order: String, _ expected: [String]) throws {
        let bowties = try Self.catalogWithEquals()
        #expect(try Self.keys(bowties, ["--sort", order]) == expected)
        // --reverse reverses the whole order, equals included.
        #expect(try Self.keys(bowties, ["--sort", order, "--reverse"]) == expected.reversed())
        guard order != "added" else { return }
        let term = "sort:" + (order == "key" ? "searchKey" : order)
        for reverse in [[], ["--reverse"]] {
            let option = try bowties.run(arguments: ["list", "--sort", order] + reverse)
            let query = try bowties.run(arguments: ["list", term] + reverse)
            #expect(option.status == 0 && option.stdout == query.stdout, "\(option)\n\(query)")
        }
    }

    @Test("a sort: term in the query wins over --sort, as before")
    func queryTermFirst() throws {
        let bowties = try Self.catalogWithEquals()
        #expect(
            try Self.keys(bowties, ["rating:1..", "sort:name", "--sort", "rating"])
                == ["a", "R", "r2", "G", "I", "B", "O", "V"])
    }

    @Test("a message quoting a value escapes every bidirectional control, as the table does")
    func messageEscapesBidiMarks() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let result = try bowties.run("untag", "R", "x\u{200E}y\u{200F}z\u{061C}w\u{1B}[31m")
        #expect(result.status == 1, "\(result)")
        #expect(
            result.stderr.hasPrefix(
                "bowties: error: R \"Classic Red Bow Tie\" has no tag \"x\\u{200E}y\\u{200F}z\\u{61C}w\\e[31m\"\n"),
            "\(result)")
        #expect(!result.stderr.unicodeScalars.contains { [0x200E, 0x200F, 0x061C, 0x1B].contains($0.value) })
    }

    @Test("history and model JSON keep every key, null when there is no value")
    func explicitNulls() throws {
        let bowties = try Self.catalogWithEquals()
        let history = try bowties.run("history", "Z", "--json")
        #expect(history.status == 0, "\(history)")
        let tie = try #require(try history.json() as? [String: Any], "\(history)")
        #expect(tie["lastWorn"] is NSNull && (tie["baseline"] as? [String: Any])?["lastWorn"] is NSNull)
        #expect(history.stdout.contains("\"lastWorn\" : null,\n    \"timesWorn\" : 0\n  },"), "\(history)")
        let model = try bowties.run("model", "--json")
        #expect(model.stdout.contains("\"maxValue\" : 5,"), "\(model)")
        let entities = try #require((try model.json() as? [String: Any])?["entities"] as? [[String: Any]])
        let attributes = try #require(entities.first?["attributes"] as? [[String: Any]])
        #expect(attributes.allSatisfy { $0.count == 19 && $0["derivation"] != nil }, "\(model)")
    }

    @Test("rate, add, show and check give the rating's scale from the declaration")
    func ratingScale() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        #expect(try bowties.run("rate", "--help").stdout.contains("Rate a bow tie from 0 to 5 (decimals allowed)."))
        #expect(try bowties.run("rate", "--help").stdout.contains("A rating outside 0...5 is refused"))
        #expect(try bowties.run("add", "--help").stdout.contains("A rating from 0 to 5, decimals allowed"))
        #expect(try bowties.run("check", "--help").stdout.contains("(rating 0 to 5, a"))
        #expect(try bowties.run("rate", "R", "4.5").stdout == "Rated Classic Red Bow Tie (R): 4.5/5\n")
        #expect(try bowties.run("show", "R").stdoutLines.contains("Rating: 4.5/5"))
    }
}
