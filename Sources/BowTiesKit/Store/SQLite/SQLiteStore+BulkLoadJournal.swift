import Foundation
import GRDB

/// A store an import creates is filled through a rollback journal, not
/// the WAL.
///
/// In WAL mode an import is one transaction, so none of its pages can be
/// checkpointed until it commits: the WAL grows as large as the store
/// (3 GB at ten million ties), and so does its index, the `-shm` shared
/// memory every connection maps (8 bytes a page, 5.9 MB at ten million
/// ties against 0.6 MB at one million: the import's memory grew with
/// the catalog). Every page the import's cache misses is looked up in
/// that index, whose cost grows with it, and after the commit the
/// checkpoint copies every page a second time into the store.
///
/// With a rollback journal, pages go straight into the store file; the
/// journal holds only the few pages the store had before (none of a new
/// store's new pages need saving: rolling back truncates the file). No
/// WAL, no index to grow, no checkpoint.
///
/// What it costs, and why only a store this open created:
/// - **Readers wait.** Once the import's cache spills, it holds the
///   store's exclusive lock until it commits; a reader that opens the
///   store meanwhile waits for it (as a writer would, announced after a
///   second) instead of reading the empty catalog. Nobody can have been
///   reading a store that did not exist when the import began, and a
///   process that opened it at once (before the switch) keeps the WAL:
///   SQLite refuses to leave WAL while another connection has it open,
///   and the import then runs in WAL as any import does.
/// - **A failed import changes the header.** Leaving and entering WAL
///   each count as a change in the file's header, so a rolled-back
///   import would not leave an existing catalog byte-identical; a store
///   the import created is removed when the import fails.
/// - **Durability**: `synchronous = FULL` while the journal is used, so
///   the commit is on disk when the command returns, as in WAL.
///
/// After the commit the store goes back to WAL. A failed import leaves
/// it to the command's clean-up, which removes the store; a process that
/// ends before either (a kill), or a store another command still has
/// open, stays in rollback mode, perhaps with a hot journal that SQLite
/// rolls back at the next open; the next open that writes sets WAL again
/// (``isRollbackJournaled(_:)``).
extension SQLiteStore {
    func withBulkLoadJournal<T>(_ body: () throws -> T) throws -> T {
        guard isWritable, isCreatedByThisOpen, try leaveWAL() else { return try body() }
        // Failed: the command removes the store it created, unless
        // another command has it open; then the next open that writes
        // sets WAL again. Not here: setting it waits for every other
        // connection, and a command that waited for this import and then
        // filled the store would have closed it by then, so the clean-up
        // would remove its ties (`NewStoreTests`).
        let result = try body()
        // The import is committed: a failure here is not the import's.
        try? mapErrors { try Self.restoreWAL(database, busyWait) }
        return result
    }

    /// Switches to a rollback journal, or returns false when another
    /// connection has the store open (SQLite answers busy at once).
    private func leaveWAL() throws -> Bool {
        try mapErrors {
            do {
                return try database.writeWithoutTransaction { db in
                    guard try String.fetchOne(db, sql: "PRAGMA journal_mode = DELETE") == "delete" else { return false }
                    try db.execute(sql: "PRAGMA synchronous = FULL")
                    return true
                }
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY {
                return false
            }
        }
    }

    /// Sets WAL again (waiting, as any writer does, for readers that
    /// opened the store in rollback mode), and the usual
    /// `synchronous = NORMAL`.
    static func restoreWAL(_ database: DatabaseQueue, _ busyWait: BusyWait) throws {
        try retryingWhenBusy(busyWait) {
            try database.writeWithoutTransaction { db in
                _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
            }
        }
    }

    /// Whether the store is in rollback-journal mode rather than WAL, as
    /// SQLite's own connection sees it once it has read the header.
    ///
    /// Asked through the connection, never by opening the file: closing
    /// any other descriptor of the file drops every POSIX lock this
    /// process holds on it (SQLite's shared lock of WAL mode included),
    /// and another process closing its last connection then checkpoints
    /// and removes the WAL under this one's feet ("database disk image is
    /// malformed": `StressTests` caught it).
    static func isRollbackJournaled(_ database: DatabaseQueue) throws -> Bool {
        try database.inDatabase { db in
            // The header is read with the first statement that reads.
            _ = try Row.fetchOne(db, sql: "SELECT 1 FROM sqlite_master LIMIT 1")
            return try String.fetchOne(db, sql: "PRAGMA journal_mode") != "wal"
        }
    }
}
