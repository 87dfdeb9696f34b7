internal import GRDBSQLite
import Foundation
import GRDB

// The record layer's fast path for imports: the same columns and
// encodings as `fieldArguments(transformers:)` and `insertSQL`, bound
// through SQLite's C API.

/// A prepared `INSERT ... ON CONFLICT(id) DO NOTHING` of bow ties, for an
/// import that adds many records in one transaction.
///
/// `Statement.execute(arguments:)` boxes each argument as a
/// `DatabaseValue` and looks the statement up by its SQL text; at a
/// million records that was a fifth of the import. This statement binds
/// typed values with `sqlite3_bind_*` instead. It is prepared on the
/// connection GRDB hands to the transaction (`Database.sqliteConnection`,
/// which GRDB documents for use with the C API), finalized in `deinit`,
/// and must not outlive that transaction.
///
/// A record whose id is already stored is not inserted (``Outcome/idExists``);
/// a record that breaks another constraint (its search key is taken) is
/// reported as ``Outcome/conflict``. Either way the caller decides, with
/// queries, what to tell the user: the fast path never guesses.
final class BowTieInsertStatement {
    enum Outcome {
        case inserted
        case idExists
        case conflict
    }

    static let sql = BowTie.insertSQL + " ON CONFLICT(id) DO NOTHING"

    private let connection: OpaquePointer
    private let statement: OpaquePointer
    private let colorTransformer: (any AttributeValueTransformer)?

    /// Prepares the statement (persistent: it runs once per record).
    /// - Throws: `DatabaseError` when SQLite refuses it,
    ///   `TransformerError` when the colour transformer is not registered.
    init(_ db: Database, transformers: ValueTransformerRegistry) throws {
        (connection, statement) = try RawStatement.prepare(Self.sql, in: db, persistent: true)
        colorTransformer = try BowTieModel.entity["tintColor"]?.valueTransformerName.map {
            try transformers.transformer(named: $0)
        }
    }

    /// `sqlite3_finalize`.
    deinit {
        sqlite3_finalize(statement)
    }

    /// Inserts `tie`, whose photo (if any) is already in the `blob` table.
    ///
    /// The tie must have passed validation: this is a save without the
    /// checks, not a way around them.
    /// - Throws: `DatabaseError` for anything but a constraint violation.
    func insert(_ tie: BowTie) throws -> Outcome {
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        var color: Data?
        if let tintColor = tie.tintColor, let colorTransformer {
            color = try colorTransformer.transformedValue(.color(tintColor))
        }
        tie.id.withUppercaseString { bindText(1, $0) }
        bind(2, tie.name)
        bind(3, tie.searchKey)
        sqlite3_bind_double(statement, 4, tie.rating)
        sqlite3_bind_int64(statement, 5, Int64(tie.timesWorn))
        if let lastWorn = tie.lastWorn {
            sqlite3_bind_double(statement, 6, lastWorn.timeIntervalSince1970)
        }
        sqlite3_bind_int(statement, 7, tie.isFavorite ? 1 : 0)
        bind(8, tie.url?.absoluteString)
        if let color {
            color.withUnsafeBytes {
                _ = sqlite3_bind_blob(statement, 9, $0.baseAddress, Int32($0.count), SQLITE_TRANSIENT)
            }
        }
        bind(10, tie.photo?.sha256)

        let code = sqlite3_step(statement)
        switch code {
        case SQLITE_DONE:
            return sqlite3_changes(connection) == 1 ? .inserted : .idExists
        case _ where code & 0xFF == SQLITE_CONSTRAINT:
            return .conflict
        default:
            throw RawStatement.error(code, connection, Self.sql)
        }
    }

    private func bind(_ index: Int32, _ text: String?) {
        guard var text else { return }  // unbound parameters are NULL
        text.withUTF8 { bindText(index, $0) }
    }

    private func bindText(_ index: Int32, _ bytes: UnsafeBufferPointer<UInt8>) {
        // A zero-length text still needs a pointer: NULL would bind NULL.
        let empty: StaticString = ""
        let start = UnsafeRawPointer(bytes.baseAddress ?? empty.utf8Start).assumingMemoryBound(to: CChar.self)
        sqlite3_bind_text(statement, index, start, Int32(bytes.count), SQLITE_TRANSIENT)
    }
}

@available(*, unavailable, message: "a prepared statement belongs to its connection's thread")
extension BowTieInsertStatement: Sendable {}

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
