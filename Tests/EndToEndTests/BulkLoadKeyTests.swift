import Foundation
import Testing

/// A first import into an empty catalog builds the index that keeps
/// `bowtie.id` unique after the records rather than record by record
/// (bench/README.md, "session 9"). What the user sees must not change: a
/// repeated id is reported at the same record, with the same words and
/// the same `file:line:column`, as an import into a catalog that already
/// has ties (whose index is there all along), and the catalog is left
/// byte-identical; files whose records have tags and wears still import,
/// undo and redo.
@Suite("A bulk load's deferred id index")
struct BulkLoadKeyTests {
    static let repeated = "0A1B2C3D-0000-4000-8000-000000000001"

    /// Five ties; the third and the fifth repeat the first's id, and the
    /// fourth has a rating no tie may have. The first error in the file is
    /// the third record's id.
    static let ties: [(id: String, key: String, name: String, rating: String, tags: [String])] = [
        (repeated, "A", "First", "3", []),
        ("0A1B2C3D-0000-4000-8000-000000000002", "B", "Second", "4", []),
        (repeated, "C", "Third", "2", []),
        ("0A1B2C3D-0000-4000-8000-000000000004", "D", "Fourth", "6", []),
        (repeated, "E", "Fifth", "1", []),
    ]

    static func plist(_ ties: [(id: String, key: String, name: String, rating: String, tags: [String])]) -> String {
        var text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <array>

            """
        for tie in ties {
            text += "\t<dict>\n\t\t<key>id</key>\n\t\t<string>\(tie.id)</string>\n"
            text += "\t\t<key>name</key>\n\t\t<string>\(tie.name)</string>\n"
            text += "\t\t<key>searchKey</key>\n\t\t<string>\(tie.key)</string>\n"
            text += "\t\t<key>rating</key>\n\t\t<real>\(tie.rating)</real>\n"
            if !tie.tags.isEmpty {
                text += "\t\t<key>tags</key>\n\t\t<array>\n"
                for tag in tie.tags { text += "\t\t\t<string>\(tag)</string>\n" }
                text += "\t\t</array>\n"
            }
            text += "\t</dict>\n"
        }
        return text + "</array>\n</plist>\n"
    }

    static func jsonLines(_ ties: [(id: String, key: String, name: String, rating: String, tags: [String])]) -> String {
        ties.map { tie in
            #"{"id":"\#(tie.id)","name":"\#(tie.name)","searchKey":"\#(tie.key)","rating":\#(tie.rating)}"#
        }.joined(separator: "\n") + "\n"
    }

    enum Input: String, CaseIterable, Sendable {
        case plist, jsonLines, jsonLinesOnStandardInput
    }

    /// Runs `import` of `text` on the workspace's store, from a file or
    /// standard input.
    static func importText(_ text: String, _ input: Input, _ workspace: CatalogWorkspace) throws -> BowTiesResult {
        let name = input == .plist ? "ties.plist" : "ties.jsonl"
        let url = try workspace.writeInput(text, to: name)
        if input == .jsonLinesOnStandardInput {
            return try workspace.runner.run(
                arguments: ["import", "-", "--format", "jsonl"], environment: ["BOWTIES_STORE": workspace.storeURL.path],
                input: url)
        }
        return try workspace.run("import", url.path)
    }

    @Test(
        "a repeated id in a bulk load is the error, at its record, as where the index is there all along",
        arguments: Input.allCases)
    func repeatedIDIsReportedAsBefore(input: Input) throws {
        let text = input == .plist ? Self.plist(Self.ties) : Self.jsonLines(Self.ties)

        // An empty catalog (imported, then undone): the bulk load.
        let empty = try CatalogWorkspace()
        try empty.importSampleData()
        try #require(try empty.run("undo").status == 0)
        let before = try empty.snapshot()
        let bulk = try Self.importText(text, input, empty)

        // A catalog with a tie already: the id index is there throughout.
        let stocked = try CatalogWorkspace()
        let other = try stocked.writeInput(
            Self.jsonLines([("0A1B2C3D-0000-4000-8000-0000000000FF", "Z", "Other", "3", [])]), to: "other.jsonl")
        try #require(try stocked.run("import", other.path).status == 0)
        let indexed = try Self.importText(text, input, stocked)

        #expect(bulk.status == 65, "\(bulk)")
        #expect(bulk.stdout.isEmpty, "\(bulk)")
        let place = input == .plist ? "ties.plist:25:2" : (input == .jsonLines ? "ties.jsonl:3:1" : "stdin:3:1")
        #expect(
            bulk.stderr.hasPrefix(
                "bowties: error: \(place): record 3 (C \"Third\"), id: the id \(Self.repeated) appears more than once in this file\n"
            ), "\(bulk)")
        // Word for word what the import says where the index never went.
        #expect(bulk.stderr == indexed.stderr, "bulk:\n\(bulk.stderr)\nindexed:\n\(indexed.stderr)")
        #expect(bulk.status == indexed.status)
        let after = try empty.snapshot()
        #expect(after.isByteIdentical(to: before), "\(after.byteDifference(from: before))")
        #expect(try empty.run("count").stdout == "0\n")
    }

    @Test("a failed first import into a new catalog leaves no catalog behind")
    func newCatalogLeftAbsent() throws {
        let workspace = try CatalogWorkspace()
        let result = try Self.importText(Self.plist(Self.ties), .plist, workspace)
        #expect(result.status == 65, "\(result)")
        #expect(result.stderr.contains("record 3 (C \"Third\"), id: the id \(Self.repeated) appears more than once"))
        #expect(!FileManager.default.fileExists(atPath: workspace.storeURL.path))
    }

    @Test("records with tags in a bulk load: the index is built when the first link needs it")
    func tagsMidLoad() throws {
        let workspace = try CatalogWorkspace()
        let ties = (1...6).map { number in
            (
                id: "0A1B2C3D-0000-4000-8000-00000000001\(number)", key: "K\(number)", name: "Tie \(number)",
                rating: "3", tags: number >= 3 ? ["silk", "formal"] : [String]()
            )
        }
        let clean = try workspace.writeInput(Self.plist(ties), to: "tagged.plist")
        let imported = try workspace.run("import", clean.path)
        #expect(imported.status == 0, "\(imported)")
        #expect(try workspace.run("count", "tag:silk").stdout == "4\n")
        let check = try workspace.run("check")
        #expect(check.status == 0 && check.stdout.contains("No problems found."), "\(check)")
        #expect(try workspace.run("undo").status == 0)
        #expect(try workspace.run("count").stdout == "0\n")
        #expect(try workspace.run("redo").status == 0)
        #expect(try workspace.run("count", "tag:formal").stdout == "4\n")

        // The fifth repeats the second's id, after the index came back
        // for the third's tags; and the second's own repeat of the first
        // is found by the build. Each in a catalog of its own.
        for (position, repeatedFrom) in [(4, 1), (1, 0)] {
            let fresh = try CatalogWorkspace()
            var copy = ties
            copy[position].id = ties[repeatedFrom].id
            let file = try fresh.writeInput(Self.plist(copy), to: "tagged.plist")
            let result = try fresh.run("import", file.path)
            #expect(result.status == 65, "\(result)")
            #expect(
                result.stderr.contains(
                    ": record \(position + 1) (K\(position + 1) \"Tie \(position + 1)\"), id: the id \(ties[repeatedFrom].id) appears more than once in this file"
                ), "\(result)")
            #expect(!FileManager.default.fileExists(atPath: fresh.storeURL.path))
        }
    }

    @Test("a new catalog keeps ids unique with an index of its own, which check compares with the declaration")
    func keyIndexInTheSchema() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let schema = try SQLiteLibrary().dump(workspace.storeURL.path)
        #expect(schema.contains { $0.contains("CREATE UNIQUE INDEX bowtie_id ON ") }, "\(schema)")
        #expect(!schema.contains { $0.contains("\"id\" TEXT PRIMARY KEY") }, "\(schema)")
        let check = try workspace.run("check")
        #expect(check.status == 0 && check.stdout.contains("No problems found."), "\(check)")
        // The same id twice, one import after the other: the index refuses
        // nothing it should not, and the second import leaves it unchanged.
        let again = try workspace.run("import", BowTiesRunner.sampleDataURL.path)
        #expect(again.status == 0, "\(again)")
        #expect(again.stdout.contains("added 0, updated 0, unchanged 7"), "\(again)")
    }
}
