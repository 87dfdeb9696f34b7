import Foundation
import Testing

/// The undo of an import that is most of the catalog: its rows are
/// deleted with the ties' lookup-only indexes (name, search key, rating,
/// last worn) set aside and built again after, in the undo's
/// transaction (`UndoHistory.removeRange`). What a user can check: the
/// catalog is as it was before the import, its indexes included, and
/// `redo` gives the import back.
@Suite("the undo of a large import, its lookup indexes set aside")
struct UndoLargeImportTests {
    /// `count` generated ties as JSON Lines, keys `L0`, `L1`, ..., names
    /// in an order other than the rows' (the name index is not in rowid
    /// order), rated 1 to 5.
    private static func ties(_ count: Int) -> String {
        var text = ""
        text.reserveCapacity(count * 130)
        for index in 0..<count {
            let id = String(format: "%08lX-0000-4000-8000-%012lX", index, index)
            let name = "Tie \((index * 7_919) % count)"
            text += "{\"id\": \"\(id)\", \"name\": \"\(name)\", \"searchKey\": \"L\(index)\", \"rating\": \(index % 5 + 1)}\n"
        }
        return text
    }

    /// The store's schema and the rows of the catalog's own tables, as
    /// ``StoreSnapshot`` dumps them; the history's tables left out (the
    /// undo records itself there).
    private static func catalogRows(_ workspace: CatalogWorkspace) throws -> [String] {
        try workspace.snapshot().rows.filter { !$0.hasPrefix("undo_") }
    }

    @Test("undo of a 60,000-tie import into a catalog with ties and wears: the catalog and its indexes as before; redo gives the import back")
    func undoOfMostOfTheCatalog() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        try #require(try workspace.run("wear", "R").status == 0)
        let before = try Self.catalogRows(workspace)
        let listBefore = try workspace.run("list", "--sort", "name")
        try #require(listBefore.status == 0, "\(listBefore)")

        let file = try workspace.writeInput(Self.ties(60_000), to: "ties.jsonl")
        let imported = try workspace.run("import", file.path)
        try #require(imported.status == 0, "\(imported)")
        let afterImport = try Self.catalogRows(workspace)

        let undo = try workspace.run("undo")
        #expect(undo.status == 0, "\(undo)")
        #expect(undo.stdout.hasSuffix(": removed 60,000 bow ties.\n"), "\(undo.stdout)")
        // sqlite_master's lines name every index with its SQL: the ones
        // set aside are back, as they were.
        let afterUndo = try Self.catalogRows(workspace)
        #expect(afterUndo == before, "\(afterUndo.filter { !before.contains($0) }.prefix(5))")
        #expect(afterUndo.contains { $0.hasPrefix("sqlite_master: ") && $0.contains("CREATE INDEX bowtie_name_nocase ON") })
        #expect(try workspace.run("list", "--sort", "name").stdout == listBefore.stdout)
        #expect(try workspace.run("show", "L5").status == 1)
        let check = try workspace.run("check")
        #expect(check.status == 0, "\(check)")

        let redo = try workspace.run("redo")
        #expect(redo.status == 0, "\(redo)")
        #expect(try Self.catalogRows(workspace) == afterImport)
        let shown = try workspace.run("show", "L59999")
        #expect(shown.status == 0, "\(shown)")
        #expect(try workspace.run("check").status == 0)
    }

    @Test("an undo of a large import killed while it deletes: the store file untouched, the catalog and its history as before, the undo works after")
    func undoKilledWhileDeleting() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let file = try workspace.writeInput(Self.ties(60_000), to: "ties.jsonl")
        let imported = try workspace.run("import", file.path)
        try #require(imported.status == 0, "\(imported)")
        let before = try workspace.snapshot()
        let bytesBefore = try Data(contentsOf: workspace.storeURL)

        // Killed once its deletes have spilled pages into the WAL (the
        // indexes are dropped by then): nothing it wrote is committed.
        let undo = try workspace.start(["undo"])
        let wal = URL(fileURLWithPath: workspace.storeURL.path + "-wal")
        let underWay = poll(timeout: 300) { !undo.isRunning || (fileSize(wal) ?? 0) > 2_000_000 }
        try #require(underWay && undo.isRunning, "the undo was not caught writing\n\(undo.describe())")
        undo.send(SIGKILL)
        _ = undo.wait(timeout: 60)

        #expect(try Data(contentsOf: workspace.storeURL) == bytesBefore, "the store file changed")
        let check = try workspace.run("check")
        #expect(check.status == 0, "\(check)")
        let after = try workspace.snapshot()
        #expect(after.rows == before.rows, "\(after.difference(from: before).prefix(1_000))")
        let again = try workspace.run("undo")
        #expect(again.status == 0 && again.stdout.hasSuffix(": removed 60,000 bow ties.\n"), "\(again)")
        #expect(try workspace.run("count").stdout == "7\n")
    }
}
