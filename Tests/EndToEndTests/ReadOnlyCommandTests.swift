import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A command that only reads the catalog.
enum ReadCommand: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case list, listQuery, count, show, export, exportToFile, exportJSON, photo, photoToFile, config, check, dryRun
    case dryRunWithImages

    /// Its arguments; files to write go to the workspace's `out/`, files
    /// to import come from its `input/` (see ``writeInputs(_:)``).
    func arguments(_ workspace: CatalogWorkspace) -> [String] {
        switch self {
        case .list: ["list"]
        // REGEXP is a function every connection registers, read-only and
        // immutable ones too.
        case .listQuery: ["list", "name::^M", "has:photo", "lastWorn:2014"]
        case .count: ["count", "rating:3..", ",", "is:favorite"]
        case .show: ["show", "B"]
        case .export: ["export"]
        case .exportToFile: ["export", "--output", outputURL(workspace)?.path ?? ""]
        case .exportJSON: ["export", "--json"]
        case .photo: ["photo", "B"]
        case .photoToFile: ["photo", "B", "--output", outputURL(workspace)?.path ?? ""]
        case .config: ["config"]
        case .check: ["check"]
        case .dryRun: ["import", workspace.inputDirectory.appendingPathComponent("New.plist").path, "--dry-run"]
        case .dryRunWithImages:
            [
                "import", workspace.inputDirectory.appendingPathComponent("NewWithPhotos.plist").path,
                "--images", workspace.imagesDirectory.path, "--dry-run",
            ]
        }
    }

    /// The file the command writes, if it writes one (outside the store's
    /// folder).
    func outputURL(_ workspace: CatalogWorkspace) -> URL? {
        switch self {
        case .exportToFile: workspace.outputDirectory.appendingPathComponent("export.csv")
        case .photoToFile: workspace.outputDirectory.appendingPathComponent("B.png")
        default: nil
        }
    }

    var testDescription: String {
        switch self {
        case .list: "list"
        case .listQuery: "list name::^M has:photo lastWorn:2014"
        case .count: "count rating:3.. , is:favorite"
        case .show: "show B"
        case .export: "export"
        case .exportToFile: "export --output FILE"
        case .exportJSON: "export --json"
        case .photo: "photo B"
        case .photoToFile: "photo B --output FILE"
        case .config: "config"
        case .check: "check"
        case .dryRun: "import New.plist --dry-run"
        case .dryRunWithImages: "import NewWithPhotos.plist --images Images --dry-run"
        }
    }

    /// Writes the files the dry runs import: 20 new ties without photos,
    /// and 12 new ties whose photos include two over 100 KiB (files, were
    /// the import real) and a small one.
    static func writeInputs(_ workspace: CatalogWorkspace) throws {
        try GeneratedPlist.write(
            to: workspace.inputDirectory.appendingPathComponent("New.plist"), records: 20, keyPrefix: "D")
        try workspace.writeNewPhotos()
        try workspace.writeInput(
            HostileWorkspace.document(CatalogWorkspace.newTies(12)), to: "NewWithPhotos.plist")
    }
}

/// Read commands never write: `list`, `show`, `export`, `photo`, `config`,
/// `check` and `import --dry-run` leave every byte of the catalog as it
/// was, and work on a catalog the user may read but not write.
///
/// Each open of the store once committed a small transaction (GRDB's WAL
/// set-up), rewriting the store or growing its `-wal` file, and failing
/// with "attempt to write a readonly database" where the user could not
/// write.
@Suite("Read commands never write")
struct ReadOnlyCommandTests {
    /// A workspace with the sample data imported and the inputs of the
    /// dry runs written.
    static func sampleWorkspace() throws -> CatalogWorkspace {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        try ReadCommand.writeInputs(workspace)
        return workspace
    }

    @Test(
        "on a store closed cleanly (no -wal), the store and photo folder stay byte-identical",
        arguments: ReadCommand.allCases)
    func cleanStore(_ command: ReadCommand) throws {
        let workspace = try Self.sampleWorkspace()
        try #require(!FileManager.default.fileExists(atPath: workspace.walURL.path), "the import left a -wal file")
        try Self.expectUnchanged(workspace, by: command)
    }

    @Test(
        "beside another open connection whose commits sit in the -wal file, nothing changes, the -wal included",
        arguments: ReadCommand.allCases)
    func storeWithCommittedWAL(_ command: ReadCommand) throws {
        let workspace = try Self.sampleWorkspace()
        // Another program has the catalog open and has written to it: its
        // commit is in the -wal file until the last connection closes.
        let other = try SQLiteConnection(path: workspace.storeURL.path)
        try other.execute("UPDATE bowtie SET timesWorn_baseline = timesWorn_baseline + 1 WHERE searchKey = 'R'")
        try #require((fileSize(workspace.walURL) ?? 0) > 0, "the other connection's commit is not in the -wal file")
        try Self.expectUnchanged(workspace, by: command)
        withExtendedLifetime(other) {}
    }

    @Test(
        "beside another open connection that has not written (an empty -wal), nothing changes",
        arguments: ReadCommand.allCases)
    func storeWithEmptyWAL(_ command: ReadCommand) throws {
        let workspace = try Self.sampleWorkspace()
        let other = try SQLiteConnection(path: workspace.storeURL.path)
        try other.execute("SELECT count(*) FROM bowtie")
        try #require(fileSize(workspace.walURL) == 0, "expected an empty -wal file beside an idle connection")
        try Self.expectUnchanged(workspace, by: command)
        withExtendedLifetime(other) {}
    }

    /// Runs `command`, which must succeed, and checks that the store's
    /// folder is byte-identical afterwards (`-shm` aside).
    static func expectUnchanged(
        _ workspace: CatalogWorkspace, by command: ReadCommand, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let before = try workspace.snapshot()
        let result = try workspace.run(arguments: command.arguments(workspace))
        #expect(result.status == 0, "\(result)", sourceLocation: sourceLocation)
        if let output = command.outputURL(workspace) {
            #expect(FileManager.default.fileExists(atPath: output.path), "\(result)", sourceLocation: sourceLocation)
        }
        let after = try workspace.snapshot()
        let identical = after.isByteIdentical(to: before)
        #expect(
            identical,
            "the store's folder changed:\n\(after.byteDifference(from: before))\n\(result)",
            sourceLocation: sourceLocation)
    }

    @Test(
        "on a catalog the user can read but not write (a WAL store closed cleanly), the output is the same",
        arguments: ReadCommand.allCases)
    func unwritableCatalog(_ command: ReadCommand) throws {
        let workspace = try Self.sampleWorkspace()
        try UnwritableCatalog.prepare(workspace)
        defer { try? UnwritableCatalog.makeWritable(workspace) }  // so the runner can remove it
        let arguments = command.arguments(workspace)

        // First as the owner of a writable catalog...
        try UnwritableCatalog.makeWritable(workspace)
        let writable = try workspace.run(arguments: arguments)
        try #require(writable.status == 0, "on the writable catalog: \(writable)")
        let writtenOutput = try command.outputURL(workspace).map { try Data(contentsOf: $0) }
        if let output = command.outputURL(workspace) { try FileManager.default.removeItem(at: output) }

        // ...then, with the same path and the same user, read-only.
        try UnwritableCatalog.makeReadOnly(workspace)
        // A WAL store closed cleanly: nothing beside it but the lock file.
        #expect(Self.journalModeIsWAL(workspace.storeURL), "the sample store is not in WAL mode")
        try #require(!FileManager.default.fileExists(atPath: workspace.walURL.path))
        try #require(!FileManager.default.fileExists(atPath: workspace.shmURL.path))
        try #require(workspace.photoFiles().count == 2)
        let before = try workspace.snapshot()

        let readOnly = try workspace.run(arguments: arguments)
        #expect(readOnly.status == 0, "on the read-only catalog: \(readOnly)")
        #expect(
            readOnly.stdout == writable.stdout,
            "standard output differs from the writable run's\n--- writable\n\(writable)\n--- read-only\n\(readOnly)")
        if let output = command.outputURL(workspace) {
            #expect(
                (try? Data(contentsOf: output)) == writtenOutput, "\(output.lastPathComponent) differs\n\(readOnly)")
        }
        let after = try workspace.snapshot()
        let identical = after.isByteIdentical(to: before)
        #expect(identical, "\(after.byteDifference(from: before))")
    }

    /// True when the SQLite header says WAL (bytes 18 and 19 are 2).
    static func journalModeIsWAL(_ store: URL) -> Bool {
        guard let handle = try? FileHandle(forReadingFrom: store),
            let header = try? handle.read(upToCount: 20), header.count == 20
        else { return false }
        return header[18] == 2 && header[19] == 2
    }
}
