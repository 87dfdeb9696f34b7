import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// An import that fails, with new photos that a streaming import may have
/// written before it reached the failure.
enum FailingImport: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// An entity bomb in an internal DTD subset (the hostile corpus's).
    case entityBomb
    /// Three new ties with photos, then a value nested 20,000 deep.
    case deepNesting
    /// Three new ties with photos, then the file ends inside a fourth.
    case truncated
    /// Three new ties with photos, then a fourth worn 2^31 times (over
    /// Int32).
    case timesWornOverflow

    var testDescription: String {
        switch self {
        case .entityBomb: "an entity bomb (internal DTD subset)"
        case .deepNesting: "20,000-deep nesting after three new ties with photos"
        case .truncated: "a file truncated after three new ties with photos"
        case .timesWornOverflow: "timesWorn 2147483648 after three new ties with photos"
        }
    }

    /// Writes the input (and the new photos) into the workspace.
    func write(_ workspace: CatalogWorkspace) throws -> URL {
        try workspace.writeNewPhotos()
        let good = CatalogWorkspace.newTies(3)
        switch self {
        case .entityBomb:
            let fixture = try HostileCorpus.folderURL().appendingPathComponent("BillionLaughs.plist")
            let url = workspace.inputDirectory.appendingPathComponent("BillionLaughs.plist")
            try FileManager.default.copyItem(at: fixture, to: url)
            return url
        case .deepNesting:
            let nested = String(repeating: "<array>", count: 20_000) + String(repeating: "</array>", count: 20_000)
            let bad = [
                "id": "<string>5E1F0A3C-7B2D-4C8E-9F61-000000000999</string>", "searchKey": "<string>N9</string>",
            ]
            return try workspace.writeInput(
                HostileWorkspace.document(good + [bad.merging(["extra": nested]) { $1 }]), to: "Deep.plist")
        case .truncated:
            let text = HostileWorkspace.document(CatalogWorkspace.newTies(4))
            let cut = try #require(text.range(of: "<string>New Tie 4</string>", options: .backwards))
            return try workspace.writeInput(String(text[..<cut.lowerBound]) + "<string>New Ti", to: "Truncated.plist")
        case .timesWornOverflow:
            let bad = [
                "id": "<string>5E1F0A3C-7B2D-4C8E-9F61-000000000999</string>", "searchKey": "<string>N9</string>",
                "timesWorn": "<integer>2147483648</integer>",
            ]
            return try workspace.writeInput(HostileWorkspace.document(good + [bad]), to: "Overflow.plist")
        }
    }
}

/// A failed command leaves no trace: the store, its `-wal`, the photo
/// folder byte-identical, no file added beside them; a failed first import
/// leaves no store and no folder it created.
@Suite("A failed command leaves no trace")
struct NoTraceTests {
    /// Runs `bowties ARGUMENTS` through `/bin/sh` with writes limited to
    /// 64 blocks (32 KiB in dash's 512-byte blocks, 64 KiB in bash's): a
    /// full disk, as far as bowties can tell. bowties ignores SIGXFSZ, so
    /// a write past the limit fails with EFBIG instead of killing it.
    ///
    /// Started as ``SpawnedProcess`` starts children, as from a user's
    /// shell, where today's binary dies of SIGXFSZ: through Foundation's
    /// `Process`, from a test, it was seen failing with EFBIG instead.
    static func onFullDisk(_ arguments: [String], _ workspace: CatalogWorkspace) throws -> SpawnedProcess {
        let shell = try SpawnedProcess.start(
            URL(fileURLWithPath: "/bin/sh"),
            ["-c", #"ulimit -f 64 && exec "$0" "$@""#, try BowTiesRunner.executableURL().path] + arguments,
            environment: workspace.environment, outputs: workspace.runner.directory)
        shell.wait(timeout: 120)
        return shell
    }

    /// Checks that a failed command changed nothing, and that the catalog
    /// still passes `check`.
    ///
    /// - Parameter exchange: The command and its output, for messages.
    static func expectNoTrace(
        _ workspace: CatalogWorkspace, before: StoreSnapshot, _ exchange: CustomStringConvertible,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        // Bytes first: they need no SQLite, which may not be able to read
        // a store a command left half-written.
        let checksums = try StoreSnapshot.checksums(of: workspace.storeFolder)
        let identical = checksums == before.checksums
        #expect(
            identical,
            "the store's folder changed:\n\(StoreSnapshot.difference(checksums, from: before.checksums))\n\(exchange)",
            sourceLocation: sourceLocation)
        if !identical {
            do {
                let after = try workspace.snapshot()
                let sameRows = after.rows == before.rows
                #expect(
                    sameRows, "the store's rows changed:\n\(after.difference(from: before))",
                    sourceLocation: sourceLocation)
            } catch {
                Issue.record(
                    "the store file cannot be read on its own any more: \(error)", sourceLocation: sourceLocation)
            }
        }
        let check = try workspace.run("check")
        #expect(check.status == 0, "\(check)", sourceLocation: sourceLocation)
    }

    @Test("rate R 6 exits 65 and leaves the catalog byte-identical")
    func validationError() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let before = try workspace.snapshot()
        let result = try workspace.run("rate", "R", "6")
        #expect(result.status == 65, "\(result)")
        #expect(result.stderr.contains("rating is too large"), "\(result)")
        try Self.expectNoTrace(workspace, before: before, result)
    }

    @Test(
        "a malformed or hostile import exits 65 and leaves the catalog byte-identical",
        arguments: FailingImport.allCases)
    func failingImport(_ input: FailingImport) throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let file = try input.write(workspace)
        let before = try workspace.snapshot()
        let result = try workspace.run("import", file.path)
        #expect(result.status == 65, "\(result)")
        #expect(result.stderr.hasPrefix("bowties: error: "), "\(result)")
        try Self.expectNoTrace(workspace, before: before, result)
    }

    @Test("an import that gives up waiting for the write lock (--wait 1) exits 75 and leaves no trace")
    func lockWaitGivesUp() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        try workspace.writeNewPhotos()
        let file = try workspace.writeInput(HostileWorkspace.document(CatalogWorkspace.newTies(6)), to: "New.plist")
        let holder = try SQLiteConnection(path: workspace.storeURL.path)
        try holder.execute("BEGIN IMMEDIATE")
        let before = try workspace.snapshot()

        let started = Date()
        let result = try workspace.run("import", file.path, "--wait", "1")
        let waited = Date().timeIntervalSince(started)
        #expect(result.status == 75, "\(result)")
        #expect(result.stderr.contains("busy"), "\(result)")
        #expect(result.stderr.contains("pid \(getpid())"), "the holder (this process) is not named\n\(result)")
        #expect(waited >= 1 && waited < 8, "gave up after \(waited) s, expected about 1 s")
        // Released before the check, which would wait for it; the
        // connection stays open, so the folder is as it was.
        try holder.execute("ROLLBACK")
        try Self.expectNoTrace(workspace, before: before, result)
        withExtendedLifetime(holder) {}
    }

    @Test("an import of large new photos on a full disk (ulimit -f) fails with a message and leaves no trace")
    func fullDisk() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        try workspace.writeNewPhotos()
        let file = try workspace.writeInput(HostileWorkspace.document(CatalogWorkspace.newTies(6)), to: "New.plist")
        let before = try workspace.snapshot()

        let importer = try Self.onFullDisk(["import", file.path], workspace)
        let exit = try #require(importer.exit)
        #expect(exit.signal == nil, "expected an error exit, not a death by signal\n\(importer.describe("sh"))")
        #expect(exit.status != 0, "\(importer.describe("sh"))")
        #expect(importer.stderr.hasPrefix("bowties: error: "), "\(importer.describe("sh"))")
        try Self.expectNoTrace(workspace, before: before, importer.describe("sh"))
    }

    @Test("a failed first import leaves no store and no folder it created", arguments: FailingImport.allCases)
    func failedFirstImport(_ input: FailingImport) throws {
        let workspace = try CatalogWorkspace(store: "new")
        try FileManager.default.removeItem(at: workspace.storeFolder)
        let file = try input.write(workspace)
        let result = try workspace.run("import", file.path)
        #expect(result.status == 65, "\(result)")
        #expect(
            !FileManager.default.fileExists(atPath: workspace.storeFolder.path),
            "left behind: \(workspace.storeFolderContents())\n\(result)")
    }

    @Test("a first import on a full disk (ulimit -f) leaves no store and no folder it created")
    func failedFirstImportOnFullDisk() throws {
        let workspace = try CatalogWorkspace(store: "new")
        try FileManager.default.removeItem(at: workspace.storeFolder)
        try workspace.writeNewPhotos()
        let file = try workspace.writeInput(HostileWorkspace.document(CatalogWorkspace.newTies(6)), to: "New.plist")
        let importer = try Self.onFullDisk(["import", file.path], workspace)
        let exit = try #require(importer.exit)
        #expect(exit.signal == nil, "expected an error exit, not a death by signal\n\(importer.describe("sh"))")
        #expect(exit.status != 0, "\(importer.describe("sh"))")
        #expect(importer.stderr.hasPrefix("bowties: error: "), "\(importer.describe("sh"))")
        #expect(
            !FileManager.default.fileExists(atPath: workspace.storeFolder.path),
            "left behind: \(workspace.storeFolderContents())\n\(importer.describe("sh"))")
    }
}
