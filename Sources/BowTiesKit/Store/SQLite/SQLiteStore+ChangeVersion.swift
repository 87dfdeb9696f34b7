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

extension SQLiteStore {
    /// How often ``waitForChange(after:timeout:)`` reads `data_version`:
    /// SQLite tells no one of another process's commit, so the one way to
    /// learn of it is to ask (a read of a number in shared memory).
    static let changePollInterval: Duration = .milliseconds(200)

    /// Reads ``changeVersion()`` every ``changePollInterval`` until it
    /// differs from `version` or `timeout` passes.
    func waitForChange(after version: Int64, timeout: Duration) throws -> Int64 {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while true {
            let now = try changeVersion()
            let remaining = clock.now.duration(to: deadline)
            if now != version || remaining <= .zero { return now }
            Thread.sleep(forTimeInterval: Self.seconds(min(remaining, Self.changePollInterval)))
        }
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
