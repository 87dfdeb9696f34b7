import Foundation

extension PostgreSQLStore {
    /// Brings the planner's statistics of the catalog's tables up to date
    /// (`ANALYZE`), after an import committed many rows.
    ///
    /// A table that was just filled has none: until autovacuum gets to it
    /// (a minute or more later, or never on a busy server), the planner
    /// guesses its size from its pages and its selectivities from
    /// defaults, and `export`'s query on a freshly imported million ties
    /// planned a sort of the whole table before its first row (1.44 s
    /// until the first row; 0.11 s after `ANALYZE`, an index scan in
    /// `rowid` order: bench/results/postgres.md).
    ///
    /// Run after the commit, in a transaction of its own: inside the
    /// import's, the statistics would be right, but the server counts the
    /// import's rows as changed since that `ANALYZE` once it commits, and
    /// autovacuum would analyse every table again. `ANALYZE` takes a lock
    /// that neither readers nor writers wait for. Only the tables' owner
    /// may analyse them; for another role the server skips each table
    /// with a warning, which the connection keeps to itself (its notice
    /// processor), and autovacuum does it later.
    func refreshStatistics() throws {
        let tables = (["blob"] + model.tableNames).map { "\"\($0)\"" }.joined(separator: ", ")
        _ = try mapErrors { try connection.execute("ANALYZE \(tables)") }
    }
}
