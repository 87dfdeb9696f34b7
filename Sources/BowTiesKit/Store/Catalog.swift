import Foundation

/// A bowties catalog: its store (``CatalogStore``: an SQLite file in WAL
/// mode, ``SQLiteStore``, and the folder of external photo files beside
/// it; or a PostgreSQL database, ``PostgreSQLStore``).
///
/// ```swift
/// let catalog = try Catalog(url: StoreLocation.resolve(explicit: nil))
/// let tie = try catalog.wear("R")
/// ```
///
/// Every change runs in one write transaction that takes the store's
/// write lock from its start, so concurrent processes queue (as
/// ``WaitPolicy`` says) instead of losing updates. Every save validates against ``BowTieModel``. A catalog opened
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
        /// As ``mustExist``, for the commands that change one tie and end
        /// (`wear`, `rate`, `favorite`), which scripts run in loops: a
        /// current SQLite store opens on SQLite's own connection
        /// (``SQLiteWriteStore``) instead of GRDB's queue. Every other
        /// case (an earlier release's store, which this upgrades; a missing
        /// one; a PostgreSQL database) opens as with ``mustExist``.
        case pointWrite
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

        var writes: Bool { self == .createIfMissing || self == .mustExist || self == .pointWrite || self == .repair }
    }

    /// Photo bytes, once per content (made by v1): inline in `data`, or
    /// `external` with `data` NULL, the bytes then in the file named by
    /// the hash.
    static let blobTable = "blob"

    /// The store's file.
    public let url: URL
    /// Where the records live; everything here goes through it.
    let store: any CatalogStore
    /// The store's photo files (``CatalogStore/photos``).
    var photos: any PhotoStore { store.photos }
    let transformers: ValueTransformerRegistry
    /// The object model the store holds (``BowTieModel/model``).
    public let model: ObjectModel
    /// The codec of each entity, by name.
    let codecs: [String: EntityCodec]
    /// The codec of bow ties, the entity every command works on.
    let bowTieCodec: EntityCodec
    /// Whether this catalog may write (see ``OpenMode``).
    public let isWritable: Bool
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
    public var upgradedSchema: SchemaVersions? { store.upgradedSchema }

    /// Set when a mode that never writes opened a store an earlier
    /// release made: it is read through the read shims of the migrations
    /// it lacks (``SchemaMigration/readShim``), and left as it is.
    public var olderSchema: SchemaVersions? { store.olderSchema }

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
            migrator: SQLiteStore.migrator)
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
        // The one place that chooses a backend: an address is a
        // PostgreSQL database, a path an SQLite file. The codecs, which can
        // refuse the model, come first: nothing is created for a model the
        // store cannot hold.
        let dialect = url.isStoreAddress ? PostgreSQLStore.dialect : SQLiteStore.dialect
        codecs = try Dictionary(
            uniqueKeysWithValues: model.entities.map {
                ($0.name, try EntityCodec($0, in: model, transformers: transformers, dialect: dialect))
            })
        guard let bowTieCodec = codecs[BowTieModel.entity.name] else {
            throw ModelError("the model has no \(BowTieModel.entity.name) entity")
        }
        self.bowTieCodec = bowTieCodec
        isWritable = mode.writes
        if url.isStoreAddress {
            store = try PostgreSQLStore(url: url, mode: mode, wait: wait, model: model)
        } else if mode == .readOnly,
            let reader = try SQLiteReadStore.open(url: url, wait: wait, model: model, migrator: migrator)
        {
            // A current store, to read: SQLite's own connection, without
            // GRDB's set-up (every other case, and its wording, is
            // SQLiteStore's).
            store = reader
        } else if mode == .pointWrite,
            let writer = try SQLiteWriteStore.open(url: url, wait: wait, model: model, migrator: migrator)
        {
            // The same for a point write to a current store.
            store = writer
        } else {
            store = try SQLiteStore(url: url, mode: mode, wait: wait, model: model, migrator: migrator)
        }
    }

    /// Stops what the catalog is doing as soon as possible: the running
    /// statement fails with an interruption (its transaction rolls back),
    /// waits for the write lock end, and ``isInterrupted`` turns true for
    /// long loops to check. Safe to call from any thread, such as a signal
    /// handler's queue.
    public func interrupt() { store.interrupt() }

    /// True once ``interrupt()`` was called.
    public var isInterrupted: Bool { store.isInterrupted }

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

    // MARK: - Settings

    /// The size above which photos are stored in external files.
    public func externalStorageThreshold() throws -> Int {
        try read { db in try Self.threshold(db) }
    }

    /// Sets the threshold for photos saved from now on (existing photos stay
    /// where they are).
    public func setExternalStorageThreshold(_ bytes: Int) throws {
        if photos.directory == nil {
            throw CatalogError(
                .storeUnavailable,
                "the catalog at \(url.storeDescription) keeps every photo in its database: it has no photo threshold",
                hint: "Photos go to files only beside a catalog file (--store PATH).")
        }
        guard bytes >= 0 else {
            throw CatalogError(.invalidInput, "the external storage threshold must be 0 or more bytes")
        }
        _ = try write { db, _ in
            try db.execute(
                sql: """
                    INSERT INTO setting (key, value) VALUES ('externalStorageThreshold', ?) \
                    ON CONFLICT (key) DO UPDATE SET value = excluded.value
                    """,
                arguments: [bytes])
        }
    }

    static func threshold(_ db: any StoreSession) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT value FROM setting WHERE key = 'externalStorageThreshold'")
            ?? defaultExternalStorageThreshold
    }

    /// The folder holding external photo files (nil when the store keeps
    /// every photo in its rows).
    public var externalPhotoDirectory: URL? { photos.directory }

    /// The folder holding the external photo files of the SQLite store at
    /// `url`.
    public static func externalPhotoDirectory(forStoreAt url: URL) -> URL {
        PhotoFolder(storeURL: url).folder
    }

    // MARK: - Transactions

    /// Runs `body` in a read transaction (a consistent snapshot).
    func read<T>(_ body: (any StoreSession) throws -> T) throws -> T {
        try store.read(body)
    }

    /// Runs `body` in a write transaction and keeps photo files in step
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
        _ body: (any StoreSession, PhotoChanges) throws -> T
    ) throws -> T {
        guard isWritable else {
            throw CatalogError(.storeIO, "the catalog at \(url.storeDescription) was opened read-only; this command cannot change it")
        }
        let changes = PhotoChanges()
        let result: T
        do {
            result = try store.transaction(commit: commit) { db in
                let recorder = try action.flatMap {
                    try store.beginUndoRecording(title: $0, insertsAsRanges: insertsAsRanges, db)
                }
                let result = try body(db, changes)
                if let recorder {
                    let freed = try recorder.finish(
                        title: changes.actionTitle ?? action ?? "", limit: UndoHistory.limit(db), db)
                    for sha256 in freed.sorted() { try releaseBlob(sha256, db, changes) }
                }
                return result
            }
        } catch {
            removeUnreferencedPhotos(changes.created)
            throw error
        }
        removeUnreferencedPhotos(commit ? changes.released : changes.created)
        return result
    }

    /// Waits until no connection, in this process or another, holds or
    /// is about to take the store's write lock; without taking it (a
    /// read-only catalog cannot). What a read transaction sees afterwards
    /// includes every write that was under way.
    ///
    /// - Throws: ``CatalogError`` `.storeBusy` past the wait policy's
    ///   limit, `.interrupted`.
    func waitForWriters() throws { try store.waitForWriters() }

    /// Removes the files among `hashes` that no blob refers to. A failure
    /// here leaves an orphan file, never a dangling reference.
    func removeUnreferencedPhotos(_ hashes: Set<String>) {
        guard !hashes.isEmpty else { return }
        _ = try? store.transaction(commit: true) { db in
            for sha256 in hashes where try !Self.isReferenced(sha256, db) {
                photos.remove(sha256: sha256)
            }
        }
    }

    static func isReferenced(_ sha256: String, _ db: any StoreSession) throws -> Bool {
        try Bool.fetchOne(
            db,
            sql: "SELECT EXISTS (SELECT 1 FROM \(blobTable) WHERE sha256 = ? AND external)",
            arguments: [sha256]) ?? false
    }

    /// Turns the store's errors into ``CatalogError``s users can act on.
    func mapErrors<T>(_ body: () throws -> T) throws -> T {
        try store.mapErrors(body)
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
        // A database is the server's: its schema stays (made in a
        // transaction of its own, it is whole or absent).
        if url.isStoreAddress { return false }
        return SQLiteStore.removeStoreIfUnused(at: url)
    }

    /// Writes a consistent copy of the store's database to `destination`
    /// (SQLite's `VACUUM INTO`), reading only: a dry run works on the copy,
    /// so that it can run the real import's statements, verdicts included,
    /// on a store it may not or must not write. Photo files are not copied.
    ///
    /// - Throws: ``CatalogError`` `.storeIO`, `.cannotCreateOutput`.
    public func copyDatabase(to destination: URL) throws {
        try store.copyDatabase(to: destination)
    }
}
