import Foundation
import Testing

/// bowties' statements on PostgreSQL are never JIT-compiled (issue 24,
/// point 6): a server with LLVM (Debian's) compiles a statement whose
/// estimated cost passes `jit_above_cost` before its first row, and
/// `export`'s passes it from about 670,000 ties on, which put 0.1 to
/// 0.2 s before the first row of an export of a million
/// (bench/results/postgres.md, "Session 13"). The session turns it off.
///
/// What the server can show of it: `auto_explain` logs every statement's
/// plan, with a `JIT:` section when it was compiled. The test's database
/// has every statement compiled (`jit_above_cost = 0`); psql's statement
/// there shows that the server does compile (else the test says why it
/// cannot tell), and bowties' statements must show no `JIT:` at all.
@Suite("PostgreSQL statements without JIT")
struct PostgreSQLJITTests {
    /// `count` ties as JSON Lines, every third tagged and worn.
    static func lines(_ count: Int) -> String {
        (0..<count).map { index in
            var line = "{\"name\": \"Tie \(index)\", \"searchKey\": \"J\(index)\", \"rating\": \(index % 5)"
            if index % 3 == 0 {
                line += ", \"tags\": [\"silk\"], \"wears\": [{\"date\": \"2024-05-0\(index % 9 + 1)T10:00:00Z\"}]"
            }
            return line + "}"
        }.joined(separator: "\n") + "\n"
    }

    /// The server's log from byte `offset` on.
    static func log(_ server: PostgreSQLServer, from offset: Int) throws -> String {
        let data = try Data(contentsOf: server.directory.appendingPathComponent("server.log"))
        return String(decoding: data.dropFirst(offset), as: UTF8.self)
    }

    static func logSize(_ server: PostgreSQLServer) throws -> Int {
        try Data(contentsOf: server.directory.appendingPathComponent("server.log")).count
    }

    @Test("list, export in every format, count and show run uncompiled where the server compiles every statement")
    func noJIT() throws {
        let server = try PostgreSQLServer()
        defer { server.stop() }
        let bowties = try BowTiesRunner()
        let address = try server.createDatabase()
        let database = String(address.split(separator: "/").last ?? "")
        var environment = server.clientEnvironment
        environment["BOWTIES_STORE"] = address
        let file = try bowties.write(Self.lines(30), to: "ties.jsonl")
        let imported = try bowties.run(arguments: ["import", file.path], environment: environment)
        try #require(imported.status == 0, "\(imported)")

        // Every statement compiled, and its plan logged, in new sessions.
        try server.sql(
            """
            ALTER DATABASE "\(database)" SET session_preload_libraries = 'auto_explain'; \
            ALTER DATABASE "\(database)" SET auto_explain.log_min_duration = 0; \
            ALTER DATABASE "\(database)" SET jit_above_cost = 0
            """)
        let available = try server.sql("SELECT pg_jit_available()", database: database)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let start = try Self.logSize(server)
        try server.sql("SELECT count(*) FROM bowtie WHERE rating >= 0", database: database)
        let control = try Self.log(server, from: start)
        try #require(control.contains("Query Text: SELECT count(*) FROM bowtie"), "auto_explain logged nothing: \(control)")
        try #require(
            available != "t" || control.contains("JIT:"),
            "the server has JIT but did not compile psql's statement: \(control)")
        if available != "t" {
            // Without LLVM the server compiles nothing, with or without
            // bowties' setting: nothing to tell apart here.
            return
        }

        let before = try Self.logSize(server)
        let listed = try bowties.run(arguments: ["list"], environment: environment)
        #expect(listed.status == 0 && listed.stdout.contains("Tie 29"), "\(listed)")
        for format in ["csv", "tsv", "json", "jsonl", "plist", "table"] {
            let exported = try bowties.run(arguments: ["export", "--format", format], environment: environment)
            #expect(exported.status == 0 && exported.stdout.contains("Tie 29"), "\(format): \(exported)")
            #expect(exported.stderr.isEmpty, "\(format): \(exported)")
        }
        let counted = try bowties.run(arguments: ["count"], environment: environment)
        #expect(counted.stdout == "30\n", "\(counted)")
        let shown = try bowties.run(arguments: ["show", "J3"], environment: environment)
        #expect(shown.status == 0 && shown.stdout.contains("silk"), "\(shown)")

        let logged = try Self.log(server, from: before)
        // The export's statement was logged, with its plan: the absence
        // of JIT below is not for want of a log.
        #expect(logged.contains("Query Text: SELECT \"bowtie\".\"id\""), "\(logged)")
        let compiled = logged.components(separatedBy: "\n").filter { $0.contains("JIT:") }
        #expect(compiled.isEmpty, "bowties' statements were JIT-compiled: \(logged)")
    }
}
