import Foundation
import GRDB
internal import GRDBSQLite

/// ``StoreSession`` on a connection of ``SQLiteReadStore`` or
/// ``SQLiteWriteStore``: SQLite's C API itself, lent for one read
/// snapshot or one write transaction.
///
/// Values come out as GRDB's `Row` gives them to ``SQLiteSession``
/// (integers, reals, text through `sqlite3_column_text`, blobs, NULL), and
/// errors are GRDB's `DatabaseError`, so ``SQLiteStore/mapErrors(store:_:_:)``
/// words them as it words GRDB's.
final class SQLiteReadSession: StoreSession {
    let connection: OpaquePointer
    /// ``cachedStatement(sql:)``'s, kept for the session's transaction
    /// (a `wear` of many ties runs the same insert for each) and
    /// finalized with the session, before its connection closes.
    private var statements: [String: PreparedStatement] = [:]

    init(_ connection: OpaquePointer) { self.connection = connection }

    var dialect: SQLDialect { .sqlite }

    /// Runs `sql`. Without arguments it may hold several statements, run
    /// in order (`sqlite3_exec`), as GRDB's `execute` runs them; with
    /// arguments, one.
    func execute(sql: String, arguments: StoreArguments) throws {
        guard !arguments.values.isEmpty else {
            let code = sqlite3_exec(connection, sql, nil, nil, nil)
            guard code == SQLITE_OK else { throw RawStatement.error(code, connection, sql) }
            return
        }
        let statement = try PreparedStatement(sql, on: connection)
        try statement.bind(arguments.values)
        while try statement.step() {}
    }

    func fetchAll(sql: String, arguments: StoreArguments) throws -> [StoreRow] {
        let statement = try PreparedStatement(sql, on: connection)
        try statement.bind(arguments.values)
        var rows: [StoreRow] = []
        while let row = try statement.nextRow() { rows.append(row) }
        return rows
    }

    func fetchCursor(sql: String, arguments: StoreArguments) throws -> any StoreCursor {
        let statement = try PreparedStatement(sql, on: connection)
        try statement.bind(arguments.values)
        return statement
    }

    func cachedStatement(sql: String) throws -> any StoreStatement {
        if let statement = statements[sql] { return statement }
        let statement = try PreparedStatement(sql, on: connection)
        statements[sql] = statement
        return statement
    }

    var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(connection) }
    var changesCount: Int { Int(sqlite3_changes(connection)) }

    /// Whether the main or the temporary schema has a table `name`,
    /// ignoring case, as GRDB's `tableExists` answers.
    func tableExists(_ name: String) throws -> Bool {
        let found = try fetchAll(
            sql: """
                SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1 COLLATE NOCASE \
                UNION ALL SELECT 1 FROM sqlite_temp_master WHERE type = 'table' AND name = ?1 COLLATE NOCASE
                """,
            arguments: [name])
        return !found.isEmpty
    }

    func rawCursor(sql: String, arguments: [StoreValue]) throws -> any RawRows {
        try RawRowCursor(connection: connection, sql: sql, arguments: arguments.map(SQLiteSession.databaseValue))
    }

    func recordInserter(_ codec: EntityCodec) throws -> any RecordInserter {
        throw CatalogError(.storeIO, "the catalog was opened read-only; this command cannot change it")
    }
}

/// One prepared statement of a ``SQLiteReadSession``, finalized when it
/// goes; it is the session's cursor and cached statement too.
private final class PreparedStatement: StoreCursor, StoreStatement {
    let connection: OpaquePointer
    let statement: OpaquePointer
    let sql: String
    private(set) lazy var columns: [String] = (0..<sqlite3_column_count(statement)).map {
        sqlite3_column_name(statement, $0).map { String(cString: $0) } ?? ""
    }

    init(_ sql: String, on connection: OpaquePointer) throws {
        self.connection = connection
        self.sql = sql
        statement = try RawStatement.prepare(sql, on: connection, persistent: false)
    }

    deinit {
        sqlite3_finalize(statement)
    }

    /// Binds `values` to the statement's parameters in order, as GRDB
    /// binds them.
    func bind(_ values: [StoreValue]) throws {
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch value {
            case .null: code = sqlite3_bind_null(statement, index)
            case .integer(let number): code = sqlite3_bind_int64(statement, index, number)
            case .real(let number): code = sqlite3_bind_double(statement, index, number)
            case .text(let text): code = sqlite3_bind_text(statement, index, text, -1, transient)
            case .blob(let data):
                code = data.withUnsafeBytes {
                    sqlite3_bind_blob(statement, index, $0.baseAddress, Int32($0.count), transient)
                }
            }
            guard code == SQLITE_OK else { throw RawStatement.error(code, connection, sql) }
        }
    }

    /// `sqlite3_step`: true at a row, false when done.
    func step() throws -> Bool {
        let code = sqlite3_step(statement)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw RawStatement.error(code, connection, sql)
        }
    }

    /// The next row, copied out; nil when done.
    func nextRow() throws -> StoreRow? {
        guard try step() else { return nil }
        let values = (0..<sqlite3_column_count(statement)).map { column -> StoreValue in
            switch sqlite3_column_type(statement, column) {
            case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, column))
            case SQLITE_FLOAT: return .real(sqlite3_column_double(statement, column))
            case SQLITE_TEXT: return .text(String(cString: sqlite3_column_text(statement, column)))
            case SQLITE_BLOB:
                let count = Int(sqlite3_column_bytes(statement, column))
                guard count > 0, let bytes = sqlite3_column_blob(statement, column) else { return .blob(Data()) }
                return .blob(Data(bytes: bytes, count: count))
            default: return .null
            }
        }
        return StoreRow(values: values, columns: columns)
    }

    // MARK: StoreCursor

    func next() throws -> StoreRow? { try nextRow() }

    // MARK: StoreStatement

    func execute(arguments: StoreArguments) throws {
        try bind(arguments.values)
        while try step() {}
    }

    func fetchAll(arguments: StoreArguments) throws -> [StoreRow] {
        try bind(arguments.values)
        var rows: [StoreRow] = []
        while let row = try nextRow() { rows.append(row) }
        return rows
    }
}

/// `SQLITE_TRANSIENT`: SQLite copies the bound bytes (a macro Swift cannot
/// import).
private let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
