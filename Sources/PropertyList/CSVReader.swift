import Foundation

/// Reads RFC 4180 CSV (or tab-separated values, as `bowties export`
/// writes them) one row at a time, each field with its location
/// (`file:line:column`).
///
/// ```swift
/// let reader = try CSVReader(contentsOf: url)
/// while let row = try reader.nextRow() {
///     for field in row { print(field.location, field.text) }
/// }
/// ```
///
/// In CSV, fields may be quoted (`"a, b"`, with `""` for a quote) and
/// then hold separators and line breaks. In TSV (``Dialect/tsv``) nothing
/// is quoted: a quote is a character like any other, and a tab, line
/// feed, carriage return or backslash in a field is written `\t`, `\n`,
/// `\r` or `\\`. Rows end with CRLF, LF or CR. Memory holds one row and a
/// 64 KiB chunk of the file; the input may be a pipe.
///
/// It refuses, located, with ``PropertyListError/Kind/malformedText``:
/// invalid UTF-8, a file in UTF-16 or UTF-32, NUL bytes, a quote inside an
/// unquoted CSV field or after a closing quote, a quoted field the file
/// ends in, a backslash in TSV that starts none of the four escapes, fields
/// longer than ``maximumFieldBytes``, rows whose fields hold more than
/// ``maximumRowBytes`` in all, and rows of more than ``maximumFields``
/// fields.
///
/// Not `Sendable`: create one per document and use it where it was made.
public final class CSVReader {
    /// One field of a row.
    public struct Field: Sendable, Equatable {
        public var text: String
        /// Where the field starts (its opening quote, when quoted).
        public var location: SourceLocation
    }

    /// How fields are separated and written.
    public enum Dialect: Sendable, Hashable {
        /// RFC 4180: comma-separated, fields quoted when they need it.
        case csv
        /// Tab-separated, never quoted, `\t \n \r \\` escaped.
        case tsv
    }

    /// The longest field, in bytes: room for a Base64 photo of 12 MiB.
    public static let maximumFieldBytes = 16 * 1024 * 1024
    /// The most bytes the fields of one row may hold in all: a row is held
    /// whole, so this bounds its memory.
    public static let maximumRowBytes = 32 * 1024 * 1024
    /// The most fields a row may have.
    public static let maximumFields = 1024

    private let stream: ByteStream
    private let dialect: Dialect
    private let separator: UInt8
    /// Bytes of the fields of the row being read.
    private var rowBytes = 0
    private var finished = false
    private var started = false
    private var scratch: [UInt8] = []

    /// Opens the CSV (or TSV) file at `url`.
    ///
    /// - Throws: ``PropertyListError`` when the file is missing or unreadable.
    public convenience init(contentsOf url: URL, displayName: String? = nil, dialect: Dialect = .csv)
        throws(PropertyListError)
    {
        self.init(
            stream: try ByteStream(path: url.path, file: displayName ?? url.lastPathComponent), dialect: dialect)
    }

    /// Reads CSV (or TSV) from an open descriptor such as standard input,
    /// which stays open; `prefix` holds bytes already read from it.
    public convenience init(descriptor: Int32, displayName: String, prefix: [UInt8] = [], dialect: Dialect = .csv) {
        self.init(stream: ByteStream(descriptor: descriptor, file: displayName, prefix: prefix), dialect: dialect)
    }

    init(stream: ByteStream, dialect: Dialect) {
        self.stream = stream
        self.dialect = dialect
        separator = dialect == .tsv ? 0x09 : UInt8(ascii: ",")
    }

    /// Bytes of the input read so far.
    public var bytesConsumed: Int { stream.offset }

    /// The file's name, as locations show it.
    public var displayName: String { stream.file }

    /// The line the next row starts on.
    public var line: Int { stream.line }

    /// The next row, or nil at the end of the file. Blank lines are
    /// skipped.
    ///
    /// - Throws: ``PropertyListError``, located; after an error the reader
    ///   returns nil.
    public func nextRow() throws(PropertyListError) -> [Field]? {
        guard !finished else { return nil }
        do throws(PropertyListError) {
            if !started {
                started = true
                try stream.skipByteOrderMark()
            }
            // Blank lines between rows.
            while let byte = try stream.peek(), byte == 0x0A || byte == 0x0D {
                stream.advance()
            }
            guard try stream.peek() != nil else {
                finished = true
                return nil
            }
            var fields: [Field] = []
            rowBytes = 0
            while true {
                let (field, endsRow) = try nextField()
                fields.append(field)
                if endsRow { return fields }
                if fields.count >= Self.maximumFields {
                    throw failure("a row has more than \(Self.maximumFields) fields", at: stream.location)
                }
            }
        } catch {
            finished = true
            throw error
        }
    }

    /// One field and whether it ended its row.
    private func nextField() throws(PropertyListError) -> (Field, Bool) {
        if dialect == .tsv { return try nextTabSeparatedField() }
        let location = stream.location
        scratch.removeAll(keepingCapacity: true)
        let limit = fieldLimit
        var quoted = false
        if try stream.peek() == UInt8(ascii: "\"") {
            quoted = true
            stream.advance()
        }
        while true {
            guard let byte = try stream.peek() else {
                if quoted { throw failure("the file ends inside a quoted field", at: location) }
                return (try field(at: location), true)
            }
            if byte == 0 { throw failure("NUL byte in a field", at: stream.location) }
            if quoted {
                stream.advance()
                if byte == UInt8(ascii: "\"") {
                    if try stream.peek() == UInt8(ascii: "\"") {
                        stream.advance()
                        scratch.append(byte)
                        continue
                    }
                    quoted = false
                    // After the closing quote: a separator or the row's end.
                    let after = try stream.peek()
                    if let after, after != separator, after != 0x0A, after != 0x0D {
                        throw failure("expected a separator after the closing quote", at: stream.location)
                    }
                    continue
                }
                scratch.append(byte)
            } else {
                if byte == separator {
                    stream.advance()
                    return (try field(at: location), false)
                }
                if byte == 0x0A || byte == 0x0D {
                    stream.advance()
                    if byte == 0x0D, try stream.peek() == 0x0A { stream.advance() }
                    return (try field(at: location), true)
                }
                if byte == UInt8(ascii: "\"") {
                    throw failure("a quote inside an unquoted field (quote the whole field)", at: stream.location)
                }
                stream.advance()
                scratch.append(byte)
            }
            if scratch.count > limit { throw tooLong(at: location) }
        }
    }

    /// A TSV field, as `bowties export` writes it: up to a tab or the
    /// row's end, with `\t \n \r \\` unescaped and quotes as they are.
    private func nextTabSeparatedField() throws(PropertyListError) -> (Field, Bool) {
        let location = stream.location
        scratch.removeAll(keepingCapacity: true)
        let limit = fieldLimit
        while true {
            guard let byte = try stream.peek() else { return (try field(at: location), true) }
            switch byte {
            case 0x09:
                stream.advance()
                return (try field(at: location), false)
            case 0x0A, 0x0D:
                stream.advance()
                if byte == 0x0D, try stream.peek() == 0x0A { stream.advance() }
                return (try field(at: location), true)
            case 0:
                throw failure("NUL byte in a field", at: stream.location)
            case UInt8(ascii: "\\"):
                let escape = stream.location
                stream.advance()
                switch try stream.next() {
                case UInt8(ascii: "t")?: scratch.append(0x09)
                case UInt8(ascii: "n")?: scratch.append(0x0A)
                case UInt8(ascii: "r")?: scratch.append(0x0D)
                case UInt8(ascii: "\\")?: scratch.append(UInt8(ascii: "\\"))
                default:
                    throw failure(
                        "a backslash that starts no escape (TSV writes \\t, \\n, \\r and \\\\)", at: escape)
                }
            default:
                stream.advance()
                scratch.append(byte)
            }
            if scratch.count > limit { throw tooLong(at: location) }
        }
    }

    /// What the next field may hold: its own limit, and what the row has
    /// left.
    private var fieldLimit: Int { min(Self.maximumFieldBytes, Self.maximumRowBytes - rowBytes) }

    private func tooLong(at location: SourceLocation) -> PropertyListError {
        fieldLimit == Self.maximumFieldBytes
            ? failure("field longer than \(Self.maximumFieldBytes / 1_048_576) MiB", at: location)
            : failure(
                "the fields of one row are longer than \(Self.maximumRowBytes / 1_048_576) MiB in all", at: location)
    }

    private func field(at location: SourceLocation) throws(PropertyListError) -> Field {
        guard let text = String(validating: scratch, as: UTF8.self) else {
            throw failure("invalid UTF-8 in a field", at: location)
        }
        rowBytes += scratch.count
        if scratch.capacity > 1 << 20 { scratch = [] }
        return Field(text: text, location: location)
    }

    private func failure(_ message: String, at location: SourceLocation) -> PropertyListError {
        PropertyListError(.malformedText, message, at: location)
    }
}
