import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What a store holds, to compare before and after a command that must
/// not change it: every row of every table, and every file beside the
/// store.
///
/// The end-to-end tests depend on the `bowties` binary only, so the rows
/// are read through the system's SQLite library, loaded with `dlopen`
/// (the library GRDB links; no sqlite3 shell needed).
struct StoreSnapshot: Equatable {
    /// `sqlite_master`, then each table's rows in rowid order, one line
    /// per row. Blobs appear as their size and an FNV-1a hash.
    var rows: [String]
    /// Every path under the store's folder, with type, size and content
    /// hash, except the SQLite file's size and hash: SQLite may rewrite
    /// pages of an unchanged database, so its content is compared by
    /// ``rows``.
    var files: [String]
    /// Every path under the store's folder, each regular file with its
    /// size and SHA-256, the SQLite file and its `-wal` included: for
    /// commands that must leave the catalog byte-identical. `-shm` files
    /// are left out: SQLite's shared memory, which readers write to.
    var checksums: [String]

    /// Reads the store at `storeURL` and lists its folder.
    ///
    /// - Throws: ``SQLiteLibrary/Failure`` when the store cannot be read.
    init(storeURL: URL) throws {
        let folder = storeURL.deletingLastPathComponent()
        rows = try SQLiteLibrary().dump(storeURL.path)
        files = Self.listing(of: folder, except: storeURL.lastPathComponent)
        checksums = try Self.checksums(of: folder)
    }

    /// Lines that are in one snapshot and not in the other, for messages.
    func difference(from other: StoreSnapshot) -> String {
        let mine = rows + files
        let theirs = other.rows + other.files
        let removed = theirs.filter { !mine.contains($0) }.map { "- " + $0.prefix(200) }
        let added = mine.filter { !theirs.contains($0) }.map { "+ " + $0.prefix(200) }
        return (removed + added).joined(separator: "\n")
    }

    /// True when every file beside the store (the store, its `-wal`, the
    /// photo folder, anything else) has the same bytes, and none appeared
    /// or disappeared.
    func isByteIdentical(to other: StoreSnapshot) -> Bool {
        checksums == other.checksums
    }

    /// The files whose bytes differ, appeared or disappeared, for messages.
    func byteDifference(from other: StoreSnapshot) -> String {
        Self.difference(checksums, from: other.checksums)
    }

    /// Lines of `new` not in `old` (`+`) and of `old` not in `new` (`-`).
    static func difference(_ new: [String], from old: [String]) -> String {
        let removed = old.filter { !new.contains($0) }.map { "- " + $0 }
        let added = new.filter { !old.contains($0) }.map { "+ " + $0 }
        return (removed + added).joined(separator: "\n")
    }

    /// `path/` for each folder, `path SIZE bytes SHA256` for each regular
    /// file, sorted; `-shm` files left out (and never opened: see
    /// ``listing(of:except:)``).
    ///
    /// The hashes come from coreutils' `sha256sum`, independently of the
    /// code under test.
    static func checksums(of folder: URL) throws -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: folder.path) else { return [] }
        var lines: [String] = []
        var regular: [(path: String, size: Int)] = []
        while let path = enumerator.nextObject() as? String {
            var info = stat()
            guard lstat(folder.appendingPathComponent(path).path, &info) == 0 else { continue }
            switch info.st_mode & S_IFMT {
            case S_IFDIR: lines.append("\(path)/")
            case S_IFREG where path.hasSuffix("-shm"): continue
            case S_IFREG: regular.append((path, Int(info.st_size)))
            default: lines.append("\(path) (not a regular file)")
            }
        }
        let hashes = try sha256sum(regular.map { folder.appendingPathComponent($0.path).path })
        for (file, hash) in zip(regular, hashes) {
            lines.append("\(file.path) \(file.size) bytes \(hash)")
        }
        return lines.sorted()
    }

    /// The SHA-256 of each file, in order, from one `sha256sum` run.
    private static func sha256sum(_ paths: [String]) throws -> [String] {
        guard !paths.isEmpty else { return [] }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["sha256sum", "--"] + paths
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let hashes = text.split(separator: "\n").map { line in
            // A name with a backslash or newline gets a leading "\\".
            String((line.hasPrefix("\\") ? line.dropFirst() : line[...]).prefix(64))
        }
        guard process.terminationStatus == 0, hashes.count == paths.count else {
            throw SQLiteLibrary.Failure(description: "sha256sum failed on \(paths)")
        }
        return hashes
    }

    private static func listing(of folder: URL, except storeName: String) -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: folder.path) else { return [] }
        var lines: [String] = []
        while let path = enumerator.nextObject() as? String {
            let url = folder.appendingPathComponent(path)
            var info = stat()
            guard lstat(url.path, &info) == 0 else { continue }
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                lines.append("\(path)/")
            case S_IFREG where path == storeName:
                lines.append(path)
            case S_IFREG where path.hasSuffix("-shm"):
                // Never opened here: closing any descriptor of a file drops
                // every POSIX lock this process holds on it, such as the
                // write lock of a test's own SQLite connection.
                lines.append("\(path) (shared memory)")
            case S_IFREG:
                let hash = (try? Data(contentsOf: url)).map { fnv1a($0) } ?? 0
                lines.append("\(path) \(info.st_size) bytes \(String(hash, radix: 16))")
            default:
                lines.append("\(path) (not a regular file)")
            }
        }
        return lines.sorted()
    }
}

/// FNV-1a, 64 bits: enough to tell contents apart in a test.
func fnv1a(_ data: Data) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in data {
        hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
    }
    return hash
}

/// The few SQLite functions a dump (or a deliberate change, to damage a
/// store as a faulty disk would) needs, looked up in the system library.
///
/// Not `Sendable`: holds C function pointers; make one where it is used.
struct SQLiteLibrary {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private typealias OpenV2 =
        @convention(c) (
            UnsafePointer<CChar>?, UnsafeMutablePointer<OpaquePointer?>?, Int32, UnsafePointer<CChar>?
        ) -> Int32
    private typealias PrepareV2 =
        @convention(c) (
            OpaquePointer?, UnsafePointer<CChar>?, Int32, UnsafeMutablePointer<OpaquePointer?>?,
            UnsafeMutablePointer<UnsafePointer<CChar>?>?
        ) -> Int32
    private typealias Statement = @convention(c) (OpaquePointer?) -> Int32
    private typealias Column = @convention(c) (OpaquePointer?, Int32) -> Int32
    private typealias ColumnInt64 = @convention(c) (OpaquePointer?, Int32) -> Int64
    private typealias ColumnDouble = @convention(c) (OpaquePointer?, Int32) -> Double
    private typealias ColumnText = @convention(c) (OpaquePointer?, Int32) -> UnsafePointer<UInt8>?
    private typealias ColumnBlob = @convention(c) (OpaquePointer?, Int32) -> UnsafeRawPointer?
    private typealias ErrorMessage = @convention(c) (OpaquePointer?) -> UnsafePointer<CChar>?
    /// `sqlite3_exec`, always called without a callback.
    private typealias Exec =
        @convention(c) (
            OpaquePointer?, UnsafePointer<CChar>?, OpaquePointer?, UnsafeMutableRawPointer?,
            UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        ) -> Int32

    private let open: OpenV2
    private let prepare: PrepareV2
    private let step: Statement
    private let finalize: Statement
    private let close: Statement
    private let columnCount: Statement
    private let columnType: Column
    private let columnBytes: Column
    private let columnInt64: ColumnInt64
    private let columnDouble: ColumnDouble
    private let columnText: ColumnText
    private let columnBlob: ColumnBlob
    private let errorMessage: ErrorMessage
    private let exec: Exec

    // From sqlite3.h.
    private static let ok: Int32 = 0
    private static let row: Int32 = 100
    private static let done: Int32 = 101
    private static let openReadOnly: Int32 = 0x01
    private static let openReadWrite: Int32 = 0x02
    private static let openURI: Int32 = 0x40
    private static let integer: Int32 = 1
    private static let float: Int32 = 2
    private static let text: Int32 = 3
    private static let blob: Int32 = 4

    init() throws {
        guard let handle = dlopen("libsqlite3.so.0", RTLD_NOW) ?? dlopen("libsqlite3.so", RTLD_NOW) else {
            throw Failure(description: "cannot load libsqlite3: \(String(cString: dlerror()))")
        }
        func symbol<T>(_ name: String, as type: T.Type) throws -> T {
            guard let address = dlsym(handle, name) else {
                throw Failure(description: "libsqlite3 has no \(name)")
            }
            return unsafeBitCast(address, to: type)
        }
        open = try symbol("sqlite3_open_v2", as: OpenV2.self)
        prepare = try symbol("sqlite3_prepare_v2", as: PrepareV2.self)
        step = try symbol("sqlite3_step", as: Statement.self)
        finalize = try symbol("sqlite3_finalize", as: Statement.self)
        close = try symbol("sqlite3_close_v2", as: Statement.self)
        columnCount = try symbol("sqlite3_column_count", as: Statement.self)
        columnType = try symbol("sqlite3_column_type", as: Column.self)
        columnBytes = try symbol("sqlite3_column_bytes", as: Column.self)
        columnInt64 = try symbol("sqlite3_column_int64", as: ColumnInt64.self)
        columnDouble = try symbol("sqlite3_column_double", as: ColumnDouble.self)
        columnText = try symbol("sqlite3_column_text", as: ColumnText.self)
        columnBlob = try symbol("sqlite3_column_blob", as: ColumnBlob.self)
        errorMessage = try symbol("sqlite3_errmsg", as: ErrorMessage.self)
        exec = try symbol("sqlite3_exec", as: Exec.self)
    }

    /// Runs `sql` on the database at `path`, behind the back of bowties,
    /// as a faulty disk or another tool would change it.
    ///
    /// Run it only while no `bowties` process is running: it takes no lock
    /// of bowties' own, and closing the last connection checkpoints the
    /// change into the database file.
    func execute(_ sql: String, in path: String) throws {
        var database: OpaquePointer?
        guard open(path, &database, Self.openReadWrite, nil) == Self.ok else {
            let message = database.flatMap { errorMessage($0) }.map { String(cString: $0) } ?? "?"
            _ = close(database)
            throw Failure(description: "cannot open \(path): \(message)")
        }
        defer { _ = close(database) }
        guard exec(database, sql, nil, nil, nil) == Self.ok else {
            throw Failure(description: "\(sql): \(errorMessage(database).map { String(cString: $0) } ?? "?")")
        }
    }

    /// Every row of the database at `path`: `sqlite_master` first, then
    /// each table by name, rows in rowid order.
    ///
    /// The file is opened `immutable=1`: no lock, no `-wal` or `-shm` file
    /// created beside it, so reading changes nothing the test compares.
    /// (A `-wal` file left behind by a command would show in the listing.)
    func dump(_ path: String) throws -> [String] {
        var database: OpaquePointer?
        let uri = "file:\(path)?immutable=1"
        guard open(uri, &database, Self.openReadOnly | Self.openURI, nil) == Self.ok else {
            let message = database.flatMap { errorMessage($0) }.map { String(cString: $0) } ?? "?"
            _ = close(database)
            throw Failure(description: "cannot open \(path): \(message)")
        }
        defer { _ = close(database) }

        let master = try rows(database, "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name")
        let tables = try rows(
            database, "SELECT name, sql LIKE '%WITHOUT ROWID' FROM sqlite_master WHERE type = 'table' ORDER BY name",
            quotingText: false)
        var lines = master.map { "sqlite_master: " + $0.joined(separator: " | ") }
        for table in tables {
            guard let name = table.first else { continue }
            let quoted = "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            // A table without rowid is in its primary key's order.
            let order = table.last == "1" ? "" : " ORDER BY rowid"
            for row in try rows(database, "SELECT * FROM \(quoted)\(order)") {
                lines.append("\(name): " + row.joined(separator: " | "))
            }
        }
        return lines
    }

    /// The rows `sql` returns, each value as text: text in quotes (unless
    /// `quotingText` is false), numbers as written, blobs summarised.
    private func rows(_ database: OpaquePointer?, _ sql: String, quotingText: Bool = true) throws -> [[String]] {
        var statement: OpaquePointer?
        guard prepare(database, sql, -1, &statement, nil) == Self.ok else {
            throw Failure(description: "\(sql): \(errorMessage(database).map { String(cString: $0) } ?? "?")")
        }
        defer { _ = finalize(statement) }
        var result: [[String]] = []
        while true {
            let status = step(statement)
            if status == Self.done { return result }
            guard status == Self.row else {
                throw Failure(description: "\(sql): \(errorMessage(database).map { String(cString: $0) } ?? "?")")
            }
            result.append((0..<columnCount(statement)).map { cell(statement, $0, quotingText: quotingText) })
        }
    }

    private func cell(_ statement: OpaquePointer?, _ index: Int32, quotingText: Bool) -> String {
        switch columnType(statement, index) {
        case Self.integer:
            return String(columnInt64(statement, index))
        case Self.float:
            return "\(columnDouble(statement, index))"
        case Self.text:
            // The pointer first, then its size: SQLite's documented order.
            guard let text = columnText(statement, index) else { return "''" }
            let count = Int(columnBytes(statement, index))
            let value = String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
            return quotingText ? "'" + value + "'" : value
        case Self.blob:
            guard let bytes = columnBlob(statement, index) else { return "x''" }
            let count = Int(columnBytes(statement, index))
            let hash = fnv1a(Data(bytes: bytes, count: count))
            return "blob(\(count) bytes, \(String(hash, radix: 16)))"
        default:
            return "NULL"
        }
    }
}
