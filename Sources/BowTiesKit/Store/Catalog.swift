import Foundation
import GRDB

/// A bowties catalog: an SQLite store (GRDB, WAL mode) and the folder of
/// external photo files beside it.
///
/// ```swift
/// let catalog = try Catalog(url: StoreLocation.resolve(explicit: nil))
/// let tie = try catalog.wear("R")
/// ```
///
/// Every change runs in one IMMEDIATE transaction, so concurrent processes
/// queue on SQLite's write lock (for up to ``busyTimeout``) instead of
/// losing updates. Every save validates against ``BowTieModel``.
public final class Catalog: Sendable {
    /// Photos larger than this many bytes go to external files unless the
    /// store says otherwise (``setExternalStorageThreshold(_:)``).
    public static let defaultExternalStorageThreshold = 100 * 1024
    /// How long a command waits for another process's write to finish.
    public static let busyTimeout: TimeInterval = 10

    /// How to treat a store file that does not exist yet.
    public enum OpenMode: Sendable {
        /// Create the store (and its folder) when missing: commands that add.
        case createIfMissing
        /// Fail with ``CatalogError/Kind/storeNotFound``: commands that read.
        case mustExist
        /// Like ``mustExist``, but open the store as it is: no schema is
        /// created or upgraded, and a store from a newer version is not
        /// refused. For ``check()``, which reports such states.
        case inspect
    }

    /// The store's SQLite file.
    public let url: URL
    let database: DatabaseQueue
    let photos: PhotoStore
    let transformers: ValueTransformerRegistry
    /// The shared lock that tells a failed command not to remove this
    /// store while we use it (nil in a read-only folder).
    private let lock: StoreLock?

    /// Opens the catalog at `url`, creating or upgrading its schema.
    /// - Throws: ``CatalogError``: `.storeNotFound`, `.notAStore`,
    ///   `.storeIO`, `.storeBusy`, `.cannotCreateOutput`.
    public init(
        url: URL, mode: OpenMode = .createIfMissing, transformers: ValueTransformerRegistry = .shared
    ) throws {
        self.url = url
        self.transformers = transformers
        photos = PhotoStore(storeURL: url)
        let notFound = CatalogError(
            .storeNotFound, "no catalog at \(url.path)",
            hint: "Create one with `bowties import` (the sample data) or `bowties import FILE`, "
                + "or point to another with --store PATH or $BOWTIES_STORE.")
        let exists = FileManager.default.fileExists(atPath: url.path)
        if !exists {
            if mode != .createIfMissing { throw notFound }
            try Self.createFolder(forStoreAt: url)
        }
        // Taken before the store is opened, so that no failed command can
        // remove the store from under us from now on.
        let lock = try StoreLock.shared(
            forStoreAt: url, timeout: Self.busyTimeout, createFolder: mode == .createIfMissing)
        self.lock = lock
        do {
            if mode != .createIfMissing && !FileManager.default.fileExists(atPath: url.path) {
                throw notFound  // removed while we waited for the lock
            }
            var configuration = Configuration()
            configuration.journalMode = .wal
            configuration.busyMode = .timeout(Self.busyTimeout)
            configuration.label = "bowties"
            database = try Self.mapErrors(store: url) {
                try Self.retryingWhenBusy { try DatabaseQueue(path: url.path, configuration: configuration) }
            }
            try Self.mapErrors(store: url) { try Self.retryingWhenBusy { try prepareSchema(upgrade: mode != .inspect) } }
        } catch {
            lock?.removeFileIfCreatedAndUnused()
            throw error
        }
    }

    /// Runs `body` again while SQLite answers `SQLITE_BUSY`, until
    /// ``busyTimeout``.
    ///
    /// SQLite's busy timeout covers waiting for a lock, but in two cases it
    /// answers busy at once instead, because waiting could deadlock: two
    /// processes switching a new store to WAL at the same moment, and a
    /// read that must become a write after another connection wrote
    /// (migrations of a store two commands open together). Trying again
    /// a moment later is SQLite's advice for both.
    static func retryingWhenBusy<T>(_ body: () throws -> T) throws -> T {
        let deadline = Date().addingTimeInterval(busyTimeout)
        var pause: useconds_t = 1_000
        while true {
            do {
                return try body()
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY && Date() < deadline {
                usleep(pause)
                pause = min(pause * 2, 50_000)
            }
        }
    }

    /// Creates the folder a new store goes in.
    /// - Throws: ``CatalogError`` `.cannotCreateOutput`.
    static func createFolder(forStoreAt url: URL) throws {
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        } catch {
            throw CatalogError(
                .cannotCreateOutput,
                "cannot create the folder for the catalog at \(url.path): \(error.localizedDescription)")
        }
    }

    deinit {
        // Close the store before the lock goes (after this body): once it
        // is released, a failed command may remove the files.
        try? database.close()
    }

    /// Checks that the store is a bowties store and, when `upgrade` is
    /// true, creates or upgrades its schema; else a store from a newer
    /// version, or one whose migrations are pending, is left as it is.
    private func prepareSchema(upgrade: Bool) throws {
        let migrator = Self.migrator
        let (ready, superseded, foreign) = try database.read { db in
            let hasMigrations = try db.tableExists("grdb_migrations")
            let tableCount = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master WHERE type = 'table'") ?? 0
            guard hasMigrations else { return (false, false, tableCount > 0) }
            let hasTable = try db.tableExists(BowTieModel.tableName)
            let completed = try migrator.hasCompletedMigrations(db)
            let superseded = try migrator.hasBeenSuperseded(db)
            return (completed, superseded, !hasTable && completed)
        }
        if foreign {
            throw CatalogError(
                .notAStore, "\(url.path) is an SQLite database but not a bowties catalog",
                hint: "Choose another path with --store PATH.")
        }
        guard upgrade else { return }
        if superseded {
            throw CatalogError(
                .notAStore, "\(url.path) was written by a newer version of bowties",
                hint: "Upgrade bowties to use this catalog.")
        }
        if !ready {
            do {
                try migrator.migrate(database)
            } catch {
                // GRDB picks the migrations to run before it takes the write
                // lock, so two processes creating the same new store both
                // run v1; the loser's transaction rolls back. The store is
                // then ready all the same.
                guard try database.read({ try migrator.hasCompletedMigrations($0) }) else { throw error }
            }
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
        try Self.mapErrors(store: url) { try database.read(body) }
    }

    /// Runs `body` in an IMMEDIATE transaction and keeps photo files in step
    /// with it: files it created are removed if it fails or is rolled back;
    /// files it released are removed after the commit if no record refers to
    /// them any more. Both clean-ups happen under the write lock, so they
    /// cannot remove a file another process has just started to use.
    ///
    /// - Parameter commit: When false the transaction is rolled back (dry runs).
    func write<T>(commit: Bool = true, _ body: (Database, PhotoChanges) throws -> T) throws -> T {
        let changes = PhotoChanges()
        let result: T
        do {
            result = try Self.mapErrors(store: url) {
                var result: T?
                try database.inTransaction(.immediate) { db in
                    result = try body(db, changes)
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
    static func mapErrors<T>(store: URL, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError {
            switch error.resultCode {
            case .SQLITE_BUSY, .SQLITE_LOCKED:
                throw CatalogError(
                    .storeBusy,
                    "the catalog is busy: another process is changing it (bowties waits up to \(Int(busyTimeout)) seconds)",
                    hint: "Try again when the other bowties command has finished.")
            case .SQLITE_NOTADB:
                throw CatalogError(
                    .notAStore, "\(store.path) is not a bowties catalog (not an SQLite database)",
                    hint: "Choose another path with --store PATH.")
            case .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_READONLY:
                throw CatalogError(.storeIO, "cannot open the catalog at \(store.path): \(error.message ?? "\(error)")")
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
                for table in [BowTieModel.tableName, blobTable, "setting"] where try db.tableExists(table) {
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

    /// Writes `data` to `url` atomically: the whole file or nothing.
    /// - Throws: ``CatalogError`` `.cannotCreateOutput`.
    public static func writeFile(_ data: Data, to url: URL) throws {
        let file = try AtomicFile(destination: url)
        try file.write(data)
        try file.commit()
    }
}
