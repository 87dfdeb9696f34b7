import Foundation

/// ``StoreSession`` on PostgreSQL: the store's connection inside the
/// snapshot or transaction under way. Statements are sent one at a time
/// with their values as parameters (`?` becomes `$1`, `$2`…, outside
/// quotes: ``translated(_:)``); errors pass through as ``PostgreSQLError``s, which the store
/// turns into ``CatalogError``s at the transaction's edge.
final class PostgreSQLSession: StoreSession {
    let connection: PostgreSQLConnection
    /// Mixed-case identifiers by their lower-case spelling
    /// (``translated(_:)``).
    let identifiers: [String: String]
    private var lastChanges = 0
    /// Whether this transaction made the catalog's tables (a first
    /// write's migration): no other session can see them before it
    /// commits, so a first import may build their indexes at its end.
    var tablesMadeHere = false

    init(_ connection: PostgreSQLConnection, identifiers: [String: String]) {
        self.connection = connection
        self.identifiers = identifiers
    }

    var dialect: SQLDialect { .postgresql }

    func execute(sql: String, arguments: StoreArguments) throws {
        let result = try connection.execute(translated(sql), arguments.values)
        lastChanges = result.changedCount
    }

    /// Runs `sql` with the next statement, in its round trip
    /// (``PostgreSQLConnection/sendDeferred(_:_:flush:)``): for a
    /// statement whose outcome nothing waits for (the undo recorder's
    /// bookkeeping). Its error, if any, is the next statement's.
    func executeDeferred(sql: String, arguments: StoreArguments = []) {
        connection.sendDeferred(translated(sql), arguments.values)
    }

    func fetchAll(sql: String, arguments: StoreArguments) throws -> [StoreRow] {
        let result = try connection.execute(translated(sql), arguments.values)
        lastChanges = result.changedCount
        let columns = result.columnNames
        return (0..<result.rowCount).map { result.row($0, columns: columns) }
    }

    /// The rows of one result, handed out one at a time. (Whole, not
    /// streamed: the caller may run other statements between rows, which
    /// libpq's single-row mode forbids. ``rawCursor(sql:arguments:)``,
    /// whose callers do not, streams.)
    func fetchCursor(sql: String, arguments: StoreArguments) throws -> any StoreCursor {
        Cursor(try fetchAll(sql: sql, arguments: arguments))
    }

    func cachedStatement(sql: String) throws -> any StoreStatement {
        Statement(session: self, sql: sql)
    }

    /// The value the last `INSERT` took from a sequence: every table's
    /// row number is an identity column (``SQLDialect/postgresql``).
    var lastInsertedRowID: Int64 {
        (try? Int64.fetchOne(self, sql: "SELECT lastval()")) ?? 0
    }

    var changesCount: Int { lastChanges }

    func tableExists(_ name: String) throws -> Bool {
        try Bool.fetchOne(
            self, sql: "SELECT to_regclass(?) IS NOT NULL", arguments: ["\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""])
            ?? false
    }

    func rawCursor(sql: String, arguments: [StoreValue]) throws -> any RawRows {
        try connection.sendStreaming(translated(sql), arguments)
        return PostgreSQLRawRows(connection)
    }

    func recordInserter(_ codec: EntityCodec) throws -> any RecordInserter {
        PostgreSQLRecordInserter(session: self, codec: codec)
    }

    /// `COPY` in batches (``PostgreSQLCopyInserter``).
    /// In tables this transaction made, the lookup-only indexes are
    /// built once at the import's end (``PostgreSQLCopyInserter/deferIndexes()``).
    func recordBatchInserter(_ codec: EntityCodec) throws -> (any RecordBatchInserter)? {
        guard let inserter = try PostgreSQLCopyInserter.make(self, codec: codec) else { return nil }
        if tablesMadeHere { try inserter.deferIndexes() }
        return inserter
    }

    /// A lookup and `COPY`s in batches (``PostgreSQLCopyUpdater``).
    func recordBatchUpdater(_ codec: EntityCodec) throws -> (any RecordBatchUpdater)? {
        try PostgreSQLCopyUpdater.make(self, codec: codec)
    }

    // MARK: - Statement text

    /// `sql` as PostgreSQL reads it: each `?` outside quotes and comments
    /// numbered (`$1`, `$2`…; SQLite's null-safe `IS NOT ?` becomes `IS
    /// DISTINCT FROM $n`), and each unquoted identifier the schema spells
    /// in mixed case (`byteCount`, `searchKey`) quoted as spelled.
    ///
    /// The SQL above the store was written for SQLite, where identifiers
    /// match ignoring case, quoted or not; PostgreSQL folds unquoted ones
    /// to lower case, so `b.byteCount` would name a column `bytecount`.
    /// Quoting them here, from the declaration's names
    /// (``PostgreSQLStore/mixedCaseIdentifiers``), keeps one SQL text for
    /// both backends. Each text is translated once per connection.
    func translated(_ sql: String) -> String {
        if let known = connection.translations[sql] { return known }
        let result = Self.translate(sql, identifiers: identifiers)
        if connection.translations.count > 512 { connection.translations.removeAll(keepingCapacity: true) }
        connection.translations[sql] = result
        return result
    }

    static func translate(_ sql: String, identifiers: [String: String]) -> String {
        var output: [UInt8] = []
        let bytes = Array(sql.utf8)
        output.reserveCapacity(bytes.count + 16)
        var number = 0
        var index = 0
        func isWordByte(_ byte: UInt8) -> Bool {
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_") || byte >= 0x80
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "'") || byte == UInt8(ascii: "\"") {
                // A quoted literal or identifier, copied whole ('' and ""
                // inside are two quotes in a row: the loop goes on).
                output.append(byte)
                index += 1
                while index < bytes.count {
                    output.append(bytes[index])
                    index += 1
                    if bytes[index - 1] == byte { break }
                }
            } else if byte == UInt8(ascii: "-"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "-") {
                while index < bytes.count, bytes[index] != UInt8(ascii: "\n") {
                    output.append(bytes[index])
                    index += 1
                }
            } else if byte == UInt8(ascii: "$"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "$") {
                // A dollar-quoted body (a function's), copied whole.
                output.append(contentsOf: [byte, byte])
                index += 2
                while index < bytes.count {
                    if bytes[index] == UInt8(ascii: "$"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "$") {
                        output.append(contentsOf: [byte, byte])
                        index += 2
                        break
                    }
                    output.append(bytes[index])
                    index += 1
                }
            } else if byte == UInt8(ascii: "?") {
                // SQLite's null-safe `IS NOT ?` and `IS ?` are PostgreSQL's
                // `IS DISTINCT FROM` and `IS NOT DISTINCT FROM`.
                let before = String(decoding: output.suffix(8), as: UTF8.self).uppercased()
                if before.hasSuffix(" IS NOT ") {
                    output.removeLast(4)
                    output.append(contentsOf: Array("DISTINCT FROM ".utf8))
                } else if before.hasSuffix(" IS ") {
                    output.append(contentsOf: Array("NOT DISTINCT FROM ".utf8))
                }
                index += 1
                if index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                    // SQLite's `?1`, a parameter named by its number: `$1`.
                    output.append(UInt8(ascii: "$"))
                    while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                        output.append(bytes[index])
                        index += 1
                    }
                } else {
                    number += 1
                    output.append(contentsOf: Array("$\(number)".utf8))
                }
            } else if isWordByte(byte) && !(byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) {
                let start = index
                while index < bytes.count, isWordByte(bytes[index]) { index += 1 }
                let word = String(decoding: bytes[start..<index], as: UTF8.self)
                if let spelled = identifiers[word.lowercased()] {
                    output.append(UInt8(ascii: "\""))
                    output.append(contentsOf: Array(spelled.utf8))
                    output.append(UInt8(ascii: "\""))
                } else {
                    output.append(contentsOf: bytes[start..<index])
                }
            } else {
                output.append(byte)
                index += 1
                // A number's digits and letters (1e5) stay as they are.
                if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                    while index < bytes.count, isWordByte(bytes[index]) {
                        output.append(bytes[index])
                        index += 1
                    }
                }
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    // MARK: - Rows

    private final class Cursor: StoreCursor {
        private var rows: IndexingIterator<[StoreRow]>
        init(_ rows: [StoreRow]) { self.rows = rows.makeIterator() }
        func next() throws -> StoreRow? { rows.next() }
    }

    /// A statement kept by its text (the server plans each; a prepared
    /// statement per text is the next step for imports).
    private final class Statement: StoreStatement {
        unowned let session: PostgreSQLSession
        let sql: String

        init(session: PostgreSQLSession, sql: String) {
            self.session = session
            self.sql = sql
        }

        func execute(arguments: StoreArguments) throws { try session.execute(sql: sql, arguments: arguments) }
        func fetchAll(arguments: StoreArguments) throws -> [StoreRow] {
            try session.fetchAll(sql: sql, arguments: arguments)
        }
    }
}

/// The rows of a statement sent in libpq's single-row mode, read in
/// place: one row in memory at a time, however many match.
final class PostgreSQLRawRows: RawRows {
    private let connection: PostgreSQLConnection
    private var current: PostgreSQLResult?
    /// The decoded `bytea` values of the current row, by column, freed at
    /// the next step.
    private var blobs: [Int32: UnsafeMutableRawBufferPointer] = [:]
    private var finished = false

    init(_ connection: PostgreSQLConnection) { self.connection = connection }

    deinit {
        // Drain what is left, so the connection is free for the next
        // statement.
        if !finished { while (try? connection.nextRow()) != nil {} }
        freeBlobs()
    }

    private func freeBlobs() {
        for buffer in blobs.values { buffer.deallocate() }
        blobs.removeAll(keepingCapacity: true)
    }

    func step() throws -> Bool {
        freeBlobs()
        guard !finished else { return false }
        do {
            current = try connection.nextRow()
        } catch {
            finished = true
            current = nil
            throw error
        }
        if current == nil { finished = true }
        return current != nil
    }

    func isNull(_ column: Int32) -> Bool { current?.isNull(0, Int(column)) ?? true }

    func text(_ column: Int32) -> UnsafeBufferPointer<UInt8>? { current?.bytes(0, Int(column)) }

    func blob(_ column: Int32) -> UnsafeRawBufferPointer? {
        guard let current, let bytes = current.bytes(0, Int(column)) else { return nil }
        guard current.type(Int(column)) == byteaOID else { return UnsafeRawBufferPointer(bytes) }
        if let decoded = blobs[column] { return UnsafeRawBufferPointer(decoded) }
        let data = PostgreSQLResult.unescapeBytea(bytes)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(data.count, 1), alignment: 1)
        _ = data.copyBytes(to: buffer.bindMemory(to: UInt8.self))
        let decoded = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<data.count])
        blobs[column] = buffer
        return UnsafeRawBufferPointer(decoded)
    }

    func double(_ column: Int32) -> Double? {
        guard let bytes = text(column) else { return nil }
        return Double(String(decoding: bytes, as: UTF8.self))
    }

    func int64(_ column: Int32) -> Int64? {
        guard let current, let bytes = current.bytes(0, Int(column)) else { return nil }
        if current.type(Int(column)) == 16 { return bytes.first == UInt8(ascii: "t") ? 1 : 0 }
        return Int64(String(decoding: bytes, as: UTF8.self))
    }
}

/// The import's insert on PostgreSQL, one record at a time: the codec's
/// `INSERT`, which does nothing for a stored primary key, under a
/// savepoint. Records that need it go this way (`--update`, and a batch
/// that ``PostgreSQLCopyInserter`` could not write whole); the others
/// go by `COPY`.
final class PostgreSQLRecordInserter: RecordInserter {
    unowned let session: PostgreSQLSession
    let codec: EntityCodec

    init(session: PostgreSQLSession, codec: EntityCodec) {
        self.session = session
        self.codec = codec
    }

    func insert(_ record: Record) throws -> RecordInsertOutcome {
        let key = codec.entity.primaryKeyColumn
        let sql = codec.insertSQL + " ON CONFLICT (\"\(key)\") DO NOTHING"
        do {
            try session.execute(sql: "SAVEPOINT bowties_insert")
            try session.execute(sql: sql, arguments: codec.insertArguments(record))
            let inserted = session.changesCount
            try session.execute(sql: "RELEASE SAVEPOINT bowties_insert")
            return inserted == 1 ? .inserted : .idExists
        } catch let error as PostgreSQLError where error.sqlState == "23505" {
            try session.execute(sql: "ROLLBACK TO SAVEPOINT bowties_insert")
            return .conflict
        }
    }
}
