import Foundation
import Synchronization

/// A catalog in a PostgreSQL database (libpq): the conformer of
/// ``CatalogStore`` that ``Catalog`` chooses for a `postgresql://` or
/// `postgres://` location.
///
/// One connection per catalog. A read is a `REPEATABLE READ, READ ONLY`
/// transaction: one snapshot, never blocked by writers. A write is a
/// transaction that first takes the advisory lock ``writeLockKey``
/// (`pg_advisory_xact_lock`), so writers from any machine queue as
/// SQLite's writers queue on its write lock, and the lock goes with the
/// transaction, whoever ends it (commit, rollback, a dropped connection).
/// `--wait` becomes the lock's `lock_timeout`.
///
/// The schema is made by this backend's own frozen migrations
/// (``migrations``), by the database's owner only (`bowties migrate`, or
/// its first command that writes; ``requireOwner(toMigrate:_:)``), inside
/// that command's first write transaction, under the same lock.
final class PostgreSQLStore: CatalogStore {
    let url: URL
    let model: ObjectModel
    let isWritable: Bool
    let connection: PostgreSQLConnection
    let wait: WaitPolicy
    /// No photo file is kept beside a database: photos live in
    /// `blob.data` (the `setting` row the migration writes makes the
    /// threshold for external files the largest `bigint`).
    let photos: any PhotoStore = PhotosInRows()
    static let dialect = SQLDialect.postgresql
    var dialect: SQLDialect { Self.dialect }
    var upgradedSchema: Catalog.SchemaVersions? { nil }
    var olderSchema: Catalog.SchemaVersions? { nil }
    private let interrupted = Atomic<Bool>(false)
    /// Set when opening found the schema missing or out of date in a mode
    /// that writes: the next write transaction migrates first.
    private let migrationPending = Atomic<Bool>(false)
    /// Where the schema stood when the store was opened, before any
    /// migration (what `bowties migrate` reports from).
    var schemaOnOpen: SchemaState { stateOnOpen.withLock { $0 } }
    private let stateOnOpen = Mutex<SchemaState>(.uncreated)
    /// Whether the connection listens for the catalog's changes, and how
    /// many it heard of (``changeVersion()``).
    let changeListener = ChangeListener()
    /// ``mixedCaseIdentifiers`` of the model.
    let identifiers: [String: String]
    /// The schema's history this store migrates by: ``migrations``, or
    /// in tests a longer one (a version that does not exist yet).
    let history: [Migration]

    /// How messages name the catalog: the address, password masked.
    var description: String { connection.description }

    /// Connects to the database at `url` and, when `mode` writes and the
    /// schema is missing or out of date, has the first write transaction
    /// create or upgrade it (the owner's role only).
    ///
    /// - Throws: ``CatalogError``: `.storeUnavailable` (no server, no
    ///   database), `.permissionDenied` (authentication, privileges, a
    ///   role other than the owner's where the schema needs making),
    ///   `.storeNotFound` (a command that reads, on a database that holds
    ///   no catalog yet), `.notAStore` (a newer bowties' schema).
    /// - Parameter history: The migrations to bring the schema to
    ///   (``migrations``; a test gives a longer list to have an
    ///   out-of-date database).
    init(
        url: URL, mode: Catalog.OpenMode, wait: WaitPolicy, model: ObjectModel,
        history: [Migration] = PostgreSQLStore.migrations
    ) throws {
        self.url = url
        self.model = model
        self.wait = wait
        self.history = history
        isWritable = mode.writes
        identifiers = Self.mixedCaseIdentifiers(model)
        connection = try PostgreSQLConnection(address: url.absoluteString)
        let state = try mapErrors { try openingSchemaState() }
        stateOnOpen.withLock { $0 = state }
        switch state {
        case .current:
            break
        case .newer:
            throw CatalogError(
                .notAStore, "the catalog at \(connection.description) was written by a newer version of bowties",
                hint: "Upgrade bowties to use this catalog.")
        case .uncreated, .outdated:
            // Only a command that adds creates the tables; one that changes
            // existing ties finds no catalog, as on a missing file.
            guard mode.writes, mode != .repair, mode == .createIfMissing || state != .uncreated else {
                if state == .uncreated {
                    throw CatalogError(
                        .storeNotFound, "no catalog in the database at \(connection.description)",
                        hint: "The database's owner creates it: `bowties migrate --store ADDRESS`, or a first `bowties import`.")
                }
                break
            }
            // Only the database's owner creates or upgrades the schema
            // (``requireOwner(toMigrate:_:)``), asked before anything is
            // written. The migration itself runs in the command's first
            // write transaction, under its lock: a first import that fails
            // or is interrupted leaves the database as empty as it was.
            try mapErrors { try read { try self.requireOwner(toMigrate: state, $0) } }
            migrationPending.store(true, ordering: .releasing)
        }
    }

    /// Every name the schema spells with upper-case letters (columns,
    /// indexes, triggers), by its lower-case spelling: what a session
    /// quotes where the SQL above leaves it bare (SQLite matches
    /// identifiers ignoring case; PostgreSQL folds bare ones).
    static func mixedCaseIdentifiers(_ model: ObjectModel) -> [String: String] {
        var names: Set<String> = ["byteCount", "tableName", "lastRow"]
        for line in model.postgreSQLSchema {
            for word in line.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "_") }) {
                names.insert(String(word))
            }
        }
        var identifiers: [String: String] = [:]
        // Mixed case only: `CASCADE` and `NULL` are words of SQL.
        for name in names where name != name.lowercased() && name != name.uppercased() {
            identifiers[name.lowercased()] = name
        }
        return identifiers
    }

    // MARK: - Transactions

    func read<T>(_ body: (any StoreSession) throws -> T) throws -> T {
        // A command that reads before its first write (`add`, `config
        // --undo-limit` showing what it set) would find no tables: the
        // pending migration is committed first, on its own.
        if migrationPending.load(ordering: .acquiring) { _ = try transaction(commit: true) { _ in () } }
        return try mapErrors {
            try inTransaction("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY", commit: false, lock: false, body)
        }
    }

    func transaction<T>(commit: Bool, _ body: (any StoreSession) throws -> T) throws -> T {
        try mapErrors { try inTransaction("BEGIN", commit: commit, lock: true, body) }
    }

    private func inTransaction<T>(
        _ begin: String, commit: Bool, lock: Bool, _ body: (any StoreSession) throws -> T
    ) throws -> T {
        if isInterrupted { throw CatalogError(.interrupted, "interrupted") }
        // Answered with the first statement of the body, in its round
        // trip (``PostgreSQLConnection/sendDeferred(_:_:flush:)``).
        connection.sendDeferred(begin)
        do {
            let session = PostgreSQLSession(connection, identifiers: identifiers)
            if lock {
                if let limit = wait.limit {
                    _ = try connection.execute("SET LOCAL lock_timeout = \(Int((limit * 1000).rounded(.up)))")
                }
                _ = try connection.execute("SELECT pg_advisory_xact_lock(\(Self.writeLockKey))")
                if wait.limit != nil { _ = try connection.execute("SET LOCAL lock_timeout = 0") }
                // What is pending is decided again under the lock: of two
                // commands creating the same catalog, the second finds it made.
                if migrationPending.load(ordering: .acquiring) {
                    let made = !(try session.tableExists(Self.bookkeepingTable))
                    try migrateSchema(session)
                    session.tablesMadeHere = made
                }
            }
            let result = try body(session)
            if lock {
                _ = try connection.execute(commit ? "COMMIT" : "ROLLBACK")
            } else {
                // A read's end: nothing to wait for (it changed nothing),
                // sent at once so that the snapshot goes now.
                connection.sendDeferred("ROLLBACK", flush: true)
            }
            if lock && commit { migrationPending.store(false, ordering: .releasing) }
            return result
        } catch {
            _ = try? connection.execute("ROLLBACK")
            throw error
        }
    }

    /// Records the action in the undo history the v1 migration made
    /// (``PostgreSQLUndoRecorder``).
    func beginUndoRecording(title: String, insertsAsRanges: Bool, _ session: any StoreSession) throws
        -> (any UndoRecording)?
    {
        guard try UndoHistory.exists(session) else { return nil }
        return try PostgreSQLUndoRecorder.begin(
            title: title, insertsAsRanges: insertsAsRanges, model: model, session)
    }

    func interrupt() {
        interrupted.store(true, ordering: .releasing)
        connection.cancel()
    }

    var isInterrupted: Bool { interrupted.load(ordering: .acquiring) }

    /// Waits until no transaction holds the write lock (`pg_locks`).
    func waitForWriters() throws {
        let deadline = wait.limit.map { Date().addingTimeInterval($0) } ?? .distantFuture
        while try mapErrors({
            try read { db in
                try Bool.fetchOne(
                    db,
                    sql: """
                        SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted \
                        AND ((classid::bigint << 32) | objid::bigint) = ?)
                        """,
                    arguments: [Self.writeLockKey]) ?? false
            }
        }) {
            if isInterrupted { throw CatalogError(.interrupted, "interrupted while waiting for the catalog") }
            if Date() >= deadline { throw busyError() }
            usleep(10_000)
        }
    }

    /// The server sizes its own cache.
    func withCacheSize<T>(kibibytes: Int, _ body: () throws -> T) throws -> T { try body() }

    func failureMessage(_ error: any Error) -> String? { (error as? PostgreSQLError)?.message }

    private func busyError() -> CatalogError {
        CatalogError(
            .storeBusy, "the catalog at \(description) is busy: another command is changing it",
            hint: "Try again, or wait longer with --wait SECONDS.")
    }

    /// Turns the server's errors (SQLSTATE) into ``CatalogError``s.
    func mapErrors<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as PostgreSQLError {
            switch error.sqlState {
            case "57014" where isInterrupted:
                throw CatalogError(.interrupted, "interrupted")
            case "55P03", "40001", "40P01":
                throw busyError()
            case "42501":
                throw CatalogError(
                    .permissionDenied,
                    "cannot use the catalog at \(description): \(error.message); nothing was changed",
                    hint: "Ask the database's owner to GRANT the privilege to this role.")
            case "25006":
                throw CatalogError(.storeIO, "the catalog at \(description) was opened read-only; this command cannot change it")
            case let state where Self.isLostConnection(state):
                // The server's reason when it gave one; else libpq's first
                // line ("server closed the connection unexpectedly").
                let reason = connection.lastFatalNotice ?? error.message.split(separator: "\n").first.map(String.init) ?? ""
                throw CatalogError(
                    .storeUnavailable, "lost the connection to the catalog at \(description): \(reason)",
                    hint: "The server rolled back what the command had not committed; run it again once it answers.")
            default:
                throw CatalogError(.storeIO, "catalog error at \(description): \(error.message)")
            }
        }
    }

    /// Dry runs copy an SQLite file; on PostgreSQL the command runs the
    /// import in a transaction that rolls back instead.
    func copyDatabase(to destination: URL) throws {
        throw Self.notYetAvailable("import --dry-run")
    }

    /// The error of a command that does not yet work on PostgreSQL.
    static func notYetAvailable(_ what: String) -> CatalogError {
        CatalogError(
            .storeUnavailable, "\(what) is not yet available on a PostgreSQL catalog",
            hint: "It works on an SQLite catalog (--store PATH).")
    }

    // MARK: - The check's questions

    var migrationIdentifiers: [String] { history.map(\.identifier) }

    func schemaState(_ session: any StoreSession) throws -> SchemaState {
        guard try session.tableExists(Self.bookkeepingTable) else { return .uncreated }
        let applied = try String.fetchAll(session, sql: "SELECT \"identifier\" FROM \"\(Self.bookkeepingTable)\"")
        return schemaState(applied: applied)
    }

    /// ``schemaState(_:)`` as every command asks it while it opens the
    /// catalog: one statement outside a transaction, one round trip,
    /// where a read transaction took four (`BEGIN`, `to_regclass`, the
    /// `SELECT`, `ROLLBACK`). A database without the bookkeeping table
    /// answers 42P01 (undefined_table): no catalog yet.
    private func openingSchemaState() throws -> SchemaState {
        if isInterrupted { throw CatalogError(.interrupted, "interrupted") }
        let result: PostgreSQLResult
        do {
            result = try connection.execute("SELECT \"identifier\" FROM \"\(Self.bookkeepingTable)\"")
        } catch let error as PostgreSQLError where error.sqlState == "42P01" {
            return .uncreated
        }
        return schemaState(
            applied: (0..<result.rowCount).map { row in
                result.bytes(row, 0).map { String(decoding: $0, as: UTF8.self) } ?? ""
            })
    }

    private func schemaState(applied: [String]) -> SchemaState {
        let known = migrationIdentifiers
        let unknown = applied.filter { !known.contains($0) }
        if !unknown.isEmpty { return .newer(unknown: unknown) }
        if applied.isEmpty { return .uncreated }
        let pending = known.filter { !applied.contains($0) }
        return pending.isEmpty ? .current : .outdated(pending: pending)
    }

    @discardableResult
    func migrateSchema(_ session: any StoreSession) throws -> [String] {
        if !(try session.tableExists(Self.bookkeepingTable)) {
            try session.execute(
                sql: "CREATE TABLE \"\(Self.bookkeepingTable)\" (\"identifier\" text PRIMARY KEY NOT NULL)")
        }
        let applied = Set(try String.fetchAll(session, sql: "SELECT \"identifier\" FROM \"\(Self.bookkeepingTable)\""))
        var done: [String] = []
        for migration in history where !applied.contains(migration.identifier) {
            for statement in migration.statements { try session.execute(sql: statement) }
            try session.execute(
                sql: "INSERT INTO \"\(Self.bookkeepingTable)\" (\"identifier\") VALUES (?)",
                arguments: [migration.identifier])
            done.append(migration.identifier)
        }
        return done
    }

    func integrityCheck(_ session: any StoreSession) throws -> [String] { ["ok"] }

    /// Rows whose foreign key leads nowhere. The server enforces every
    /// key, but not for a session that turned its triggers off
    /// (`session_replication_role = replica`, as a restore may) or a table
    /// whose triggers were disabled: each of the schema's foreign keys is
    /// looked for, as SQLite's `PRAGMA foreign_key_check` does, in the
    /// server's catalog rather than the declaration, so that a key the
    /// declaration does not know is checked too.
    func foreignKeyViolations(_ session: any StoreSession) throws -> [ForeignKeyViolation] {
        let keys = try session.fetchAll(
            sql: """
                SELECT child.relname, parent.relname, own.attname, theirs.attname, \
                EXISTS (SELECT 1 FROM pg_attribute AS r WHERE r.attrelid = k.conrelid AND r.attname = 'rowid' \
                AND NOT r.attisdropped) FROM pg_constraint AS k \
                JOIN pg_class AS child ON child.oid = k.conrelid JOIN pg_class AS parent ON parent.oid = k.confrelid \
                JOIN pg_namespace AS n ON n.oid = child.relnamespace \
                JOIN pg_attribute AS own ON own.attrelid = k.conrelid AND own.attnum = k.conkey[1] \
                JOIN pg_attribute AS theirs ON theirs.attrelid = k.confrelid AND theirs.attnum = k.confkey[1] \
                WHERE k.contype = 'f' AND n.nspname = current_schema() AND cardinality(k.conkey) = 1 \
                ORDER BY 1, 3
                """, arguments: [])
        var violations: [ForeignKeyViolation] = []
        for key in keys {
            guard let table: String = key[0], let parent: String = key[1], let column: String = key[2],
                let parentColumn: String = key[3]
            else { continue }
            let hasRowNumber: Bool = key[4] ?? false
            func quoted(_ name: String) -> String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
            let rows = try session.fetchAll(
                sql: """
                    SELECT \(hasRowNumber ? "c.\(quoted("rowid"))" : "NULL::bigint") FROM \(quoted(table)) AS c \
                    WHERE c.\(quoted(column)) IS NOT NULL AND NOT EXISTS (SELECT 1 FROM \(quoted(parent)) AS p \
                    WHERE p.\(quoted(parentColumn)) = c.\(quoted(column))) ORDER BY 1
                    """, arguments: [])
            for row in rows {
                violations.append(ForeignKeyViolation(table: table, rowid: row[0], parent: parent))
            }
        }
        return violations
    }

    /// What the live schema has that the declaration does not make, and
    /// the reverse (``ObjectModel/postgreSQLSchema``, ``liveSchema(_:)``).
    func schemaDifferences(_ session: any StoreSession) throws -> [String] {
        let live = Set(try Self.liveSchema(session))
        let expected = Set(model.postgreSQLSchema)
        return expected.subtracting(live).sorted().map { "missing: \($0)" }
            + live.subtracting(expected).sorted().map { "not declared: \($0)" }
    }
}
