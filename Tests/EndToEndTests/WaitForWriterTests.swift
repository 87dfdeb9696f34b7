import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Who holds the catalog's write lock while a writer waits.
enum LockHolder: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// A connection in the test process (`BEGIN IMMEDIATE`).
    case inProcess
    /// A python3 child with the `sqlite3` module (`BEGIN IMMEDIATE`).
    case python

    var testDescription: String {
        switch self {
        case .inProcess: "a connection in this process"
        case .python: "a python3 process"
        }
    }
}

/// A write lock held on a store until ``release()``, by this process or
/// by a python3 child.
///
/// Not `Sendable`: one test, one holder.
final class HeldWriteLock {
    /// The process that holds the lock.
    let pid: pid_t
    private var connection: SQLiteConnection?
    private var python: Process?
    private var pythonInput: Pipe?

    init(_ holder: LockHolder, store: URL) throws {
        switch holder {
        case .inProcess:
            let connection = try SQLiteConnection(path: store.path)
            try connection.execute("BEGIN IMMEDIATE")
            self.connection = connection
            pid = getpid()
        case .python:
            // Holds the lock until its standard input closes.
            let script = """
                import sqlite3, sys
                connection = sqlite3.connect(sys.argv[1], isolation_level=None)
                connection.execute("BEGIN IMMEDIATE")
                print("locked", flush=True)
                sys.stdin.read()
                connection.execute("ROLLBACK")
                """
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", "-c", script, store.path]
            let input = Pipe()
            let output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            try process.run()
            let line = output.fileHandleForReading.readData(ofLength: 7)
            try #require(String(decoding: line, as: UTF8.self) == "locked\n", "python3 did not take the lock")
            python = process
            pythonInput = input
            pid = process.processIdentifier
        }
    }

    /// Gives the lock up (a rollback) and waits for a python3 holder to end.
    func release() throws {
        if let connection {
            try connection.execute("ROLLBACK")
            self.connection = nil
        }
        if let python, let pythonInput {
            try pythonInput.fileHandleForWriting.close()
            python.waitUntilExit()
            self.python = nil
        }
    }

    deinit {
        try? release()
    }
}

/// Writers wait their turn: as long as the holder of the write lock lives,
/// saying once who it is; with `--wait SECONDS`, no longer than that, then
/// exit 75 naming it.
@Suite("Writers wait their turn")
struct WaitForWriterTests {
    /// The lines of `stderr` that say whom the command waits for.
    static func waitingLines(_ stderr: String) -> [String] {
        stderr.split(separator: "\n").map(String.init).filter { $0.hasPrefix("waiting for the catalog:") }
    }

    @Test("wear R waits for a connection that holds the write lock for 15 s, then counts the wear (slow: 15 s)")
    func waitsAsLongAsTheHolderLives() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let worn = try workspace.timesWorn("R")
        let holder = try HeldWriteLock(.inProcess, store: workspace.storeURL)
        let locked = Date()

        let wear = try workspace.start(["wear", "R"])
        poll(timeout: 15) { !Self.waitingLines(wear.stderr).isEmpty || !wear.isRunning }
        // Hold the lock 15 s in all, or until the wear gives up.
        poll(timeout: max(0, 15 - Date().timeIntervalSince(locked)), every: 20_000) { !wear.isRunning }
        let heldFor = Date().timeIntervalSince(locked)
        #expect(wear.isRunning, "the wear did not wait \(String(format: "%.1f", heldFor)) s\n\(wear.describe())")
        try holder.release()

        let exit = wear.wait(timeout: 30)
        #expect(exit.status == 0 && exit.signal == nil, "\(wear.describe())")
        let lines = Self.waitingLines(wear.stderr)
        #expect(lines.count == 1, "expected one waiting line\n\(wear.describe())")
        #expect(
            lines.allSatisfy { $0.contains("pid \(getpid())") }, "the holder's pid is not named\n\(wear.describe())")
        #expect(try workspace.timesWorn("R") == worn + 1)
    }

    @Test(
        "wear R --wait 1 while the write lock is held exits 75, names the holder's pid, changes nothing",
        arguments: LockHolder.allCases)
    func waitLimit(_ kind: LockHolder) throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let holder = try HeldWriteLock(kind, store: workspace.storeURL)
        let before = try workspace.snapshot()

        let started = Date()
        let result = try workspace.run("wear", "R", "--wait", "1")
        let waited = Date().timeIntervalSince(started)
        #expect(result.status == 75, "\(result)")
        #expect(result.stderr.contains("busy"), "\(result)")
        #expect(result.stderr.contains("pid \(holder.pid)"), "the holder (pid \(holder.pid)) is not named\n\(result)")
        #expect(waited >= 1 && waited < 8, "gave up after \(String(format: "%.1f", waited)) s, expected about 1 s")
        let after = try workspace.snapshot()
        let identical = after.isByteIdentical(to: before)
        #expect(identical, "\(after.byteDifference(from: before))\n\(result)")
        try holder.release()
        #expect(try workspace.timesWorn("R") == 12)
    }

    @Test("a wear during another bowties's import waits for it and names it")
    func waitsForAnImport() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let file = try SignalTests.writeBigImport(workspace, records: 40_000)
        let importer = try SignalTests.startUnderWay(file, workspace)
        // Stopped inside its transaction, the import holds the write lock
        // for as long as the test needs, however fast it would run.
        kill(importer.pid, SIGSTOP)
        defer { kill(importer.pid, SIGCONT) }
        let wear = try workspace.start(["wear", "R"])
        let said = poll(timeout: 30) { !Self.waitingLines(wear.stderr).isEmpty || !wear.isRunning }
        let waited = wear.isRunning
        kill(importer.pid, SIGCONT)

        let importExit = importer.wait(timeout: 300)
        let wearExit = wear.wait(timeout: 60)
        #expect(importExit.status == 0, "\(importer.describe())")
        #expect(wearExit.status == 0 && wearExit.signal == nil, "\(wear.describe())")
        #expect(said && waited, "the wear did not say whom it waited for\n\(wear.describe())")
        let lines = Self.waitingLines(wear.stderr)
        #expect(lines.count == 1, "expected one waiting line\n\(wear.describe())")
        #expect(
            lines.allSatisfy { $0.contains("bowties (pid \(importer.pid))") && $0.contains("importing Big.plist") },
            "expected the importer named: bowties (pid \(importer.pid)) is importing Big.plist\n\(wear.describe())")
        #expect(try workspace.timesWorn("R") == 13)
    }
}
