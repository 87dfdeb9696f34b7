import Foundation
import GRDB
internal import GRDBSQLite

/// Steps through the rows of one query with SQLite's C API and lends out
/// column values without copying them.
///
/// For the export, which reads every row once and turns each value
/// straight into CSV bytes: going through GRDB's `Row` and a ``BowTie``
/// per row costs several times what SQLite spends. The statement is
/// prepared on the connection GRDB lends the read transaction
/// (`Database.sqliteConnection`), finalized in `deinit`, and must not
/// outlive that transaction.
///
/// Buffers returned by ``text(_:)`` and ``blob(_:)`` are valid until the
/// next ``step()``.
final class RawRowCursor: RawRows {
    private let connection: OpaquePointer
    private let statement: OpaquePointer
    private let sql: String

    /// Prepares `sql` and binds `arguments` to its `?` in order.
    /// - Throws: `DatabaseError` when SQLite refuses it or an argument.
    convenience init(_ db: Database, sql: String, arguments: [DatabaseValue] = []) throws {
        guard let connection = db.sqliteConnection else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "the database is closed")
        }
        try self.init(connection: connection, sql: sql, arguments: arguments)
    }

    /// Prepares `sql` on `connection` (GRDB's, or ``SQLiteReadStore``'s
    /// own) and binds `arguments` to its `?` in order.
    init(connection: OpaquePointer, sql: String, arguments: [DatabaseValue]) throws {
        let statement = try RawStatement.prepare(sql, on: connection, persistent: false)
        for (offset, value) in arguments.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch value.storage {
            case .null: code = sqlite3_bind_null(statement, index)
            case .int64(let number): code = sqlite3_bind_int64(statement, index, number)
            case .double(let number): code = sqlite3_bind_double(statement, index, number)
            case .string(let text): code = sqlite3_bind_text(statement, index, text, -1, transient)
            case .blob(let data):
                code = data.withUnsafeBytes {
                    sqlite3_bind_blob(statement, index, $0.baseAddress, Int32($0.count), transient)
                }
            }
            guard code == SQLITE_OK else {
                let error = RawStatement.error(code, connection, sql)
                sqlite3_finalize(statement)
                throw error
            }
        }
        self.connection = connection
        self.statement = statement
        self.sql = sql
    }

    /// `sqlite3_finalize`.
    deinit {
        sqlite3_finalize(statement)
    }

    /// Moves to the next row (`sqlite3_step`).
    /// - Returns: false after the last row.
    /// - Throws: `DatabaseError`.
    func step() throws -> Bool {
        let code = sqlite3_step(statement)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            throw RawStatement.error(code, connection, sql)
        }
    }

    func isNull(_ column: Int32) -> Bool {
        sqlite3_column_type(statement, column) == SQLITE_NULL
    }

    /// The column as UTF-8 text (`sqlite3_column_text`), nil when NULL
    /// (for which SQLite returns a null pointer: no type check needed).
    func text(_ column: Int32) -> UnsafeBufferPointer<UInt8>? {
        guard let start = sqlite3_column_text(statement, column) else { return nil }
        return UnsafeBufferPointer(start: start, count: Int(sqlite3_column_bytes(statement, column)))
    }

    /// The column's bytes (`sqlite3_column_blob`), nil when NULL.
    func blob(_ column: Int32) -> UnsafeRawBufferPointer? {
        guard !isNull(column) else { return nil }
        let count = Int(sqlite3_column_bytes(statement, column))
        guard count > 0, let start = sqlite3_column_blob(statement, column) else {
            return UnsafeRawBufferPointer(start: nil, count: 0)
        }
        return UnsafeRawBufferPointer(start: start, count: count)
    }

    func double(_ column: Int32) -> Double? {
        isNull(column) ? nil : sqlite3_column_double(statement, column)
    }

    func int64(_ column: Int32) -> Int64? {
        isNull(column) ? nil : sqlite3_column_int64(statement, column)
    }
}

/// `SQLITE_TRANSIENT`: SQLite copies the bound bytes (a macro Swift cannot
/// import).
private let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

@available(*, unavailable, message: "a prepared statement belongs to its connection's thread")
extension RawRowCursor: Sendable {}
