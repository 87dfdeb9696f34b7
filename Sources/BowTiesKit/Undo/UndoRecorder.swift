import Foundation
import GRDB

/// Records one action while a write transaction runs: names it in
/// `undo_recording` so that the triggers log its changes, and at the end
/// files it in the history (or drops it when it changed nothing).
///
/// Not `Sendable`: it lives inside one transaction.
struct UndoRecorder {
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
    static func begin(title: String, insertsAsRanges: Bool, model: ObjectModel, _ db: Database) throws -> UndoRecorder {
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
    func finish(title: String, limit: Int, _ db: Database) throws -> Set<String> {
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
        return try UndoHistory.drop(dropped, model: model, db)
    }
}

extension UndoRecorder {
    /// The action the triggers are logging changes for: nil outside a
    /// command, or in a store without a history (before v3).
    static func recordingAction(_ db: Database) throws -> Int64? {
        guard try UndoHistory.exists(db) else { return nil }
        return try Int64.fetchOne(db, sql: "SELECT \"action\" FROM \"\(ObjectModel.undoRecordingTable)\"")
    }

    /// Runs `body` with the triggers of `action` logging nothing, then
    /// logs again (also when `body` throws).
    ///
    /// Only for changes to rows that the action's ranges of inserted rows
    /// already cover, and whose triggers change no other row: an import's
    /// owned objects (wears) of a record it inserted. Undo deletes those
    /// rows whole, so the images of their updates would never be used.
    /// And for changes undo could not put back, which the action then
    /// leaves out: `check --repair` removing a row whose parent is gone.
    static func withoutImages(of action: Int64?, _ db: Database, _ body: () throws -> Void) throws {
        guard let action else { return try body() }
        let table = ObjectModel.undoRecordingTable
        try db.cachedStatement(sql: "UPDATE \"\(table)\" SET \"action\" = NULL").execute()
        do {
            try body()
        } catch {
            // The first error is the one to report.
            try? db.cachedStatement(sql: "UPDATE \"\(table)\" SET \"action\" = ?").execute(arguments: [action])
            throw error
        }
        try db.cachedStatement(sql: "UPDATE \"\(table)\" SET \"action\" = ?").execute(arguments: [action])
    }
}

/// The history of actions, as stored.
enum UndoHistory {
    /// The default number of actions kept (`config --undo-limit`).
    static let defaultLimit = 100
    static let limitSettingKey = "undoLimit"

    static func limit(_ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT value FROM setting WHERE key = ?", arguments: [limitSettingKey])
            ?? defaultLimit
    }

    /// Whether the store keeps a history (stores older than v3 do not,
    /// until they are upgraded).
    static func exists(_ db: Database) throws -> Bool {
        try db.tableExists(ObjectModel.undoActionTable)
    }

    /// Deletes `actions` with their changes and images.
    /// - Returns: The photos their images referred to.
    static func drop(_ actions: [Int64], model: ObjectModel, _ db: Database) throws -> Set<String> {
        guard !actions.isEmpty else { return [] }
        let list = actions.map(String.init).joined(separator: ",")
        let photos = try photosReferred(byChangesWhere: "\"action\" IN (\(list))", model: model, db)
        // The changes first, a batch at a time; the cascade from the
        // actions would collect them all at once (see deleteChanges).
        try deleteChanges(where: "\"action\" IN (\(list))", db)
        try db.execute(sql: "DELETE FROM \"undo_action\" WHERE \"id\" IN (\(list))")
        return photos
    }

    /// The photos that the images of the changes matching `condition`
    /// (on `undo_change`) refer to.
    static func photosReferred(byChangesWhere condition: String, model: ObjectModel, _ db: Database) throws
        -> Set<String>
    {
        var photos: Set<String> = []
        for column in blobImageColumns(model) {
            photos.formUnion(
                try String.fetchAll(
                    db,
                    sql: """
                        SELECT DISTINCT i."\(column.column)" FROM "\(column.shadow)" AS i
                        JOIN "undo_change" AS c ON c."seq" = i."seq"
                        WHERE c.\(condition) AND i."\(column.column)" IS NOT NULL
                        """))
        }
        return photos
    }

    /// The columns of the image tables that refer to a blob.
    static func blobImageColumns(_ model: ObjectModel) -> [(shadow: String, column: String)] {
        model.blobColumns.map { (ObjectModel.undoImageTable($0.table), $0.column) }
    }
}
