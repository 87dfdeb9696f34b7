import GRDB

/// One step of the store's schema history, applied once per store.
///
/// A released migration is never edited: stores in the wild were made by
/// it as it was. It writes its DDL literally and never reads the live
/// model (``BowTieModel``), which describes only the newest step.
struct SchemaMigration: Sendable {
    /// Recorded in the store once applied. Never changes once released.
    let identifier: String
    /// Changes the schema (and data, if it must), inside the migrator's
    /// transaction. It must not commit, roll back or change pragmas that
    /// a transaction cannot change.
    let apply: @Sendable (Database) throws -> Void
    /// How a command that only reads sees a store this migration was not
    /// applied to as if it were, without writing it: statements that
    /// create `TEMP` tables and views only (they live in the connection's
    /// temporary database and vanish when it closes), run in order after
    /// the shims of the pending migrations before this one. A view takes
    /// the place of a changed table (`temp.bowtie` hides `main.bowtie`
    /// from unqualified names), an empty table the place of a new one.
    /// Nil when there is none: such a store is then refused by reads
    /// until a write upgrades it. The first migration needs none (a store
    /// without it has nothing to read).
    let readShim: String?

    init(_ identifier: String, readShim: String? = nil, apply: @escaping @Sendable (Database) throws -> Void) {
        self.identifier = identifier
        self.readShim = readShim
        self.apply = apply
    }

    /// A migration that runs `sql`, one or more statements.
    init(_ identifier: String, sql: String, readShim: String? = nil) {
        self.init(identifier, readShim: readShim) { db in try db.execute(sql: sql) }
    }
}

/// Brings a store's schema up to date: every pending migration, in order,
/// in one IMMEDIATE transaction, or none of them.
///
/// ```swift
/// let migrator = SchemaMigrator([SchemaMigration("v1: ...", sql: "CREATE TABLE ...")])
/// try migrator.migrate(queue)
/// ```
///
/// GRDB's `DatabaseMigrator` commits each migration on its own, so a store
/// two versions behind could be left half-way. This one keeps GRDB's
/// bookkeeping table, `grdb_migrations(identifier)`, so that stores made
/// with GRDB's migrator are read as they are, and records the identifiers
/// of what it applied in the same transaction.
///
/// Foreign keys are checked once, at the end: inside the transaction
/// `PRAGMA defer_foreign_keys` is on, and `PRAGMA foreign_key_check` must
/// report nothing before the commit. Deferring does not stop `ON DELETE`
/// actions: a migration that drops a table others refer to with `CASCADE`
/// deletes their rows.
struct SchemaMigrator: Sendable {
    /// GRDB's name for the table of applied identifiers, kept for the
    /// stores it made.
    static let bookkeepingTable = "grdb_migrations"

    typealias State = SchemaState

    /// The history, oldest first.
    let migrations: [SchemaMigration]

    /// - Precondition: Identifiers are distinct.
    init(_ migrations: [SchemaMigration]) {
        precondition(
            Set(migrations.map(\.identifier)).count == migrations.count, "a migration identifier is registered twice")
        self.migrations = migrations
    }

    var identifiers: [String] { migrations.map(\.identifier) }

    /// The identifiers the store records as applied, known here or not;
    /// none when it has no bookkeeping table.
    ///
    /// Asks SQLite, not GRDB's schema cache: another process may have
    /// created the table since this connection last looked.
    func appliedIdentifiers(_ db: Database) throws -> Set<String> {
        let exists = try Bool.fetchOne(
            db, sql: "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?)",
            arguments: [Self.bookkeepingTable])
        guard exists == true else { return [] }
        return try String.fetchSet(db, sql: "SELECT identifier FROM \(Self.bookkeepingTable)")
    }

    /// Where the store's schema stands. Reads only.
    func state(_ db: Database) throws -> State {
        state(applied: try appliedIdentifiers(db))
    }

    func state(applied: Set<String>) -> State {
        let unknown = applied.subtracting(identifiers)
        if !unknown.isEmpty { return .newer(unknown: unknown.sorted()) }
        if applied.isEmpty { return .uncreated }
        let pending = identifiers.filter { !applied.contains($0) }
        return pending.isEmpty ? .current : .outdated(pending: pending)
    }

    /// Lets this connection read a store whose `pending` migrations are
    /// not applied as if they were: creates the `TEMP` objects of each
    /// one's ``SchemaMigration/readShim``, in order. The store's file is
    /// not written (SQLite keeps `TEMP` objects in the connection's own
    /// temporary database), so this works on a connection opened
    /// read-only.
    ///
    /// - Returns: False, with nothing created, when one of them has no
    ///   shim.
    func installReadShims(pending: [String], _ db: Database) throws -> Bool {
        let shims = migrations.filter { pending.contains($0.identifier) }.map(\.readShim)
        guard shims.allSatisfy({ $0 != nil }) else { return false }
        for shim in shims.compactMap({ $0 }) {
            try db.execute(sql: shim)
        }
        return true
    }

    /// Applies every pending migration in one IMMEDIATE transaction. What
    /// is pending is decided once the write lock is held: of two processes
    /// upgrading the same store, the second finds nothing left to do.
    ///
    /// - Returns: The identifiers applied, in order (none when the store
    ///   was up to date).
    /// - Throws: ``SchemaMigrationError``, or the `DatabaseError` of a
    ///   migration; either way the store is as it was.
    @discardableResult
    func migrate(_ writer: any DatabaseWriter) throws -> [String] {
        try writer.writeWithoutTransaction { db in
            var applied: [String] = []
            try db.inTransaction(.immediate) {
                applied = try migrate(db)
                return .commit
            }
            return applied
        }
    }

    /// Applies every pending migration inside the transaction `db` is in,
    /// for a caller that has more to do in it (``Catalog/repair(announce:)``).
    /// The caller commits, or rolls back if this throws.
    ///
    /// - Precondition: `db` is inside a transaction that holds the write
    ///   lock (IMMEDIATE).
    /// - Returns: The identifiers applied, in order.
    /// - Throws: ``SchemaMigrationError``, or the `DatabaseError` of a
    ///   migration.
    @discardableResult
    func migrate(_ db: Database) throws -> [String] {
        precondition(db.isInsideTransaction, "migrations run inside a transaction")
        let state = state(applied: try appliedIdentifiers(db))
        let pending: [String]
        switch state {
        case .current: return []
        case .newer(let unknown): throw SchemaMigrationError.newerSchema(unknown: unknown)
        case .uncreated: pending = identifiers
        case .outdated(let identifiers): pending = identifiers
        }
        // Switched off again by SQLite at the commit or rollback.
        try db.execute(sql: "PRAGMA defer_foreign_keys = ON")
        try db.execute(
            sql: "CREATE TABLE IF NOT EXISTS \(Self.bookkeepingTable) (identifier TEXT NOT NULL PRIMARY KEY)")
        for migration in migrations where pending.contains(migration.identifier) {
            try migration.apply(db)
            try db.execute(
                sql: "INSERT INTO \(Self.bookkeepingTable) (identifier) VALUES (?)", arguments: [migration.identifier])
        }
        let violations = try Row.fetchAll(db, sql: UndoHistory.foreignKeyCheckSQL).map { row in
            let table: String = row[0]
            let rowid: Int64? = row[1]
            let parent: String = row[2]
            return "row \(rowid.map(String.init) ?? "?") of \(table) refers to a row of \(parent) that does not exist"
        }
        guard violations.isEmpty else {
            throw SchemaMigrationError.foreignKeyViolations(violations)
        }
        return pending
    }
}
