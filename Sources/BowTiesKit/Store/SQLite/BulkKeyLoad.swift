import GRDB

/// The key index of a bulk load into an empty table, dropped before the
/// first row and built after the last (or as soon as a row needs it).
///
/// Inserting a random UUID into the `UNIQUE` index of `bowtie.id` lands on
/// a random leaf; once the index outgrows the page cache, every insert
/// reads and writes a page. Building the index at the end sorts the keys
/// once instead: at a million records the storing side's CPU per row
/// falls from 13.1 to 4.5 µs (`bench/reference/idbench.c`, bench/README.md
/// "session 9"). The index is the only thing that made the key unique, so
/// while it is away a repeated key goes in unnoticed; building it finds
/// it (``build(_:cacheKiB:restoring:)`` returns false), and
/// ``firstRepeat(_:)`` says which row repeats first, for the importer to
/// report as the primary key did at the row's insert.
///
/// Foreign keys refer to the key (`wear.bowTie_id`), and SQLite refuses
/// any statement that would check one while the parent key has no unique
/// index ("foreign key mismatch"): inserting a row that refers to the
/// table, or inserting into the table while an `INSERT` trigger is on it.
/// So a bulk load is only begun when the table has no `INSERT` trigger
/// (an import sets aside its undo triggers first, `UndoRecorder`), and the
/// importer builds the index before the first row that refers to a record
/// (a wear, a tag's link).
///
/// Not `Sendable`: it lives inside one transaction.
struct BulkKeyLoad {
    let index: SecondaryIndex
    let table: String
    let keyColumn: String
    /// True once the index is back.
    private(set) var isBuilt = false

    /// Drops the key index of `entity`'s table for a bulk load, or returns
    /// nil when it must stay: the entity has no declared key, or the table
    /// has an `INSERT` trigger. Call inside the load's transaction, when the
    /// table is empty.
    static func begin(_ entity: EntityDescription, model: ObjectModel, _ session: any StoreSession) throws
        -> BulkKeyLoad?
    {
        guard let index = model.keyIndex(of: entity), let key = entity.primaryKeyAttribute else { return nil }
        let db = try SQLiteStore.database(of: session)
        let insertTriggers =
            try Bool.fetchOne(
                db,
                sql: """
                    SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ? \
                    AND upper(sql) LIKE '% INSERT ON %')
                    """,
                arguments: [entity.tableName]) ?? true
        guard !insertTriggers else { return nil }
        try db.execute(sql: index.dropSQL)
        return BulkKeyLoad(index: index, table: entity.tableName, keyColumn: key.columnName)
    }

    /// The load's prepared `INSERT`, without `ON CONFLICT`: there is no
    /// index for it to name.
    func inserter(_ codec: EntityCodec, _ session: any StoreSession) throws -> any RecordInserter {
        try RecordInsertStatement(SQLiteStore.database(of: session), codec: codec, skipsStoredKeys: false)
    }

    /// Builds the index, with a page cache of `cacheKiB` (`CREATE INDEX`
    /// sorts in memory as large as the cache, on top of it), then sets the
    /// cache to `restoring` if given. Without `restoring` (the end of the
    /// load) the sorter takes ``SecondaryIndex/bulkBuildThreads`` workers
    /// for the build.
    ///
    /// - Returns: False, with no index built and the transaction still
    ///   open, when a key repeats: ``firstRepeat(_:)`` finds it.
    mutating func build(_ session: any StoreSession, cacheKiB: Int, restoring: Int? = nil) throws -> Bool {
        guard !isBuilt else { return true }
        let db = try SQLiteStore.database(of: session)
        try db.execute(sql: "PRAGMA cache_size = -\(cacheKiB)")
        // At the end of the load (nothing to restore) the parser has
        // ended: the sorter may take the other core.
        if restoring == nil { try db.execute(sql: "PRAGMA threads = \(SecondaryIndex.bulkBuildThreads)") }
        defer {
            if let restoring { try? db.execute(sql: "PRAGMA cache_size = -\(restoring)") }
            if restoring == nil { try? db.execute(sql: "PRAGMA threads = 0") }
        }
        do {
            try db.execute(sql: index.createSQL)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            return false
        }
        isBuilt = true
        return true
    }

    /// The first row whose key an earlier row has, in the order the rows
    /// were inserted (the second of its key's rows, by rowid), with that
    /// key; nil when every key is distinct. One sort of the keys, in
    /// bounded memory (SQLite's sorter spills to a temporary file): only
    /// asked when the load fails.
    func firstRepeat(_ session: any StoreSession) throws -> (rowid: Int64, key: String)? {
        let db = try SQLiteStore.database(of: session)
        let row = try Row.fetchOne(
            db,
            sql: """
                SELECT "row", "key" FROM (SELECT rowid AS "row", "\(keyColumn)" AS "key", \
                row_number() OVER (PARTITION BY "\(keyColumn)" ORDER BY rowid) AS "n" FROM "\(table)") \
                WHERE "n" = 2 ORDER BY "row" LIMIT 1
                """)
        guard let row else { return nil }
        return (row[0], row[1] as String? ?? "")
    }
}
