internal import GRDBSQLite
import Foundation
import GRDB

// The codec's fast path for imports: the same columns and encodings as
// `EntityCodec.insertArguments(_:)`, bound through SQLite's C API.

/// A prepared `INSERT ... ON CONFLICT(<primary key>) DO NOTHING` of one
/// entity's records, for an import that adds many in one transaction.
///
/// `Statement.execute(arguments:)` boxes each argument as a
/// `DatabaseValue` and looks the statement up by its SQL text; at a
/// million records that was a fifth of the import. This statement binds
/// typed values with `sqlite3_bind_*` instead, in the codec's column
/// order (``EntityCodec/insertSQL``), by each value's type. It is
/// prepared on the connection GRDB hands to the transaction
/// (`Database.sqliteConnection`, which GRDB documents for use with the C
/// API), finalized in `deinit`, and must not outlive that transaction.
///
/// A record whose primary key is already stored is not inserted
/// (``Outcome/idExists``); a record that breaks another constraint (its
/// search key is taken) is reported as ``Outcome/conflict``. Either way
/// the caller decides, with queries, what to tell the user: the fast path
/// never guesses.
final class RecordInsertStatement: RecordInserter {
    typealias Outcome = RecordInsertOutcome

    let sql: String
    private let connection: OpaquePointer
    private let statement: OpaquePointer
    private let codec: EntityCodec
    /// For each bound parameter, in order: the attribute it comes from,
    /// or (past the attributes) the to-one link. Derived attributes appear
    /// twice (value and baseline), as in ``EntityCodec/insertSQL``.
    private let parameters: [Int]

    /// Prepares the statement (persistent: it runs once per record).
    ///
    /// - Parameter skipsStoredKeys: `ON CONFLICT(<primary key>) DO
    ///   NOTHING`, which needs the key's unique index. A bulk load that
    ///   builds that index at the end (``BulkKeyLoad``) inserts without
    ///   it: a repeated key is then found when the index is built.
    /// - Throws: `DatabaseError` when SQLite refuses it.
    init(_ db: Database, codec: EntityCodec, skipsStoredKeys: Bool = true) throws {
        let key = codec.entity.primaryKeyColumn
        sql = codec.insertSQL + (skipsStoredKeys ? " ON CONFLICT(\"\(key)\") DO NOTHING" : "")
        (connection, statement) = try RawStatement.prepare(sql, in: db, persistent: true)
        self.codec = codec
        let attributes = codec.entity.attributes
        parameters =
            Array(attributes.indices) + codec.links.map { attributes.count + $0.index }
            + attributes.indices.filter { attributes[$0].derivation != nil }
    }

    /// `sqlite3_finalize`.
    deinit {
        sqlite3_finalize(statement)
    }

    /// Inserts `record`, whose photos (if any) are already in the `blob`
    /// table. Its named relationships are the caller's to link.
    ///
    /// The record must have passed validation: this is a save without the
    /// checks, not a way around them.
    /// - Throws: `DatabaseError` for anything but a constraint violation,
    ///   ``TransformerError`` for a value its transformer refuses.
    func insert(_ record: Record) throws -> Outcome {
        // Every parameter is bound below, NULL included, so the bindings
        // need no clearing (`sqlite3_clear_bindings` cost a thousand
        // instructions a record).
        defer { sqlite3_reset(statement) }
        let count = record.values.count
        for (position, attribute) in parameters.enumerated() {
            let index = Int32(position + 1)
            let bound = attribute < count ? record.values[attribute] : record.links[attribute - count]
            guard let value = bound else {
                sqlite3_bind_null(statement, index)
                continue
            }
            switch value {
            case .string(var text), .uri(var text):
                text.withUTF8 { bindText(index, $0) }
            case .uuid(let id):
                id.withUppercaseString { bindText(index, $0) }
            case .double(let number):
                sqlite3_bind_double(statement, index, number)
            case .integer(let number):
                sqlite3_bind_int64(statement, index, number)
            case .bool(let flag):
                sqlite3_bind_int(statement, index, flag ? 1 : 0)
            case .date(let date):
                sqlite3_bind_double(statement, index, date.timeIntervalSince1970)
            case .blob(let info):
                var sha256 = info.sha256
                sha256.withUTF8 { bindText(index, $0) }
            case .color:
                let data = try codec.transformer(at: attribute).transformedValue(value)
                data.withUnsafeBytes {
                    _ = sqlite3_bind_blob(statement, index, $0.baseAddress, Int32($0.count), SQLITE_TRANSIENT)
                }
            }
        }

        let code = sqlite3_step(statement)
        switch code {
        case SQLITE_DONE:
            return sqlite3_changes(connection) == 1 ? .inserted : .idExists
        case _ where code & 0xFF == SQLITE_CONSTRAINT:
            return .conflict
        default:
            throw RawStatement.error(code, connection, sql)
        }
    }

    private func bindText(_ index: Int32, _ bytes: UnsafeBufferPointer<UInt8>) {
        // A zero-length text still needs a pointer: NULL would bind NULL.
        let empty: StaticString = ""
        let start = UnsafeRawPointer(bytes.baseAddress ?? empty.utf8Start).assumingMemoryBound(to: CChar.self)
        sqlite3_bind_text(statement, index, start, Int32(bytes.count), SQLITE_TRANSIENT)
    }
}

@available(*, unavailable, message: "a prepared statement belongs to its connection's thread")
extension RecordInsertStatement: Sendable {}

/// `SQLITE_TRANSIENT`: SQLite copies the bound bytes (a macro Swift cannot
/// import).
private let SQLITE_TRANSIENT = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

extension UUID {
    /// Calls `body` with the 36 bytes of ``uuidString`` (upper-case hex),
    /// formatted without Foundation's `snprintf` and without a `String`.
    func withUppercaseString<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 36) { buffer in
            let digits: StaticString = "0123456789ABCDEF"
            var position = 0
            withUnsafeBytes(of: uuid) { bytes in
                for (index, byte) in bytes.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        buffer[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    buffer[position] = digits.utf8Start[Int(byte >> 4)]
                    buffer[position + 1] = digits.utf8Start[Int(byte & 0x0F)]
                    position += 2
                }
            }
            return try body(UnsafeBufferPointer(buffer))
        }
    }
}
