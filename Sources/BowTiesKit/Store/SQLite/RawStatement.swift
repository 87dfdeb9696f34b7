internal import GRDBSQLite
import GRDB

/// Preparing a statement with SQLite's C API on a GRDB connection, and
/// turning SQLite's result codes into GRDB's errors: shared by the two
/// hot paths that bypass GRDB's statements (``BowTieInsertStatement``,
/// ``RawRowCursor``). The caller owns the statement and finalizes it.
enum RawStatement {
    /// `sqlite3_prepare_v3` on the connection GRDB lends `db`.
    /// - Parameter persistent: `SQLITE_PREPARE_PERSISTENT`, for a
    ///   statement run many times.
    /// - Returns: The connection and the prepared statement.
    /// - Throws: `DatabaseError` when the database is closed or SQLite
    ///   refuses `sql`.
    static func prepare(
        _ sql: String, in db: Database, persistent: Bool
    ) throws -> (connection: OpaquePointer, statement: OpaquePointer) {
        guard let connection = db.sqliteConnection else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "the database is closed")
        }
        return (connection, try prepare(sql, on: connection, persistent: persistent))
    }

    /// `sqlite3_prepare_v3` on `connection` itself (``SQLiteReadStore``'s,
    /// which GRDB does not manage).
    /// - Throws: `DatabaseError` when SQLite refuses `sql`.
    static func prepare(_ sql: String, on connection: OpaquePointer, persistent: Bool) throws -> OpaquePointer {
        var prepared: OpaquePointer?
        let flags = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        let code = sqlite3_prepare_v3(connection, sql, -1, flags, &prepared, nil)
        guard code == SQLITE_OK, let prepared else {
            sqlite3_finalize(prepared)
            throw error(code, connection, sql)
        }
        return prepared
    }

    /// The `DatabaseError` for result `code`, with SQLite's message.
    static func error(_ code: Int32, _ connection: OpaquePointer, _ sql: String) -> DatabaseError {
        DatabaseError(
            resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(connection)), sql: sql)
    }
}
