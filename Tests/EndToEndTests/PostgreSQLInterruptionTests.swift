import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// An import on PostgreSQL stopped half-way, whichever way: it leaves
/// every row as it was (``PostgreSQLServer/contents(database:)``: a data
/// dump and the rows of every table, before and after), no write lock
/// behind, and the next command that writes goes straight through.
@Suite("PostgreSQL: an interrupted import leaves nothing behind")
struct PostgreSQLInterruptionTests {
    enum Interruption: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// Ctrl-C: bowties cancels the statement (PQcancel) and rolls back.
        case sigint
        /// `kill -9` of the client: the server finds the connection
        /// closed and rolls back.
        case sigkill
        /// The server ends the connection (`pg_terminate_backend` from
        /// another session, as an administrator or a failover would).
        case droppedConnection

        var testDescription: String {
            switch self {
            case .sigint: "SIGINT (Ctrl-C) of bowties"
            case .sigkill: "SIGKILL of bowties"
            case .droppedConnection: "the connection dropped by the server (pg_terminate_backend)"
            }
        }
    }

    /// A JSON Lines file of `count` new ties, each with a tag: more than
    /// any import finishes before the test stops it.
    static func manyTies(_ bowties: BowTiesRunner, count: Int = 200_000) throws -> URL {
        let lines = (0..<count).map { "{\"name\": \"Tie \($0)\", \"searchKey\": \"K\($0)\", \"tags\": [\"t\($0 % 50)\"]}" }
        return try bowties.write(lines.joined(separator: "\n") + "\n", to: "many.jsonl")
    }

    /// Starts `bowties import FILE` with `environment`; its standard error
    /// goes to a file.
    static func startImport(_ bowties: BowTiesRunner, _ file: URL, environment: [String: String?]) throws
        -> (Process, URL)
    {
        var merged = bowties.environment
        for (name, value) in environment { merged[name] = value }
        let process = Process()
        process.executableURL = try BowTiesRunner.executableURL()
        process.arguments = ["import", file.path]
        process.environment = merged
        let errors = bowties.directory.appendingPathComponent("import-\(UUID().uuidString).err")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        return (process, errors)
    }

    @Test("an import into a catalog of 7 ties, stopped while it holds the write lock", arguments: Interruption.allCases)
    func interrupted(_ interruption: Interruption) throws {
        let server = try PostgreSQLServer()
        defer { server.stop() }
        let bowties = try BowTiesRunner()
        var environment = server.clientEnvironment
        environment["BOWTIES_STORE"] = try server.createDatabase()
        for form in [
            ["import", BowTiesRunner.sampleDataURL.path], ["wear", "R", "--on", "2026-11-20"], ["tag", "R", "silk"],
        ] {
            let result = try bowties.run(arguments: form, environment: environment)
            try #require(result.status == 0, "\(result)")
        }
        let before = try server.contents(database: "catalog1")
        let file = try Self.manyTies(bowties)
        let (process, errors) = try Self.startImport(bowties, file, environment: environment)
        let holder = try server.waitForWriteLock(database: "catalog1")
        // Some records in: the transaction has rows to lose.
        usleep(500_000)
        try #require(process.isRunning, "the import finished before it could be stopped")
        switch interruption {
        case .sigint: kill(process.processIdentifier, SIGINT)
        case .sigkill: kill(process.processIdentifier, SIGKILL)
        case .droppedConnection: try server.sql("SELECT pg_terminate_backend(\(holder))")
        }
        process.waitUntilExit()
        let stderr = try String(contentsOf: errors, encoding: .utf8)
        switch interruption {
        case .sigint:
            #expect(process.terminationStatus == 130, "\(stderr)")
            #expect(stderr.hasSuffix("interrupted: nothing was imported\n"), "\(stderr)")
        case .sigkill:
            #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL, "\(stderr)")
        case .droppedConnection:
            #expect(process.terminationStatus == 69, "\(stderr)")
            // In bowties' voice only, one line (libpq printed the server's
            // FATAL line itself before, and its own reason in three): the
            // server's reason when libpq read it before the socket closed,
            // else libpq's first line.
            let address = environment["BOWTIES_STORE"].flatMap { $0 } ?? ""
            let lines = stderr.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            #expect(
                [
                    "bowties: error: lost the connection to the catalog at \(address): "
                        + "terminating connection due to administrator command",
                    "bowties: error: lost the connection to the catalog at \(address): "
                        + "server closed the connection unexpectedly",
                ].contains(lines.first ?? ""), "\(stderr)")
            #expect(lines.count == 3 && lines.last == "", "\(stderr)")
            #expect(!stderr.contains("FATAL"), "\(stderr)")
            #expect(stderr.contains("\nhint: The server rolled back what the command had not committed; "), "\(stderr)")
        }
        #expect(!stderr.contains(PostgreSQLServer.ownerPassword))
        // The server rolls the killed client's transaction back once it
        // sees the connection closed: at once, or the next command waits.
        let after = try server.contents(database: "catalog1")
        #expect(after == before, "the database changed")
        // No lock behind: a write with no patience goes through.
        let wear = try bowties.run(arguments: ["wear", "R", "--on", "2026-11-21", "--wait", "5"], environment: environment)
        #expect(wear.status == 0, "\(wear)")
        let history = try bowties.run(arguments: ["history", "R"], environment: environment)
        #expect(history.stdout.contains("2 recorded"), "\(history)")
        let check = try bowties.run(arguments: ["check"], environment: environment)
        #expect(check.status == 0 && check.stdout.contains("No problems found."), "\(check)")
        let count = try bowties.run(arguments: ["count"], environment: environment)
        #expect(count.stdout == "7\n", "\(count)")
    }

    @Test("the first import into an empty database, killed: still no table (the schema and the rows are one transaction)")
    func firstImportKilled() throws {
        let server = try PostgreSQLServer()
        defer { server.stop() }
        let bowties = try BowTiesRunner()
        var environment = server.clientEnvironment
        environment["BOWTIES_STORE"] = try server.createDatabase()
        let before = try server.contents(database: "catalog1")
        #expect(before.hasSuffix("tables: \n"), "\(before)")
        let (process, _) = try Self.startImport(bowties, try Self.manyTies(bowties), environment: environment)
        _ = try server.waitForWriteLock(database: "catalog1")
        usleep(500_000)
        try #require(process.isRunning, "the import finished before it could be stopped")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(try server.contents(database: "catalog1") == before, "the database changed")
        let list = try bowties.run(arguments: ["list"], environment: environment)
        #expect(list.status == 66 && list.stderr.hasPrefix("bowties: error: no catalog in the database at "), "\(list)")
        let imported = try bowties.run(
            arguments: ["import", BowTiesRunner.sampleDataURL.path, "--wait", "5"], environment: environment)
        #expect(imported.status == 0, "\(imported)")
        let count = try bowties.run(arguments: ["count"], environment: environment)
        #expect(count.stdout == "7\n", "\(count)")
    }
}
