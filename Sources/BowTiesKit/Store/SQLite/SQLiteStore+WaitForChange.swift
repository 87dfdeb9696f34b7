import Foundation

/// SQLite tells no one of another process's commit, so the one way to
/// learn of it is to ask: both SQLite stores (the writer's ``SQLiteStore``
/// and the reads' ``SQLiteReadStore``) wait for a change by reading
/// `data_version` (a number in shared memory) every
/// ``changePollInterval``.
protocol PollsForChanges: CatalogStore {}

extension SQLiteStore: PollsForChanges {}
extension SQLiteReadStore: PollsForChanges {}

extension PollsForChanges {
    /// How often ``waitForChange(after:timeout:)`` reads `data_version`.
    static var changePollInterval: Duration { .milliseconds(200) }

    /// Reads ``CatalogStore/changeVersion()`` every ``changePollInterval``
    /// until it differs from `version` or `timeout` passes.
    func waitForChange(after version: Int64, timeout: Duration) throws -> Int64 {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while true {
            let now = try changeVersion()
            let remaining = clock.now.duration(to: deadline)
            if now != version || remaining <= .zero { return now }
            let (seconds, attoseconds) = min(remaining, Self.changePollInterval).components
            Thread.sleep(forTimeInterval: TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18)
        }
    }
}
