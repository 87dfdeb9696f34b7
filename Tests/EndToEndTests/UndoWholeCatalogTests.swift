import Foundation
import Testing

/// The undo of an import that is the whole catalog: its tables are set
/// aside whole (`undo_held_…`) and the model's tables made again, empty,
/// instead of ten million deletes (`UndoHistory+HeldTables.swift`). What a
/// user can check: the catalog is empty and sound after the undo, `redo`
/// gives back the very catalog the import made (its schema's text and
/// every row), the photos stay while a redo may need them and go with the
/// first change after, and an interrupted undo leaves the catalog as it
/// was.
@Suite("the undo of an import that is the whole catalog, its tables set aside")
struct UndoWholeCatalogTests {
    static let count = 60_000

    /// `count` ties as an XML property list: keys `W0`, `W1`, ...; every
    /// 1,000th with one of the workspace's new photos (`new1` becomes a
    /// file, `small` stays inside the store); one in three tagged.
    private static func document(_ count: Int) -> String {
        var text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><array>

            """
        text.reserveCapacity(count * 230)
        let tags = ["silk", "formal", "Wedding"]
        for index in 0..<count {
            let id = String(format: "%08lX-0000-4000-8000-%012lX", index, index)
            text += "<dict><key>id</key><string>\(id)</string><key>name</key><string>Tie \((index * 7_919) % count)</string>"
            text += "<key>searchKey</key><string>W\(index)</string><key>rating</key><real>\(index % 5 + 1)</real>"
            if index % 1_000 == 0 { text += "<key>imageName</key><string>\(index % 2_000 == 0 ? "new1" : "small")</string>" }
            if index % 3 == 0 { text += "<key>tags</key><array><string>\(tags[index % 9 / 3])</string></array>" }
            // Every 500th with two wears: their counts are kept in a table
            // of their own (`bowtie_wears_count`), which the set-aside and
            // the redo count again.
            if index % 500 == 0 {
                text += "<key>wears</key><array><dict><key>date</key><date>2024-05-0\(index % 9 + 1)T10:00:00Z</date></dict>"
                text += "<dict><key>date</key><date>2025-01-01T10:00:00Z</date></dict></array>"
            }
            text += "</dict>\n"
        }
        return text + "</array></plist>\n"
    }

    private static func importWholeCatalog(_ workspace: CatalogWorkspace) throws {
        try workspace.writeNewPhotos()
        let file = try workspace.writeInput(document(count), to: "ties.plist")
        let imported = try workspace.run("import", file.path)
        try #require(imported.status == 0, "\(imported)")
        try #require(workspace.photoFiles().count == 1, "\(workspace.photoFiles())")
    }

    /// The rows and schema of everything but the undo history.
    private static func catalogRows(_ workspace: CatalogWorkspace) throws -> [String] {
        try workspace.snapshot().rows.filter { !$0.hasPrefix("undo_") && !$0.contains("undo_held_") }
    }

    @Test("undo of a 60,000-tie import that is the whole catalog: empty and sound; redo gives back the same catalog, schema text and rows")
    func undoAndRedo() throws {
        let workspace = try CatalogWorkspace()
        try Self.importWholeCatalog(workspace)
        let afterImport = try Self.catalogRows(workspace)
        // The catalog without its ties, wears and tags: the schema, the
        // photos, the migrations.
        let tables = ["bowtie", "wear", "tag", "bowtie_tag", "bowtie_wears_count"].map { "\($0): " }
        let emptied = afterImport.filter { line in !tables.contains { line.hasPrefix($0) } }

        let undo = try workspace.run("undo")
        #expect(undo.status == 0, "\(undo)")
        #expect(undo.stdout == "Undid \"Import ties.plist\": removed 60,000 bow ties, removed 3 tags, removed 240 wears.\n", "\(undo.stdout)")
        #expect(try workspace.run("count").stdout == "0\n")
        #expect(try workspace.run("list").stdout == "The catalog is empty: add ties with `bowties import`.\n")
        #expect(try workspace.run("show", "W5").status == 1)
        // The model's tables, indexes and triggers, as the import left
        // them (their SQL text), with no row.
        let afterUndo = try Self.catalogRows(workspace)
        #expect(afterUndo == emptied, "\(StoreSnapshot.difference(afterUndo, from: emptied).prefix(2_000))")
        let check = try workspace.run("check")
        #expect(check.status == 0, "\(check)")
        #expect(check.stdout.contains("No problems found."), "\(check)")
        // A redo may need the photo: its file stays.
        #expect(workspace.photoFiles().count == 1)

        let redo = try workspace.run("redo")
        #expect(redo.status == 0, "\(redo)")
        #expect(redo.stdout == "Redid \"Import ties.plist\": restored 60,000 bow ties, restored 3 tags, restored 240 wears.\n", "\(redo.stdout)")
        let afterRedo = try Self.catalogRows(workspace)
        #expect(afterRedo == afterImport, "\(StoreSnapshot.difference(afterRedo, from: afterImport).prefix(2_000))")
        #expect(try workspace.snapshot().rows.allSatisfy { !$0.contains("undo_held_") })
        #expect(try workspace.run("count", "tag:formal").stdout == "6667\n")
        #expect(try workspace.run("count", "timesWorn:2").stdout == "120\n")
        #expect(try workspace.run("check").status == 0)
        // And the history goes on: the import can be undone again.
        let again = try workspace.run("undo")
        #expect(again.status == 0 && again.stdout.contains("removed 60,000 bow ties"), "\(again)")
    }

    @Test("after such an undo, the first change drops what could be redone: the held rows and the photos only they needed")
    func firstChangeDropsTheRedo() throws {
        let workspace = try CatalogWorkspace()
        try Self.importWholeCatalog(workspace)
        try #require(try workspace.run("undo").status == 0)
        #expect(try workspace.snapshot().rows.contains { $0.hasPrefix("sqlite_master: 'table' | 'undo_held_") })

        let add = try workspace.run("add", "--key", "N1", "--name", "New tie")
        #expect(add.status == 0, "\(add)")
        #expect(try workspace.snapshot().rows.allSatisfy { !$0.contains("undo_held_") })
        #expect(workspace.photoFiles().isEmpty, "\(workspace.photoFiles())")
        #expect(try workspace.snapshot().rows.allSatisfy { !$0.hasPrefix("blob: ") })
        let redo = try workspace.run("redo")
        #expect(redo.status == 1 && redo.stderr.contains("nothing to redo"), "\(redo)")
        #expect(try workspace.run("count").stdout == "1\n")
        let check = try workspace.run("check")
        #expect(check.status == 0 && check.stdout.contains("No problems found."), "\(check)")
    }

    @Test("a redo after rows were added outside bowties' history is refused, nothing changed")
    func redoRefusedOverRowsAddedOutside() throws {
        let workspace = try CatalogWorkspace()
        try Self.importWholeCatalog(workspace)
        try #require(try workspace.run("undo").status == 0)
        try SQLiteLibrary().execute(
            "INSERT INTO bowtie (id, name, searchKey) VALUES ('00000000-0000-4000-8000-0000000000AA', 'Outsider', 'X')",
            in: workspace.storeURL.path)
        let before = try workspace.snapshot()
        let redo = try workspace.run("redo")
        #expect(redo.status != 0)
        #expect(redo.stderr.contains("cannot redo #1 \"Import ties.plist\""), "\(redo.stderr)")
        #expect(redo.stderr.contains("nothing was changed"), "\(redo.stderr)")
        #expect(try workspace.snapshot().rows == before.rows)
    }

    @Test("an undo killed at any moment leaves the catalog as it was or wholly undone, never between")
    func undoKilled() throws {
        let workspace = try CatalogWorkspace()
        try Self.importWholeCatalog(workspace)
        var before = try workspace.snapshot()
        var bytesBefore = try Data(contentsOf: workspace.storeURL)
        var outcomes: [String] = []
        // From before the catalog is opened to after the commit.
        for delay: useconds_t in [5_000, 20_000, 40_000, 60_000, 90_000, 130_000, 200_000, 400_000] {
            let undo = try workspace.start(["undo"])
            usleep(delay)
            undo.send(SIGKILL)
            _ = undo.wait(timeout: 60)
            let count = try workspace.run("count")
            #expect(count.status == 0, "\(count)")
            if count.stdout == "\(Self.count)\n" {
                #expect(try Data(contentsOf: workspace.storeURL) == bytesBefore, "the store file changed")
                #expect(try workspace.snapshot().rows == before.rows)
                outcomes.append("kept")
            } else {
                #expect(count.stdout == "0\n", "\(count)")
                let check = try workspace.run("check")
                #expect(check.status == 0, "\(check)")
                let redo = try workspace.run("redo")
                #expect(redo.status == 0, "\(redo)")
                #expect(try workspace.snapshot().rows.filter { !$0.hasPrefix("undo_") } == before.rows.filter { !$0.hasPrefix("undo_") })
                outcomes.append("undone")
                before = try workspace.snapshot()
                bytesBefore = try Data(contentsOf: workspace.storeURL)
            }
        }
        let check = try workspace.run("check")
        #expect(check.status == 0, "\(check) \(outcomes)")
    }
}
