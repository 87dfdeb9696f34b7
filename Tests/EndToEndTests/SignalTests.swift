import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// SIGINT, SIGTERM and SIGHUP during an import: the import rolls back,
/// removes the photo files it wrote, says so, and exits 128 + the signal.
///
/// Slow: each test imports a 150,000-record file (written once per test)
/// and signals it once it is under way; the imports run one at a time.
@Suite("Signals during an import", .serialized)
struct SignalTests {
    static let records = 150_000

    /// The signals, their names and the statuses they must end in.
    static let signals: [(signal: Int32, name: String, status: Int32)] = [
        (SIGINT, "SIGINT", 130), (SIGTERM, "SIGTERM", 143), (SIGHUP, "SIGHUP", 129),
    ]

    /// Photos shared among the records: big ones (files) from the first
    /// record on, so that a file is written early and must be removed
    /// again; small ones stored inside the catalog.
    static func photo(forRecord index: Int, of records: Int) -> String? {
        if index % 7 == 0 { return "big\(index * 4 / records)" }
        if index % 3 == 0 { return "small\(index % 2)" }
        return nil
    }

    /// Writes `Big.plist` and its photos into the workspace's `input/`.
    static func writeBigImport(_ workspace: CatalogWorkspace, records: Int = records) throws -> URL {
        for (index, size) in [300_000, 400_000, 500_000, 600_000].enumerated() {
            try workspace.writePhoto("big\(index)", bytes: size, seed: UInt64(10 + index))
        }
        try workspace.writePhoto("small0", bytes: 20_000, seed: 20)
        try workspace.writePhoto("small1", bytes: 30_000, seed: 21)
        let url = workspace.inputDirectory.appendingPathComponent("Big.plist")
        try GeneratedPlist.write(
            to: url, records: records, keyPrefix: "K", seed: 7, photo: { photo(forRecord: $0, of: records) })
        return url
    }

    /// Starts `bowties import FILE` on the workspace's store and returns
    /// once it is under way: it has written a photo file and read a tenth
    /// of the file. Requires that it is still running then.
    static func startUnderWay(
        _ file: URL, _ workspace: CatalogWorkspace, standardError: SpawnedProcess.StandardError = .file,
        terminal: PseudoTerminal? = nil
    ) throws -> SpawnedProcess {
        let importer = try workspace.start(["import", file.path], standardError: standardError)
        let size = try #require(fileSize(file))
        let photoFilesBefore = Set(workspace.photoFiles())
        let underWay = poll(timeout: 120) {
            terminal?.drain()
            guard importer.isRunning else { return true }
            let newFiles = Set(workspace.photoFiles()).subtracting(photoFilesBefore)
            return newFiles.contains { !$0.hasPrefix(".") } && readPosition(of: file, by: importer.pid) >= size / 10
        }
        try #require(underWay, "the import did not get under way in 2 minutes\n\(importer.describe())")
        try #require(
            importer.isRunning,
            "the import finished before it could be signalled: make the file bigger\n\(importer.describe())")
        return importer
    }

    /// How far `pid` has read `file`: 0 until it has the file open, then
    /// the bytes it has read (`rchar` of `/proc/PID/io`). The readers read
    /// with `pread`, which moves no descriptor offset; `rchar` counts every
    /// read of the process, the file's among them (photos are a few MB).
    static func readPosition(of file: URL, by pid: pid_t) -> Int {
        let fds = "/proc/\(pid)/fd"
        let isOpen = ((try? FileManager.default.contentsOfDirectory(atPath: fds)) ?? []).contains {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "\(fds)/\($0)")) == file.path
        }
        guard isOpen else { return 0 }
        let io = (try? String(contentsOfFile: "/proc/\(pid)/io", encoding: .utf8)) ?? ""
        return io.split(separator: "\n").first { $0.hasPrefix("rchar:") }
            .flatMap { Int($0.dropFirst(6).trimmingCharacters(in: .whitespaces)) } ?? 0
    }

    @Test("a signal during a first import: exit 128 + n, a message, no store, no photo folder, no lock file")
    func firstImport() throws {
        let started = Date()
        let source = try CatalogWorkspace()
        let file = try Self.writeBigImport(source)
        for (signal, name, status) in Self.signals {
            let workspace = try CatalogWorkspace()
            try #require(workspace.storeFolderContents().isEmpty)
            let importer = try Self.startUnderWay(file, workspace)
            importer.send(signal)
            let exit = importer.wait(timeout: 60)
            #expect(exit.signal == nil, "\(name): \(importer.describe())")
            #expect(exit.status == status, "\(name): \(importer.describe())")
            #expect(importer.stderr.contains("interrupted: nothing was imported"), "\(name): \(importer.describe())")
            #expect(
                workspace.storeFolderContents().isEmpty,
                "\(name): left beside the store: \(workspace.storeFolderContents()), photos \(workspace.photoFiles())")
        }
        print("signals, first import: \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
    }

    @Test("a signal during an import into an existing store: exit 128 + n, the store byte-identical")
    func existingStore() throws {
        let started = Date()
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let file = try Self.writeBigImport(workspace)
        for (signal, name, status) in Self.signals {
            let before = try workspace.snapshot()
            let importer = try Self.startUnderWay(file, workspace)
            importer.send(signal)
            let exit = importer.wait(timeout: 60)
            #expect(exit.signal == nil, "\(name): \(importer.describe())")
            #expect(exit.status == status, "\(name): \(importer.describe())")
            #expect(importer.stderr.contains("interrupted: nothing was imported"), "\(name): \(importer.describe())")
            let after = try workspace.snapshot()
            let identical = after.isByteIdentical(to: before)
            #expect(
                identical,
                "\(name): the store's folder changed:\n\(after.byteDifference(from: before))")
            if !identical {
                // Start the next signal from a healthy store.
                try workspace.run("check", "--repair")
            }
        }
        let check = try workspace.run("check")
        #expect(check.status == 0, "\(check)")
        let list = try workspace.run("list", "--json")
        #expect((try? list.json() as? [Any])??.count == 7, "the sample's seven ties, no more\n\(list.stderr)")
        print("signals, existing store: \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
    }

    @Test("on a terminal, SIGINT erases the progress line before saying the import was interrupted")
    func progressLineErased() throws {
        let started = Date()
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let file = try Self.writeBigImport(workspace)
        let terminal = try PseudoTerminal()
        let importer = try Self.startUnderWay(
            file, workspace, standardError: .path(terminal.slavePath), terminal: terminal)
        // The progress line appears after 1.5 s: signal once it is drawn.
        let drawn = poll(timeout: 60) {
            terminal.drain()
            return terminal.text.contains("Importing Big.plist") || !importer.isRunning
        }
        try #require(drawn && importer.isRunning, "no progress line was drawn\n\(terminal.text)")
        importer.send(SIGINT)
        // Read until the child has ended and the terminal is empty.
        let ended = poll(timeout: 60) {
            terminal.drain()
            return !importer.isRunning
        }
        terminal.drain()
        let exit = importer.wait(timeout: 1)
        #expect(ended, "the import did not stop after SIGINT")
        #expect(exit.status == 130 && exit.signal == nil, "\(exit)\n\(terminal.text.debugDescription)")

        let screen = PseudoTerminal.screen(terminal.text)
        let progress = screen.filter { $0.contains("Importing") }
        #expect(progress.isEmpty, "progress text left on the terminal: \(progress)\n\(terminal.text.debugDescription)")
        #expect(
            screen.contains { $0.contains("interrupted: nothing was imported") },
            "\(screen)\n\(terminal.text.debugDescription)")
        print("signals, terminal: \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
    }
}
