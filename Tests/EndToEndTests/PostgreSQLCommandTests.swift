import Foundation
import Testing

/// `--store postgresql://…`: how a catalog on a PostgreSQL server is
/// reached, and what a user sees when it cannot be. Each test that needs
/// a server starts its own (``PostgreSQLServer``) and stops it.
@Suite("PostgreSQL addresses")
struct PostgreSQLAddressTests {
    @Test("no server at the address: exit 69, the place and libpq's reason, the password masked")
    func noServer() throws {
        let bowties = try BowTiesRunner()
        let port = try PostgreSQLServer.freePort()
        let address = "postgresql://ann:hunter2-secret@127.0.0.1:\(port)/ties"
        for form in [["list", "--store", address], ["show", "R", "--store", address], ["count", "--store", address]] {
            let result = try bowties.run(arguments: form)
            #expect(result.status == 69, "\(result)")
            #expect(
                result.stderr.hasPrefix(
                    "bowties: error: cannot connect to the catalog at postgresql://ann:***@127.0.0.1:\(port)/ties "
                        + "(database ties on 127.0.0.1 port \(port) as ann): Connection refused\n"),
                "\(result)")
            #expect(result.stderr.contains("hint: "), "\(result)")
            #expect(!result.stderr.contains("hunter2") && !result.stdout.contains("hunter2"), "\(result)")
        }
        // The same from $BOWTIES_STORE, and a password given as a parameter.
        let result = try bowties.run(
            "list", environment: ["BOWTIES_STORE": "postgres://ann@127.0.0.1:\(port)/ties?password=hunter2-secret"])
        #expect(result.status == 69, "\(result)")
        #expect(result.stderr.contains("postgres://ann@127.0.0.1:\(port)/ties?password=***"), "\(result)")
        #expect(!result.stderr.contains("hunter2"), "\(result)")
    }

    @Test("a wrong password or none: exit 77, masked; a missing database: exit 69 with what to do")
    func authenticationAndMissingDatabase() throws {
        let server = try PostgreSQLServer()
        defer { server.stop() }
        let bowties = try BowTiesRunner()
        let database = try server.createDatabase()
        let wrong = "postgresql://\(PostgreSQLServer.owner):not-the-password@127.0.0.1:\(server.port)/catalog1"
        let refused = try bowties.run(
            arguments: ["list", "--store", wrong], environment: server.clientEnvironment.merging(["PGPASSWORD": nil]) { $1 })
        #expect(refused.status == 77, "\(refused)")
        #expect(
            refused.stderr.contains(
                "cannot connect to the catalog at postgresql://bowties:***@127.0.0.1:\(server.port)/catalog1"),
            "\(refused)")
        #expect(refused.stderr.contains("password authentication failed for user \"bowties\""), "\(refused)")
        #expect(!refused.stderr.contains("not-the-password"), "\(refused)")

        let none = try bowties.run(
            arguments: ["list", "--store", database], environment: server.clientEnvironment.merging(["PGPASSWORD": nil]) { $1 })
        #expect(none.status == 77, "\(none)")
        #expect(none.stderr.contains("hint: The server asks for a password: put it in $PGPASSWORD or ~/.pgpass"), "\(none)")

        let missing = try bowties.run(
            arguments: ["list", "--store", server.address(database: "nosuch")], environment: server.clientEnvironment)
        #expect(missing.status == 69, "\(missing)")
        #expect(missing.stderr.contains("database \"nosuch\" does not exist"), "\(missing)")
        #expect(missing.stderr.contains("hint: Create it first"), "\(missing)")
        #expect(!missing.stderr.contains(PostgreSQLServer.ownerPassword), "\(missing)")

        // A database with no catalog yet: reads say so (66), as for a missing file.
        let empty = try bowties.run(arguments: ["list", "--store", database], environment: server.clientEnvironment)
        #expect(empty.status == 66, "\(empty)")
        #expect(empty.stderr.hasPrefix("bowties: error: no catalog in the database at \(database)\n"), "\(empty)")
    }

    @Test("libpq's conventions fill in what the address leaves out (PGPORT, PGUSER, PGPASSWORD)")
    func libpqEnvironment() throws {
        let server = try PostgreSQLServer()
        defer { server.stop() }
        let bowties = try BowTiesRunner()
        _ = try server.createDatabase()
        var environment = server.clientEnvironment
        environment["PGPORT"] = String(server.port)
        environment["PGUSER"] = PostgreSQLServer.owner
        let imported = try bowties.run(
            arguments: ["import", BowTiesRunner.sampleDataURL.path, "--store", "postgresql://127.0.0.1/catalog1"],
            environment: environment)
        #expect(imported.status == 0, "\(imported)")
        #expect(
            imported.stdout.hasPrefix(
                "Imported SampleData.plist into postgresql://127.0.0.1/catalog1: added 7, updated 0, unchanged 0.\n"),
            "\(imported)")
        let count = try bowties.run(
            arguments: ["count", "--store", "postgresql://127.0.0.1/catalog1"], environment: environment)
        #expect(count.status == 0 && count.stdout == "7\n", "\(count)")
        // A password in the address works, and --json shows it masked.
        // (In $BOWTIES_STORE: a failure here prints the arguments.)
        environment["PGPASSWORD"] = nil
        let withPassword =
            "postgresql://\(PostgreSQLServer.owner):\(PostgreSQLServer.ownerPassword)@127.0.0.1:\(server.port)/catalog1"
        environment["BOWTIES_STORE"] = withPassword
        let json = try bowties.run(
            arguments: ["import", "--json", BowTiesRunner.sampleDataURL.path], environment: environment)
        #expect(json.status == 0, "\(json)")
        #expect(
            json.stdout.contains("\"store\" : \"postgresql:\\/\\/\(PostgreSQLServer.owner):***@127.0.0.1:\(server.port)\\/catalog1\"")
                || json.stdout.contains("\"store\" : \"postgresql://\(PostgreSQLServer.owner):***@127.0.0.1:\(server.port)/catalog1\""),
            "\(json)")
        #expect(!json.stdout.contains(PostgreSQLServer.ownerPassword) && !json.stderr.contains(PostgreSQLServer.ownerPassword))
    }
}

/// What the PostgreSQL store does not do yet is refused whole, before
/// anything is read or written, in words and with exit 69; what it does
/// (import, count and the query language) works.
@Suite("PostgreSQL: what works, what is not yet available")
struct PostgreSQLAvailabilityTests {
    @Test("import and count work on PostgreSQL")
    func availability() throws {
        let server = try PostgreSQLServer()
        defer { server.stop() }
        let bowties = try BowTiesRunner()
        var environment = server.clientEnvironment
        environment["BOWTIES_STORE"] = try server.createDatabase()
        let imported = try bowties.run(arguments: ["import", BowTiesRunner.sampleDataURL.path], environment: environment)
        #expect(imported.status == 0, "\(imported)")
        #expect(imported.stdout.hasSuffix(": added 7, updated 0, unchanged 0.\n7 photos saved in the database.\n"), "\(imported)")
        let again = try bowties.run(arguments: ["import", BowTiesRunner.sampleDataURL.path], environment: environment)
        #expect(again.stdout.contains(": added 0, updated 0, unchanged 7.\n"), "\(again)")
        // The same answers as the same data in an SQLite catalog.
        try bowties.importSampleData()
        for form in [["count"], ["count", "name::^Classic"], ["count", "rating:4.."], ["count", "name::(?i)^c"]] {
            let expected = try bowties.run(arguments: form)
            let result = try bowties.run(arguments: form, environment: environment)
            #expect(result.status == 0 && result.stdout == expected.stdout, "\(result)\n\(expected)")
        }
        let count = try bowties.run(arguments: ["count"], environment: environment)
        #expect(count.stdout == "7\n", "nothing changed: \(count)")
    }

    @Test("import --dry-run reports what SQLite's reports and writes nothing; wear on an empty database finds no catalog")
    func dryRun() throws {
        let server = try PostgreSQLServer()
        defer { server.stop() }
        let bowties = try BowTiesRunner()
        var environment = server.clientEnvironment
        environment["BOWTIES_STORE"] = try server.createDatabase()
        let file = try bowties.write(
            "{\"name\": \"New\", \"searchKey\": \"N\"}\n{\"name\": \"Red\", \"searchKey\": \"R\", \"rating\": 9}\n",
            to: "two.jsonl")
        // No catalog in the database yet: checked against an empty one, nothing created.
        let first = try bowties.run(arguments: ["import", "--dry-run", file.path], environment: environment)
        let expected = try bowties.run(arguments: ["import", "--dry-run", file.path])
        #expect(first.status == expected.status && first.stdout == expected.stdout, "\(first)\n\(expected)")
        #expect(first.stderr == expected.stderr, "\(first)\n\(expected)")
        let wear = try bowties.run(arguments: ["wear", "R"], environment: environment)
        #expect(wear.status == 66 && wear.stderr.hasPrefix("bowties: error: no catalog in the database at "), "\(wear)")
        try #require(try bowties.run(arguments: ["import", BowTiesRunner.sampleDataURL.path], environment: environment).status == 0)
        try bowties.importSampleData()
        for form in [["import", "--dry-run", file.path], ["import", "--dry-run", "--update", file.path]] {
            let postgresql = try bowties.run(arguments: form, environment: environment)
            let sqlite = try bowties.run(arguments: form)
            #expect(postgresql.status == sqlite.status && postgresql.stdout == sqlite.stdout, "\(postgresql)\n\(sqlite)")
            #expect(postgresql.stderr == sqlite.stderr, "\(postgresql)\n\(sqlite)")
        }
        let count = try bowties.run(arguments: ["count"], environment: environment)
        #expect(count.stdout == "7\n", "the dry runs wrote nothing: \(count)")
    }
}

/// Least privilege: a role that may only read the catalog's tables reads,
/// and a write is refused naming what is missing, with nothing changed.
@Suite("PostgreSQL privileges")
struct PostgreSQLPrivilegeTests {
    @Test("a SELECT-only role counts; its import is refused with the server's words, exit 77, nothing changed")
    func readOnlyRole() throws {
        let server = try PostgreSQLServer()
        defer { server.stop() }
        let bowties = try BowTiesRunner()
        let owner = try server.createDatabase()
        var environment = server.clientEnvironment
        let made = try bowties.run(
            arguments: ["import", BowTiesRunner.sampleDataURL.path, "--store", owner], environment: environment)
        try #require(made.status == 0, "\(made)")
        let password = "reader-\(UInt32.random(in: 100_000...999_999))"
        try server.sql("CREATE ROLE reader LOGIN PASSWORD '\(password)'")
        try server.sql("GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader", database: "catalog1")
        environment["PGPASSWORD"] = password
        let reader = server.address(database: "catalog1", user: "reader")
        let count = try bowties.run(arguments: ["count", "--store", reader], environment: environment)
        #expect(count.status == 0 && count.stdout == "7\n", "\(count)")
        let lines = try bowties.write("{\"name\": \"New\", \"searchKey\": \"N\"}\n", to: "new.jsonl")
        let refused = try bowties.run(arguments: ["import", lines.path, "--store", reader], environment: environment)
        #expect(refused.status == 77, "\(refused)")
        #expect(
            refused.stderr.hasPrefix(
                "bowties: error: cannot use the catalog at \(reader): permission denied for table "),
            "\(refused)")
        #expect(refused.stderr.contains("; nothing was changed\nhint: Ask the database's owner to GRANT"), "\(refused)")
        #expect(!refused.stderr.contains(password) && !refused.stdout.contains(password), "\(refused)")
        let after = try bowties.run(arguments: ["count", "--store", reader], environment: environment)
        #expect(after.stdout == "7\n", "\(after)")
    }
}

/// Writers queue on the database, never on a file: every wear of many
/// processes started at once is counted.
@Suite("PostgreSQL writers")
struct PostgreSQLWriterTests {
    @Test("eight processes wear one tie at once while a ninth imports: every wear is counted")
    func concurrentWears() throws {
        let server = try PostgreSQLServer()
        defer { server.stop() }
        let bowties = try BowTiesRunner()
        var overrides = server.clientEnvironment
        overrides["BOWTIES_STORE"] = try server.createDatabase()
        let made = try bowties.run(arguments: ["import", BowTiesRunner.sampleDataURL.path], environment: overrides)
        try #require(made.status == 0, "\(made)")
        var environment = bowties.environment
        for (name, value) in overrides { environment[name] = value }
        let lines = (0..<200).map { "{\"name\": \"Tie \($0)\", \"searchKey\": \"K\($0)\"}" }.joined(separator: "\n")
        let file = try bowties.write(lines + "\n", to: "many.jsonl")
        let forms = (1...8).map { ["wear", "R", "--on", "2026-10-0\($0)"] } + [["import", file.path]]
        let processes = try forms.map { arguments -> Process in
            let process = Process()
            process.executableURL = try BowTiesRunner.executableURL()
            process.arguments = arguments
            process.environment = environment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            return process
        }
        for process in processes { process.waitUntilExit() }
        #expect(processes.map(\.terminationStatus) == Array(repeating: 0, count: forms.count))
        let history = try bowties.run(arguments: ["history", "R"], environment: overrides)
        #expect(history.stdout.hasSuffix("20 times worn: 8 recorded, 12 before the history began.\n"), "\(history)")
        let count = try bowties.run(arguments: ["count"], environment: overrides)
        #expect(count.stdout == "207\n", "\(count)")
    }

    @Test("Ctrl-C during an import: PQcancel stops it, exit 130, nothing was imported")
    func interruptedImport() throws {
        let server = try PostgreSQLServer()
        defer { server.stop() }
        let bowties = try BowTiesRunner()
        var overrides = server.clientEnvironment
        overrides["BOWTIES_STORE"] = try server.createDatabase()
        try #require(
            try bowties.run(arguments: ["import", BowTiesRunner.sampleDataURL.path], environment: overrides).status == 0)
        var environment = bowties.environment
        for (name, value) in overrides { environment[name] = value }
        let lines = (0..<50_000).map { "{\"name\": \"Tie \($0)\", \"searchKey\": \"K\($0)\", \"tags\": [\"t\($0 % 50)\"]}" }
        let file = try bowties.write(lines.joined(separator: "\n") + "\n", to: "many.jsonl")
        let process = Process()
        process.executableURL = try BowTiesRunner.executableURL()
        process.arguments = ["import", file.path]
        process.environment = environment
        let errors = bowties.directory.appendingPathComponent("import.err")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        usleep(1_500_000)
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        let stderr = try String(contentsOf: errors, encoding: .utf8)
        #expect(process.terminationStatus == 130, "\(stderr)")
        #expect(stderr.hasSuffix("interrupted: nothing was imported\n"), "\(stderr)")
        let count = try bowties.run(arguments: ["count"], environment: overrides)
        #expect(count.stdout == "7\n", "\(count)")
        let tags = try bowties.run(arguments: ["tags"], environment: overrides)
        #expect(tags.stdout.hasPrefix("No tags yet"), "\(tags)")
    }
}
