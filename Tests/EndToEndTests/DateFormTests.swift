import Foundation
import Testing

/// One set of date forms everywhere a date is typed: a `lastWorn` cell of
/// an imported CSV, TSV or JSON file, a wear's date in JSON, and
/// `wear --on` (issue 20, item 7: a CSV day such as `2024-03-15` used to
/// be refused though `wear --on` took it).
@Suite("Date forms: import cells and wear --on read the same dates")
struct DateFormTests {
    struct Form: Sendable, CustomTestStringConvertible {
        var text: String
        /// The instant it stands for, as `export` writes it.
        var instant: String
        var testDescription: String { text }
    }

    static let forms: [Form] = [
        Form(text: "2024-03-15", instant: "2024-03-15T00:00:00Z"),
        Form(text: "2024-03-15T10:30:00Z", instant: "2024-03-15T10:30:00Z"),
        Form(text: "2024-03-15T12:30:00+02:00", instant: "2024-03-15T10:30:00Z"),
        Form(text: "2024-03-15T09:30:00-0100", instant: "2024-03-15T10:30:00Z"),
        Form(text: "2024-03-15T10:30:00.250Z", instant: "2024-03-15T10:30:00Z"),
        Form(text: "2024-03-15 10:30:00Z", instant: "2024-03-15T10:30:00Z"),
    ]

    /// The `lastWorn` cell of the tie with search key `key`, as a CSV
    /// export writes it.
    static func lastWorn(_ bowties: BowTiesRunner, _ key: String) throws -> String {
        let result = try bowties.run("export", "--fields", "searchKey,lastWorn", "searchKey:=\(key)")
        try #require(result.status == 0, "\(result)")
        // CSV rows end with CRLF, one Character in Swift.
        let rows = result.stdout.split(whereSeparator: \.isNewline)
        try #require(rows.count == 2, "\(result)")
        return String(rows[1].split(separator: ",").last ?? "")
    }

    @Test("each form is read in a CSV, a TSV and a JSON cell, and as a wear's date", arguments: forms)
    func importCells(_ form: Form) throws {
        let bowties = try BowTiesRunner()
        let csv = try bowties.write("name,searchKey,lastWorn\nCSV tie,C,\(form.text)\n", to: "ties.csv")
        let tsv = try bowties.write("name\tsearchKey\tlastWorn\nTSV tie\tT\t\(form.text)\n", to: "ties.tsv")
        let json = try bowties.write(
            """
            [{"name": "JSON tie", "searchKey": "J", "lastWorn": "\(form.text)"},
             {"name": "Worn tie", "searchKey": "W", "wears": [{"date": "\(form.text)"}]}]
            """, to: "ties.json")
        for file in [csv, tsv, json] {
            let result = try bowties.run("import", file.path)
            #expect(result.status == 0, "\(result)")
            #expect(result.stderr.isEmpty, "\(result)")
        }
        for key in ["C", "T", "J", "W"] {
            #expect(try Self.lastWorn(bowties, key) == form.instant, "\(key)")
        }
    }

    @Test("wear --on takes each form", arguments: forms)
    func wearOn(_ form: Form) throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let result = try bowties.run("wear", "R", "--on", form.text)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.hasPrefix("Wore Classic Red Bow Tie (R) on 2024-03-15: "), "\(result)")
        #expect(try Self.lastWorn(bowties, "R") == form.instant)
    }

    @Test(
        "what is not a date is refused alike: located in a CSV (65), named by wear --on (64)",
        arguments: ["2024-02-30", "15/03/2024", "2024-3-15", "2024-03-15T10:30Z", "2024-03-15T10:30:00", "yesterday"])
    func refused(_ text: String) throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let before = try workspace.snapshot()
        let file = workspace.inputDirectory.appendingPathComponent("ties.csv")
        try Data("name,searchKey,lastWorn\nA,A,\(text)\n".utf8).write(to: file)
        let result = try workspace.run("import", file.path)
        #expect(result.status == 65, "\(result)")
        #expect(
            result.stderr.hasPrefix(
                "bowties: error: ties.csv:2:5: record 1 (A \"A\"), lastWorn: \"\(text)\" is not a date "
                    + "(expected a day such as 2014-06-19, or a date and time such as 2014-06-19T18:15:24Z)"),
            "\(result)")
        let wear = try workspace.run("wear", "R", "--on", text)
        #expect(wear.status == 64, "\(wear)")
        #expect(wear.stderr.hasPrefix("bowties: error: --on \"\(text)\" is not a date"), "\(wear)")
        #expect(try workspace.snapshot() == before)
    }
}
