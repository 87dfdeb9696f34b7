import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What tests of writers ask the server about a database: who holds
/// bowties' write lock, and everything the database holds, to compare
/// before and after.
extension PostgreSQLServer {
    /// bowties' advisory write lock (`PostgreSQLStore.writeLockKey`,
    /// "bowt").
    static let writeLockKey: Int64 = 0x626F_7774

    /// The server process id of the connection holding bowties' write
    /// lock in `database`, or nil when none does.
    func writeLockHolder(database: String) throws -> Int? {
        let text = try sql(
            """
            SELECT l.pid FROM pg_locks l JOIN pg_database d ON d.oid = l.database \
            WHERE l.locktype = 'advisory' AND l.granted AND d.datname = '\(database)' \
            AND ((l.classid::bigint << 32) | l.objid::bigint) = \(Self.writeLockKey)
            """)
        return Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Waits until a connection holds the write lock in `database` (at
    /// most `timeout` seconds) and returns its server process id.
    func waitForWriteLock(database: String, timeout: TimeInterval = 60) throws -> Int {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let pid = try writeLockHolder(database: database) { return pid }
            try #require(Date() < deadline, "no one took the write lock in \(timeout) s")
            usleep(20_000)
        }
    }

    /// Every row of `database`: `pg_dump --data-only` (rows in `COPY`
    /// blocks, table by table), without the sequences' `setval` lines,
    /// then the number of rows of each table and of the tables
    /// themselves. (Also without the `\restrict` and `\unrestrict` lines
    /// of recent `pg_dump`s, whose key is new in every dump.)
    ///
    /// Sequences are left out on purpose: PostgreSQL never rolls them
    /// back (a rolled-back insert still used its number, so that
    /// concurrent transactions never wait on one another for a number),
    /// so an import that was rolled back leaves the row numbers it drew
    /// used. Nothing reads them but the next insert.
    func contents(database: String) throws -> String {
        let dump = try Self.run([
            binDirectory.appendingPathComponent("pg_dump").path, "--data-only", "--no-owner", "-h", directory.path,
            "-p", String(port), "-U", Self.owner, "-d", database,
        ])
        try #require(dump.status == 0, "pg_dump: \(dump.output)")
        let rows = dump.output.split(separator: "\n", omittingEmptySubsequences: false)
            .filter {
                !$0.hasPrefix("SELECT pg_catalog.setval(")
                    // pg_dump 15.14 and later: a random key per dump.
                    && !$0.hasPrefix("\\restrict ") && !$0.hasPrefix("\\unrestrict ")
            }
            .joined(separator: "\n")
        let tables = try sql(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1", database: database
        ).split(separator: "\n").map(String.init)
        var counts = "tables: \(tables.joined(separator: ", "))\n"
        for table in tables {
            counts += "\(table): " + (try sql("SELECT count(*) FROM \"\(table)\"", database: database))
        }
        return rows + "\n" + counts
    }
}
