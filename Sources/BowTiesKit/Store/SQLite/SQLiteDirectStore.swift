import Foundation
import GRDB
internal import GRDBSQLite

/// What the two stores on a connection of SQLite's own C API share:
/// ``SQLiteReadStore`` (the reads of a current store) and
/// ``SQLiteWriteStore`` (the point writes: `wear`, `rate`, `favorite`).
///
/// Each holds one ``SQLiteReadConnection``, lent to one thread at a time,
/// and answers the questions that do not depend on whether it may write
/// in the same way, on that connection: the schema's state, SQLite's
/// integrity and foreign-key checks, `data_version`, the cache size, the
/// busy wait and its interruption, and the wording of errors
/// (``SQLiteStore/mapErrors(store:_:_:)``, so a message reads as it does
/// when GRDB's queue runs the same SQL).
protocol SQLiteDirectStore: CatalogStore {
    var migrator: SchemaMigrator { get }
    var busyWait: BusyWait { get }
    /// Used through ``withConnection(_:)`` only, but for
    /// `sqlite3_interrupt`, which SQLite allows from any thread.
    var connection: SQLiteReadConnection { get }
    /// The page cache its connection keeps, in KiB, which
    /// ``withCacheSize(kibibytes:_:)`` goes back to.
    static var pageCacheKiB: Int { get }
}

extension SQLiteDirectStore {
    var dialect: SQLDialect { SQLiteStore.dialect }
    /// Only a current store is opened here (``SQLiteSchemaCheck``): nothing
    /// was upgraded, and nothing is read through an older schema.
    var upgradedSchema: Catalog.SchemaVersions? { nil }
    var olderSchema: Catalog.SchemaVersions? { nil }

    /// Runs `body` with the connection, one thread at a time.
    func withConnection<T>(_ body: (SQLiteReadConnection) throws -> T) throws -> T {
        try connection.lend(body)
    }

    /// `body` in one read transaction: one snapshot of the store.
    func read<T>(_ body: (any StoreSession) throws -> T) throws -> T {
        try mapErrors {
            try withConnection { connection in
                try connection.inReadTransaction { try body(SQLiteReadSession($0)) }
            }
        }
    }

    func interrupt() {
        busyWait.cancel()
        sqlite3_interrupt(connection.pointer)
    }

    var isInterrupted: Bool { busyWait.isCancelled }

    func waitForWriters() throws {
        try SQLiteStore.waitForWriters(url: url, busyWait)
    }

    func withCacheSize<T>(kibibytes: Int, _ body: () throws -> T) throws -> T {
        try mapErrors {
            try withConnection { try $0.execute("PRAGMA cache_size = -\(kibibytes)") }
        }
        defer { try? withConnection { try $0.execute("PRAGMA cache_size = -\(Self.pageCacheKiB)") } }
        return try body()
    }

    func failureMessage(_ error: any Error) -> String? {
        (error as? DatabaseError).map { $0.message ?? "\($0)" }
    }

    func mapErrors<T>(_ body: () throws -> T) throws -> T {
        try SQLiteStore.mapErrors(store: url, busyWait, body)
    }

    func changeVersion() throws -> Int64 {
        try mapErrors {
            try withConnection { connection in
                let row = try SQLiteReadSession(connection.pointer).fetchOne(sql: "PRAGMA data_version")
                let version: Int64? = row?[0]
                return version ?? 0
            }
        }
    }

    // MARK: - The check's questions
    //
    // The check opens its catalog `.inspect` or `.repair`, in
    // ``SQLiteStore``; these answer the same on this connection.

    var migrationIdentifiers: [String] { migrator.identifiers }

    func schemaState(_ session: any StoreSession) throws -> SchemaState {
        let applied = try session.fetchAll(sql: "SELECT identifier FROM \(SchemaMigrator.bookkeepingTable)", arguments: [])
        return migrator.state(applied: Set(applied.compactMap { $0[0] as String? }))
    }

    func integrityCheck(_ session: any StoreSession) throws -> [String] {
        try session.fetchAll(sql: "PRAGMA integrity_check", arguments: []).compactMap { $0[0] as String? }
    }

    func foreignKeyViolations(_ session: any StoreSession) throws -> [ForeignKeyViolation] {
        try session.fetchAll(sql: UndoHistory.foreignKeyCheckSQL, arguments: []).map { row in
            ForeignKeyViolation(table: row[0] ?? "", rowid: row[1], parent: row[2] ?? "")
        }
    }
}

/// The check both direct stores make before they are used, the one
/// ``SQLiteStore`` makes before a read: a table of migrations that
/// records every migration this version knows and no other, and the
/// table of bow ties.
enum SQLiteSchemaCheck {
    static func isCurrent(_ connection: SQLiteReadConnection, model: ObjectModel, migrator: SchemaMigrator) throws
        -> Bool
    {
        let session = SQLiteReadSession(connection.pointer)
        let tables = try session.fetchAll(sql: "SELECT name FROM sqlite_master WHERE type = 'table'", arguments: [])
            .compactMap { $0[0] as String? }
        guard tables.contains(SchemaMigrator.bookkeepingTable),
            let bowTies = model.entities.first?.tableName, tables.contains(bowTies)
        else { return false }
        let applied = try session.fetchAll(sql: "SELECT identifier FROM \(SchemaMigrator.bookkeepingTable)", arguments: [])
            .compactMap { $0[0] as String? }
        return migrator.state(applied: Set(applied)) == .current
    }
}
