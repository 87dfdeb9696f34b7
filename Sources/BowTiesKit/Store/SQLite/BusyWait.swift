import Foundation
import Synchronization

/// SQLite's busy handler for one catalog: it sleeps between tries, says
/// once who it waits for, gives up at the policy's limit, and stops at
/// once when the command is interrupted.
final class BusyWait: Sendable {
    private struct State {
        var start: Date?
        var announced = false
        /// Who held the lock when the last wait gave up.
        var holder: String?
    }

    let policy: WaitPolicy
    let storeURL: URL
    private let state = Mutex(State())
    private let cancelled = Atomic<Bool>(false)

    init(policy: WaitPolicy, storeURL: URL) {
        self.policy = policy
        self.storeURL = storeURL
    }

    /// True once ``cancel()`` was called.
    var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

    /// Makes every wait end at once (a signal arrived).
    func cancel() { cancelled.store(true, ordering: .relaxed) }

    /// An interrupted command still waits this long: for the write lock
    /// under which it removes the photo files it wrote.
    static let cleanUpLimit: TimeInterval = 2

    /// SQLite's busy callback: true to try again.
    /// - Parameter tries: 0 for the first call of a new wait.
    func shouldRetry(_ tries: Int) -> Bool {
        let now = Date()
        let start = state.withLock { state in
            if tries == 0 || state.start == nil { state.start = now }
            return state.start ?? now
        }
        let elapsed = now.timeIntervalSince(start)
        if isCancelled && elapsed >= Self.cleanUpLimit { return false }
        if let limit = policy.limit, elapsed >= limit {
            let holder = WriteLockHolder.find(forStoreAt: storeURL).map(policy.describeHolder)
            state.withLock { $0.holder = holder }
            return false
        }
        if elapsed >= WaitPolicy.announceAfter, let onWait = policy.onWait {
            let first = state.withLock { state in
                defer { state.announced = true }
                return !state.announced
            }
            if first {
                onWait(WriteLockHolder.find(forStoreAt: storeURL).map(policy.describeHolder) ?? "another process is writing to it")
            }
        }
        usleep(useconds_t(min(1_000 << min(tries, 6), 50_000)))
        return true
    }

    /// The error for a wait that gave up.
    func busyError() -> CatalogError {
        let holder = state.withLock { $0.holder } ?? WriteLockHolder.find(forStoreAt: storeURL).map(policy.describeHolder)
        let waited = policy.limit.map { " (waited \(Self.seconds($0)))" } ?? ""
        return CatalogError(
            .storeBusy,
            "the catalog is busy: \(holder ?? "another process is changing it")\(waited)",
            hint: "Try again when it has finished, or wait longer with --wait SECONDS "
                + "(without --wait, bowties waits as long as the other command runs).")
    }

    private static func seconds(_ value: TimeInterval) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }
}
