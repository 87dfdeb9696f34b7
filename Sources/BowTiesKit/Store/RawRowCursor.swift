internal import GRDBSQLite
import GRDB

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
final class RawRowCursor {
    private let connection: OpaquePointer
    private let statement: OpaquePointer
    private let sql: String

    /// Prepares `sql`.
    /// - Throws: `DatabaseError` when SQLite refuses it.
    init(_ db: Database, sql: String) throws {
        (connection, statement) = try RawStatement.prepare(sql, in: db, persistent: false)
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

    /// The column as UTF-8 text (`sqlite3_column_text`), nil when NULL.
    func text(_ column: Int32) -> UnsafeBufferPointer<UInt8>? {
        guard !isNull(column), let start = sqlite3_column_text(statement, column) else { return nil }
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

@available(*, unavailable, message: "a prepared statement belongs to its connection's thread")
extension RawRowCursor: Sendable {}
