import Foundation

/// The undo of an import that is the whole catalog: its tables are set
/// aside whole, not emptied row by row.
///
/// Deleting ten million rows one by one costs more per row than deleting
/// one million: every delete lands on a random leaf of the id's `UNIQUE`
/// index and of the search key's, each a page cache miss once they
/// outgrow the cache, and in WAL mode each miss first looks the page up
/// in the WAL's index, which grows with everything the undo has written
/// (the rows' images for the redo among them: a 3.6 GB WAL at ten
/// million). The undo of a ten-million-tie import took 1.55× the CPU per
/// record of one million's and 2.48× the time (bench/README.md, "10
/// million records, session 12").
///
/// When every row of every table of the model is one the action added
/// (the import that filled a new catalog, and nothing since), there is
/// nothing to keep, so nothing to delete: in the undo's transaction,
/// each table the import filled is renamed to `undo_held_SEQ` (SEQ being
/// the `held` entry of the action's new list that names it), the other
/// tables of the model (empty) are dropped, and every table, index and
/// trigger of the model is created again, empty, from the SQL the store
/// holds for them (`sqlite_master`): the same text, so `check` and a
/// later migration find the schema they expect. The held tables keep
/// their rows and lose their indexes and triggers (their names belong to
/// the new tables); a held table with photo columns gets a partial index
/// on each, so that "does anything still need this photo?" stays a
/// lookup. The cost is one pass over the held tables' photo columns and
/// the freeing of their old indexes' pages: linear in the rows, with a
/// WAL of a few pages.
///
/// Redo renames them back (the new tables being empty: anything else is
/// a change made outside bowties' history, and redo refuses), builds
/// their indexes by sorting, as a first import does, and logs the rows
/// as the ranges they were. Dropping the action from the history (a new
/// change drops what could be redone) drops its held tables, children
/// first, so that no foreign key makes SQLite delete their rows one by
/// one, and releases the photos only they needed.
///
/// Held tables refer to each other by their foreign keys (SQLite renamed
/// the references with the tables) and to `blob` for photos, and are not
/// part of the catalog: `check` and the migrations check the foreign keys
/// of every other table (``foreignKeyCheckSQL``), the schema comparison
/// looks only at the declared tables, and exports and queries never name
/// them. SQLite only: PostgreSQL deletes its rows set-wise already.
extension UndoHistory {
    /// The prefix of a held table's name; the rest is the seq of the
    /// `held` change that names it.
    static let heldTablePrefix = "undo_held_"

    static func heldTableName(seq: Int64) -> String { heldTablePrefix + String(seq) }

    /// An SQL condition on `sqlite_master`'s `column`: not a held table.
    static func notHeldSQL(_ column: String) -> String {
        "\(column) NOT LIKE 'undo\\_held\\_%' ESCAPE '\\'"
    }

    /// SQLite's `PRAGMA foreign_key_check`, over every table but the held
    /// ones (whose parents lost the unique index a check needs): rows of
    /// table, rowid, parent.
    static let foreignKeyCheckSQL = """
        SELECT c."table", c."rowid", c."parent" FROM sqlite_master AS t, pragma_foreign_key_check(t.name) AS c \
        WHERE t.type = 'table' AND \(notHeldSQL("t.name"))
        """

    /// What an undo sets aside: the range of rows each table holds.
    struct SetAsidePlan {
        var ranges: [(table: String, first: Int64, last: Int64)]
    }

    /// The plan for setting aside the rows of `ranges` (an action's ranges
    /// of added rows), or nil when the catalog holds any other row, when
    /// a table has more than one range, or when the largest range is
    /// smaller than ``indexRebuildThreshold`` (small undos delete their
    /// rows: the schema's rebuild would cost more).
    static func setAsidePlan(
        _ ranges: [(table: String, first: Int64, last: Int64)], model: ObjectModel, _ db: any StoreSession
    ) throws -> SetAsidePlan? {
        guard let largest = ranges.map({ $0.last - $0.first + 1 }).max(), largest >= indexRebuildThreshold,
            Set(ranges.map(\.table)).count == ranges.count,
            Set(ranges.map(\.table)).isSubset(of: model.tableNames)
        else { return nil }
        for table in model.tableNames {
            let range = ranges.first { $0.table == table }
            // Two seeks on the rowid when the table has a range; one row
            // read when it has none.
            let other = try Bool.fetchOne(
                db,
                sql: "SELECT EXISTS (SELECT 1 FROM \"\(table)\" WHERE rowid < ? OR rowid > ?)",
                arguments: [range?.first ?? Int64.max, range?.last ?? Int64.min]) ?? true
            if other { return nil }
        }
        return SetAsidePlan(ranges: model.tablesInDependencyOrder.compactMap { table in
            ranges.first { $0.table == table }
        })
    }

    /// The SQL of every table, index and trigger of the model's tables, as
    /// the store holds it (indexes SQLite makes for constraints have none).
    private static func schemaObjects(of tables: [String], _ db: any StoreSession) throws
        -> [(type: String, name: String, table: String, sql: String)]
    {
        let list = tables.map { "'\($0)'" }.joined(separator: ", ")
        return try StoreRow.fetchAll(
            db,
            sql: """
                SELECT type, name, tbl_name, sql FROM sqlite_master
                WHERE tbl_name IN (\(list)) AND sql IS NOT NULL ORDER BY rowid
                """
        ).map {
            (
                try $0.decode(String.self, atIndex: 0), try $0.decode(String.self, atIndex: 1),
                try $0.decode(String.self, atIndex: 2), try $0.decode(String.self, atIndex: 3)
            )
        }
    }

    /// Sets the plan's tables aside as held tables named by `held` changes
    /// of `action`'s list `phase`, and creates the model's tables again,
    /// empty, in the caller's transaction.
    ///
    /// - Returns: How many rows each held table has, by table.
    static func setAside(_ plan: SetAsidePlan, action: Int64, phase: Int, model: ObjectModel, _ db: any StoreSession)
        throws -> [String: Int64]
    {
        let tables = model.tablesInDependencyOrder
        let objects = try schemaObjects(of: tables, db)
        var counts: [String: Int64] = [:]
        for range in plan.ranges {
            // Before the indexes go: SQLite counts the smallest of them.
            counts[range.table] = try Int64.fetchOne(db, sql: "SELECT count(*) FROM \"\(range.table)\"") ?? 0
        }
        for object in objects where object.type == "trigger" {
            try db.execute(sql: "DROP TRIGGER \"\(object.name)\"")
        }
        // Debian's SQLite overwrites every page it frees with zeros
        // (`SQLITE_SECURE_DELETE`): the old indexes' pages would all be
        // written again, 1.4 GB of WAL at ten million ties. What they hold
        // stays in the held tables anyway, so their pages are only freed;
        // when the held tables go, their pages are overwritten as usual.
        let secureDelete = try Int.fetchOne(db, sql: "PRAGMA secure_delete") ?? 0
        try db.execute(sql: "PRAGMA secure_delete = FAST")
        do {
            for object in objects where object.type == "index" {
                try db.execute(sql: "DROP INDEX \"\(object.name)\"")
            }
        } catch {
            // The connection may serve again (`bowties serve`).
            try? db.execute(sql: "PRAGMA secure_delete = \(secureDelete)")
            throw error
        }
        try db.execute(sql: "PRAGMA secure_delete = \(secureDelete)")
        let setAside = Set(plan.ranges.map(\.table))
        for table in tables.reversed() where !setAside.contains(table) {
            try db.execute(sql: "DROP TABLE \"\(table)\"")
        }
        var held: [(table: String, name: String)] = []
        for range in plan.ranges {
            try db.execute(
                sql: """
                    INSERT INTO "undo_change" ("action", "phase", "tableName", "operation", "row", "lastRow")
                    VALUES (?, ?, ?, 'held', ?, ?)
                    """,
                arguments: [action, phase, range.table, range.first, range.last])
            let name = heldTableName(seq: db.lastInsertedRowID)
            // SQLite renames the foreign keys of the other held tables
            // that refer to it with it.
            try db.execute(sql: "ALTER TABLE \"\(range.table)\" RENAME TO \"\(name)\"")
            held.append((range.table, name))
        }
        for type in ["table", "index", "trigger"] {
            for object in objects where object.type == type { try db.execute(sql: object.sql) }
        }
        // The rows went by a rename, past the triggers that count: the
        // tables are empty now, and so are the counts.
        for statement in model.recountDerivedSQL { try db.execute(sql: statement) }
        for (table, name) in held {
            for column in model.blobColumns where column.table == table {
                try db.execute(
                    sql: """
                        CREATE INDEX "\(name)_\(column.column)" ON "\(name)"("\(column.column)") \
                        WHERE "\(column.column)" IS NOT NULL
                        """)
            }
        }
        return counts
    }

    /// The held tables of `action`'s list `phase`: table, held name, and
    /// the range of rowids its rows had.
    static func heldTables(of action: Int64, phase: Int, _ db: any StoreSession) throws
        -> [(table: String, name: String, first: Int64, last: Int64)]
    {
        try StoreRow.fetchAll(
            db,
            sql: """
                SELECT "seq", "tableName", "row", "lastRow" FROM "undo_change"
                WHERE "action" = ? AND "phase" = ? AND "operation" = 'held' ORDER BY "seq"
                """,
            arguments: [action, phase]
        ).map {
            let seq = try $0.decode(Int64.self, atIndex: 0)
            let first = try $0.decode(Int64.self, atIndex: 2)
            return (
                try $0.decode(String.self, atIndex: 1), heldTableName(seq: seq), first,
                try $0.decode(Int64?.self, atIndex: 3) ?? first
            )
        }
    }

    /// Puts `held` tables back in place of the model's (empty) tables,
    /// their indexes built by sorting, and logs their rows as `range`
    /// entries of `action`'s list `phase`, in the caller's transaction.
    ///
    /// - Returns: How many rows each table has again, by table; nil when a
    ///   table of the model has rows (a change made since, outside
    ///   bowties' history): nothing is changed then.
    static func restore(
        _ held: [(table: String, name: String, first: Int64, last: Int64)], action: Int64, phase: Int,
        model: ObjectModel, cacheKiB: Int, _ db: any StoreSession
    ) throws -> [String: Int64]? {
        for table in model.tableNames {
            if try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM \"\(table)\")") ?? true { return nil }
        }
        let tables = model.tablesInDependencyOrder
        let objects = try schemaObjects(of: tables, db)
        let restored = Set(held.map(\.table))
        for object in objects where object.type == "trigger" {
            try db.execute(sql: "DROP TRIGGER \"\(object.name)\"")
        }
        for name in try heldIndexes(of: held.map(\.name), db) {
            try db.execute(sql: "DROP INDEX \"\(name)\"")
        }
        // Empty: no row to delete, whatever refers to them.
        for table in tables.reversed() where restored.contains(table) {
            try db.execute(sql: "DROP TABLE \"\(table)\"")
        }
        for table in held {
            try db.execute(sql: "ALTER TABLE \"\(table.name)\" RENAME TO \"\(table.table)\"")
        }
        let indexes = objects.filter { $0.type == "index" && restored.contains($0.table) }.map(\.sql)
        if !indexes.isEmpty {
            try db.execute(
                sql: (["PRAGMA cache_size = -\(SecondaryIndex.bulkBuildCacheKiB)",
                    "PRAGMA threads = \(SecondaryIndex.bulkBuildThreads)"] + indexes + ["PRAGMA threads = 0"])
                    .joined(separator: ";\n"))
            try db.execute(sql: "PRAGMA cache_size = -\(cacheKiB)")
        }
        for object in objects where object.type == "trigger" { try db.execute(sql: object.sql) }
        // The rows came back by a rename, past the triggers that count.
        for statement in model.recountDerivedSQL { try db.execute(sql: statement) }
        var counts: [String: Int64] = [:]
        for table in held {
            try db.execute(
                sql: """
                    INSERT INTO "undo_change" ("action", "phase", "tableName", "operation", "row", "lastRow")
                    VALUES (?, ?, ?, 'range', ?, ?)
                    """,
                arguments: [action, phase, table.table, table.first, table.last])
            counts[table.table] = try Int64.fetchOne(db, sql: "SELECT count(*) FROM \"\(table.table)\"") ?? 0
        }
        return counts
    }

    /// The partial indexes of held tables' photo columns, by name.
    private static func heldIndexes(of names: [String], _ db: any StoreSession) throws -> [String] {
        guard !names.isEmpty else { return [] }
        let list = names.map { "'\($0)'" }.joined(separator: ", ")
        return try String.fetchAll(
            db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name IN (\(list)) AND sql IS NOT NULL")
    }

    /// The photo columns of every held table in the store, as
    /// (table, column): what a photo's "still needed?" must also ask.
    static func heldBlobColumns(_ db: any StoreSession) throws -> [(table: String, column: String)] {
        try StoreRow.fetchAll(
            db,
            sql: """
                SELECT tbl_name, name FROM sqlite_master
                WHERE type = 'index' AND tbl_name LIKE 'undo\\_held\\_%' ESCAPE '\\' AND sql IS NOT NULL
                """
        ).map {
            let table = try $0.decode(String.self, atIndex: 0)
            let name = try $0.decode(String.self, atIndex: 1)
            return (table, String(name.dropFirst(table.count + 1)))
        }
    }

    /// Drops the held tables of the changes matching `condition` (on
    /// `undo_change`), children first: a parent table dropped while a
    /// table still refers to it would have SQLite delete its rows one by
    /// one first.
    ///
    /// - Returns: The photos their rows referred to.
    static func dropHeldTables(ofChangesWhere condition: String, model: ObjectModel, _ db: any StoreSession) throws
        -> Set<String>
    {
        let held = try StoreRow.fetchAll(
            db, sql: "SELECT \"seq\", \"tableName\" FROM \"undo_change\" WHERE (\(condition)) AND \"operation\" = 'held'"
        ).map { (seq: try $0.decode(Int64.self, atIndex: 0), table: try $0.decode(String.self, atIndex: 1)) }
        guard !held.isEmpty else { return [] }
        let order = model.tablesInDependencyOrder
        var photos: Set<String> = []
        let blobColumns = try heldBlobColumns(db)
        for entry in held.sorted(by: {
            (order.firstIndex(of: $0.table) ?? 0, $0.seq) > (order.firstIndex(of: $1.table) ?? 0, $1.seq)
        }) {
            let name = heldTableName(seq: entry.seq)
            guard try db.tableExists(name) else { continue }
            for column in blobColumns where column.table == name {
                photos.formUnion(
                    try String.fetchAll(
                        db,
                        sql: "SELECT DISTINCT \"\(column.column)\" FROM \"\(name)\" WHERE \"\(column.column)\" IS NOT NULL"
                    ))
            }
            try db.execute(sql: "DROP TABLE \"\(name)\"")
        }
        return photos
    }
}
