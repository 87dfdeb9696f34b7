import Foundation
import Testing

/// Keys are keys (issue 20, item 1): among a command's `KEY|QUERY`
/// arguments, a word that is a stored search key means that tie, several
/// keys mean those ties, and only the other words are query language.
/// Keys that would read as query syntax are refused when stored; a
/// destructive command whose selection is not exactly the keys typed
/// asks, or needs `--yes`.
@Suite("keys are keys: KEY|QUERY arguments")
struct KeySelectionTests {
    static func keys(_ workspace: CatalogWorkspace, _ query: String...) throws -> [String] {
        let list = try workspace.run(arguments: ["list", "--json"] + query)
        let ties = try #require(try list.json() as? [[String: Any]], "\(list)")
        return ties.compactMap { $0["searchKey"] as? String }
    }

    @Test("delete G Y deletes G and Y, the two keys typed, without asking")
    func deleteTwoKeys() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let result = try workspace.run("delete", "G", "Y")
        #expect(result.status == 0, "\(result)")
        #expect(
            result.lines == [
                "Yellow Submarine Self-Tie (Y)", "Green & Gold Paisley (G)", "Deleted 2 bow ties.",
            ], "\(result)")
        #expect(try Self.keys(workspace) == ["R", "O", "B", "I", "V"])
    }

    @Test("wear R B --dry-run selects R and B, and changes nothing")
    func wearDryRun() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let before = try workspace.snapshot()
        let result = try workspace.run("wear", "R", "B", "--on", "2026-11-20", "--dry-run")
        #expect(result.status == 0, "\(result)")
        #expect(
            result.lines == [
                "Classic Red Bow Tie (R): timesWorn 12 → 13, lastWorn 2014-06-19T18:15:24Z → 2026-11-20T00:00:00Z",
                "Midnight Blue Silk (B): timesWorn 21 → 22, lastWorn 2014-06-21T22:47:13Z → 2026-11-20T00:00:00Z",
                "Dry run: 2 bow ties would be worn; nothing changed.",
            ], "\(result)")
        try NoTraceTests.expectNoTrace(workspace, before: before, result)
        // Without --dry-run, both are worn at once: they were typed.
        let worn = try workspace.run("wear", "R", "B", "--on", "2026-11-20")
        #expect(worn.status == 0 && worn.lines.last == "Wore 2 bow ties on 2026-11-20.", "\(worn)")
        #expect(try workspace.timesWorn("R") == 13 && workspace.timesWorn("B") == 22 && workspace.timesWorn("O") == 3)
    }

    @Test("keys and query words together: the keys' ties or the query's")
    func keysOrQuery() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        #expect(try Self.keys(workspace, "G", "Y") == ["Y", "G"])
        // R, and every tie rated 4 or more (O, B).
        #expect(try Self.keys(workspace, "R", "rating:4..") == ["R", "O", "B"])
        #expect(try workspace.run("count", "R", "rating:4..").stdout == "3\n")
        // A key matched ignoring case when one tie fits; a sort term selects nothing.
        #expect(try Self.keys(workspace, "v", "r", "sort:name") == ["R", "V"])
        // A group of keys between commas goes with its comma.
        #expect(try Self.keys(workspace, "rating:4", ",", "I") == ["O", "I"])
        // Query errors still name the term where it was typed.
        let typo = try workspace.run("list", "R", "ratng:4")
        #expect(typo.status == 64, "\(typo)")
        #expect(typo.stderr.contains("term 2 (ratng:4): unknown field \"ratng\""), "\(typo)")
    }

    @Test("set R B changes the two keys typed at once; a query selecting several still asks")
    func setKeys() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let result = try workspace.run("set", "R", "B", "rating=5")
        #expect(result.status == 0, "\(result)")
        #expect(result.lines.last == "Changed 2 bow ties.", "\(result)")
        #expect(try Self.keys(workspace, "rating:5") == ["R", "B"])
    }

    @Test("delete with a word that is not a key asks, even for one tie: refused without --yes, nothing deleted")
    func deleteQueryOfOne() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let before = try workspace.snapshot()
        // `silk` is no search key: a query, selecting Midnight Blue Silk only.
        let refused = try workspace.run("delete", "silk")
        #expect(refused.status == 64, "\(refused)")
        #expect(refused.lines == ["Midnight Blue Silk (B)"], "\(refused)")
        #expect(
            refused.stderr.contains("\"silk\" is not a search key") && refused.stderr.contains("--yes")
                && refused.stderr.contains("--dry-run"), "\(refused)")
        try NoTraceTests.expectNoTrace(workspace, before: before, refused)
        let dryRun = try workspace.run("delete", "G", "silk", "--dry-run")
        #expect(
            dryRun.lines == [
                "Green & Gold Paisley (G)", "Midnight Blue Silk (B)",
                "Dry run: 2 bow ties would be deleted; nothing changed.",
            ], "\(dryRun)")
        try NoTraceTests.expectNoTrace(workspace, before: before, dryRun)
        let deleted = try workspace.run("delete", "silk", "--yes")
        #expect(deleted.status == 0 && deleted.lines.last == "Deleted Midnight Blue Silk (B).", "\(deleted)")
    }

    @Test(
        "a search key that reads as query syntax is refused by add and set with 1680, nothing stored",
        arguments: [
            ("rating:4", "searchKey contains \":\", which a query reads as field:value."),
            ("^x", "searchKey starts with \"^\", which a query reads as \"not\"."),
            ("a..b", "searchKey contains \"..\", which a query reads as a range."),
            (",", "searchKey is \",\", which a query reads as \"or\"."),
            ("a=b", "searchKey contains \"=\", which `set` reads as field=value."),
            ("+x", "searchKey starts with \"+\", which `tag` reads as a tag to add."),
        ])
    func refusedKeys(key: String, message: String) throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let before = try workspace.snapshot()
        let add = try workspace.run("add", "--name", "Query Tie", "--key", key)
        #expect(add.status == 65, "\(add)")
        #expect(add.stderr.contains(message) && add.stderr.contains("1680"), "\(add)")
        let set = try workspace.run("set", "R", "searchKey=\(key)")
        #expect(set.status == 65 && set.stderr.contains(message), "\(set)")
        try NoTraceTests.expectNoTrace(workspace, before: before, "\(add)\n\(set)")
    }

    @Test("import refuses a record whose search key reads as query syntax, naming the record")
    func importRefusesKey() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let before = try workspace.snapshot()
        let file = try workspace.writeInput(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><array><dict>
            <key>name</key><string>Query Tie</string>
            <key>searchKey</key><string>rating:4</string>
            </dict></array></plist>
            """, to: "query-key.plist")
        let result = try workspace.run("import", file.path)
        #expect(result.status == 65, "\(result)")
        #expect(
            result.stderr.contains("record 1") && result.stderr.contains("searchKey contains \":\"")
                && result.stderr.contains("1680"), "\(result)")
        try NoTraceTests.expectNoTrace(workspace, before: before, result)
    }

    @Test("a tie stored with such a key before the rule: not read as a key, reachable with searchKey:=")
    func olderKeyStaysReachable() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        do {
            let connection = try SQLiteConnection(path: workspace.storeURL.path)
            try connection.execute("UPDATE bowtie SET searchKey = 'rating:4' WHERE searchKey = 'V'")
        }
        // `rating:4` is the query: Orange Sherbet (rated 4), never the tie keyed so.
        #expect(try Self.keys(workspace, "rating:4") == ["O"])
        let before = try workspace.snapshot()
        let refused = try workspace.run("delete", "rating:4")
        #expect(refused.status == 64 && refused.lines == ["Orange Sherbet (O)"], "\(refused)")
        // Bytes only: `check` (which expectNoTrace runs) reports the old key.
        #expect(try StoreSnapshot.checksums(of: workspace.storeFolder) == before.checksums, "\(refused)")
        #expect(try Self.keys(workspace, "searchKey:=rating:4").count == 1)
        let check = try workspace.run("check")
        #expect(check.status == 65 && check.stdout.contains("searchKey contains \":\""), "\(check)")
        #expect(check.stdout.contains("`bowties set searchKey:=KEY searchKey=NEW`"), "\(check)")
        let deleted = try workspace.run("delete", "searchKey:=rating:4", "--yes")
        #expect(deleted.status == 0 && deleted.lines.last == "Deleted Violet Velvet (rating:4).", "\(deleted)")
        #expect(try Self.keys(workspace) == ["R", "O", "Y", "G", "B", "I"])
    }
}

extension BowTiesResult {
    /// The lines of standard output that are not empty.
    fileprivate var lines: [String] { stdoutLines.filter { !$0.isEmpty } }
}

extension KeySelectionTests {
    @Test("tag R B +formal tags the two keys typed at once; untag R B -formal takes it off both")
    func tagKeys() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let tagged = try workspace.run("tag", "R", "B", "+formal")
        #expect(tagged.status == 0 && tagged.lines.last == "Tagged 2 bow ties: formal.", "\(tagged)")
        #expect(try Self.keys(workspace, "tag:formal") == ["R", "B"])
        let untagged = try workspace.run("untag", "R", "B", "-formal")
        #expect(untagged.status == 0 && untagged.lines.last == "Untagged 2 bow ties: formal.", "\(untagged)")
    }

    @Test("on a terminal, delete of one tie a query selects asks: n keeps it, y deletes it", arguments: ["n\n", "y\n"])
    func deleteAsksOnATerminal(answer: String) throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let (text, status) = try workspace.runOnTerminal(["delete", "silk"], typing: answer)
        #expect(text.contains("Midnight Blue Silk (B)") && text.contains("Delete 1 bow tie? [y/N]"), "\(text)")
        if answer == "y\n" {
            #expect(status == 0, "\(text)")
            #expect(try Self.keys(workspace) == ["R", "O", "Y", "G", "I", "V"])
        } else {
            #expect(status == 1 && text.contains("Nothing changed."), "\(text)")
            #expect(try Self.keys(workspace).count == 7)
        }
    }
}
