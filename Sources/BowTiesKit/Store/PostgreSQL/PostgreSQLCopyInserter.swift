import Foundation

/// The import's batched insert on PostgreSQL: records staged in
/// `COPY`'s binary format and copied straight into their table, one
/// `COPY` per batch, inside a savepoint.
///
/// One `INSERT` per record costs a round trip to the server, its parse
/// and its plan; `COPY` sends rows in a stream that the server reads
/// without planning anything, and the binary format spares it reading
/// numbers from text (measured in bench/results/postgres.md).
///
/// The rows go into the table itself, not into a staging table: the
/// table's own constraints (its key, the case-insensitive unique names,
/// the checks) judge them, its triggers run as for an `INSERT` (the undo
/// history's insert triggers are off for an import; the import is
/// logged as a range of row numbers), and nothing is written twice. A
/// batch in which any row breaks a constraint fails whole: the savepoint
/// takes back what it copied, ``flush()`` returns false, and the
/// importer inserts the same records again one at a time, so that the
/// record at fault is named as it always was (`file:line`, record, key)
/// with the same message and status as on SQLite.
///
/// Not `Sendable`: it belongs to the import's transaction.
final class PostgreSQLCopyInserter: RecordBatchInserter {
    private let connection: PostgreSQLConnection
    /// A staged record's values, in the columns' order.
    private let arguments: (Record) throws -> StoreArguments
    /// `COPY "table" ("c1", …) FROM STDIN (FORMAT binary)`.
    private let copySQL: String
    /// How each column is written, in ``EntityCodec/insertColumns``'s order.
    private let kinds: [Kind]
    /// The binary stream so far: the header, then one tuple per record.
    private var buffer: [UInt8] = []
    private(set) var stagedCount = 0
    var stagedBytes: Int { buffer.count }

    /// A column's binary form, by its type (`pg_type` OID).
    enum Kind {
        case text, boolean, int2, int4, int8, float4, float8, bytea

        init?(oid: UInt32) {
            switch oid {
            case 25, 1043, 19: self = .text
            case 16: self = .boolean
            case 21: self = .int2
            case 23: self = .int4
            case 20: self = .int8
            case 700: self = .float4
            case 701: self = .float8
            case 17: self = .bytea
            default: return nil
            }
        }
    }

    /// The inserter for `codec`'s table, or nil when one of its columns
    /// has a type this binary writer does not know (the importer then
    /// inserts one record at a time).
    static func make(_ session: PostgreSQLSession, codec: EntityCodec) throws -> PostgreSQLCopyInserter? {
        try make(session, table: codec.entity.tableName, columns: codec.insertColumns, arguments: codec.insertArguments)
    }

    /// An inserter into `table`'s `columns`, each record's values given
    /// by `arguments` in their order (an update's staging table: see
    /// ``PostgreSQLCopyUpdater``).
    static func make(
        _ session: PostgreSQLSession, table: String, columns: [String],
        arguments: @escaping (Record) throws -> StoreArguments
    ) throws -> PostgreSQLCopyInserter? {
        let columns = columns.map { "\"\($0)\"" }.joined(separator: ", ")
        let table = "\"\(table)\""
        // The columns' types, as the server has them: no row is read.
        let probe = try session.connection.execute("SELECT \(columns) FROM \(table) LIMIT 0")
        var kinds: [Kind] = []
        for column in 0..<probe.columnCount {
            guard let kind = Kind(oid: probe.type(column)) else { return nil }
            kinds.append(kind)
        }
        return PostgreSQLCopyInserter(
            connection: session.connection, arguments: arguments,
            copySQL: "COPY \(table) (\(columns)) FROM STDIN (FORMAT binary)", kinds: kinds)
    }

    private init(
        connection: PostgreSQLConnection, arguments: @escaping (Record) throws -> StoreArguments, copySQL: String,
        kinds: [Kind]
    ) {
        self.connection = connection
        self.arguments = arguments
        self.copySQL = copySQL
        self.kinds = kinds
    }

    func stage(_ record: Record) throws -> Bool {
        let values = try arguments(record).values
        guard values.count == kinds.count else { return false }
        if buffer.isEmpty {
            // "PGCOPY\n\377\r\n\0", then flags and the header
            // extension's length, both 0.
            buffer.append(contentsOf: [0x50, 0x47, 0x43, 0x4F, 0x50, 0x59, 0x0A, 0xFF, 0x0D, 0x0A, 0x00])
            buffer.append(contentsOf: [UInt8](repeating: 0, count: 8))
        }
        let start = buffer.count
        append(Int16(values.count))
        for (value, kind) in zip(values, kinds) {
            guard encode(value, as: kind) else {
                buffer.removeSubrange(start...)
                return false
            }
        }
        stagedCount += 1
        return true
    }

    /// The indexes ``deferIndexes()`` dropped: their definitions, for
    /// ``endImport()``.
    private var deferredIndexes: [String] = []
    /// The table's name as `COPY` names it.
    private var table: String { String(copySQL.dropFirst(5).prefix { $0 != " " }) }

    /// Drops the table's lookup-only indexes (not unique: the key and
    /// the unique values stay, to judge each batch), for ``endImport()``
    /// to build once from the rows, as SQLite's first import does
    /// (`BulkKeyLoad`): each row a `COPY` writes then goes into three
    /// indexes instead of eight. Only in tables the import's transaction
    /// made (``PostgreSQLSession/tablesMadeHere``): no other session sees
    /// them, so the lock a `DROP INDEX` takes stops nobody, and a failed
    /// or interrupted import takes the drop back with everything else.
    /// Measured on 100,000 rows of psql's `\copy` into a copy of the
    /// table: the server's CPU 2.15 s and 1.96 s with every index, 1.16 s
    /// and 1.47 s with five built after (bench/results/postgres.md,
    /// "Session 12").
    func deferIndexes() throws {
        let found = try connection.execute(
            """
            SELECT quote_ident(i.relname), pg_get_indexdef(i.oid) FROM pg_index AS x \
            JOIN pg_class AS i ON i.oid = x.indexrelid \
            WHERE x.indrelid = CAST($1 AS regclass) AND NOT x.indisunique ORDER BY i.relname
            """, [.text(table)])
        var names: [String] = []
        for row in 0..<found.rowCount {
            guard let name = found.bytes(row, 0), let definition = found.bytes(row, 1) else { continue }
            names.append(String(decoding: name, as: UTF8.self))
            deferredIndexes.append(String(decoding: definition, as: UTF8.self))
        }
        guard !names.isEmpty else { return }
        _ = try connection.execute("DROP INDEX " + names.joined(separator: ", "))
    }

    func endImport() throws {
        for definition in deferredIndexes { _ = try connection.execute(definition) }
        deferredIndexes = []
    }

    /// Forgets the staged records without sending them.
    func discard() {
        buffer.removeAll(keepingCapacity: true)
        stagedCount = 0
    }

    /// Whether a batch was sent whose outcome ``finish()`` has not read.
    private var sent = false

    func send() throws {
        guard stagedCount > 0 else { return }
        append(Int16(-1))  // the trailer
        defer {
            buffer.removeAll(keepingCapacity: true)
            stagedCount = 0
        }
        _ = try connection.execute("SAVEPOINT bowties_copy")
        try buffer.withUnsafeBytes { try connection.startCopyIn(copySQL, $0) }
        sent = true
    }

    func finish() throws -> Bool {
        guard sent else { return true }
        sent = false
        do {
            _ = try connection.finishCopyIn()
        } catch let error as PostgreSQLError where error.sqlState.hasPrefix("23") || error.sqlState.hasPrefix("22") {
            // A constraint (23…) or a value (22…) refused a row: nothing
            // of the batch stays, and the records go one at a time.
            _ = try connection.execute("ROLLBACK TO SAVEPOINT bowties_copy")
            _ = try connection.execute("RELEASE SAVEPOINT bowties_copy")
            return false
        }
        // Its answer comes with the next statement's.
        connection.sendDeferred("RELEASE SAVEPOINT bowties_copy")
        return true
    }

    // MARK: - The binary format

    private func append<T: FixedWidthInteger>(_ number: T) {
        withUnsafeBytes(of: number.bigEndian) { buffer.append(contentsOf: $0) }
    }

    private func appendField(_ bytes: some Collection<UInt8>) {
        append(Int32(bytes.count))
        buffer.append(contentsOf: bytes)
    }

    /// Appends one field: its length (-1 for `NULL`), then its bytes in
    /// the column type's binary form. False for a value the column's
    /// type cannot take as it is (the record then goes alone, through
    /// `INSERT`, which says what is wrong).
    private func encode(_ value: StoreValue, as kind: Kind) -> Bool {
        switch (value, kind) {
        case (.null, _):
            append(Int32(-1))
        case (.text(let text), .text):
            appendField(text.utf8)
        case (.integer(let number), .text):
            appendField(String(number).utf8)
        case (.real(let number), .text):
            appendField(AttributeValue.format(number).utf8)
        case (.integer(let number), .boolean):
            append(Int32(1))
            buffer.append(number != 0 ? 1 : 0)
        case (.integer(let number), .int2):
            guard let small = Int16(exactly: number) else { return false }
            append(Int32(2))
            append(small)
        case (.integer(let number), .int4):
            guard let small = Int32(exactly: number) else { return false }
            append(Int32(4))
            append(small)
        case (.integer(let number), .int8):
            append(Int32(8))
            append(number)
        case (.integer(let number), .float8):
            append(Int32(8))
            append(Double(number).bitPattern)
        case (.real(let number), .float8):
            append(Int32(8))
            append(number.bitPattern)
        case (.integer(let number), .float4):
            append(Int32(4))
            append(Float(number).bitPattern)
        case (.real(let number), .float4):
            append(Int32(4))
            append(Float(number).bitPattern)
        case (.blob(let data), .bytea):
            appendField(data)
        case (.text(let text), .bytea):
            appendField(text.utf8)
        default:
            return false
        }
        return true
    }
}
