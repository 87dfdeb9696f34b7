import Foundation
import GRDB

extension SQLiteStore {
    /// `PRAGMA data_version` on the store's one connection, outside any
    /// transaction (GRDB's `inDatabase` opens none): SQLite changes it
    /// when another connection, of this process or another, committed
    /// since the last reading. The statement holds a read mark only while
    /// it runs, so a checkpoint is never held back by the poller.
    /// (SQLite's update hook and GRDB's observation see only this
    /// connection's own changes, which a read-only catalog never makes.)
    func changeVersion() throws -> Int64 {
        try database.inDatabase { db in try Int64.fetchOne(db, sql: "PRAGMA data_version") ?? 0 }
    }
}
