import Foundation
import GRDB

/// ``StoreSession`` on SQLite: GRDB's `Database` of the transaction under
/// way, lent for the transaction's length. GRDB's errors pass through as
/// they are; the store (``SQLiteStore/mapErrors(_:)``) turns them into
/// ``CatalogError``s at the transaction's edge.
final class SQLiteSession: StoreSession {
    let database: Database

    init(_ database: Database) { self.database = database }

    var dialect: SQLDialect { .sqlite }

    func execute(sql: String, arguments: StoreArguments) throws {
        try database.execute(sql: sql, arguments: Self.arguments(arguments))
    }

    func fetchAll(sql: String, arguments: StoreArguments) throws -> [StoreRow] {
        let statement = try database.makeStatement(sql: sql)
        let columns = statement.columnNames
        return try Row.fetchAll(statement, arguments: Self.arguments(arguments)).map { Self.row($0, columns) }
    }

    func fetchCursor(sql: String, arguments: StoreArguments) throws -> any StoreCursor {
        let statement = try database.makeStatement(sql: sql)
        return Cursor(try Row.fetchCursor(statement, arguments: Self.arguments(arguments)), statement.columnNames)
    }

    func cachedStatement(sql: String) throws -> any StoreStatement {
        Statement(try database.cachedStatement(sql: sql))
    }

    var lastInsertedRowID: Int64 { database.lastInsertedRowID }
    var changesCount: Int { database.changesCount }

    func tableExists(_ name: String) throws -> Bool { try database.tableExists(name) }

    func rawCursor(sql: String, arguments: [StoreValue]) throws -> any RawRows {
        try RawRowCursor(database, sql: sql, arguments: arguments.map(Self.databaseValue))
    }

    func recordInserter(_ codec: EntityCodec) throws -> any RecordInserter {
        try RecordInsertStatement(database, codec: codec)
    }

    // MARK: - Values

    static func databaseValue(_ value: StoreValue) -> DatabaseValue {
        switch value {
        case .null: .null
        case .integer(let number): number.databaseValue
        case .real(let number): number.databaseValue
        case .text(let text): text.databaseValue
        case .blob(let data): data.databaseValue
        }
    }

    static func storeValue(_ value: DatabaseValue) -> StoreValue {
        switch value.storage {
        case .null: .null
        case .int64(let number): .integer(number)
        case .double(let number): .real(number)
        case .string(let text): .text(text)
        case .blob(let data): .blob(data)
        }
    }

    /// GRDB's arguments. Through its initializer of optional existentials:
    /// the one for a sequence of `DatabaseValue`s maps it by a key path,
    /// which unspecialized code instantiates anew on every call (7,600
    /// instructions, twice per record of an import with tags).
    static func arguments(_ arguments: StoreArguments) -> StatementArguments {
        StatementArguments(arguments.values.map { databaseValue($0) as (any DatabaseValueConvertible)? })
    }

    static func row(_ row: Row, _ columns: [String]) -> StoreRow {
        StoreRow(values: row.databaseValues.map(storeValue), columns: columns)
    }

    /// GRDB's row cursor, each row copied out as a ``StoreRow``.
    private final class Cursor: StoreCursor {
        let rows: RowCursor
        let columns: [String]

        init(_ rows: RowCursor, _ columns: [String]) {
            self.rows = rows
            self.columns = columns
        }

        func next() throws -> StoreRow? {
            try rows.next().map { SQLiteSession.row($0, columns) }
        }
    }

    /// One of GRDB's cached statements.
    private final class Statement: StoreStatement {
        let statement: GRDB.Statement

        init(_ statement: GRDB.Statement) { self.statement = statement }

        func execute(arguments: StoreArguments) throws {
            try statement.execute(arguments: SQLiteSession.arguments(arguments))
        }

        func fetchAll(arguments: StoreArguments) throws -> [StoreRow] {
            let columns = statement.columnNames
            return try Row.fetchAll(statement, arguments: SQLiteSession.arguments(arguments)).map {
                SQLiteSession.row($0, columns)
            }
        }
    }
}
