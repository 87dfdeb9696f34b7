import Foundation
import Testing

/// The query language through `list`, `count` and `export`, on the
/// sample data.
@Suite("Queries in list, count and export")
struct QueryCommandTests {
    /// The search keys of a `--json` list of ties.
    static func keys(_ result: BowTiesResult) throws -> [String] {
        try #require(try result.json() as? [[String: Any]], "\(result)").compactMap { $0["searchKey"] as? String }
    }

    @Test("list with terms shows the matching ties and their count")
    func listTable() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let result = try bowties.run("list", "rating:4..")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdoutLines.dropFirst().prefix(2).map { String($0.prefix(1)) } == ["O", "B"], "\(result)")
        #expect(result.stdoutLines[4] == "2 bow ties, 1 favourite", "\(result)")
    }

    @Test("list --json: ranges, dates, negation, OR groups and sort terms")
    func listJSON() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let cases: [([String], [String])] = [
            (["rating:3..5"], ["R", "O", "B", "I"]),
            (["timesWorn:..3"], ["O", "Y", "I"]),
            (["lastWorn:2014-01..2014-05"], ["O", "I", "V"]),
            (["lastWorn:2014-06"], ["R", "G", "B"]),
            (["lastWorn:..-90d"], ["R", "O", "Y", "G", "B", "I", "V"]),
            (["^lastWorn:..-90d"], []),
            (["name:BLUE"], ["B"]),
            (["searchKey:=R"], ["R"]),
            (["name::^(Classic|Violet)"], ["R", "V"]),
            (["silk"], ["B"]),
            (["is:favorite", ",", "rating:..1"], ["Y", "B"]),
            (["^is:favorite", "has:photo", "rating:3.."], ["R", "O", "I"]),
            (["sort:rating-"], ["B", "O", "I", "R", "G", "V", "Y"]),
            (["sort:timesWorn", "rating:2.."], ["I", "O", "G", "R", "B"]),
        ]
        for (terms, expected) in cases where !expected.isEmpty {
            let result = try bowties.run(arguments: ["list", "--json"] + terms)
            #expect(result.status == 0, "\(result)")
            #expect(try Self.keys(result) == expected, "\(result)")
        }
    }

    @Test("the old options combine with a query")
    func options() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        #expect(try bowties.run("tag", "R", "formal").status == 0)
        #expect(try bowties.run("tag", "B", "formal").status == 0)
        #expect(try Self.keys(bowties.run("list", "--json", "--tag", "formal", "rating:..4")) == ["R"])
        #expect(try Self.keys(bowties.run("list", "--json", "--favorites", "silk", ",", "paisley")) == ["B"])
        #expect(
            try Self.keys(bowties.run("list", "--json", "--sort", "rating", "--reverse", "rating:3..")) == [
                "B", "O", "I", "R",
            ])
        #expect(try Self.keys(bowties.run("list", "--json", "tag:FORMAL", "--reverse")) == ["B", "R"])
    }

    @Test("a query that matches nothing says so and exits 1")
    func noMatch() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let result = try bowties.run("list", "rating:5")
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout == "No bow tie matches rating:5.\n", "\(result)")
        let json = try bowties.run("list", "--json", "^lastWorn:..-90d")
        #expect(json.status == 1, "\(json)")
        #expect(json.stdout == "[]\n", "\(json)")
    }

    @Test("unknown fields and malformed terms exit 64 and name the term")
    func errors() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let unknown = try bowties.run("list", "silk", "ratng:4")
        #expect(unknown.status == 64, "\(unknown)")
        #expect(
            unknown.stderr == "bowties: error: term 2 (ratng:4): unknown field \"ratng\"; did you mean \"rating\"?\n",
            "\(unknown)")
        let range = try bowties.run("count", "rating:high")
        #expect(range.status == 64, "\(range)")
        #expect(range.stderr.contains("term 1 (rating:high)"), "\(range)")
        let regex = try bowties.run("export", "name::(")
        #expect(regex.status == 64, "\(regex)")
        #expect(regex.stdout.isEmpty, "\(regex)")
    }

    @Test("count prints the number, 0 included, and --json")
    func count() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let all = try bowties.run("count")
        #expect(all.status == 0 && all.stdout == "7\n", "\(all)")
        let some = try bowties.run("count", "rating:3..5")
        #expect(some.status == 0 && some.stdout == "4\n", "\(some)")
        let none = try bowties.run("count", "rating:5")
        #expect(none.status == 0 && none.stdout == "0\n", "\(none)")
        let json = try bowties.run("count", "--json", "has:url")
        #expect(json.status == 0, "\(json)")
        #expect((try json.json() as? [String: Int]) == ["count": 7], "\(json)")
    }

    @Test("export writes only the matching ties, as CSV and JSON")
    func export() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let csv = try bowties.run("export", "rating:4..", "sort:rating-")
        #expect(csv.status == 0, "\(csv)")
        let rows = try ExportCommandTests.parse(csv.stdout)
        #expect(rows.first == ExportCommandTests.header)
        #expect(rows.dropFirst().map { $0[2] } == ["B", "O"], "\(csv)")
        let json = try bowties.run("export", "--json", "lastWorn:2014-06")
        #expect(json.status == 0, "\(json)")
        #expect(try Self.keys(json) == ["R", "G", "B"], "\(json)")
        let none = try bowties.run("export", "rating:5")
        #expect(none.status == 0, "\(none)")
        #expect(try ExportCommandTests.parse(none.stdout) == [ExportCommandTests.header], "\(none)")
        let file = bowties.directory.appendingPathComponent("some.csv")
        let output = try bowties.run("export", "--output", file.path, "is:favorite")
        #expect(output.stderr == "Exported 1 bow tie to \(file.path).\n", "\(output)")
    }

    @Test("--help explains the query language")
    func help() throws {
        let bowties = try BowTiesRunner()
        for command in ["list", "export", "count"] {
            let result = try bowties.run(command, "--help")
            #expect(result.status == 0, "\(result)")
            #expect(result.stdout.contains("QUERIES"), "\(result)")
            #expect(result.stdout.contains("lastWorn:..-90d"), "\(result)")
        }
    }
}
