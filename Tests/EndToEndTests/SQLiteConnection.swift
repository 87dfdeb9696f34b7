import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A read-write connection to a store, opened in the test process through
/// the system's SQLite library (loaded with `dlopen`, as ``SQLiteLibrary``
/// does): another program using the catalog while bowties runs.
///
/// ```swift
/// let other = try SQLiteConnection(path: store.path)
/// try other.execute("BEGIN IMMEDIATE")   // holds the write lock
/// ...
/// try other.execute("ROLLBACK")
/// ```
///
/// Automatic checkpoints are off, so what this connection commits stays in
/// the `-wal` file for as long as it is open. Closed in `deinit`, which
/// (as the last connection) checkpoints and removes the `-wal` file.
///
/// Not `Sendable`: a C connection used from one thread.
final class SQLiteConnection {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private typealias OpenV2 =
        @convention(c) (
            UnsafePointer<CChar>?, UnsafeMutablePointer<OpaquePointer?>?, Int32, UnsafePointer<CChar>?
        ) -> Int32
    private typealias Exec =
        @convention(c) (
            OpaquePointer?, UnsafePointer<CChar>?, OpaquePointer?, OpaquePointer?,
            UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        ) -> Int32
    private typealias Close = @convention(c) (OpaquePointer?) -> Int32
    private typealias ErrorMessage = @convention(c) (OpaquePointer?) -> UnsafePointer<CChar>?
    private typealias Free = @convention(c) (UnsafeMutableRawPointer?) -> Void

    private let exec: Exec
    private let close: Close
    private let errorMessage: ErrorMessage
    private let free: Free
    private var database: OpaquePointer?
    let path: String

    // From sqlite3.h.
    private static let ok: Int32 = 0
    private static let openReadWrite: Int32 = 0x02

    /// Opens the existing store at `path` read-write.
    /// - Throws: ``Failure`` when the library or the store cannot be opened.
    init(path: String) throws {
        self.path = path
        guard let handle = dlopen("libsqlite3.so.0", RTLD_NOW) ?? dlopen("libsqlite3.so", RTLD_NOW) else {
            throw Failure(description: "cannot load libsqlite3: \(String(cString: dlerror()))")
        }
        func symbol<T>(_ name: String, as type: T.Type) throws -> T {
            guard let address = dlsym(handle, name) else { throw Failure(description: "libsqlite3 has no \(name)") }
            return unsafeBitCast(address, to: type)
        }
        let open = try symbol("sqlite3_open_v2", as: OpenV2.self)
        exec = try symbol("sqlite3_exec", as: Exec.self)
        close = try symbol("sqlite3_close_v2", as: Close.self)
        errorMessage = try symbol("sqlite3_errmsg", as: ErrorMessage.self)
        free = try symbol("sqlite3_free", as: Free.self)
        var database: OpaquePointer?
        guard open(path, &database, Self.openReadWrite, nil) == Self.ok else {
            let message = database.flatMap { errorMessage($0) }.map { String(cString: $0) } ?? "?"
            _ = close(database)
            throw Failure(description: "cannot open \(path): \(message)")
        }
        self.database = database
        try execute("PRAGMA busy_timeout = 10000; PRAGMA wal_autocheckpoint = 0")
    }

    deinit {
        _ = close(database)
    }

    /// Runs `sql` (one or more statements; rows are ignored).
    /// - Throws: ``Failure`` with SQLite's message.
    func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let status = exec(database, sql, nil, nil, &message)
        guard status == Self.ok else {
            let text = message.map { String(cString: $0) } ?? errorMessage(database).map { String(cString: $0) } ?? "?"
            free(message)
            throw Failure(description: "\(sql): \(text) (\(status))")
        }
    }
}
