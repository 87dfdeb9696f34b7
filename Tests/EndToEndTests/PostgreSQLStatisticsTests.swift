import Foundation
import Testing

/// An import that fills a PostgreSQL catalog leaves its tables analysed
/// (issue 24, point 6): the planner has statistics at once, so `export`
/// of a freshly imported million ties streams its first row in a tenth
/// of a second instead of sorting the table first (0.11 s against
/// 1.44 s: bench/results/postgres.md). What the test can see of it is
/// what the server records: `last_analyze` (set by `ANALYZE` only, never
/// by autovacuum, whose time is `last_autoanalyze`), the table's row
/// count in `pg_class.reltuples` (-1 until the table is first analysed
/// or vacuumed) and the columns' rows in `pg_stats`.
@Suite("PostgreSQL statistics after an import")
struct PostgreSQLStatisticsTests {
    /// `count` ties as JSON Lines, a tenth tagged and worn.
    static func lines(_ count: Int, from first: Int = 0) -> String {
        (first..<first + count).map { index in
            var line = "{\"name\": \"Tie \(index)\", \"searchKey\": \"K\(index)\", \"rating\": \(index % 5)"
            if index % 10 == 0 {
                line += ", \"tags\": [\"t\(index % 7)\"], \"wears\": [{\"date\": \"2024-05-0\(index % 9 + 1)T10:00:00Z\"}]"
            }
            return line + "}"
        }.joined(separator: "\n") + "\n"
    }

    /// The server's record of `table`: whether `ANALYZE` ran on it, its
    /// row count as the planner knows it, and how many of its columns
    /// have statistics.
    static func statistics(_ server: PostgreSQLServer, _ database: String, _ table: String) throws
        -> (analyzed: Bool, rows: Int, columns: Int)
    {
        let line = try server.sql(
            """
            SELECT s.last_analyze IS NOT NULL, c.reltuples::bigint, \
            (SELECT count(*) FROM pg_stats WHERE schemaname = 'public' AND tablename = '\(table)') \
            FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid WHERE s.relname = '\(table)'
            """, database: database
        ).trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "|").map(String.init)
        try #require(line.count == 3, "\(line)")
        return (line[0] == "t", Int(line[1]) ?? -2, Int(line[2]) ?? -2)
    }

    /// A new database on `server`: its name, and the environment that
    /// points bowties at it.
    static func newCatalog(on server: PostgreSQLServer) throws -> (database: String, environment: [String: String?]) {
        let address = try server.createDatabase()
        var environment = server.clientEnvironment
        environment["BOWTIES_STORE"] = address
        return (String(address.split(separator: "/").last ?? ""), environment)
    }

    @Test("an import of 3,000 ties leaves bowtie, wear, tag and their links analysed; the output is the import's")
    func importAnalyses() throws {
        let server = try PostgreSQLServer()
        defer { server.stop() }
        let bowties = try BowTiesRunner()
        let (database, environment) = try Self.newCatalog(on: server)
        let file = try bowties.write(Self.lines(3_000), to: "ties.jsonl")

        let imported = try bowties.run(arguments: ["import", file.path], environment: environment)
        #expect(imported.status == 0, "\(imported)")
        #expect(imported.stdout.contains("added 3000, updated 0, unchanged 0"), "\(imported)")
        #expect(imported.stderr.isEmpty, "\(imported)")
        let ties = try Self.statistics(server, database, "bowtie")
        #expect(ties.analyzed && ties.rows == 3_000 && ties.columns > 0, "\(ties)")
        let wears = try Self.statistics(server, database, "wear")
        #expect(wears.analyzed && wears.rows == 300, "\(wears)")
        for table in ["tag", "bowtie_tag", "blob"] {
            #expect(try Self.statistics(server, database, table).analyzed, "\(table)")
        }
        let counted = try bowties.run(arguments: ["count"], environment: environment)
        #expect(counted.stdout == "3000\n", "\(counted)")
    }

    @Test("an import of fewer than 1,000 ties, and a dry run of 3,000, analyse nothing")
    func smallImportsAndDryRunsDoNot() throws {
        let server = try PostgreSQLServer()
        defer { server.stop() }
        let bowties = try BowTiesRunner()
        let (database, environment) = try Self.newCatalog(on: server)

        let few = try bowties.write(Self.lines(20), to: "few.jsonl")
        let small = try bowties.run(arguments: ["import", few.path], environment: environment)
        #expect(small.status == 0 && small.stdout.contains("added 20,"), "\(small)")
        #expect(try Self.statistics(server, database, "bowtie").analyzed == false)
        let many = try bowties.write(Self.lines(3_000, from: 20), to: "many.jsonl")
        let dryRun = try bowties.run(arguments: ["import", many.path, "--dry-run"], environment: environment)
        #expect(dryRun.status == 0 && dryRun.stdout.contains("added 3000,"), "\(dryRun)")
        #expect(try Self.statistics(server, database, "bowtie").analyzed == false)
    }

    @Test("a role that may write but does not own the tables imports without a word about ANALYZE")
    func everydayRoleIsQuiet() throws {
        let server = try PostgreSQLServer()
        defer { server.stop() }
        let bowties = try BowTiesRunner()
        let (database, ownerEnvironment) = try Self.newCatalog(on: server)
        var environment = ownerEnvironment
        let migrated = try bowties.run(arguments: ["migrate"], environment: environment)
        try #require(migrated.status == 0, "\(migrated)")
        let password = "clerk-pw-\(UInt32.random(in: 100_000...999_999))"
        try server.sql("CREATE ROLE clerk LOGIN PASSWORD '\(password)'")
        try server.sql(
            """
            GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO clerk; \
            GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO clerk
            """, database: database)
        environment["BOWTIES_STORE"] = server.address(database: database, user: "clerk")
        environment["PGPASSWORD"] = password
        let file = try bowties.write(Self.lines(3_000), to: "ties.jsonl")
        let imported = try bowties.run(arguments: ["import", file.path], environment: environment)
        #expect(imported.status == 0, "\(imported)")
        #expect(imported.stdout.contains("added 3000"), "\(imported)")
        #expect(imported.stderr.isEmpty, "\(imported)")
        #expect(!imported.stdout.contains(password) && !imported.stderr.contains(password))
        // Only the owner may analyse: the server skipped the tables.
        #expect(try Self.statistics(server, database, "bowtie").analyzed == false)
    }
}
