import Foundation
import GRDB
import Synchronization

/// A bowties catalog: an SQLite store (GRDB, WAL mode) and the folder of
/// external photo files beside it.
///
/// ```swift
/// let catalog = try Catalog(url: StoreLocation.resolve(explicit: nil))
/// let tie = try catalog.wear("R")
/// ```
///
/// Every change runs in one IMMEDIATE transaction, so concurrent processes
/// queue on SQLite's write lock (as ``WaitPolicy`` says) instead of losing
/// updates. Every save validates against ``BowTieModel``. A catalog opened
/// ``OpenMode/readOnly`` never writes a byte of the store or its folder.
public final class Catalog: Sendable {
    /// Photos larger than this many bytes go to external files unless the
    /// store says otherwise (``setExternalStorageThreshold(_:)``).
    public static let defaultExternalStorageThreshold = 100 * 1024

    /// How to open the store.
    public enum OpenMode: Sendable {
        /// Create the store (and its folder) when missing: commands that add.
        case createIfMissing
        /// Fail with ``CatalogError/Kind/storeNotFound`` when missing:
        /// commands that change existing ties.
        case mustExist
        /// Read only: commands that only read. Nothing is written, not even
        /// SQLite's set-up; it works on a store the user can read but not
        /// write. A store an earlier release made is read as it is,
        /// through its migrations' read shims (``olderSchema``), never
        /// upgraded.
        case readOnly
        /// Read only, and the store as it is: no schema check beyond
        /// "is it a bowties store". For ``check()``, which reports such
        /// states. An earlier release's store is read through the shims,
        /// as with ``readOnly``.
        case inspect
        /// Writable, but the store as it is: for ``repair(announce:)``,
        /// which reports the schema's state before it upgrades it.
        case repair

        var writes: Bool { self == .createIfMissing || self == .mustExist || self == .repair }
    }

    /// The store's SQLite file.
    public let url: URL
    let database: DatabaseQueue
    let photos: PhotoStore
    let transformers: ValueTransformerRegistry
    /// The object model the store holds (``BowTieModel/model``).
    public let model: ObjectModel
    /// The store's schema history, for ``model``.
    let migrator: SchemaMigrator
    /// The codec of each entity, by name.
    let codecs: [String: EntityCodec]
    /// The codec of bow ties, the entity every command works on.
    let bowTieCodec: EntityCodec
    /// Whether this catalog may write (see ``OpenMode``).
    public let isWritable: Bool
    /// SQLite's busy handler, and who the last wait was for.
    let busyWait: BusyWait
    /// The shared lock that tells a failed command not to remove this
    /// store while we use it (nil in a read-only folder).
    private let lock: StoreLock?
    /// What opening found of the schema: set once, while the initializer
    /// runs (``upgradedSchema``, ``olderSchema``).
    private let schemaOnOpen = Mutex<(upgraded: SchemaVersions?, older: SchemaVersions?)>((nil, nil))

    /// Schema versions, counted in migrations: a store made by 0.1.0 is
    /// at version 1.
    public struct SchemaVersions: Sendable, Equatable {
        /// The store's version (before an upgrade).
        public var store: Int
        /// This bowties' version, the one an upgrade brings it to.
        public var current: Int
    }

    /// The upgrade opening applied, when it applied one to a store an
    /// earlier release made (not when it created a new store, nor when
    /// another process upgraded the store first): what a command says
    /// once on standard error.
    public var upgradedSchema: SchemaVersions? { schemaOnOpen.withLock { $0.upgraded } }

    /// Set when a mode that never writes opened a store an earlier
    /// release made: it is read through the read shims of the migrations
    /// it lacks (``SchemaMigration/readShim``), and left as it is.
    public var olderSchema: SchemaVersions? { schemaOnOpen.withLock { $0.older } }

    /// Opens the catalog at `url`, creating or upgrading its schema when
    /// `mode` writes.
    ///
    /// - Parameters:
    ///   - mode: Whether to create, write or only read; see ``OpenMode``.
    ///   - wait: How long to wait for another process's write.
    /// - Throws: ``CatalogError``: `.storeNotFound`, `.notAStore`,
    ///   `.storeIO`, `.storeBusy`, `.cannotCreateOutput`.
    public convenience init(
        url: URL, mode: OpenMode = .createIfMissing, wait: WaitPolicy = WaitPolicy(),
        transformers: ValueTransformerRegistry = .shared
    ) throws {
        try self.init(
            url: url, mode: mode, wait: wait, transformers: transformers, model: BowTieModel.model,
            migrator: Self.migrator)
    }

    /// Opens a catalog of another object model, whose schema history is
    /// `migrator` (``SchemaMigrator/creating(_:)`` for a model never
    /// released): how tests take a changed declaration through the store.
    ///
    /// - Throws: ``ModelError`` for a model the store cannot hold, and the
    ///   errors of ``init(url:mode:wait:transformers:)``.
    init(
        url: URL, mode: OpenMode = .createIfMissing, wait: WaitPolicy = WaitPolicy(),
        transformers: ValueTransformerRegistry = .shared, model: ObjectModel, migrator: SchemaMigrator
    ) throws {
        try model.validate()
        self.url = url
        self.transformers = transformers
        self.model = model
        self.migrator = migrator
        codecs = try Dictionary(
            uniqueKeysWithValues: model.entities.map {
                ($0.name, try EntityCodec($0, in: model, transformers: transformers))
            })
        guard let bowTieCodec = codecs[BowTieModel.entity.name] else {
            throw ModelError("the model has no \(BowTieModel.entity.name) entity")
        }
        self.bowTieCodec = bowTieCodec
        isWritable = mode.writes
        photos = PhotoStore(storeURL: url)
        let busyWait = BusyWait(policy: wait, storeURL: url)
        self.busyWait = busyWait
        let notFound = CatalogError(
            .storeNotFound, "no catalog at \(url.path)",
            hint: "Create one with `bowties import` (the sample data) or `bowties import FILE`, "
                + "or point to another with --store PATH or $BOWTIES_STORE.")
        let existed = FileManager.default.fileExists(atPath: url.path)
        if !existed {
            if mode != .createIfMissing { throw notFound }
            try Self.createFolder(forStoreAt: url)
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

    /// Stops what the catalog is doing as soon as possible: the running
    /// statement fails with an interruption (its transaction rolls back),
    /// waits for the write lock end, and ``isInterrupted`` turns true for
    /// long loops to check. Safe to call from any thread, such as a signal
    /// handler's queue.
    public func interrupt() {
        busyWait.cancel()
        database.interrupt()
    }

    /// True once ``interrupt()`` was called.
    public var isInterrupted: Bool { busyWait.isCancelled }

    /// Creates the folder a new store goes in.
    /// - Throws: ``CatalogError`` `.cannotCreateOutput`.
    static func createFolder(forStoreAt url: URL) throws {
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        } catch {
            if let problem = StoreLocation.accessProblem(store: url) { throw problem }
            throw CatalogError(
                .cannotCreateOutput,
                "cannot create the folder for the catalog at \(url.path): \(error.localizedDescription)")
        }
    }

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
            let path = url.path
            if FileManager.default.fileExists(atPath: path + "-wal") {
                return StoreConnection(path: path, readOnly: true)
            }
            let folder = url.deletingLastPathComponent().path
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
        // is released, a failed command may remove the files.
        try? database.close()
    }

    /// Checks that the store is a bowties store and, in the modes that
    /// write, creates or upgrades its schema. Read-only modes never change
    /// it: ``OpenMode/readOnly`` and ``OpenMode/inspect`` read an earlier
    /// release's store through the read shims (``readOnly`` refuses an
    /// empty one, or one from a newer release), ``OpenMode/repair`` takes
    /// it as it is.
    private func prepareSchema(mode: OpenMode) throws {
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
                schemaOnOpen.withLock { $0.upgraded = SchemaVersions(store: current - applied.count, current: current) }
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
            schemaOnOpen.withLock { $0.older = SchemaVersions(store: current - pending.count, current: current) }
        }
        return installed
    }

    // MARK: - Settings

    /// The size above which photos are stored in external files.
    public func externalStorageThreshold() throws -> Int {
        try read { db in try Self.threshold(db) }
    }

    /// Sets the threshold for photos saved from now on (existing photos stay
    /// where they are).
    public func setExternalStorageThreshold(_ bytes: Int) throws {
        guard bytes >= 0 else {
            throw CatalogError(.invalidInput, "the external storage threshold must be 0 or more bytes")
        }
        _ = try write { db, _ in
            try db.execute(
                sql: "INSERT OR REPLACE INTO setting (key, value) VALUES ('externalStorageThreshold', ?)",
                arguments: [bytes])
        }
    }

    static func threshold(_ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT value FROM setting WHERE key = 'externalStorageThreshold'")
            ?? defaultExternalStorageThreshold
    }

    /// The folder holding external photo files.
    public var externalPhotoDirectory: URL { photos.directory }

    /// The folder holding the external photo files of the store at `url`.
    public static func externalPhotoDirectory(forStoreAt url: URL) -> URL {
        PhotoStore(storeURL: url).directory
    }

    // MARK: - Transactions

    /// Runs `body` in a read transaction (a consistent snapshot).
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        try mapErrors { try database.read(body) }
    }

    /// Runs `body` in an IMMEDIATE transaction and keeps photo files in step
    /// with it: files it created are removed if it fails or is rolled back;
    /// files it released are removed after the commit if no record refers to
    /// them any more. Both clean-ups happen under the write lock, so they
    /// cannot remove a file another process has just started to use.
    ///
    /// - Parameters:
    ///   - action: The title of the action the change is, for `undo`
    ///     and `log` (the body may give a better one in
    ///     ``PhotoChanges/actionTitle``); nil for changes that are not
    ///     actions (settings).
    ///   - insertsAsRanges: Log the rows the action adds as a range per
    ///     table, not one by one (imports).
    ///   - commit: When false the transaction is rolled back (dry runs).
    func write<T>(
        action: String? = nil, insertsAsRanges: Bool = false, commit: Bool = true,
        _ body: (Database, PhotoChanges) throws -> T
    ) throws -> T {
        guard isWritable else {
            throw CatalogError(.storeIO, "the catalog at \(url.path) was opened read-only; this command cannot change it")
        }
        let changes = PhotoChanges()
        Self.writers.withLock { $0[url.path, default: 0] += 1 }
        defer { Self.writers.withLock { $0[url.path, default: 1] -= 1 } }
        let result: T
        do {
            result = try mapErrors {
                var result: T?
                try database.inTransaction(.immediate) { db in
                    var recorder: UndoRecorder?
                    if let action, try UndoHistory.exists(db) {
                        recorder = try UndoRecorder.begin(
                            title: action, insertsAsRanges: insertsAsRanges, model: model, db)
                    }
                    result = try body(db, changes)
                    if let recorder {
                        let freed = try recorder.finish(
                            title: changes.actionTitle ?? action ?? "", limit: UndoHistory.limit(db), db)
                        for sha256 in freed.sorted() { try releaseBlob(sha256, db, changes) }
                    }
                    return commit ? .commit : .rollback
                }
                guard let result else { throw CatalogError(.storeIO, "the transaction did not run") }
                return result
            }
        } catch {
            removeUnreferencedPhotos(changes.created)
            throw error
        }
        removeUnreferencedPhotos(commit ? changes.released : changes.created)
        return result
    }

    /// How many write transactions this process has under way (or is
    /// waiting to start), by store path: the writers that
    /// ``WriteLockHolder`` cannot see, since POSIX locks never conflict
    /// within one process.
    static let writers = Mutex<[String: Int]>([:])

    /// Waits until no connection, in this process or another, holds or
    /// is about to take the store's write lock; without taking it (a
    /// read-only catalog cannot). What a read transaction sees afterwards
    /// includes every write that was under way.
    ///
    /// - Throws: ``CatalogError`` `.storeBusy` past the wait policy's
    ///   limit, `.interrupted`.
    func waitForWriters() throws {
        let deadline = busyWait.policy.limit.map { Date().addingTimeInterval($0) } ?? .distantFuture
        while Self.writers.withLock({ $0[url.path, default: 0] > 0 })
            || WriteLockHolder.find(forStoreAt: url) != nil
        {
            if busyWait.isCancelled { throw CatalogError(.interrupted, "interrupted while waiting for the catalog") }
            if Date() >= deadline { throw busyWait.busyError() }
            usleep(10_000)
        }
    }

    /// Removes the files among `hashes` that no blob refers to. A failure
    /// here leaves an orphan file, never a dangling reference.
    func removeUnreferencedPhotos(_ hashes: Set<String>) {
        guard !hashes.isEmpty else { return }
        try? database.inTransaction(.immediate) { db in
            for sha256 in hashes where try !Self.isReferenced(sha256, db) {
                photos.remove(sha256: sha256)
            }
            return .commit
        }
    }

    static func isReferenced(_ sha256: String, _ db: Database) throws -> Bool {
        try Bool.fetchOne(
            db,
            sql: "SELECT EXISTS (SELECT 1 FROM \(blobTable) WHERE sha256 = ? AND external)",
            arguments: [sha256]) ?? false
    }

    /// Turns GRDB's errors into ``CatalogError``s users can act on.
    func mapErrors<T>(_ body: () throws -> T) throws -> T {
        try Self.mapErrors(store: url, busyWait, body)
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
}

/// The photo files one write transaction created and released. Not
/// `Sendable`: it lives and dies inside one transaction.
final class PhotoChanges {
    var created: Set<String> = []
    var released: Set<String> = []
    /// The action's title for the undo history, when the body knows a
    /// better one than the command's (`Wear Classic Red Bow Tie`).
    var actionTitle: String?
}

extension Catalog {
    /// Deletes the store at `url` (the SQLite file, its WAL and
    /// shared-memory files, the folder of external photos, the lock file)
    /// if it holds nothing and no other process has it open: for undoing a
    /// store that a failed or dry-run command created. Close every
    /// `Catalog` on it first.
    ///
    /// Every open catalog holds a shared lock on the store's lock file
    /// (``StoreLock``), so the exclusive lock, taken without waiting, proves
    /// that no one else uses the store or is about to; a store another
    /// command has just started to use is never removed. While the removal
    /// runs, commands that want to open the store wait for it, then start
    /// again (and create a new store if they create stores).
    ///
    /// - Returns: True when the store was removed.
    @discardableResult
    public static func removeStoreIfUnused(at url: URL) -> Bool {
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
        try? manager.removeItem(at: PhotoStore(storeURL: url).directory.deletingLastPathComponent())
        // Last: whoever waits on the lock file then sees it gone.
        lock.removeFile()
        return true
    }

    /// Writes a consistent copy of the store's database to `destination`
    /// (SQLite's `VACUUM INTO`), reading only: a dry run works on the copy,
    /// so that it can run the real import's statements, verdicts included,
    /// on a store it may not or must not write. Photo files are not copied.
    ///
    /// - Throws: ``CatalogError`` `.storeIO`, `.cannotCreateOutput`.
    public func copyDatabase(to destination: URL) throws {
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
}
