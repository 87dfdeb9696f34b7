extension PostgreSQLStore {
    /// The server's write-ahead log position, in a read that ends at once:
    /// it moves with every commit, of this catalog or of another database
    /// on the same server (and with the server's checkpoints), so a change
    /// is never missed, though a page may look again for nothing. The
    /// store's own triggers raising `NOTIFY` for a `LISTEN`ing connection,
    /// which would count this catalog's commits only, are the next step
    /// (issue 25, point 3).
    func changeVersion() throws -> Int64 {
        try read { session in
            try Int64.fetchOne(session, sql: "SELECT (pg_current_wal_lsn() - '0/0'::pg_lsn)::bigint") ?? 0
        }
    }
}
