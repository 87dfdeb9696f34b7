import Foundation
import Testing

/// A first import into an empty catalog keeps the tag links and wears of
/// its records aside until the id's index is built after the last record,
/// then inserts them with one statement per table (`BulkLinkStage`), so a
/// file with tags or wears stays a bulk load (bench/README.md, "session
/// 10"). What the user sees must not change: the catalog holds what an
/// import into a catalog that already has ties holds (whose index is there
/// all along), the wear totals and history agree, undo and redo work, and
/// a bad tag, a bad wear or a repeated id after tagged and worn records
/// is reported at the same record and key, with the same words, leaving
/// nothing behind.
@Suite("A bulk load's staged tag links and wears")
struct BulkLoadLinkTests {
    /// `count` ties as JSON Lines: from the second on each has two wears,
    /// from the third on two tags (one of them in another spelling every
    /// other record, as files write them). `change` rewrites the line of
    /// a record (1-based) to make it wrong.
    static func jsonLines(count: Int, change: [Int: @Sendable (String) -> String] = [:]) -> String {
        (1...count).map { number in
            let id = String(format: "0A1B2C3D-0000-4000-8000-%012d", number)
            var line = #"{"id":"\#(id)","name":"Tie \#(number)","searchKey":"K\#(number)","rating":3"#
            if number >= 3 {
                line += number % 2 == 0 ? #","tags":["silk","formal"]"# : #","tags":["Silk","casual \#(number % 3)"]"#
            }
            if number >= 2 {
                line += #","timesWorn":\#(number),"wears":[{"date":"2024-01-0\#(number % 9 + 1)T10:00:00Z","note":"first \#(number)"},"#
                line += #"{"date":"2024-02-0\#(number % 9 + 1)T10:00:00Z","note":null}]"#
            }
            line += "}"
            return change[number].map { $0(line) } ?? line
        }.joined(separator: "\n") + "\n"
    }

    /// A workspace whose catalog holds one tie that no file here names:
    /// its id index is there all along, so an import into it goes record
    /// by record.
    static func stockedWorkspace() throws -> CatalogWorkspace {
        let workspace = try CatalogWorkspace()
        let other = try workspace.writeInput(
            #"{"id":"0A1B2C3D-0000-4000-8000-0000000000FF","name":"Other","searchKey":"Z","rating":1}"# + "\n",
            to: "other.jsonl")
        try #require(try workspace.run("import", other.path).status == 0)
        return workspace
    }

    @Test("tags and wears imported into an empty catalog: the same ties, links and history as record by record")
    func sameCatalogAsRecordByRecord() throws {
        let text = Self.jsonLines(count: 40)

        let bulk = try CatalogWorkspace()
        let file = try bulk.writeInput(text, to: "ties.jsonl")
        let imported = try bulk.run("import", file.path)
        #expect(imported.status == 0, "\(imported)")
        #expect(imported.stdout.contains("added 40"), "\(imported)")

        let stocked = try Self.stockedWorkspace()
        let same = try stocked.writeInput(text, to: "ties.jsonl")
        #expect(try stocked.run("import", same.path).status == 0)
        #expect(try stocked.run("delete", "Z", "--yes").status == 0)

        // Every field, the tags and the wears of every tie, byte for byte.
        let bulkExport = try bulk.run("export", "--format", "jsonl")
        let stockedExport = try stocked.run("export", "--format", "jsonl")
        #expect(bulkExport.status == 0 && !bulkExport.stdout.isEmpty, "\(bulkExport)")
        #expect(bulkExport.stdout == stockedExport.stdout)
        #expect(try bulk.run("count", "tag:silk").stdout == "38\n")
        let tags = try bulk.run("tags")
        let stockedTags = try stocked.run("tags")
        #expect(tags.status == 0 && tags.stdout == stockedTags.stdout, "\(tags)")
        // The wear triggers brought the totals up to date from the history.
        #expect(try bulk.timesWorn("K7") == 7)
        let history = try bulk.run("history", "K7")
        let stockedHistory = try stocked.run("history", "K7")
        #expect(history.status == 0 && history.stdout == stockedHistory.stdout, "\(history)")
        #expect(history.stdout.contains("first 7"), "\(history)")
        let check = try bulk.run("check")
        #expect(check.status == 0 && check.stdout.contains("No problems found."), "\(check)")

        #expect(try bulk.run("undo").status == 0)
        #expect(try bulk.run("count").stdout == "0\n")
        let tagsAfterUndo = try bulk.run("tags")
        #expect(!tagsAfterUndo.stdout.lowercased().contains("silk"), "\(tagsAfterUndo)")
        #expect(try bulk.run("redo").status == 0)
        #expect(try bulk.run("export", "--format", "jsonl").stdout == bulkExport.stdout)
    }

    /// (what is wrong with record 30, the key the error names)
    static let faults: [(name: String, change: @Sendable (String) -> String, key: String)] = [
        ("a tag too long", { $0.replacingOccurrences(of: #""silk""#, with: "\"\(String(repeating: "s", count: 65))\"") }, "tags"),
        ("a wear's note too long", { $0.replacingOccurrences(of: "first 30", with: String(repeating: "n", count: 1001)) }, "wears.note"),
        ("a repeated id", { $0.replacingOccurrences(of: "-000000000030", with: "-000000000004") }, "id"),
    ]

    @Test(
        "a bad tag, wear or id after tagged and worn records: the same error at the same record, nothing stored",
        arguments: faults.indices)
    func faultAfterStagedRows(fault index: Int) throws {
        let fault = Self.faults[index]
        let text = Self.jsonLines(count: 40, change: [30: fault.change])

        let bulk = try CatalogWorkspace()
        try bulk.importSampleData()
        try #require(try bulk.run("undo").status == 0)
        let before = try bulk.snapshot()
        let file = try bulk.writeInput(text, to: "ties.jsonl")
        let result = try bulk.run("import", file.path)

        let stocked = try Self.stockedWorkspace()
        let same = try stocked.writeInput(text, to: "ties.jsonl")
        let indexed = try stocked.run("import", same.path)

        #expect(result.status == 65, "\(fault.name): \(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        #expect(result.stderr.hasPrefix("bowties: error: ties.jsonl:30:"), "\(fault.name): \(result)")
        #expect(result.stderr.contains(": record 30 (K30 \"Tie 30\"), \(fault.key): "), "\(fault.name): \(result)")
        #expect(result.stderr == indexed.stderr, "\(fault.name): bulk:\n\(result.stderr)\nindexed:\n\(indexed.stderr)")
        try NoTraceTests.expectNoTrace(bulk, before: before, result)
        #expect(try bulk.run("count").stdout == "0\n")
    }
}
