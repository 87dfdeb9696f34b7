internal import GRDBSQLite
import Foundation

/// A read-only SQLite connection through SQLite's C API: the few calls
/// the reader needs, every result code turned into a ``CoreDataError``.
///
/// Not `Sendable`: one connection, used from the thread that opened it.
final class SQLiteReader {
    private let handle: OpaquePointer
    let file: String

    /// Opens `path` (a plain path, or a `file:` URI when `uri` is set).
    init(path: String, uri: Bool, readOnly: Bool, file: String) throws(CoreDataError) {
        self.file = file
        var connection: OpaquePointer?
        var flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE) | SQLITE_OPEN_NOMUTEX
        if uri { flags |= SQLITE_OPEN_URI }
        let code = sqlite3_open_v2(path, &connection, flags, nil)
        guard code == SQLITE_OK, let connection else {
            let message = connection.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(connection)
            throw CoreDataError(.unreadable, "SQLite cannot open the file: \(message)", file: file)
        }
        handle = connection
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    /// Prepares `sql`.
    func prepare(_ sql: String) throws(CoreDataError) -> Statement {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard code == SQLITE_OK, let statement else {
            sqlite3_finalize(statement)
            throw error(code, doing: sql)
        }
        return Statement(statement, reader: self, sql: sql)
    }

    /// Every row of `sql`, each as its columns' values.
    func rows(_ sql: String) throws(CoreDataError) -> [[SQLiteValue]] {
        let statement = try prepare(sql)
        var rows: [[SQLiteValue]] = []
        while try statement.step() {
            rows.append((0..<statement.columnCount).map { statement.value($0) })
        }
        return rows
    }

    /// The error for result `code`: "not a database" says the file is
    /// not SQLite, "corrupt" that it is damaged.
    func error(_ code: Int32, doing sql: String) -> CoreDataError {
        let message = String(cString: sqlite3_errmsg(handle))
        switch code & 0xFF {
        case SQLITE_NOTADB:
            return CoreDataError(.notCoreData, "not an SQLite database (\(message))", file: file)
        case SQLITE_CORRUPT:
            return CoreDataError(.damaged, "the database is damaged (\(message))", file: file)
        case SQLITE_IOERR, SQLITE_CANTOPEN, SQLITE_PERM, SQLITE_AUTH:
            return CoreDataError(.unreadable, "SQLite cannot read the file: \(message)", file: file)
        default:
            return CoreDataError(.damaged, "SQLite error \(code): \(message)", file: file)
        }
    }

    /// A prepared statement, finalized when released.
    final class Statement {
        private let handle: OpaquePointer
        private let reader: SQLiteReader
        let sql: String

        init(_ handle: OpaquePointer, reader: SQLiteReader, sql: String) {
            self.handle = handle
            self.reader = reader
            self.sql = sql
        }

        deinit {
            sqlite3_finalize(handle)
        }

        var columnCount: Int { Int(sqlite3_column_count(handle)) }

        func columnName(_ index: Int) -> String {
            sqlite3_column_name(handle, Int32(index)).map { String(cString: $0) } ?? ""
        }

        /// Advances to the next row; `false` at the end.
        func step() throws(CoreDataError) -> Bool {
            let code = sqlite3_step(handle)
            if code == SQLITE_ROW { return true }
            if code == SQLITE_DONE { return false }
            throw reader.error(code, doing: sql)
        }

        func reset() {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        }

        func bind(_ value: Int64, at index: Int) {
            sqlite3_bind_int64(handle, Int32(index), value)
        }

        func value(_ index: Int) -> SQLiteValue {
            let column = Int32(index)
            switch sqlite3_column_type(handle, column) {
            case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, column))
            case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, column))
            case SQLITE_TEXT:
                let count = Int(sqlite3_column_bytes(handle, column))
                guard let bytes = sqlite3_column_text(handle, column) else { return .text("") }
                return .text(String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self))
            case SQLITE_BLOB:
                let count = Int(sqlite3_column_bytes(handle, column))
                guard count > 0, let bytes = sqlite3_column_blob(handle, column) else { return .blob(Data()) }
                return .blob(Data(bytes: bytes, count: count))
            default: return .null
            }
        }

        func int64(_ index: Int) -> Int64 { sqlite3_column_int64(handle, Int32(index)) }
        func isNull(_ index: Int) -> Bool { sqlite3_column_type(handle, Int32(index)) == SQLITE_NULL }
    }
}

/// A value as SQLite stores it.
enum SQLiteValue: Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    var int64: Int64? {
        switch self {
        case .integer(let value): value
        case .real(let value): Int64(exactly: value.rounded(.towardZero))
        case .text(let text): Int64(text)
        default: nil
        }
    }

    var double: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .real(let value): value
        case .text(let text): Double(text)
        default: nil
        }
    }

    var text: String? {
        switch self {
        case .text(let text): text
        case .blob(let data): String(decoding: data, as: UTF8.self)
        default: nil
        }
    }
}

/// `"name"`, quoted for SQL.
func quotedIdentifier(_ name: String) -> String {
    "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
