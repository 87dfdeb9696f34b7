import Foundation

/// Records one action while a write transaction runs: names it in
/// `undo_recording` so that the triggers log its changes, and at the end
/// files it in the history (or drops it when it changed nothing).
///
/// It runs its SQL through the transaction's ``StoreSession``, so that
/// both SQLite stores (GRDB's queue in ``SQLiteStore``, SQLite's own
/// connection in ``SQLiteWriteStore``) record an action the same way:
/// the triggers do the logging, this only names and files the action.
///
/// Not `Sendable`: it lives inside one transaction.
struct UndoRecorder: UndoRecording {
    let action: Int64
    let model: ObjectModel
    /// The largest rowid of each table before an import, whose new rows
    /// are logged as ranges (nil when inserts are logged one by one).
    private let rangeStarts: [(table: String, after: Int64)]?
    /// The insert triggers set aside for the import, with their SQL as
    /// the store holds it, put back by ``finish(title:limit:_:)``.
    private let setAside: [(name: String, sql: String)]

    /// Starts recording an action titled `title`.
    ///
    /// - Parameter insertsAsRanges: log the rows the action adds as one
    ///   range of rowids per table (imports), not one by one.
    static func begin(title: String, insertsAsRanges: Bool, model: ObjectModel, _ db: any StoreSession) throws
        -> UndoRecorder
    {
        try db.execute(
            sql: "INSERT INTO \"undo_action\" (\"title\", \"date\") VALUES (?, ?)",
            arguments: [title, Date().timeIntervalSince1970])
        let action = db.lastInsertedRowID
        var starts: [(String, Int64)]?
        var setAside: [(String, String)] = []
        if insertsAsRanges {
            starts = try model.tablesInDependencyOrder.map { table in
                (table, try Int64.fetchOne(db, sql: "SELECT max(rowid) FROM \"\(table)\"") ?? 0)
            }
            // A table with a trigger makes SQLite keep a statement journal
            // for every INSERT (a copy of each page it touches), which an
            // import pays a hundred thousand times for a trigger that does
            // nothing while inserts are logged as ranges. The triggers go
            // for the transaction and come back, as they were, before it
            // commits.
            for table in model.tableNames {
                let name = "\(table)_undo_insert"
                guard
                    let sql = try String.fetchOne(
                        db, sql: "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?", arguments: [name])
                else { continue }
                try db.execute(sql: "DROP TRIGGER \"\(name)\"")
                setAside.append((name, sql))
            }
        }
        try db.execute(
            sql: "UPDATE \"undo_recording\" SET \"action\" = ?, \"phase\" = 0, \"inserts\" = ?",
            arguments: [action, !insertsAsRanges])
        return UndoRecorder(action: action, model: model, rangeStarts: starts, setAside: setAside)
    }

    /// Stops recording, and files the action under `title`: the redo
    /// branch goes (a new change replaces what was undone), and the
    /// history keeps its last `limit` actions (0: none, not even this
    /// one). An action that changed nothing leaves no trace.
    ///
    /// - Returns: The photos (SHA-256) that only the dropped actions
    ///   needed: the caller releases them.
    /// Starts recording in a store that keeps an undo history (from
    /// schema v3 on); nil in one that does not.
    static func beginIfKept(title: String, insertsAsRanges: Bool, model: ObjectModel, _ db: any StoreSession)
        throws -> UndoRecorder?
    {
        guard try UndoHistory.exists(db) else { return nil }
        return try begin(title: title, insertsAsRanges: insertsAsRanges, model: model, db)
    }

    func finish(title: String, limit: Int, _ session: any StoreSession) throws -> Set<String> {
        let db = session
        try db.execute(sql: "UPDATE \"undo_recording\" SET \"action\" = NULL, \"phase\" = 0, \"inserts\" = 1")
        for trigger in setAside { try db.execute(sql: trigger.sql) }
        for start in rangeStarts ?? [] {
            let last = try Int64.fetchOne(db, sql: "SELECT max(rowid) FROM \"\(start.table)\"") ?? 0
            guard last > start.after else { continue }
            try db.execute(
                sql: """
                    INSERT INTO "undo_change" ("action", "phase", "tableName", "operation", "row", "lastRow")
                    VALUES (?, 0, ?, 'range', ?, ?)
                    """,
                arguments: [action, start.table, start.after + 1, last])
        }
        let changed = try Bool.fetchOne(
            db, sql: "SELECT EXISTS (SELECT 1 FROM \"undo_change\" WHERE \"action\" = ?)", arguments: [action]) ?? false
        guard changed else {
            try db.execute(sql: "DELETE FROM \"undo_action\" WHERE \"id\" = ?", arguments: [action])
            return []
        }
        try db.execute(sql: "UPDATE \"undo_action\" SET \"title\" = ? WHERE \"id\" = ?", arguments: [title, action])
        let dropped = try Int64.fetchAll(
            db,
            sql: """
                SELECT "id" FROM "undo_action" WHERE "undone" > 0 AND "id" <> ?1
                UNION
                SELECT "id" FROM "undo_action" WHERE "id" NOT IN
                    (SELECT "id" FROM "undo_action" ORDER BY "id" DESC LIMIT ?2)
                """,
            arguments: [action, max(limit, 0)])
        return try UndoHistory.drop(dropped, model: model, session)
    }
}
