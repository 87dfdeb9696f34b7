import Foundation

/// The face of the place a catalog's records live: what ``Catalog`` and
/// every layer above it (edit, query, import, export, undo, check,
/// report) use, and all they know of it. ``SQLiteStore`` is the one
/// conformer today; `docs/ARCHITECTURE.md` sketches how a PostgreSQL one
/// slots in beside it.
///
/// A conformer opens its store in a ``Catalog/OpenMode`` (creating or
/// upgrading the schema only in the modes that write, through its own
/// frozen migrations), hands out sessions (``StoreSession``) inside a read
/// snapshot or a write transaction, records each write as an undoable
/// action, and answers the check's questions about its own schema and
/// integrity. Photo files stay with its ``PhotoStore``; the blob rows that
/// refer to them are ordinary rows.
protocol CatalogStore: AnyObject, Sendable {
    /// Where the store is: its file (SQLite) or its address, for messages.
    var url: URL { get }
    /// How its SQL spells what backends do not agree on.
    var dialect: SQLDialect { get }
    /// False for the modes that only read.
    var isWritable: Bool { get }
    /// Where the bytes of photos kept outside the `blob` table live, one
    /// file per SHA-256 (the folder beside an SQLite store; none for a
    /// store that keeps them all in its rows); the `blob` rows that say
    /// which are ordinary rows of the store.
    var photos: any PhotoStore { get }
    /// Set when opening upgraded the schema from an earlier release's.
    var upgradedSchema: Catalog.SchemaVersions? { get }
    /// Set when a read-only open reads an earlier release's schema
    /// without upgrading it.
    var olderSchema: Catalog.SchemaVersions? { get }

    /// Runs `body` in a read snapshot: it sees one moment of the store,
    /// and never changes a byte of it.
    func read<T>(_ body: (any StoreSession) throws -> T) throws -> T

    /// Runs `body` in a write transaction that holds the store's write
    /// lock from its start (writers queue; readers are never blocked), and
    /// commits it when `commit` is true, or rolls it back.
    func transaction<T>(commit: Bool, _ body: (any StoreSession) throws -> T) throws -> T

    /// Starts recording the changes of the transaction `session` is in as
    /// the undoable action `title` (nil when the store keeps no undo
    /// history). `insertsAsRanges` logs the rows it adds as one range per
    /// table (imports).
    func beginUndoRecording(title: String, insertsAsRanges: Bool, _ session: any StoreSession) throws
        -> (any UndoRecording)?

    /// Stops what the store is doing as soon as possible (a signal
    /// arrived): the running statement fails, waits end.
    func interrupt()
    var isInterrupted: Bool { get }

    /// Waits, without taking it, until no writer holds or is about to take
    /// the write lock.
    func waitForWriters() throws

    /// Runs `body` with a page cache of `kibibytes` (an import, or an undo
    /// that may touch as many rows), then the store's usual one.
    func withCacheSize<T>(kibibytes: Int, _ body: () throws -> T) throws -> T

    /// Runs `body`, one write transaction that fills the catalog (an
    /// import), with the journal that suits a bulk load; the same
    /// guarantees hold either way. ``SQLiteStore`` writes a store that
    /// this open created through a rollback journal instead of its WAL
    /// (``SQLiteStore/withBulkLoadJournal(_:)``); other stores run `body`
    /// as it is.
    func withBulkLoadJournal<T>(_ body: () throws -> T) throws -> T

    /// The message of a backend error `body` let through, or nil for
    /// another error (the check reports an unreadable store as a problem).
    func failureMessage(_ error: any Error) -> String?

    /// Turns the backend's errors thrown by `body` into ``CatalogError``s.
    func mapErrors<T>(_ body: () throws -> T) throws -> T

    /// Brings what the store's query planner knows of its tables up to
    /// date after a write that added or changed many rows (an import),
    /// outside any transaction. PostgreSQL's `ANALYZE`; nothing on SQLite,
    /// whose planner has never been given statistics (`ANALYZE`) and
    /// chooses by the indexes alone.
    func refreshStatistics() throws

    /// Writes a consistent copy of the store to `destination`, reading
    /// only (a dry run works on the copy).
    func copyDatabase(to destination: URL) throws

    /// A number that differs after another connection or process
    /// committed a change (``Catalog/changeVersion()``). Asked outside any
    /// transaction, often: it must not wait for writers, nor keep a
    /// snapshot open. SQLite's `PRAGMA data_version`; a PostgreSQL store
    /// counts the `NOTIFY`s its triggers raise (`LISTEN`).
    func changeVersion() throws -> Int64

    /// Waits until ``changeVersion()`` differs from `version`, or
    /// `timeout` passes, and returns it (`bowties serve`'s watcher calls
    /// it in a loop). SQLite reads `data_version` every 200 ms, as no one
    /// tells it of another process's commit; a PostgreSQL store sleeps on
    /// its connection's socket until a notification arrives.
    func waitForChange(after version: Int64, timeout: Duration) throws -> Int64

    // MARK: The check's questions

    /// Where the schema stands against the frozen migrations.
    func schemaState(_ session: any StoreSession) throws -> SchemaState
    /// The identifiers of every migration this version knows, oldest first.
    var migrationIdentifiers: [String] { get }
    /// Applies the migrations not yet applied (the check's repair).
    @discardableResult
    func migrateSchema(_ session: any StoreSession) throws -> [String]
    /// The backend's own integrity check, as lines ("ok" when sound).
    func integrityCheck(_ session: any StoreSession) throws -> [String]
    /// Rows whose foreign keys lead nowhere.
    func foreignKeyViolations(_ session: any StoreSession) throws -> [ForeignKeyViolation]
    /// How the live schema differs from the one the declaration makes.
    func schemaDifferences(_ session: any StoreSession) throws -> [String]
}

extension CatalogStore {
    func refreshStatistics() throws {}
}

/// One action's recording, begun by
/// ``CatalogStore/beginUndoRecording(title:insertsAsRanges:_:)``.
protocol UndoRecording {
    /// Files the action in the history (or drops it when it changed
    /// nothing), keeping at most `limit` actions.
    /// - Returns: The SHA-256 of photos that only dropped actions held.
    func finish(title: String, limit: Int, _ session: any StoreSession) throws -> Set<String>
}

/// A row whose foreign key leads nowhere.
struct ForeignKeyViolation: Sendable {
    var table: String
    /// The row's number (nil when the backend cannot say).
    var rowid: Int64?
    /// The table the key should lead to.
    var parent: String
}

/// Where a store's schema stands against its frozen migrations.
enum SchemaState: Equatable, Sendable {
    /// No migration applied: a new store, or one whose creation was
    /// interrupted (GRDB's migrator created its table before its
    /// first transaction).
    case uncreated
    /// Some migrations applied, these still to apply, in order.
    case outdated(pending: [String])
    /// Every migration applied, and no other.
    case current
    /// Migrations this version does not know were applied: a newer
    /// bowties wrote the store.
    case newer(unknown: [String])
}
