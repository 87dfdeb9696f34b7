import Foundation

/// The history of actions, as stored.
enum UndoHistory {
    /// The default number of actions kept (`config --undo-limit`).
    static let defaultLimit = 100
    static let limitSettingKey = "undoLimit"

    static func limit(_ db: any StoreSession) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT value FROM setting WHERE key = ?", arguments: [limitSettingKey])
            ?? defaultLimit
    }

    /// Whether the store keeps a history (stores older than v3 do not,
    /// until they are upgraded).
    static func exists(_ db: any StoreSession) throws -> Bool {
        try db.tableExists(ObjectModel.undoActionTable)
    }

    /// Deletes `actions` with their changes and images.
    /// - Returns: The photos their images referred to.
    static func drop(_ actions: [Int64], model: ObjectModel, _ db: any StoreSession) throws -> Set<String> {
        guard !actions.isEmpty else { return [] }
        let list = actions.map(String.init).joined(separator: ",")
        var photos = try photosReferred(byChangesWhere: "\"action\" IN (\(list))", model: model, db)
        photos.formUnion(try dropHeldTables(ofChangesWhere: "\"action\" IN (\(list))", model: model, db))
        // The changes first, a batch at a time; the cascade from the
        // actions would collect them all at once (see deleteChanges).
        try deleteChanges(where: "\"action\" IN (\(list))", db)
        try db.execute(sql: "DELETE FROM \"undo_action\" WHERE \"id\" IN (\(list))")
        return photos
    }

    /// The photos that the images of the changes matching `condition`
    /// (on `undo_change`) refer to.
    static func photosReferred(byChangesWhere condition: String, model: ObjectModel, _ db: any StoreSession) throws
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

extension UndoHistory {
    /// The action the triggers are logging changes for: nil outside a
    /// command, or in a store without a history (before v3).
    static func recordingAction(_ db: any StoreSession) throws -> Int64? {
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
    static func withoutImages(of action: Int64?, _ db: any StoreSession, _ body: () throws -> Void) throws {
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
