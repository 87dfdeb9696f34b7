import Foundation

/// The ids of the stored records an `import --update` has updated so far,
/// kept in a temporary table rather than in memory.
///
/// A second record with the same id in the file must be refused, and for
/// a record stored before the import its rowid cannot tell (rows the
/// import added are told by rowid alone). A `Set<UUID>` grew by about 30
/// bytes a record: 300 MB for an update of ten million. The temporary
/// table lives in SQLite's temporary database, whose page cache is
/// bounded and spills to a file, so memory stays flat however many
/// records the file updates.
///
/// The table is made at the first update, inside the import's
/// transaction: a rollback takes it away with everything else, and
/// ``finish(_:)`` drops it before a commit. Not `Sendable`: it lives
/// inside one transaction.
struct UpdatedRecordLog {
    static let table = "bowties_import_updated"
    private var created = false

    /// Whether `id` was updated earlier in this import.
    func contains(_ id: UUID, _ db: any StoreSession) throws -> Bool {
        guard created else { return false }
        return try Bool.fetchOne(
            db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM \"\(Self.table)\" WHERE id = ?)"),
            arguments: [id.uuidString]) ?? false
    }

    /// The table's name once it is made (nil before the first update).
    var madeTable: String? { created ? Self.table : nil }

    /// Makes the table, if it is not made yet (a batched update fills it
    /// itself: ``RecordBatchUpdater/update(_:updatedLog:)``).
    mutating func create(_ db: any StoreSession) throws {
        guard !created else { return }
        try db.execute(
            sql: "CREATE TEMP TABLE IF NOT EXISTS \"\(Self.table)\" (id TEXT PRIMARY KEY NOT NULL)"
                + db.dialect.withoutRowNumber)
        try db.execute(sql: "DELETE FROM \"\(Self.table)\"")
        created = true
    }

    /// Notes that the record `id` was updated.
    mutating func insert(_ id: UUID, _ db: any StoreSession) throws {
        try create(db)
        try db.cachedStatement(sql: "INSERT INTO \"\(Self.table)\" (id) VALUES (?) ON CONFLICT DO NOTHING")
            .execute(arguments: [id.uuidString])
    }

    /// Drops the table, if it was made.
    mutating func finish(_ db: any StoreSession) throws {
        guard created else { return }
        try db.execute(sql: "DROP TABLE \"\(Self.table)\"")
        created = false
    }
}
