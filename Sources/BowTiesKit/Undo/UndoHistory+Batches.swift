import Foundation

/// Bulk removals in the undo history, a batch at a time.
///
/// One `DELETE` of many rows from a table with triggers or foreign keys
/// (every table of the model, and `undo_change`, whose images cascade)
/// first collects every rowid it will delete in memory: SQLite's RowSet,
/// 24 bytes a row. The undo of a ten-million-tie import peaked at 273 MiB
/// for 51.9 at one million (`bench/run --records 10M`). In batches,
/// memory stays flat; the result is the same, and so is the log the
/// triggers write.
extension UndoHistory {
    /// How many rows one `DELETE` of a bulk removal takes (see
    /// ``deleteRows(of:from:through:_:)``).
    static let deletionBatch: Int64 = 4096

    /// Deletes the rows of `table` whose rowids are in `first...last`
    /// (the rows an import added), ``deletionBatch`` rowids at a time, in
    /// the caller's transaction.
    static func deleteRows(of table: String, from first: Int64, through last: Int64, _ db: any StoreSession) throws {
        var start = first
        while start <= last {
            let end = last - start >= deletionBatch ? start + deletionBatch - 1 : last
            try db.execute(sql: "DELETE FROM \"\(table)\" WHERE \(db.dialect.rowNumber) BETWEEN ? AND ?", arguments: [start, end])
            start = end + 1
        }
    }

    /// Deletes the entries of `undo_change` that `condition` matches (and
    /// their images, by the cascade), ``deletionBatch`` at a time: the
    /// list of the undo of a ten-million-tie import has ten million
    /// entries, which a redo deletes, as does the first change after the
    /// undo (dropping what could be redone).
    static func deleteChanges(where condition: String, _ db: any StoreSession) throws {
        let sql = """
            DELETE FROM "undo_change" WHERE "seq" IN \
            (SELECT "seq" FROM "undo_change" WHERE \(condition) LIMIT \(deletionBatch))
            """
        repeat {
            try db.execute(sql: sql)
        } while db.changesCount > 0
    }
}
