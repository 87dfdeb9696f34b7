import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// An import that creates its catalog writes it through a rollback
/// journal, not the WAL (`SQLiteStore.withBulkLoadJournal`): the WAL of a
/// one-transaction import grows as large as the catalog, and its index
/// (shared memory) with it, which made the memory of a ten-million-tie
/// import grow (issue 21). The disk the import needs halves too: no
/// second copy of every page in the `-wal` file. An import into a
/// catalog that exists keeps the WAL (a failed import leaves it
/// byte-identical), and every catalog is in WAL mode again afterwards.
@Suite("An import that creates its catalog: a rollback journal, not the WAL")
struct BulkLoadJournalTests {
    /// `count` generated ties as JSON Lines, keys `J0`, `J1`, ...
    static func ties(_ count: Int) -> String {
        var text = ""
        text.reserveCapacity(count * 120)
        for index in 0..<count {
            let id = String(format: "%08lX-0000-4000-8000-%012lX", index, index)
            text += "{\"id\": \"\(id)\", \"name\": \"Tie \(index)\", \"searchKey\": \"J\(index)\", \"rating\": 3}\n"
        }
        return text
    }

    /// The store file's journal format, from its header (offset 18 and
    /// 19): 1 for a rollback journal, 2 for WAL.
    static func formatBytes(_ store: URL) throws -> [UInt8] {
        let handle = try FileHandle(forReadingFrom: store)
        defer { try? handle.close() }
        try handle.seek(toOffset: 18)
        return [UInt8](try handle.read(upToCount: 2) ?? Data())
    }

    /// Runs `import file` on the workspace's store and returns how it
    /// ended, with the largest the `-wal` file grew while it ran (polled
    /// every millisecond).
    static func importWatchingWAL(_ file: URL, _ workspace: CatalogWorkspace) throws
        -> (exit: SpawnedProcess.Exit, largestWAL: Int, process: SpawnedProcess)
    {
        let importer = try workspace.start(["import", file.path])
        var largest = 0
        while importer.isRunning {
            largest = max(largest, fileSize(workspace.walURL) ?? 0)
            usleep(1_000)
        }
        return (importer.wait(), largest, importer)
    }

    @Test("the import that creates a catalog writes no WAL as large as it; into an existing catalog it does")
    func newCatalogWritesNoWAL() throws {
        let count = 40_000
        let created = try CatalogWorkspace()
        let file = try created.writeInput(Self.ties(count), to: "ties.jsonl")
        let (exit, largest, importer) = try Self.importWatchingWAL(file, created)
        #expect(exit.status == 0, "\(importer.describe())")
        #expect(importer.stdout.contains("added \(count),"), "\(importer.describe())")
        let size = try #require(fileSize(created.storeURL))
        #expect(largest < 256 * 1024, "the WAL grew to \(largest) bytes for a store of \(size)")
        // WAL mode again, no journal left behind, every tie there.
        #expect(try Self.formatBytes(created.storeURL) == [2, 2])
        #expect(!FileManager.default.fileExists(atPath: created.storeURL.path + "-journal"))
        #expect(try created.run("count").stdout == "\(count)\n")

        // A catalog that exists keeps the WAL for the same import.
        let existing = try CatalogWorkspace()
        try existing.importSampleData()
        let again = try existing.writeInput(Self.ties(count), to: "ties.jsonl")
        let (existingExit, existingLargest, _) = try Self.importWatchingWAL(again, existing)
        #expect(existingExit.status == 0)
        #expect(
            existingLargest > size / 2, "the WAL grew to \(existingLargest) bytes for a store of \(size)")
        #expect(try Self.formatBytes(existing.storeURL) == [2, 2])
    }

    @Test("a catalog left with a rollback journal is read as it is and set back to WAL by the next write")
    func rollbackModeIsRepairedByTheNextWrite() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        do {
            let other = try SQLiteConnection(path: workspace.storeURL.path)
            try other.execute("PRAGMA journal_mode = DELETE")
        }
        try #require(try Self.formatBytes(workspace.storeURL) == [1, 1])
        let before = try workspace.snapshot()

        // Reads never write, whatever the journal.
        let list = try workspace.run("list")
        #expect(list.status == 0, "\(list)")
        #expect(list.stdout.contains("Red"), "\(list)")
        #expect(try workspace.snapshot().isByteIdentical(to: before))

        let wear = try workspace.run("wear", "R")
        #expect(wear.status == 0, "\(wear)")
        #expect(try Self.formatBytes(workspace.storeURL) == [2, 2])
        #expect(try workspace.run("show", "R").stdout.contains("Red"))
    }

    @Test("kill -9 while the import that creates a catalog writes: the catalog is empty, and WAL again once written")
    func killedWhileWritingThroughTheJournal() throws {
        let workspace = try CatalogWorkspace()
        let file = try workspace.writeInput(Self.ties(150_000), to: "ties.jsonl")
        let importer = try workspace.start(["import", file.path])
        let journal = URL(fileURLWithPath: workspace.storeURL.path + "-journal")
        // Under way through the journal: pages of ties in the store file.
        let underWay = poll(timeout: 120, every: 1_000) {
            !importer.isRunning
                || (FileManager.default.fileExists(atPath: journal.path)
                    && (fileSize(workspace.storeURL) ?? 0) > 1 << 20)
        }
        try #require(underWay && importer.isRunning, "the import was not caught writing\n\(importer.describe())")
        importer.send(SIGKILL)
        let exit = importer.wait()
        try #require(exit.signal == SIGKILL, "\(importer.describe())")

        // SQLite rolls the journal back at the next open: nothing imported.
        let count = try workspace.run("count")
        #expect(count.status == 0 && count.stdout == "0\n", "\(count)")
        let check = try workspace.run("check")
        #expect(check.status == 0, "\(check)")
        #expect(!FileManager.default.fileExists(atPath: journal.path))

        try workspace.importSampleData()
        #expect(try Self.formatBytes(workspace.storeURL) == [2, 2])
        #expect(try workspace.run("count").stdout == "7\n")
    }
}
