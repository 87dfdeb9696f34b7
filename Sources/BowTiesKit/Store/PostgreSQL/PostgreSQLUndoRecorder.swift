import Foundation

/// Records one action on PostgreSQL, as ``UndoRecorder`` does on SQLite:
/// names it in `undo_recording` so that the PL/pgSQL triggers log its
/// changes, and at the end files it in the history (or drops it when it
/// changed nothing). The rows and their meaning are SQLite's, so
/// ``UndoHistory`` and undo, redo and log read them unchanged.
///
/// An import's rows are logged as one range of `rowid`s per table, as on
/// SQLite. Writers are one at a time (the store's advisory lock), so the
/// identity values an import takes are exactly those between the largest
/// before and the largest after. The insert triggers are turned off for
/// the import's transaction by a setting their `WHEN` reads
/// (``ObjectModel/postgreSQLUndoInsertsSetting``), as SQLite's recorder
/// sets them aside.
///
/// Actions are numbered as SQLite numbers them, one past the largest
/// (not by the identity's sequence, which a rolled-back or empty action
/// would advance): `bowties log` and `undo N` show the same numbers on
/// both backends.
///
/// Its bookkeeping statements (`undo_recording`, the insert triggers'
/// setting, the action's final title) go with the statement after each
/// (``PostgreSQLSession/executeDeferred(sql:arguments:)``): nothing waits
/// for their outcome, and `wear` took three round trips fewer.
///
/// Not `Sendable`: it lives inside one transaction.
struct PostgreSQLUndoRecorder: UndoRecording {
    let action: Int64
    let model: ObjectModel
    /// The largest rowid of each table before an import (nil when inserts
    /// are logged one by one).
    private let rangeStarts: [(table: String, after: Int64)]?

    /// Starts recording an action titled `title` in `session`'s transaction.
    static func begin(title: String, insertsAsRanges: Bool, model: ObjectModel, _ session: any StoreSession) throws
        -> PostgreSQLUndoRecorder
    {
        guard
            let action = try Int64.fetchOne(
                session,
                sql: """
                    INSERT INTO "undo_action" ("id", "title", "date") \
                    SELECT coalesce(max("id"), 0) + 1, ?, CAST(? AS double precision) FROM "undo_action" RETURNING "id"
                    """,
                arguments: [title, Date().timeIntervalSince1970])
        else { throw CatalogError(.storeIO, "the catalog did not number the new action") }
        var starts: [(table: String, after: Int64)]?
        if insertsAsRanges {
            // The insert triggers do not fire for this transaction.
            try Self.execute(
                session, sql: "SELECT set_config(?, 'off', true)", arguments: [ObjectModel.postgreSQLUndoInsertsSetting])
            starts = try model.tablesInDependencyOrder.map { table in
                (table, try Int64.fetchOne(session, sql: "SELECT max(rowid) FROM \"\(table)\"") ?? 0)
            }
        }
        try Self.execute(
            session, sql: "UPDATE \"undo_recording\" SET \"action\" = ?, \"phase\" = 0, \"inserts\" = ?",
            arguments: [action, insertsAsRanges ? 0 : 1])
        return PostgreSQLUndoRecorder(action: action, model: model, rangeStarts: starts)
    }

    /// Stops recording and files the action under `title`, keeping the
    /// last `limit` actions; as ``UndoRecorder/finish(title:limit:_:)``.
    func finish(title: String, limit: Int, _ session: any StoreSession) throws -> Set<String> {
        try Self.execute(session, sql: "UPDATE \"undo_recording\" SET \"action\" = NULL, \"phase\" = 0, \"inserts\" = 1")
        if rangeStarts != nil {
            try Self.execute(
                session, sql: "SELECT set_config(?, 'on', true)", arguments: [ObjectModel.postgreSQLUndoInsertsSetting])
        }
        for start in rangeStarts ?? [] {
            let last = try Int64.fetchOne(session, sql: "SELECT max(rowid) FROM \"\(start.table)\"") ?? 0
            guard last > start.after else { continue }
            try session.execute(
                sql: """
                    INSERT INTO "undo_change" ("seq", "action", "phase", "tableName", "operation", "row", "lastRow") \
                    SELECT coalesce(max("seq"), 0) + 1, CAST(? AS bigint), 0, CAST(? AS text), 'range', \
                    CAST(? AS bigint), CAST(? AS bigint) FROM "undo_change"
                    """,
                arguments: [action, start.table, start.after + 1, last])
        }
        let changed =
            try Bool.fetchOne(
                session, sql: "SELECT EXISTS (SELECT 1 FROM \"undo_change\" WHERE \"action\" = ?)", arguments: [action])
            ?? false
        guard changed else {
            try session.execute(sql: "DELETE FROM \"undo_action\" WHERE \"id\" = ?", arguments: [action])
            return []
        }
        try Self.execute(
            session, sql: "UPDATE \"undo_action\" SET \"title\" = ? WHERE \"id\" = ?", arguments: [title, action])
        let dropped = try Int64.fetchAll(
            session,
            sql: """
                SELECT "id" FROM "undo_action" WHERE "undone" > 0 AND "id" <> ?1 \
                UNION \
                SELECT "id" FROM "undo_action" WHERE "id" NOT IN \
                (SELECT "id" FROM "undo_action" ORDER BY "id" DESC LIMIT ?2)
                """,
            arguments: [action, max(limit, 0)])
        return try UndoHistory.drop(dropped, model: model, session)
    }

    /// A bookkeeping statement: with the next one on PostgreSQL's
    /// session, else at once.
    private static func execute(_ session: any StoreSession, sql: String, arguments: StoreArguments = []) throws {
        if let session = session as? PostgreSQLSession {
            session.executeDeferred(sql: sql, arguments: arguments)
        } else {
            try session.execute(sql: sql, arguments: arguments)
        }
    }
}
