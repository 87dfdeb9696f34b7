import BowTiesKit
import Dispatch
import Foundation

/// The catalog, opened for one request and closed after it: the server
/// holds no connection and no transaction between requests, so
/// `bowties wear` from the command line never waits for it, and sees
/// nothing of it but its own short transactions.
///
/// SQLite's calls block (a write may wait for another process's), so
/// they run on Dispatch's threads, never on SwiftNIO's event loop.
struct CatalogAccess: Sendable {
    let url: URL

    /// Runs `body` on a catalog opened read-only.
    func reading<T: Sendable>(_ body: @escaping @Sendable (Catalog) throws -> T) async throws -> T {
        try await Self.offLoop { try body(Catalog(url: url, mode: .readOnly)) }
    }

    /// Runs `body` on a catalog opened to change an existing store.
    func writing<T: Sendable>(_ body: @escaping @Sendable (Catalog) throws -> T) async throws -> T {
        try await Self.offLoop { try body(Catalog(url: url, mode: .mustExist)) }
    }

    private static let queue = DispatchQueue(label: "bowties-serve.catalog", attributes: .concurrent)

    static func offLoop<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body() }) }
        }
    }
}
