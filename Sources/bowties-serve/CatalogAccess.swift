import BowTiesKit
import Dispatch
import Foundation
import Synchronization

/// The catalog, for one request: the server holds no transaction between
/// requests, so `bowties wear` from the command line never waits for it,
/// and sees nothing of it but its own short transactions.
///
/// A read takes one of a few read-only catalogs kept between requests
/// (``ReadPool``), each checked before it is used again
/// (``Catalog/isReusable(_:)``: the same file, a current schema), so a
/// request reads what a catalog opened for it would read. A change opens
/// the catalog for the request and closes it after, as the command line
/// does.
///
/// SQLite's calls block (a write may wait for another process's), so
/// they run on Dispatch's threads, never on SwiftNIO's event loop; the
/// changes of an SQLite catalog one at a time (``writing(_:_:)``).
struct CatalogAccess: Sendable {
    let url: URL
    let pool: ReadPool

    init(url: URL) {
        self.url = url
        pool = ReadPool(url: url)
    }

    /// Runs `body` on a catalog opened read-only.
    func reading<T: Sendable>(_ body: @escaping @Sendable (Catalog) throws -> T) async throws -> T {
        let pool = pool
        return try await Self.offLoop { try pool.reading(body) }
    }

    /// Runs `body` on a catalog opened to change an existing store:
    /// `.pointWrite` for the changes of one tie the command line makes
    /// that way too (`wear`, `rate`, `favorite`: SQLite's own connection,
    /// without GRDB's queue and its set-up), `.mustExist` for the others.
    ///
    /// An SQLite catalog's changes take turns on one serial queue
    /// (``changes``): SQLite lets one writer in at a time anyway, and a
    /// change that waits for the write lock (a command holds it) sleeps in
    /// SQLite's busy handler on the thread that runs it. On the concurrent
    /// queue, wears waiting at once each held a thread and Dispatch added
    /// threads as they blocked; each thread that allocates gets a malloc
    /// arena of its own, which keeps what it freed, and the server's
    /// memory grew with the contention (bench/results/serve.md, sessions
    /// 13 and 14). In turns, at most one thread waits, and every change is
    /// still made, in the order the requests came. A PostgreSQL catalog's
    /// changes run at once, as its rows lock one by one.
    func writing<T: Sendable>(
        _ mode: Catalog.OpenMode = .mustExist, _ body: @escaping @Sendable (Catalog) throws -> T
    ) async throws -> T {
        let url = url
        return try await Self.offLoop(on: url.isStoreAddress ? Self.queue : Self.changes) {
            try body(Catalog(url: url, mode: mode))
        }
    }

    private static let queue = DispatchQueue(label: "bowties-serve.catalog", attributes: .concurrent)
    /// An SQLite catalog's changes, one at a time.
    private static let changes = DispatchQueue(label: "bowties-serve.changes")

    static func offLoop<T: Sendable>(
        on queue: DispatchQueue = queue, _ body: @escaping @Sendable () throws -> T
    ) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body() }) }
        }
    }
}

/// Read-only catalogs of an SQLite file kept between requests, at most
/// ``capacity`` of them, each lent to one request at a time.
///
/// Opening the catalog for every request (a connection, its page cache,
/// the schema parsed and checked, then all of it freed) was most of what
/// a read allocated: 3,961 allocations for a page of ties, 1,018 with a
/// kept catalog, and 2 to 3 times the pages a second under load
/// (bench/results/serve.md, session 12). A kept catalog is outside
/// any transaction between requests, which neither blocks a writer nor
/// holds back a checkpoint (as the change feed's own catalog), and it is
/// used again only when ``Catalog/isReusable(_:)`` says that a catalog
/// opened now would read the same file with the same schema; otherwise it
/// is closed and a new one opened. A PostgreSQL catalog is opened for each
/// request, as before (``Catalog/isReusable(_:)`` is false for it).
final class ReadPool: Sendable {
    let url: URL
    /// More than the requests that read at once on two cores (Dispatch
    /// runs a few); a catalog returned to a full pool is closed.
    static let capacity = 4
    private let idle = Mutex<[(catalog: Catalog, file: Catalog.FileIdentity)]>([])

    init(url: URL) {
        self.url = url
    }

    /// Runs `body` on a kept catalog that is still current, or on a new
    /// one, kept afterwards when the read succeeded.
    func reading<T>(_ body: (Catalog) throws -> T) throws -> T {
        while let kept = idle.withLock({ $0.popLast() }) {
            if kept.catalog.isReusable(kept.file) { return try use(kept, body) }
        }
        // The file is named before the open: if another file is moved
        // over the path in between, the next check sees a new inode.
        let file = Catalog.FileIdentity(of: url)
        let catalog = try Catalog(url: url, mode: .readOnly)
        guard let file, catalog.isReusable(file) else { return try body(catalog) }
        return try use((catalog, file), body)
    }

    /// `body` on `kept`, which goes back to the pool after it, even when
    /// `body` threw (a tie not found): a store that went away fails the
    /// next check.
    private func use<T>(_ kept: (catalog: Catalog, file: Catalog.FileIdentity), _ body: (Catalog) throws -> T) throws
        -> T
    {
        defer {
            idle.withLock { idle in
                if idle.count < Self.capacity { idle.append(kept) }
            }
        }
        return try body(kept.catalog)
    }
}
