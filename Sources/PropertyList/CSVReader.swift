import Foundation

/// Reads RFC 4180 CSV (or tab-separated values) one row at a time, each
/// field with its location (`file:line:column`).
///
/// ```swift
/// let reader = try CSVReader(contentsOf: url)
/// while let row = try reader.nextRow() {
///     for field in row { print(field.location, field.text) }
/// }
/// ```
///
/// Fields may be quoted (`"a, b"`, with `""` for a quote) and then hold
/// separators and line breaks; rows end with CRLF or LF. Memory holds one
/// row and a 64 KiB chunk of the file; the input may be a pipe.
///
/// It refuses, located, with ``PropertyListError/Kind/malformedText``:
/// invalid UTF-8, NUL bytes, a quote inside an unquoted field or after a
/// closing quote, a quoted field the file ends in, fields longer than
/// ``maximumFieldBytes`` and rows of more than ``maximumFields`` fields.
///
/// Not `Sendable`: create one per document and use it where it was made.
public final class CSVReader {
    /// One field of a row.
    public struct Field: Sendable, Equatable {
        public var text: String
        /// Where the field starts (its opening quote, when quoted).
        public var location: SourceLocation
    }

    /// The longest field, in bytes: room for a Base64 photo of 12 MiB.
    public static let maximumFieldBytes = 16 * 1024 * 1024
    /// The most fields a row may have.
    public static let maximumFields = 1024

    private let stream: ByteStream
    private let separator: UInt8
    private var finished = false
    private var started = false
    private var scratch: [UInt8] = []

    /// Opens the CSV file at `url`.
    ///
    /// - Parameters:
    ///   - separator: `,` for CSV, a tab for TSV.
    /// - Throws: ``PropertyListError`` when the file is missing or unreadable.
    public convenience init(contentsOf url: URL, displayName: String? = nil, separator: UInt8 = UInt8(ascii: ","))
        throws(PropertyListError)
    {
        self.init(
            stream: try ByteStream(path: url.path, file: displayName ?? url.lastPathComponent), separator: separator)
    }

    /// Reads CSV from an open descriptor such as standard input, which
    /// stays open; `prefix` holds bytes already read from it.
    public convenience init(
        descriptor: Int32, displayName: String, prefix: [UInt8] = [], separator: UInt8 = UInt8(ascii: ",")
    ) {
        self.init(stream: ByteStream(descriptor: descriptor, file: displayName, prefix: prefix), separator: separator)
    }

    init(stream: ByteStream, separator: UInt8) {
        self.stream = stream
        self.separator = separator
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
                if try stream.peek() == 0xEF {
                    for expected: UInt8 in [0xEF, 0xBB, 0xBF] where try stream.next() != expected {
                        throw failure("invalid UTF-8 at the start of the file", at: stream.location)
                    }
                }
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
        let location = stream.location
        scratch.removeAll(keepingCapacity: true)
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
            if scratch.count > Self.maximumFieldBytes {
                throw failure("field longer than \(Self.maximumFieldBytes / 1_048_576) MiB", at: location)
            }
        }
    }

    private func field(at location: SourceLocation) throws(PropertyListError) -> Field {
        guard let text = String(validating: scratch, as: UTF8.self) else {
            throw failure("invalid UTF-8 in a field", at: location)
        }
        if scratch.capacity > 1 << 20 { scratch = [] }
        return Field(text: text, location: location)
    }

    private func failure(_ message: String, at location: SourceLocation) -> PropertyListError {
        PropertyListError(.malformedText, message, at: location)
    }
}
