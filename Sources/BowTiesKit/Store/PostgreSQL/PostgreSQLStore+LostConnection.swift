import Foundation

extension PostgreSQLStore {
    /// Whether an error's SQLSTATE means the connection is gone: none at
    /// all (libpq found the socket closed), class 08 (connection
    /// exception), or the server ending it (57P01 an administrator's
    /// `pg_terminate_backend` or a fast shutdown, 57P02 a crash of
    /// another backend, 57P03 a server that cannot take connections).
    /// The server rolls back every transaction of a connection it loses.
    static func isLostConnection(_ sqlState: String) -> Bool {
        sqlState.isEmpty || sqlState.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(sqlState)
    }
}
