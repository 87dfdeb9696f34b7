import BowTiesKit
import Foundation
import ServiceLifecycle
import Synchronization

/// Tells open pages that the catalog changed, whoever changed it: the
/// command line, another browser, this server.
///
/// One catalog opened read-only waits for its next change
/// (``Catalog/waitForChange(after:timeout:)``: SQLite's `PRAGMA
/// data_version` read every 200 ms outside any transaction, which never
/// blocks a writer nor holds back a checkpoint; on PostgreSQL, `LISTEN` on
/// the watcher's own connection, woken by the store's triggers' `NOTIFY`).
/// When the number moves, every subscriber (an `/api/events` stream) gets
/// a new one. The feed does not know the backend.
/// A service of the application: it stops with it, and ends every stream
/// then, so that a graceful shutdown does not wait for open pages.
final class ChangeFeed: Service, Sendable {
    let storeURL: URL
    private let subscribers = Mutex<[UUID: AsyncStream<Int64>.Continuation]>([:])
    private let latest = Mutex<Int64>(0)
    /// How long one wait lasts before the feed looks whether the server
    /// is stopping (and how soon it retries an unreadable store).
    static let interval: Duration = .milliseconds(250)

    init(storeURL: URL) {
        self.storeURL = storeURL
    }

    /// A stream of change numbers (and -1 for each ``ping(_:)``); it ends
    /// when the server stops (or the caller stops reading it).
    func subscribe() -> (id: UUID, stream: AsyncStream<Int64>) {
        let id = UUID()
        let (stream, continuation) = AsyncStream.makeStream(of: Int64.self, bufferingPolicy: .bufferingNewest(4))
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.removeValue(forKey: id) }
        }
        subscribers.withLock { $0[id] = continuation }
        return (id, stream)
    }

    /// Sends -1 to one subscriber: its stream writes a comment, which
    /// fails once the page is gone.
    func ping(_ id: UUID) {
        _ = subscribers.withLock { $0[id] }?.yield(-1)
    }

    var subscriberCount: Int { subscribers.withLock { $0.count } }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            var watcher: (catalog: Catalog, version: Int64)?
            var lost = false
            while !Task.isCancelled {
                do {
                    guard let current = watcher else {
                        let catalog = try await CatalogAccess.offLoop {
                            try Catalog(url: self.storeURL, mode: .readOnly)
                        }
                        watcher = (catalog, try await CatalogAccess.offLoop { try catalog.changeVersion() })
                        // A change may have come and gone while the store
                        // could not be read.
                        if lost { self.publish() }
                        lost = false
                        continue
                    }
                    let (catalog, version) = current
                    let now = try await CatalogAccess.offLoop {
                        try catalog.waitForChange(after: version, timeout: Self.interval)
                    }
                    if now != version { self.publish() }
                    watcher = (catalog, now)
                } catch {
                    // The store is gone or unreadable for now: try again
                    // with a new catalog after a pause.
                    watcher = nil
                    lost = true
                    try? await Task.sleep(for: Self.interval)
                }
            }
        }
        finishAll()
    }

    /// Sends one more change to every subscriber.
    func publish() {
        let value = latest.withLock { value -> Int64 in
            value += 1
            return value
        }
        for continuation in subscribers.withLock({ Array($0.values) }) { continuation.yield(value) }
    }

    /// Ends one stream (its page's server is stopping).
    func finish(_ id: UUID) {
        subscribers.withLock { $0.removeValue(forKey: id) }?.finish()
    }

    /// Ends every stream: the server is stopping.
    func finishAll() {
        let all = subscribers.withLock { all in
            defer { all.removeAll() }
            return Array(all.values)
        }
        for continuation in all { continuation.finish() }
    }
}
