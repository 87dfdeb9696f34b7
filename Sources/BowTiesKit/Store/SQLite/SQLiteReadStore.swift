import Foundation
import GRDB
internal import GRDBSQLite

/// The SQLite store opened to read, on a connection of SQLite's own C API
/// rather than GRDB's `DatabaseQueue`: what every ``Catalog/OpenMode/readOnly``
/// open of a current store gets (``open(url:wait:model:migrator:)``).
///
/// The commands that read one tie (`show`, `history`, `count`, the
/// completion of keys) run in a few milliseconds, and GRDB's set-up was a
/// large part of them: its queue (a `DispatchQueue`, whose release at
/// exit starts a libdispatch thread), its first statement, the dictionaries
/// of collations and functions it registers, an authorizer called for
/// every column SQLite resolves, and a first-time generic instantiation
/// (a protocol lookup that scans every conformance record of the binary)
/// for each of its types. `bench/README.md` ("Point commands, session 9")
/// has the instructions each took.
///
/// It keeps every guarantee ``SQLiteStore`` gives a reader:
/// - **reads never write**: the same connection ``SQLiteStore/StoreConnection/forReading(_:)``
///   chooses (read-only with a `-wal` file, `immutable=1` where the user
///   may not write), `PRAGMA query_only`, and no `SQLITE_OPEN_CREATE`;
/// - **the catalog is checked**: the same questions ``SQLiteStore`` asks
///   (the tables, and the migrations the bookkeeping table records). Only
///   a store every migration of this version made, and none other, is
///   opened here; any other answer (an empty file, someone else's
///   database, an earlier or a newer release's schema, a file that is not
///   a database) returns nil, and ``Catalog`` opens ``SQLiteStore``,
///   which gives that case its one wording (or reads it through the read
///   shims);
/// - the store's lock file, the busy handler of ``BusyWait``, `interrupt`,
///   the `regexp` function of queries, and GRDB's errors (`DatabaseError`,
///   mapped by ``SQLiteStore/mapErrors(store:_:_:)``), so messages read as
///   they did.
///
/// One connection, used by one thread at a time (a lock), as GRDB's
/// queue serialized it. What it shares with ``SQLiteWriteStore`` is
/// ``SQLiteDirectStore``'s.
final class SQLiteReadStore: SQLiteDirectStore {
    /// SQLite's default: a page of ties or a query may read many pages again.
    static let pageCacheKiB = 2000
    let url: URL
    let model: ObjectModel
    let migrator: SchemaMigrator
    let photos: any PhotoStore
    let busyWait: BusyWait
    var isWritable: Bool { false }
    /// The shared lock that tells a failed command not to remove this
    /// store while we read it (nil when there is no lock file).
    private let lock: StoreLock?
    /// Lent to one thread at a time (``SQLiteDirectStore/withConnection(_:)``).
    let connection: SQLiteReadConnection

    private init(
        url: URL, model: ObjectModel, migrator: SchemaMigrator, busyWait: BusyWait, lock: StoreLock?,
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

    /// Opens the store at `url` to read, when it exists and its schema is
    /// this version's.
    ///
    /// - Returns: nil for every other case, which ``SQLiteStore`` opens
    ///   and words (see the type's comment).
    /// - Throws: ``CatalogError`` `.storeBusy` when the lock file stays
    ///   held by a command removing the store.
    static func open(url: URL, wait: WaitPolicy, model: ObjectModel, migrator: SchemaMigrator) throws
        -> SQLiteReadStore?
    {
        var status = stat()
        guard stat(url.fileSystemPath, &status) == 0, status.st_size > 0 else { return nil }
        let lock = try StoreLock.shared(forStoreAt: url, timeout: wait.limit, create: false, createFolder: false)
        SQLiteProcessSettings.apply()
        let busyWait = BusyWait(policy: wait, storeURL: url)
        let target = SQLiteStore.StoreConnection.forReading(url)
        guard let connection = SQLiteReadConnection(target, busyWait: busyWait) else { return nil }
        guard (try? SQLiteSchemaCheck.isCurrent(connection, model: model, migrator: migrator)) == true else {
            return nil
        }
        return SQLiteReadStore(
            url: url, model: model, migrator: migrator, busyWait: busyWait, lock: lock, connection: connection)
    }

    deinit {
        // The connection closes before the lock goes (after this body):
        // once it is released, a failed command may remove the files.
        connection.close()
    }

    // MARK: - Reads (``SQLiteDirectStore/read(_:)``)

    func transaction<T>(commit: Bool, _ body: (any StoreSession) throws -> T) throws -> T {
        throw readOnlyError()
    }

    func beginUndoRecording(title: String, insertsAsRanges: Bool, _ session: any StoreSession) throws
        -> (any UndoRecording)?
    {
        throw readOnlyError()
    }

    /// `VACUUM INTO`, outside a transaction (SQLite refuses it inside
    /// one) and with `query_only` lifted for the statement: it writes the
    /// copy, never this store.
    func copyDatabase(to destination: URL) throws {
        try mapErrors {
            try withConnection { connection in
                try connection.execute("PRAGMA query_only = 0")
                defer { try? connection.execute("PRAGMA query_only = 1") }
                try SQLiteReadSession(connection.pointer).execute(
                    sql: "VACUUM INTO ?", arguments: [destination.path])
            }
        }
    }

    // MARK: - The check's questions
    //
    // The check opens its catalog `.inspect`, in ``SQLiteStore``; the
    // questions that only read are ``SQLiteDirectStore``'s, and this
    // store refuses what would write.

    func migrateSchema(_ session: any StoreSession) throws -> [String] { throw readOnlyError() }

    func schemaDifferences(_ session: any StoreSession) throws -> [String] {
        throw CatalogError(
            .storeIO, "the catalog at \(url.path) was opened to read; open it to inspect to compare its schema")
    }

    private func readOnlyError() -> CatalogError {
        CatalogError(.storeIO, "the catalog at \(url.storeDescription) was opened read-only; this command cannot change it")
    }
}

/// One SQLite connection of ``SQLiteReadStore`` (or, opened `forWriting`,
/// of ``SQLiteWriteStore``): opened with `sqlite3_open_v2`, closed with
/// `sqlite3_close` after its statements. Used by one thread at a time,
/// through ``lend(_:)``; `pointer` is also read directly for
/// `sqlite3_interrupt`, which SQLite allows from any thread.
final class SQLiteReadConnection: @unchecked Sendable {
    let pointer: OpaquePointer
    private var closed = false
    private let lending = NSLock()

    /// Runs `body` with this connection, one thread at a time.
    func lend<T>(_ body: (SQLiteReadConnection) throws -> T) rethrows -> T {
        lending.lock()
        defer { lending.unlock() }
        return try body(self)
    }

    /// Opens `target` without creating anything, with `busyWait` as its
    /// busy handler and the `regexp` function; then `PRAGMA query_only`,
    /// or, `forWriting`, the settings GRDB's queue gives ``SQLiteStore``'s
    /// writes: foreign keys checked (GRDB's default: a wear's tie must
    /// exist, a delete cascades), `synchronous = NORMAL` (durable once the
    /// last connection's close checkpoints the WAL, as the command's
    /// ends), SQLite's extended result codes, and a point write's page
    /// cache (``SQLiteWriteStore/pageCacheKiB``).
    ///
    /// - Returns: nil when SQLite cannot open it (``SQLiteStore`` then
    ///   words why).
    init?(_ target: SQLiteStore.StoreConnection, busyWait: BusyWait, forWriting: Bool = false) {
        var pointer: OpaquePointer?
        let flags =
            (target.readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE) | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX
        guard sqlite3_open_v2(target.path, &pointer, flags, nil) == SQLITE_OK, let pointer else {
            sqlite3_close(pointer)
            return nil
        }
        self.pointer = pointer
        // The store that owns this connection holds `busyWait` for as long.
        sqlite3_busy_handler(
            pointer,
            { context, tries in
                guard let context else { return 0 }
                let busyWait = Unmanaged<BusyWait>.fromOpaque(context).takeUnretainedValue()
                return busyWait.shouldRetry(Int(tries)) ? 1 : 0
            }, Unmanaged.passUnretained(busyWait).toOpaque())
        RegularExpressionFunction.register(on: pointer)
        if forWriting { sqlite3_extended_result_codes(pointer, 1) }
        let settings =
            forWriting
            ? "PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL; "
                + "PRAGMA cache_size = -\(SQLiteWriteStore.pageCacheKiB)"
            : "PRAGMA query_only = 1"
        // One call for both: the session's `execute` runs every statement
        // of an SQL text without arguments, as GRDB's does.
        guard (try? execute(settings)) != nil else {
            close()
            return nil
        }
    }

    /// Runs `sql`, which returns no rows.
    func execute(_ sql: String) throws {
        try SQLiteReadSession(pointer).execute(sql: sql, arguments: [])
    }

    /// Runs `body` in a read transaction: one snapshot of the store.
    func inReadTransaction<T>(_ body: (OpaquePointer) throws -> T) throws -> T {
        try execute("BEGIN DEFERRED TRANSACTION")
        let result: T
        do {
            result = try body(pointer)
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
        try execute("COMMIT")
        return result
    }

    /// Closes the connection, once. `sqlite3_close_v2`: a statement still
    /// held (a cursor not yet freed) keeps it open until it is finalized.
    func close() {
        guard !closed else { return }
        closed = true
        sqlite3_close_v2(pointer)
    }

    deinit {
        close()
    }
}
