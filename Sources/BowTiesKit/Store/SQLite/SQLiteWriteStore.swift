import Foundation
import GRDB
internal import GRDBSQLite

/// The SQLite store opened for a point write (``Catalog/OpenMode/pointWrite``:
/// `wear`, `rate`, `favorite`), on a connection of SQLite's own C API
/// rather than GRDB's `DatabaseQueue`, when the store is current
/// (``open(url:wait:model:migrator:)``).
///
/// Scripts run these commands in loops, and what GRDB's queue costs at
/// each start (its set-up and first statement, the authorizer it asks
/// about every column SQLite resolves, its bookkeeping of the tables each
/// statement reads, a first-time generic instantiation for each of its
/// types) was about half of a `wear`'s instructions: `bench/README.md`,
/// "Point commands, session 10".
///
/// It keeps every guarantee ``SQLiteStore`` gives a writer:
/// - **the catalog is checked**: the same questions ``SQLiteReadStore``
///   asks (``SQLiteSchemaCheck``). Only a store every migration of this
///   version made, and none other, is opened here; for any other answer
///   (a missing or empty file, someone else's database, an earlier
///   release's schema, which the first write upgrades with its one line
///   on standard error, a newer one's), for a file or folder this user
///   may not write, and for a store no command has written yet (no lock
///   file beside it), it returns nil and ``Catalog`` opens
///   ``SQLiteStore``, which upgrades or words the case;
/// - **all or nothing, and no lost update**: every change is one
///   `BEGIN IMMEDIATE` transaction, committed or rolled back whole, that
///   holds SQLite's write lock from its start, counted among this
///   process's writers (``SQLiteStore/countingWriter(url:_:)``), with the
///   busy handler of ``BusyWait``;
/// - **every write is recorded for undo**: ``UndoRecorder``, the same
///   code on this connection, names the action; the store's triggers log
///   its rows;
/// - **a write is durable when the command returns**: the connection has
///   the settings GRDB's queue had (foreign keys on, `synchronous =
///   NORMAL`, ``SQLiteReadConnection/init(_:busyWait:forWriting:)``), and
///   closing it, the last connection, checkpoints the WAL into the store
///   and syncs it, as closing the queue did;
/// - the lock file, `interrupt`, `regexp`, and GRDB's `DatabaseError`,
///   so that ``SQLiteStore/mapErrors(store:_:_:)`` words failures as
///   before.
///
/// Imports, the check's repair and anything else that needs GRDB's
/// `Database` stay on ``SQLiteStore``.
final class SQLiteWriteStore: SQLiteDirectStore {
    let url: URL
    let model: ObjectModel
    let migrator: SchemaMigrator
    let photos: any PhotoStore
    let busyWait: BusyWait
    var isWritable: Bool { true }
    /// The shared lock that tells a failed command not to remove this
    /// store while we use it.
    private let lock: StoreLock
    /// Lent to one thread at a time (``SQLiteDirectStore/withConnection(_:)``).
    let connection: SQLiteReadConnection

    /// The page cache of a point write, in KiB (64 pages of 4 KiB):
    /// SQLite's default is 2,000 KiB.
    ///
    /// Before schema v6 a wear's triggers counted the tie's wears and
    /// found the latest, reading every page of its history: about 240
    /// blocks of a page and its header a wear, on average, in a run that
    /// wore one tie 16,838 times. With the default cache each of those
    /// pages was a block allocated for the wear and freed at its end, one
    /// more every few wears, so the memory a wear needed grew with the
    /// tie's history, and `bowties serve`'s grew with it and never leveled
    /// off (bench/results/serve.md, sessions 10 to 16; memory in use
    /// between wears stayed flat, which hid it). A wear no longer reads
    /// the history (`bowtie_wears_count`), but an `unwear` still finds the
    /// latest date among the rest. A point write changes a few dozen
    /// pages (the tie, its wear, their indexes, the undo log's rows); what
    /// it reads once needs no room in the cache, so 64 pages bound what
    /// any point write holds, whatever the catalog.
    static let pageCacheKiB = 256

    private init(
        url: URL, model: ObjectModel, migrator: SchemaMigrator, busyWait: BusyWait, lock: StoreLock,
        connection: SQLiteReadConnection
    ) {
        self.url = url
        self.model = model
        self.migrator = migrator
        self.busyWait = busyWait
        self.lock = lock
        photos = PhotoFolder(storeURL: url)
        self.connection = connection
    }

    /// Opens the store at `url` to change ties, when it exists, this user
    /// may write it, and its schema is this version's.
    ///
    /// - Returns: nil for every other case, which ``SQLiteStore`` opens
    ///   and words (see the type's comment).
    /// - Throws: ``CatalogError`` `.storeBusy` when the lock file stays
    ///   held by a command removing the store.
    static func open(url: URL, wait: WaitPolicy, model: ObjectModel, migrator: SchemaMigrator) throws
        -> SQLiteWriteStore?
    {
        let path = url.fileSystemPath
        var status = stat()
        guard stat(path, &status) == 0, status.st_size > 0 else { return nil }
        // Where SQLite could only read, or not make its `-wal`, GRDB's
        // queue finds out and ``StoreLocation/accessProblem(store:)``
        // words it: one wording.
        guard access(path, W_OK) == 0, access(url.fileSystemFolder, W_OK) == 0 else { return nil }
        // The lock file is there once any command wrote the store. Without
        // one, ``SQLiteStore`` creates it: this open never leaves a file
        // behind when it hands over (a newer release's store stays
        // byte-identical).
        guard let lock = try StoreLock.shared(forStoreAt: url, timeout: wait.limit, create: false, createFolder: false)
        else { return nil }
        SQLiteProcessSettings.apply()
        let busyWait = BusyWait(policy: wait, storeURL: url)
        let target = SQLiteStore.StoreConnection(path: path, readOnly: false)
        guard let connection = SQLiteReadConnection(target, busyWait: busyWait, forWriting: true) else { return nil }
        guard (try? SQLiteSchemaCheck.isCurrent(connection, model: model, migrator: migrator)) == true else {
            return nil
        }
        // A store an interrupted first import left in rollback-journal
        // mode: ``SQLiteStore`` sets WAL again before writing. Asked of
        // SQLite, not read from the file (see
        // ``SQLiteStore/isRollbackJournaled(_:)``).
        let journal = try? SQLiteReadSession(connection.pointer).fetchAll(sql: "PRAGMA journal_mode", arguments: [])
        guard let journal, journal.first?[0] as String? == "wal" else { return nil }
        return SQLiteWriteStore(
            url: url, model: model, migrator: migrator, busyWait: busyWait, lock: lock, connection: connection)
    }

    deinit {
        // The connection closes (and, the last one, checkpoints the WAL:
        // what makes a write durable at `synchronous = NORMAL`) before
        // the lock goes, after this body.
        connection.close()
    }

    // MARK: - Transactions (reads: ``SQLiteDirectStore/read(_:)``)

    /// `BEGIN IMMEDIATE`: the write lock from the start (writers queue on
    /// the busy handler), then `COMMIT`, or `ROLLBACK` when `commit` is
    /// false or anything failed.
    func transaction<T>(commit: Bool, _ body: (any StoreSession) throws -> T) throws -> T {
        try SQLiteStore.countingWriter(url: url) {
            try mapErrors {
                try withConnection { connection in
                    try connection.execute("BEGIN IMMEDIATE TRANSACTION")
                    let result: T
                    do {
                        result = try body(SQLiteReadSession(connection.pointer))
                        try connection.execute(commit ? "COMMIT" : "ROLLBACK")
                    } catch {
                        // SQLite may have rolled back already (a full
                        // disk, an interruption).
                        if sqlite3_get_autocommit(connection.pointer) == 0 { try? connection.execute("ROLLBACK") }
                        throw error
                    }
                    return result
                }
            }
        }
    }

    func beginUndoRecording(title: String, insertsAsRanges: Bool, _ session: any StoreSession) throws
        -> (any UndoRecording)?
    {
        try UndoRecorder.beginIfKept(title: title, insertsAsRanges: insertsAsRanges, model: model, session)
    }

    /// `VACUUM INTO`, outside a transaction: it writes the copy, never
    /// this store.
    func copyDatabase(to destination: URL) throws {
        try mapErrors {
            try withConnection { connection in
                try SQLiteReadSession(connection.pointer).execute(sql: "VACUUM INTO ?", arguments: [destination.path])
            }
        }
    }

    // MARK: - The check's questions
    //
    // The check opens its catalog `.inspect` or `.repair`, in
    // ``SQLiteStore``; the questions that only read are
    // ``SQLiteDirectStore``'s.

    func migrateSchema(_ session: any StoreSession) throws -> [String] {
        throw CatalogError(
            .storeIO, "the catalog at \(url.path) was opened to change ties; open it to repair to upgrade its schema")
    }

    func schemaDifferences(_ session: any StoreSession) throws -> [String] {
        throw CatalogError(
            .storeIO, "the catalog at \(url.path) was opened to change ties; open it to inspect to compare its schema")
    }
}

extension SQLiteWriteStore: PollsForChanges {}
