import Foundation

/// One value of a stored column: what every backend can hold.
///
/// The layers above the store read and write values through it, never
/// through a database library's own types, so that a backend is a
/// conformer of ``CatalogStore`` and nothing else changes.
enum StoreValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    /// True for SQL `NULL`.
    var isNull: Bool { self == .null }
}

/// A Swift type stored as one column value.
protocol StoreValueConvertible {
    /// The value as stored.
    var storeValue: StoreValue { get }
    /// The Swift value of a stored one; nil for `NULL` or a value of
    /// another kind that does not convert.
    static func fromStoreValue(_ value: StoreValue) -> Self?
}

extension StoreValue: StoreValueConvertible {
    var storeValue: StoreValue { self }
    static func fromStoreValue(_ value: StoreValue) -> StoreValue? { value }
}

extension String: StoreValueConvertible {
    var storeValue: StoreValue { .text(self) }
    static func fromStoreValue(_ value: StoreValue) -> String? {
        switch value {
        case .text(let text): text
        case .blob(let data): String(bytes: data, encoding: .utf8)
        case .integer(let number): String(number)
        case .real(let number): String(number)
        case .null: nil
        }
    }
}

extension Int64: StoreValueConvertible {
    var storeValue: StoreValue { .integer(self) }
    static func fromStoreValue(_ value: StoreValue) -> Int64? {
        switch value {
        case .integer(let number): number
        case .real(let number): Int64(exactly: number)
        default: nil
        }
    }
}

extension Int: StoreValueConvertible {
    var storeValue: StoreValue { .integer(Int64(self)) }
    static func fromStoreValue(_ value: StoreValue) -> Int? { Int64.fromStoreValue(value).map(Int.init) }
}

extension Double: StoreValueConvertible {
    var storeValue: StoreValue { .real(self) }
    static func fromStoreValue(_ value: StoreValue) -> Double? {
        switch value {
        case .real(let number): number
        case .integer(let number): Double(number)
        default: nil
        }
    }
}

extension Bool: StoreValueConvertible {
    var storeValue: StoreValue { .integer(self ? 1 : 0) }
    static func fromStoreValue(_ value: StoreValue) -> Bool? {
        switch value {
        case .integer(let number): number != 0
        case .real(let number): number != 0
        default: nil
        }
    }
}

extension Data: StoreValueConvertible {
    var storeValue: StoreValue { .blob(self) }
    static func fromStoreValue(_ value: StoreValue) -> Data? {
        switch value {
        case .blob(let data): data
        case .text(let text): Data(text.utf8)
        default: nil
        }
    }
}

/// The values bound to a statement's `?` placeholders, in order.
///
/// ```swift
/// try db.execute(sql: "UPDATE bowtie SET rating = ? WHERE id = ?", arguments: [4.0, id])
/// ```
struct StoreArguments: Sendable, Hashable, ExpressibleByArrayLiteral {
    var values: [StoreValue]

    init(_ values: [StoreValue] = []) { self.values = values }
    init(_ values: [(any StoreValueConvertible)?]) { self.values = values.map { $0?.storeValue ?? .null } }
    init(arrayLiteral elements: (any StoreValueConvertible)?...) { self.init(elements) }
}

/// One row a query returned: its values by position and by column name.
struct StoreRow: Sendable, Equatable {
    let values: [StoreValue]
    /// The columns' names, shared by every row of a statement.
    let columns: [String]

    init(values: [StoreValue], columns: [String]) {
        self.values = values
        self.columns = columns
    }

    /// The value at `index` (`NULL` past the last column).
    subscript(_ index: Int) -> StoreValue { values.indices.contains(index) ? values[index] : .null }

    /// The value of the column named `name` (`NULL` when there is none).
    subscript(_ name: String) -> StoreValue {
        columns.firstIndex(of: name).map { values[$0] } ?? .null
    }

    /// The value at `index` as `T`; nil for `NULL`.
    subscript<T: StoreValueConvertible>(_ index: Int) -> T? { T.fromStoreValue(self[index]) }

    /// The value of the column `name` as `T`; nil for `NULL`.
    subscript<T: StoreValueConvertible>(_ name: String) -> T? { T.fromStoreValue(self[name]) }

    /// The value at `index` as `T`, nil for `NULL`.
    /// - Throws: ``CatalogError`` `.storeIO` for a value that is not a `T`.
    func decode<T: StoreValueConvertible>(_ type: T?.Type, atIndex index: Int) throws -> T? {
        let value = self[index]
        if value.isNull { return nil }
        guard let decoded = T.fromStoreValue(value) else { throw mismatch(T.self, index) }
        return decoded
    }

    /// The value at `index` as `T`.
    /// - Throws: ``CatalogError`` `.storeIO` for `NULL` or a value that is
    ///   not a `T`.
    func decode<T: StoreValueConvertible>(_ type: T.Type, atIndex index: Int) throws -> T {
        guard let decoded = T.fromStoreValue(self[index]) else { throw mismatch(T.self, index) }
        return decoded
    }

    private func mismatch<T>(_ type: T.Type, _ index: Int) -> CatalogError {
        let column = columns.indices.contains(index) ? columns[index] : "\(index)"
        return CatalogError(.storeIO, "the store holds \(self[index]) in column \(column) where \(T.self) belongs")
    }
}

/// Rows read one at a time: memory stays flat however many match.
protocol StoreCursor: AnyObject {
    /// The next row; nil after the last.
    func next() throws -> StoreRow?
}

/// A statement prepared once and run many times in one transaction.
protocol StoreStatement: AnyObject {
    func execute(arguments: StoreArguments) throws
    func fetchAll(arguments: StoreArguments) throws -> [StoreRow]
}

/// A connection inside a read snapshot or a write transaction: what every
/// layer above the store uses to run its SQL.
///
/// Its shape follows GRDB's `Database`, whose names most Swift readers
/// know (`execute(sql:arguments:)`, `fetchAll`…), but nothing here names
/// a library or a backend: ``CatalogStore``'s conformers give one, and
/// the statements' SQL is the portable part both SQLite and PostgreSQL
/// speak (`?` placeholders, `ON CONFLICT DO NOTHING`, quoted identifiers),
/// with what differs asked of ``dialect``.
protocol StoreSession: AnyObject {
    /// What differs between the backends' SQL.
    var dialect: SQLDialect { get }
    func execute(sql: String, arguments: StoreArguments) throws
    func fetchAll(sql: String, arguments: StoreArguments) throws -> [StoreRow]
    func fetchCursor(sql: String, arguments: StoreArguments) throws -> any StoreCursor
    /// A statement kept for the rest of the transaction (an import runs
    /// the same few a million times).
    func cachedStatement(sql: String) throws -> any StoreStatement
    /// The row number the last `INSERT` gave its row.
    var lastInsertedRowID: Int64 { get }
    /// How many rows the last statement changed.
    var changesCount: Int { get }
    func tableExists(_ name: String) throws -> Bool
    /// Rows read as raw column bytes, for the export's and the list's hot
    /// loop.
    func rawCursor(sql: String, arguments: [StoreValue]) throws -> any RawRows
    /// The import's prepared insert of `codec`'s records.
    func recordInserter(_ codec: EntityCodec) throws -> any RecordInserter
    /// The import's batched insert of `codec`'s records, for a backend
    /// where one statement per record is a round trip to a server; nil
    /// where ``recordInserter(_:)`` is as fast (SQLite, in the process).
    func recordBatchInserter(_ codec: EntityCodec) throws -> (any RecordBatchInserter)?
    /// `import --update`'s records looked up and written many at a time,
    /// for a backend where one statement per record is a round trip to a
    /// server; nil where one record at a time is as fast (SQLite).
    func recordBatchUpdater(_ codec: EntityCodec) throws -> (any RecordBatchUpdater)?
}

extension StoreSession {
    func recordBatchInserter(_ codec: EntityCodec) throws -> (any RecordBatchInserter)? { nil }
    func recordBatchUpdater(_ codec: EntityCodec) throws -> (any RecordBatchUpdater)? { nil }
}

/// Rows whose columns are read in place, without a value made for each:
/// valid until the next ``step()``. Columns count from 0.
protocol RawRows: AnyObject {
    /// Moves to the next row; false after the last.
    func step() throws -> Bool
    func isNull(_ column: Int32) -> Bool
    /// A text column's UTF-8 bytes (nil for `NULL`).
    func text(_ column: Int32) -> UnsafeBufferPointer<UInt8>?
    /// A blob column's bytes (nil for `NULL`; empty for an empty blob).
    func blob(_ column: Int32) -> UnsafeRawBufferPointer?
    func double(_ column: Int32) -> Double?
    func int64(_ column: Int32) -> Int64?
}

/// What inserting one record found.
enum RecordInsertOutcome {
    case inserted
    /// A record with the same primary key is stored already: nothing
    /// was written.
    case idExists
    /// Another constraint refused it (a search key taken): the caller
    /// asks, with queries, what to tell the user.
    case conflict
}

/// The import's one prepared `INSERT` of an entity's records, which does
/// nothing when the primary key is stored already.
protocol RecordInserter: AnyObject {
    func insert(_ record: Record) throws -> RecordInsertOutcome
}

/// An import's records written many at a time (PostgreSQL's `COPY`):
/// ``stage(_:)`` collects them, ``flush()`` writes them all in one
/// statement, or none.
///
/// All or none is what keeps the import's errors what they are one
/// record at a time: when any staged record breaks a constraint (its id
/// or search key is stored already, or repeated in the file), ``flush()``
/// writes nothing and says so, and the caller inserts the same records
/// again one at a time through ``RecordInserter``, whose slower path
/// names the record and the key, as it always did.
protocol RecordBatchInserter: AnyObject {
    /// Adds `record` (validated; its photo already in the `blob` table)
    /// to the next ``flush()``. False when this inserter cannot encode
    /// one of its values: the caller inserts it alone.
    func stage(_ record: Record) throws -> Bool
    /// How many records ``flush()`` would write.
    var stagedCount: Int { get }
    /// The bytes staged so far: the caller flushes before they grow
    /// past what an import may hold in memory.
    var stagedBytes: Int { get }
    /// Sends every staged record in one statement and forgets them,
    /// without waiting for the server to have written them: the caller
    /// reads the next records meanwhile, and learns the outcome from
    /// ``finish()``, which it calls before the session runs any other
    /// statement.
    func send() throws
    /// Waits for the records ``send()`` sent.
    /// - Returns: True when all were written; false when a constraint
    ///   refused one of them and none was written.
    /// - Throws: What the server says about anything else (a lost
    ///   connection, a cancelled statement).
    func finish() throws -> Bool
    /// Once the import's last batch is written (``finish()``): builds
    /// what the batches left for the end (a first import's indexes on
    /// PostgreSQL).
    func endImport() throws
}

/// A stored record as a batched update finds it (``RecordBatchUpdater``).
struct StoredRecord {
    var rowid: Int64
    var record: Record
    /// The stored baselines of its derived attributes, by attribute
    /// position (``EntityCodec/baselines(from:at:)``).
    var baselines: [AttributeValue?]
    /// Whether this import updated it already (its id is in the
    /// ``UpdatedRecordLog``).
    var updated: Bool
}

/// An `import --update`'s records many at a time (PostgreSQL: a `COPY`
/// into a temporary table, then one `UPDATE`): one statement looks up
/// every stored record of a batch, the importer decides what each
/// becomes exactly as it does one record at a time, and the batch's new
/// and changed records are written in a few statements, all or none.
///
/// As for ``RecordBatchInserter``, all or none is what keeps errors as
/// they are: when a constraint refuses anything of a batch, its writes
/// are taken back and the caller imports the same records again one at
/// a time, which names the record at fault as it always did.
protocol RecordBatchUpdater: AnyObject {
    /// The stored records whose primary keys are among `keys`, by key.
    /// - Parameter updatedLog: The table of ids this import updated (nil
    ///   before it has any), for ``StoredRecord/updated``.
    func stored(_ keys: [String], updatedLog: String?) throws -> [String: StoredRecord]
    /// Starts the batch's writes (a savepoint).
    func begin() throws
    /// Inserts new records in one statement; false when a constraint or
    /// a value refused one (nothing is written).
    func insert(_ records: [Record]) throws -> Bool
    /// Sets each stored record to what `records` hold (every updatable
    /// column and the baselines), in one statement, and notes their ids
    /// in `updatedLog`; false when a constraint or a value refused one.
    func update(_ records: [Record], updatedLog: String) throws -> Bool
    /// Keeps the batch's writes.
    func commit() throws
    /// Takes back every write since ``begin()``.
    func rollback() throws
}

extension RecordBatchInserter {
    func endImport() throws {}

    /// Writes every staged record in one statement and forgets them
    /// (``send()``, then ``finish()``).
    func flush() throws -> Bool {
        try send()
        return try finish()
    }
}

extension StoreSession {
    func execute(sql: String) throws { try execute(sql: sql, arguments: []) }

    func fetchOne(sql: String, arguments: StoreArguments = []) throws -> StoreRow? {
        let cursor = try fetchCursor(sql: sql, arguments: arguments)
        return try cursor.next()
    }
}

extension StoreRow {
    static func fetchAll(_ db: any StoreSession, sql: String, arguments: StoreArguments = []) throws
        -> [StoreRow]
    {
        try db.fetchAll(sql: sql, arguments: arguments)
    }

    static func fetchOne(_ db: any StoreSession, sql: String, arguments: StoreArguments = []) throws
        -> StoreRow?
    {
        try db.fetchOne(sql: sql, arguments: arguments)
    }

    static func fetchCursor(_ db: any StoreSession, sql: String, arguments: StoreArguments = []) throws
        -> any StoreCursor
    {
        try db.fetchCursor(sql: sql, arguments: arguments)
    }

    static func fetchAll(_ statement: any StoreStatement, arguments: StoreArguments = []) throws -> [StoreRow] {
        try statement.fetchAll(arguments: arguments)
    }

    static func fetchOne(_ statement: any StoreStatement, arguments: StoreArguments = []) throws
        -> StoreRow?
    {
        try statement.fetchAll(arguments: arguments).first
    }
}

extension StoreValueConvertible {
    /// The first column of every row (rows whose value is `NULL` or does
    /// not convert are left out).
    static func fetchAll(_ db: any StoreSession, sql: String, arguments: StoreArguments = []) throws
        -> [Self]
    {
        try db.fetchAll(sql: sql, arguments: arguments).compactMap { fromStoreValue($0[0]) }
    }

    static func fetchAll(_ statement: any StoreStatement, arguments: StoreArguments = []) throws -> [Self] {
        try statement.fetchAll(arguments: arguments).compactMap { fromStoreValue($0[0]) }
    }

    /// The first column of the first row `statement` returns.
    static func fetchOne(_ statement: any StoreStatement, arguments: StoreArguments = []) throws -> Self? {
        try statement.fetchAll(arguments: arguments).first.flatMap { fromStoreValue($0[0]) }
    }

    /// The first column of the first row; nil when there is no row or
    /// its value is `NULL`.
    static func fetchOne(_ db: any StoreSession, sql: String, arguments: StoreArguments = []) throws
        -> Self?
    {
        try db.fetchOne(sql: sql, arguments: arguments).flatMap { fromStoreValue($0[0]) }
    }
}

extension StoreStatement {
    func execute() throws { try execute(arguments: []) }
}
