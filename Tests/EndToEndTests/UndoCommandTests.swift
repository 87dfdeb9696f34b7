import Foundation
import Testing

/// `undo`, `redo` and `log`: every changing command is one named action,
/// kept across invocations, reverted with a readable diff.
@Suite("bowties undo, redo and log")
struct UndoCommandTests {
    /// The catalog's values as a user sees them: the CSV export (every
    /// attribute, tags, photo hashes) and each tie's wear history.
    private static func values(_ workspace: CatalogWorkspace) throws -> String {
        let export = try workspace.run("export")
        try #require(export.status == 0, "\(export)")
        var text = export.stdout
        let list = try workspace.run("list", "--json")
        let ties = (try? list.json() as? [[String: Any]]) ?? []
        for tie in ties {
            guard let key = tie["searchKey"] as? String else { continue }
            let history = try workspace.run("history", key, "--json")
            text += key + ": " + history.stdout
        }
        return text
    }

    private static func log(_ workspace: CatalogWorkspace) throws -> [[String: Any]] {
        let log = try workspace.run("log", "--json", "--limit", "200")
        try #require(log.status == 0, "\(log)")
        return try #require(try log.json() as? [[String: Any]], "\(log)")
    }

    @Test("wear, then undo: the diff of the issue, the counts and the history as before; redo wears again")
    func undoWear() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let before = try Self.values(workspace)
        #expect(try workspace.run("wear", "R", "--on", "2026-11-20").status == 0)
        let after = try Self.values(workspace)

        let undo = try workspace.run("undo")
        #expect(undo.status == 0, "\(undo)")
        #expect(
            undo.stdout
                == "Undid \"Wear Classic Red Bow Tie\": timesWorn 13 → 12, lastWorn 2026-11-20 → 2014-06-19; removed 1 wear.\n",
            "\(undo)")
        #expect(try Self.values(workspace) == before)

        let redo = try workspace.run("redo")
        #expect(redo.status == 0, "\(redo)")
        #expect(
            redo.stdout
                == "Redid \"Wear Classic Red Bow Tie\": timesWorn 12 → 13, lastWorn 2014-06-19 → 2026-11-20; restored 1 wear.\n",
            "\(redo)")
        #expect(try Self.values(workspace) == after)
        let check = try workspace.run("check")
        #expect(check.status == 0, "\(check)")
    }

    @Test("every changing command is one action, named; reads, dry runs and failures are not")
    func everyCommandIsAnAction() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let photo = try workspace.writePhoto("new.png", bytes: 2048, seed: 7)
        let script = workspace.inputDirectory.appendingPathComponent("editor.sh")
        try Data("#!/bin/sh\nsed -i 's/^rating: .*/rating: 1/' \"$1\"\n".utf8).write(to: script)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        let commands: [[String]] = [
            ["add", "--name", "Paisley Pink", "--key", "P"],
            ["set", "P", "rating=4"],
            ["wear", "P"],
            ["unwear", "P"],
            ["rate", "O", "5"],
            ["favorite", "O"],
            ["tag", "O", "summer"],
            ["untag", "O", "summer"],
            ["tags", "--delete", "summer"],
            ["photo", "P", "--set", photo.path],
            ["photo", "P", "--remove"],
            ["delete", "P"],
            ["check", "--repair"],
        ]
        for command in commands {
            let result = try workspace.run(arguments: command)
            #expect(result.status == 0, "\(result)")
        }
        let edit = try workspace.run("edit", "R", environment: ["VISUAL": script.path])
        #expect(edit.status == 0, "\(edit)")
        // Neither a read, a dry run nor a refused change is an action.
        _ = try workspace.run("list")
        _ = try workspace.run("set", "R", "rating=2", "--dry-run")
        #expect(try workspace.run("rate", "R", "9").status != 0)

        let titles = try Self.log(workspace).compactMap { $0["title"] as? String }
        #expect(
            titles == [
                "Edit Classic Red Bow Tie",
                // check --repair found nothing to repair: no action.
                "Delete Paisley Pink",
                "Remove photo of Paisley Pink",
                "Set photo of Paisley Pink",
                "Delete tag summer",
                "Untag Orange Sherbet",
                "Tag Orange Sherbet",
                "Favorite Orange Sherbet",
                "Rate Orange Sherbet",
                "Unwear Paisley Pink",
                "Wear Paisley Pink",
                "Set rating on Paisley Pink",
                "Add Paisley Pink",
                "Import SampleData.plist",
            ], "\(titles)")

        // Undone one by one, newest first, the catalog comes back to the
        // sample data as imported.
        let imported = try CatalogWorkspace()
        try imported.importSampleData()
        for _ in 0..<(titles.count - 1) {
            let undo = try workspace.run("undo")
            #expect(undo.status == 0, "\(undo)")
        }
        #expect(try Self.values(workspace) == (try Self.values(imported)))
        #expect(try workspace.run("check").status == 0)
    }

    @Test("undo of an earlier action whose tie changed since is refused, naming the later action; nothing changes")
    func laterActionFirst() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        #expect(try workspace.run("wear", "R").status == 0)
        #expect(try workspace.run("rate", "O", "5").status == 0)
        #expect(try workspace.run("rate", "R", "1").status == 0)
        let ids = try Self.log(workspace).compactMap { $0["id"] as? Int }
        try #require(ids.count == 4)
        let wear = ids[2]
        let snapshot = try workspace.snapshot()

        let refused = try workspace.run("undo", String(wear))
        #expect(refused.status == 65, "\(refused)")
        #expect(
            refused.stderr.contains(
                "cannot undo #\(wear) \"Wear Classic Red Bow Tie\": #\(ids[0]) \"Rate Classic Red Bow Tie\" changed the same records since"
            ), "\(refused)")
        #expect(refused.stderr.contains("bowties undo \(ids[0])"), "\(refused)")
        #expect(try workspace.snapshot().checksums == snapshot.checksums)

        // An unrelated later action does not stand in the way.
        let undoRate = try workspace.run("undo", String(ids[0]))
        #expect(undoRate.status == 0, "\(undoRate)")
        let undoWear = try workspace.run("undo", String(wear))
        #expect(undoWear.status == 0, "\(undoWear)")
        #expect(try workspace.timesWorn("R") == 12)
        let show = try workspace.run("show", "O", "--json")
        #expect((try show.json() as? [String: Any])?["rating"] as? Double == 5, "\(show)")
    }

    @Test("a change made outside bowties since is not overwritten: undo refuses")
    func changedOutside() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        #expect(try workspace.run("rate", "R", "1").status == 0)
        do {
            let other = try SQLiteConnection(path: workspace.storeURL.path)
            try other.execute("UPDATE bowtie SET rating = 2 WHERE searchKey = 'R'")
        }
        let refused = try workspace.run("undo")
        #expect(refused.status == 65, "\(refused)")
        #expect(refused.stderr.contains("changed since, outside bowties' history; nothing was changed"), "\(refused)")
        let show = try workspace.run("show", "R", "--json")
        #expect((try show.json() as? [String: Any])?["rating"] as? Double == 2, "\(show)")
    }

    @Test("a new change after an undo ends what redo can do; nothing to undo or redo exits 1")
    func redoBranch() throws {
        let workspace = try CatalogWorkspace()
        let empty = try workspace.run("undo")
        #expect(empty.status != 0, "\(empty)")
        try workspace.importSampleData()
        #expect(try workspace.run("rate", "R", "1").status == 0)
        #expect(try workspace.run("undo").status == 0)
        #expect(try workspace.run("rate", "O", "1").status == 0)
        let redo = try workspace.run("redo")
        #expect(redo.status == 1, "\(redo)")
        #expect(redo.stderr.contains("nothing to redo"), "\(redo)")
        #expect(try Self.log(workspace).compactMap { $0["title"] as? String } == [
            "Rate Orange Sherbet", "Import SampleData.plist",
        ])
    }

    @Test("a deleted tie's external photo is kept while an action needs it, and goes with the action")
    func photosKeptForUndo() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let photoBefore = try workspace.run("photo", "B", "--output", "-")
        try #require(photoBefore.status == 0)
        let files = workspace.photoFiles()
        #expect(try workspace.run("delete", "B").status == 0)
        #expect(workspace.photoFiles() == files, "the file goes only when no action needs it")
        #expect(try workspace.run("check").status == 0)

        #expect(try workspace.run("undo").status == 0)
        let photoAfter = try workspace.run("photo", "B", "--output", "-")
        #expect(photoAfter.status == 0, "\(photoAfter)")
        #expect(photoAfter.stdoutData == photoBefore.stdoutData)

        // Delete again, then let the history forget the delete: the file goes.
        #expect(try workspace.run("delete", "B").status == 0)
        #expect(try workspace.run("config", "--undo-limit", "1").status == 0)
        #expect(try Self.log(workspace).count == 1)
        #expect(try workspace.run("rate", "R", "1").status == 0)
        #expect(workspace.photoFiles().count == files.count - 1, "\(workspace.photoFiles())")
        let check = try workspace.run("check")
        #expect(check.status == 0, "\(check)")
    }

    @Test("undo of an import removes what it added and puts back what it changed; redo brings it back")
    func undoImport() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        #expect(try workspace.run("rate", "R", "1").status == 0)
        let before = try Self.values(workspace)
        let file = try workspace.writeInput(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><array>
            <dict><key>name</key><string>Classic Red Bow Tie</string><key>id</key>
            <string>B77AF80E-55E7-4111-B05C-A5641DE4D6B3</string><key>rating</key><real>2.5</real>
            <key>searchKey</key><string>R</string><key>tags</key><array><string>new</string></array></dict>
            <dict><key>name</key><string>Plain Black</string><key>searchKey</key><string>K</string>
            <key>tags</key><array><string>new</string></array></dict>
            </array></plist>
            """, to: "more.plist")
        let imported = try workspace.run("import", "--update", file.path)
        #expect(imported.status == 0, "\(imported)")
        let after = try Self.values(workspace)

        let undo = try workspace.run("undo")
        #expect(undo.status == 0, "\(undo)")
        #expect(undo.stdout.hasPrefix("Undid \"Import more.plist\""), "\(undo)")
        #expect(try Self.values(workspace) == before)
        let tags = try workspace.run("tags")
        #expect(!tags.stdout.contains("new"), "\(tags)")

        let redo = try workspace.run("redo")
        #expect(redo.status == 0, "\(redo)")
        #expect(try Self.values(workspace) == after)
        #expect(try workspace.run("check").status == 0)
    }

    @Test("undo and redo of an import whose records carry wears: redo gives back the same ties and histories")
    func redoImportWithWears() throws {
        let workspace = try CatalogWorkspace()
        // Two histories: R worn twice (its baseline counts go up), O once.
        let file = try workspace.writeInput(
            """
            [
            {"searchKey": "R", "name": "Classic Red", "timesWorn": 12, "lastWorn": "2014-06-19T00:00:00Z",
             "wears": [{"date": "2026-01-02T00:00:00Z", "note": "party"}, {"date": "2026-03-04T00:00:00Z", "note": null}]},
            {"searchKey": "O", "name": "Orange", "wears": [{"date": "2025-12-24T00:00:00Z", "note": "eve"}]},
            {"searchKey": "Y", "name": "Yellow"}
            ]
            """, to: "worn.json")
        let imported = try workspace.run("import", file.path)
        try #require(imported.status == 0, "\(imported)")
        let after = try Self.values(workspace)
        #expect(after.contains("party") && after.contains("eve"), "\(after)")

        let undo = try workspace.run("undo")
        #expect(undo.status == 0, "\(undo)")
        #expect(try workspace.run("list").stdout.hasPrefix("The catalog is empty"))

        // The undo deleted the wears, whose triggers updated their ties,
        // and then the ties: that update is not the ties' last state, and
        // redo must not take it for a change made outside bowties.
        let redo = try workspace.run("redo")
        #expect(redo.status == 0 && redo.stdout.contains("restored 3 bow ties, restored 3 wears"), "\(redo)")
        #expect(try Self.values(workspace) == after)
        #expect(try workspace.run("check").status == 0)
        // And round again.
        #expect(try workspace.run("undo").status == 0)
        #expect(try workspace.run("redo").status == 0)
        #expect(try Self.values(workspace) == after)
    }

    @Test("log lists actions newest first with their numbers; undone ones are marked")
    func logOutput() throws {
        let workspace = try CatalogWorkspace()
        let none = try workspace.run("log")
        #expect(none.status != 0 || none.stdout.contains("No changes yet"), "\(none)")
        try workspace.importSampleData()
        #expect(try workspace.run("rate", "R", "1").status == 0)
        #expect(try workspace.run("undo").status == 0)
        let log = try workspace.run("log")
        #expect(log.status == 0, "\(log)")
        let lines = log.stdoutLines.filter { !$0.isEmpty }
        try #require(lines.count == 3, "\(log)")
        #expect(lines[0].hasPrefix(" N  WHEN (UTC)"), "\(log)")
        #expect(lines[1].hasPrefix("#2  ") && lines[1].hasSuffix("Rate Classic Red Bow Tie  (undone)"), "\(log)")
        #expect(lines[2].hasPrefix("#1  ") && lines[2].hasSuffix("Import SampleData.plist"), "\(log)")
    }

    @Test("the history keeps the last 100 actions by default")
    func defaultLimit() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let config = try workspace.run("config", "--json")
        #expect((try config.json() as? [String: Any])?["undoLimit"] as? Int == 100, "\(config)")
        for index in 0..<101 {
            #expect(try workspace.run("rate", "R", index.isMultiple(of: 2) ? "1" : "2").status == 0)
        }
        let log = try Self.log(workspace)
        #expect(log.count == 100)
        #expect(log.last?["id"] as? Int == 3, "the import and the first rate are forgotten")
    }
}
