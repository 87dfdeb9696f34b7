import Foundation
import GRDB
import Synchronization

/// The SQLite store of a catalog (GRDB, WAL mode), the one conformer of
/// ``CatalogStore``: the store file, its `-wal` and `-shm`, and the lock
/// file that keeps a failed command from removing a store in use.
///
/// Every write runs in one IMMEDIATE transaction, so concurrent processes
/// queue on SQLite's write lock (as ``WaitPolicy`` says) instead of losing
/// updates. Opened to read, it never writes a byte of the store or its
/// folder (``StoreConnection/forReading(_:)``).
final class SQLiteStore: CatalogStore {
    let url: URL
    let database: DatabaseQueue
    let model: ObjectModel
    /// The store's schema history, for ``model``.
    let migrator: SchemaMigrator
    let isWritable: Bool
    let photos: any PhotoStore
    /// SQLite's SQL (``SQLDialect/sqlite``), known before a store opens:
    /// the codecs are made first.
    static let dialect = SQLDialect.sqlite
    var dialect: SQLDialect { Self.dialect }
    /// SQLite's busy handler, and who the last wait was for.
    let busyWait: BusyWait
    /// The shared lock that tells a failed command not to remove this
    /// store while we use it (nil in a read-only folder).
    private let lock: StoreLock?
    /// What opening found of the schema: set once, while the initializer
    /// runs (``upgradedSchema``, ``olderSchema``).
    private let schemaOnOpen = Mutex<(upgraded: Catalog.SchemaVersions?, older: Catalog.SchemaVersions?)>((nil, nil))

    /// True when this open created the store (its file was missing or
    /// empty): an import may then fill it through a rollback journal
    /// (``withBulkLoadJournal(_:)``).
    let isCreatedByThisOpen: Bool

    var upgradedSchema: Catalog.SchemaVersions? { schemaOnOpen.withLock { $0.upgraded } }
    var olderSchema: Catalog.SchemaVersions? { schemaOnOpen.withLock { $0.older } }

    /// Opens the store at `url` in `mode`, creating or upgrading its
    /// schema when `mode` writes.
    /// - Throws: ``CatalogError``: `.storeNotFound`, `.notAStore`,
    ///   `.storeIO`, `.storeBusy`, `.cannotCreateOutput`.
    init(
        url: URL, mode: Catalog.OpenMode, wait: WaitPolicy, model: ObjectModel, migrator: SchemaMigrator
    ) throws {
        self.url = url
        self.model = model
        self.migrator = migrator
        isWritable = mode.writes
        photos = PhotoFolder(storeURL: url)
        let busyWait = BusyWait(policy: wait, storeURL: url)
        self.busyWait = busyWait
        let notFound = CatalogError(
            .storeNotFound, "no catalog at \(url.path)",
            hint: "Create one with `bowties import` (the sample data) or `bowties import FILE`, "
                + "or point to another with --store PATH or $BOWTIES_STORE.")
        let existed = FileManager.default.fileExists(atPath: url.path)
        if !existed {
            if mode != .createIfMissing { throw notFound }
            try Catalog.createFolder(forStoreAt: url)
        }
        // Taken before the store is opened, so that no failed command can
        // remove the store from under us from now on. Readers create no
        // lock file.
        let lock = try StoreLock.shared(
            forStoreAt: url, timeout: wait.limit, create: mode.writes, createFolder: mode == .createIfMissing)
        self.lock = lock
        do {
            if !FileManager.default.fileExists(atPath: url.path) && mode != .createIfMissing {
                throw notFound  // removed while we waited for the lock
            }
            // stat, not FileManager's attribute dictionary: its `as? Int`
            // is a first-time protocol lookup that scans every conformance
            // in the binary, on every command's start.
            var status = stat()
            let isNew = stat(url.path, &status) != 0 || status.st_size == 0
            isCreatedByThisOpen = mode == .createIfMissing && isNew
            SQLiteProcessSettings.apply()
            var configuration = Configuration()
            // The journal mode is the store's own, set once when it is
            // created (below). Setting it on every open, as GRDB's `.wal`
            // does, commits a transaction when no -wal file exists, so that
            // even reads changed the file and failed on a read-only one.
            configuration.journalMode = .default
            configuration.busyMode = .callback { tries in busyWait.shouldRetry(tries) }
            configuration.label = "bowties"
            let connection = mode.writes ? StoreConnection(path: url.path, readOnly: false) : .forReading(url)
            configuration.readonly = connection.readOnly
            // `field::REGEX` in queries: SQLite's REGEXP needs a function.
            configuration.prepareDatabase { db in db.add(function: RegularExpressionFunction.make()) }
            if mode.writes {
                // What GRDB's WAL set-up chose: durable at each commit
                // except on power loss, and far fewer syncs. Not a write.
                configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
            }
            database = try Self.mapErrors(store: url, busyWait) {
                try Self.retryingWhenBusy(busyWait) {
                    try DatabaseQueue(path: connection.path, configuration: configuration)
                }
            }
            if mode == .createIfMissing && isNew {
                try Self.mapErrors(store: url, busyWait) {
                    try Self.retryingWhenBusy(busyWait) {
                        try database.writeWithoutTransaction { db in
                            _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
                        }
                    }
                }
            }
            if mode.writes && !isNew, try Self.mapErrors(store: url, busyWait, { try Self.isRollbackJournaled(database) }) {
                // A bulk load's journal left behind by a process that
                // ended before it could set WAL again.
                try Self.mapErrors(store: url, busyWait) { try Self.restoreWAL(database, busyWait) }
            }
            try Self.mapErrors(store: url, busyWait) {
                try Self.retryingWhenBusy(busyWait) { try prepareSchema(mode: mode) }
            }
        } catch {
            // A store this open created stays with its lock file: the
            // caller removes both (``removeStoreIfUnused(at:)`` needs the
            // lock). Anything else we opened leaves no lock file behind.
            if existed { lock?.removeFileIfCreatedAndUnused() }
            throw error
        }
    }


    /// Runs `body` again while SQLite answers `SQLITE_BUSY`, until the
    /// wait policy's limit.
    ///
    /// SQLite's busy handler covers waiting for a lock, but in two cases
    /// SQLite answers busy at once instead, because waiting could deadlock:
    /// two processes switching a new store to WAL at the same moment, and a
    /// read that must become a write after another connection wrote
    /// (migrations of a store two commands open together). Trying again
    /// a moment later is SQLite's advice for both.
    static func retryingWhenBusy<T>(_ busyWait: BusyWait, _ body: () throws -> T) throws -> T {
        let deadline = busyWait.policy.limit.map { Date().addingTimeInterval($0) } ?? .distantFuture
        var pause: useconds_t = 1_000
        while true {
            do {
                return try body()
            } catch let error as DatabaseError
                where error.resultCode == .SQLITE_BUSY && Date() < deadline && !busyWait.isCancelled
            {
                usleep(pause)
                pause = min(pause * 2, 50_000)
            }
        }
    }


    func interrupt() {
        busyWait.cancel()
        database.interrupt()
    }

    var isInterrupted: Bool { busyWait.isCancelled }

    /// How a command that only reads opens the store, so that it writes
    /// nothing and works where it may not write.
    struct StoreConnection {
        /// A path, or an SQLite URI (`file:…?immutable=1`).
        var path: String
        var readOnly: Bool

        /// - With a `-wal` file: read-only. SQLite reads the WAL without
        ///   changing it (it may create `-shm`, its shared memory).
        /// - Without one, where the user may write the file and its folder:
        ///   read-write, but every access is a read. SQLite creates the
        ///   `-wal` and `-shm` files and, as the last connection, removes
        ///   them on close; a read-only connection could not, and would
        ///   leave them behind.
        /// - Without one, where the user may not write: `immutable=1`,
        ///   since SQLite could not create the `-shm` file it needs. The
        ///   file was closed cleanly (no `-wal`), so it holds every commit;
        ///   only a writer the user cannot be (another account) could
        ///   change it while we read.
        static func forReading(_ url: URL) -> StoreConnection {
            let path = url.fileSystemPath
            if FileManager.default.fileExists(atPath: path + "-wal") {
                return StoreConnection(path: path, readOnly: true)
            }
            let folder = url.fileSystemFolder
            if access(path, W_OK) == 0 && access(folder, W_OK) == 0 {
                return StoreConnection(path: path, readOnly: false)
            }
            return StoreConnection(path: "file:\(uriEscaped(path))?immutable=1", readOnly: true)
        }

        /// Escapes what a URI's path may not hold as it is (RFC 3986),
        /// `%`, `?` and `#` among it.
        static func uriEscaped(_ path: String) -> String {
            var allowed = CharacterSet.alphanumerics
            allowed.insert(charactersIn: "/-._~!$&'()*+,;=:@")
            return path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path
        }
    }


    deinit {
        // Close the store before the lock goes (after this body): once it
        // is released, a failed command may remove the files. The close
        // checkpoints the WAL and syncs it (what makes a write durable at
        // `synchronous = NORMAL`).
        try? database.close()
        Self.retire(database)
    }

    /// The last closed queue, kept instead of freed.
    ///
    /// Freeing a `DatabaseQueue` unregisters it from Foundation's
    /// `NotificationCenter` (its first use in the process: 0.74 M
    /// instructions) and disposes of its `DispatchQueue`, which makes
    /// libdispatch start a worker thread (`clone3`): 1.1 M instructions
    /// and a thread at the end of every point command, after its work
    /// is done and the store closed. Each closed queue is kept here
    /// until the next one replaces it, so a command's last queue is never
    /// freed before the process ends; a long-running process (`bowties
    /// serve`) frees each one a close later, and holds one at most.
    private static let retired = Mutex<DatabaseQueue?>(nil)

    private static func retire(_ queue: DatabaseQueue) {
        let previous = retired.withLock { slot in
            let previous = slot
            slot = queue
            return previous
        }
        // Freed here, outside the lock.
        _ = previous
    }

    /// Checks that the store is a bowties store and, in the modes that
    /// write, creates or upgrades its schema. Read-only modes never change
    /// it: ``OpenMode/readOnly`` and ``OpenMode/inspect`` read an earlier
    /// release's store through the read shims (``readOnly`` refuses an
    /// empty one, or one from a newer release), ``OpenMode/repair`` takes
    /// it as it is.
    private func prepareSchema(mode: Catalog.OpenMode) throws {
        let (state, foreign) = try database.read { db in
            let state = try migrator.state(db)
            let tables = try String.fetchSet(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
            // Tables but no record of migrations, or every migration
            // applied and still no table of bow ties: someone else's.
            let foreign =
                !tables.isEmpty
                && (!tables.contains(SchemaMigrator.bookkeepingTable)
                    || (state == .current && !tables.contains(model.entities.first?.tableName ?? "")))
            return (state, foreign)
        }
        if foreign {
            throw CatalogError(
                .notAStore, "\(url.path) is an SQLite database but not a bowties catalog",
                hint: "Choose another path with --store PATH.")
        }
        if mode == .repair { return }
        if mode == .inspect {
            // The check reports every other state; an older schema it
            // reads through the shims, so that it checks every record.
            if case .outdated(let pending) = state { try shim(pending) }
            return
        }
        switch state {
        case .current:
            return
        case .newer:
            throw newerStoreError()
        case .uncreated where mode == .readOnly:
            // A store another command is creating right now, or one whose
            // creation failed: nothing to read yet.
            throw CatalogError(
                .storeNotFound, "the catalog at \(url.path) is empty",
                hint: "Fill it with `bowties import` (the sample data) or `bowties import FILE`.")
        case .outdated(let pending) where mode == .readOnly:
            // Reads never write, not even to upgrade: an earlier
            // release's store is read through the shims.
            guard try shim(pending) else {
                throw CatalogError(
                    .notAStore, "the catalog at \(url.path) is not ready to read: its schema is out of date",
                    hint: "A command that changes the catalog (or `bowties check --repair`) upgrades it.")
            }
        case .uncreated:
            // What is pending is decided again under the write lock: of
            // two processes creating the same new store, the second finds
            // it ready.
            try migrateSchema()
        case .outdated:
            let applied = try migrateSchema()
            if !applied.isEmpty {
                let current = migrator.identifiers.count
                schemaOnOpen.withLock { $0.upgraded = Catalog.SchemaVersions(store: current - applied.count, current: current) }
            }
        }
    }

    /// Lets this connection read a store that lacks the `pending`
    /// migrations as if it had them, writing nothing
    /// (``SchemaMigrator/installReadShims(pending:_:)``).
    ///
    /// - Returns: False when a pending migration has no read shim.
    @discardableResult
    private func shim(_ pending: [String]) throws -> Bool {
        let installed = try database.writeWithoutTransaction { db in
            try migrator.installReadShims(pending: pending, db)
        }
        if installed {
            let current = migrator.identifiers.count
            schemaOnOpen.withLock { $0.older = Catalog.SchemaVersions(store: current - pending.count, current: current) }
        }
        return installed
    }


    // MARK: - Transactions

    func read<T>(_ body: (any StoreSession) throws -> T) throws -> T {
        try mapErrors { try database.read { db in try body(SQLiteSession(db)) } }
    }

    func transaction<T>(commit: Bool, _ body: (any StoreSession) throws -> T) throws -> T {
        try countingWriter {
            try transactionCounted(commit: commit, body)
        }
    }

    private func transactionCounted<T>(commit: Bool, _ body: (any StoreSession) throws -> T) throws -> T {
        try mapErrors {
            var result: T?
            try database.inTransaction(.immediate) { db in
                result = try body(SQLiteSession(db))
                return commit ? .commit : .rollback
            }
            guard let result else { throw CatalogError(.storeIO, "the transaction did not run") }
            return result
        }
    }

    func beginUndoRecording(title: String, insertsAsRanges: Bool, _ session: any StoreSession) throws
        -> (any UndoRecording)?
    {
        try UndoRecorder.beginIfKept(title: title, insertsAsRanges: insertsAsRanges, model: model, session)
    }

    /// The GRDB connection behind a session this store handed out.
    static func database(of session: any StoreSession) throws -> Database {
        guard let session = session as? SQLiteSession else {
            throw CatalogError(.storeIO, "a session of another store was given to the SQLite store")
        }
        return session.database
    }

    /// How many write transactions this process has under way (or is
    /// waiting to start), by store path: the writers that
    /// ``WriteLockHolder`` cannot see, since POSIX locks never conflict
    /// within one process.
    static let writers = Mutex<[String: Int]>([:])

    func countingWriter<T>(_ body: () throws -> T) rethrows -> T {
        try Self.countingWriter(url: url, body)
    }

    /// Counts `body` among the writers of the store at `url`
    /// (``SQLiteWriteStore``'s transactions count too).
    static func countingWriter<T>(url: URL, _ body: () throws -> T) rethrows -> T {
        writers.withLock { $0[url.fileSystemPath, default: 0] += 1 }
        defer { writers.withLock { $0[url.fileSystemPath, default: 1] -= 1 } }
        return try body()
    }

    func waitForWriters() throws {
        try Self.waitForWriters(url: url, busyWait)
    }

    /// ``waitForWriters()`` for the store at `url`, with `busyWait`'s
    /// limit (``SQLiteReadStore`` waits the same way).
    static func waitForWriters(url: URL, _ busyWait: BusyWait) throws {
        let deadline = busyWait.policy.limit.map { Date().addingTimeInterval($0) } ?? .distantFuture
        while writers.withLock({ $0[url.fileSystemPath, default: 0] > 0 })
            || WriteLockHolder.find(forStoreAt: url) != nil
        {
            if busyWait.isCancelled { throw CatalogError(.interrupted, "interrupted while waiting for the catalog") }
            if Date() >= deadline { throw busyWait.busyError() }
            usleep(10_000)
        }
    }

    func mapErrors<T>(_ body: () throws -> T) throws -> T {
        try Self.mapErrors(store: url, busyWait, body)
    }

    func withCacheSize<T>(kibibytes: Int, _ body: () throws -> T) throws -> T {
        try mapErrors {
            try database.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA cache_size = -\(kibibytes)")
            }
        }
        defer {
            try? database.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA cache_size = -2000") }
        }
        return try body()
    }

    /// Turns GRDB's errors into ``CatalogError``s users can act on.
    static func mapErrors<T>(store: URL, _ busyWait: BusyWait, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError {
            switch error.resultCode {
            case .SQLITE_INTERRUPT where busyWait.isCancelled:
                throw CatalogError(.interrupted, "interrupted")
            case .SQLITE_BUSY where busyWait.isCancelled:
                throw CatalogError(.interrupted, "interrupted while waiting for the catalog")
            case .SQLITE_BUSY, .SQLITE_LOCKED:
                throw busyWait.busyError()
            case .SQLITE_FULL:
                throw CatalogError(
                    .storeIO, "cannot write the catalog at \(store.path): the disk is full; nothing was changed")
            case .SQLITE_NOTADB:
                throw CatalogError(
                    .notAStore, "\(store.path) is not a bowties catalog (not an SQLite database)",
                    hint: "Choose another path with --store PATH.")
            case .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_READONLY:
                // SQLite's words ("attempt to write a readonly database",
                // "unable to open database file") name neither the file
                // nor what to do: find which one this user may not use.
                throw StoreLocation.accessProblem(store: store)
                    ?? CatalogError(
                        .storeIO, "cannot open the catalog at \(store.path): \(error.message ?? "\(error)")")
            default:
                throw CatalogError(.storeIO, "catalog error at \(store.path): \(error.message ?? "\(error)")")
            }
        }
    }

    /// Writes a consistent copy of the store's database to `destination`
    /// (SQLite's `VACUUM INTO`), reading only: a dry run works on the copy,
    /// so that it can run the real import's statements, verdicts included,
    /// on a store it may not or must not write. Photo files are not copied.
    ///
    /// - Throws: ``CatalogError`` `.storeIO`, `.cannotCreateOutput`.
    func copyDatabase(to destination: URL) throws {
        try mapErrors {
            try database.writeWithoutTransaction { db in
                guard olderSchema != nil else {
                    try db.execute(sql: "VACUUM INTO ?", arguments: [destination.path])
                    return
                }
                // VACUUM re-creates the store's indexes by unqualified
                // table names, which the read shims' views would take:
                // the copy is made of the store as it is (whoever opens
                // it for writing upgrades it), then the shims come back.
                let shims = try Row.fetchAll(
                    db, sql: "SELECT type, name FROM sqlite_temp_master WHERE type IN ('view', 'table')")
                for shim in shims {
                    let type: String = shim[0]
                    let name: String = shim[1]
                    let kind = type == "view" ? "VIEW" : "TABLE"
                    try db.execute(sql: "DROP \(kind) temp.\(name.quotedDatabaseIdentifier)")
                }
                try db.execute(sql: "VACUUM INTO ?", arguments: [destination.path])
                if case .outdated(let pending) = try migrator.state(db) {
                    _ = try migrator.installReadShims(pending: pending, db)
                }
            }
        }
    }

    // MARK: - The check's questions

    var migrationIdentifiers: [String] { migrator.identifiers }

    func schemaState(_ session: any StoreSession) throws -> SchemaState {
        try migrator.state(Self.database(of: session))
    }

    @discardableResult
    func migrateSchema(_ session: any StoreSession) throws -> [String] {
        let db = try Self.database(of: session)
        var applied: [String] = []
        try mapMigrationErrors { applied = try migrator.migrate(db) }
        return applied
    }

    func integrityCheck(_ session: any StoreSession) throws -> [String] {
        try String.fetchAll(Self.database(of: session), sql: "PRAGMA integrity_check")
    }

    func foreignKeyViolations(_ session: any StoreSession) throws -> [ForeignKeyViolation] {
        try Row.fetchAll(Self.database(of: session), sql: UndoHistory.foreignKeyCheckSQL).map { row in
            ForeignKeyViolation(table: row[0], rowid: row[1], parent: row[2])
        }
    }

    func schemaDifferences(_ session: any StoreSession) throws -> [String] {
        try model.schemaDifferences(Self.database(of: session))
    }

    func failureMessage(_ error: any Error) -> String? {
        (error as? DatabaseError).map { $0.message ?? "\($0)" }
    }
}

extension SQLiteStore {
    @discardableResult
    static func removeStoreIfUnused(at url: URL) -> Bool {
        guard let lock = StoreLock.exclusiveIfFree(forStoreAt: url) else { return false }
        let isEmpty = { () -> Bool in
            guard FileManager.default.fileExists(atPath: url.path) else { return true }
            guard let queue = try? DatabaseQueue(path: url.path) else { return false }
            defer { try? queue.close() }
            let rows = try? queue.read { db in
                var rows = 0
                // The bookkeeping of migrations and the one row that says what
                // undo records are there in every store, empty or not.
                let tables = try String.fetchAll(
                    db,
                    sql: """
                        SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' \
                        AND name NOT IN (?, ?)
                        """,
                    arguments: [SchemaMigrator.bookkeepingTable, ObjectModel.undoRecordingTable])
                for table in tables where try db.tableExists(table) {
                    rows += try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table)") ?? 1
                }
                return rows
            }
            return rows == 0
        }()
        guard isEmpty else { return false }
        let manager = FileManager.default
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? manager.removeItem(atPath: url.path + suffix)
        }
        try? manager.removeItem(at: PhotoFolder(storeURL: url).folder.deletingLastPathComponent())
        // Last: whoever waits on the lock file then sees it gone.
        lock.removeFile()
        return true
    }
}
