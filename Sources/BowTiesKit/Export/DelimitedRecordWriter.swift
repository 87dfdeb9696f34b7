import Foundation

/// Writes CSV (RFC 4180: comma-separated, CRLF line ends, fields quoted
/// only when they hold a comma, a double quote, CR or LF) or TSV (tabs,
/// LF line ends, `\t`, `\n`, `\r` and `\\` escaped inside cells, never
/// quoted), one row per record after a header row.
///
/// Columns: one per field; the photo is `photoBytes` and `photoSHA256`
/// (`--photos hash`), those and `photoBase64` (`inline`), or nothing
/// (`none`). Names (`tags`) are one cell, joined by `, `; objects
/// (`wears`) one cell of JSON text. Empty cells for missing values.
///
/// With `spreadsheetSafe`, a text cell that a spreadsheet would run as a
/// formula (it starts with `=`, `+`, `-`, `@`, a tab or a carriage return)
/// gets a `'` in front (and in CSV is quoted), as OWASP's CSV-injection
/// advice says.
struct DelimitedRecordWriter: RecordStreamWriter, ~Copyable {
    private var buffer: ExportBuffer
    private let header: [String]
    private let separator: UInt8
    private let isTSV: Bool
    private let spreadsheetSafe: Bool
    private let photos: PhotoExport
    /// `"name":` for each field's objects' keys (``objects(_:_:)``).
    private let objectKeys: [[[UInt8]]]
    private var atRowStart = true

    var replacedCharacters: Int { 0 }

    init(
        output: ExportOutput, fields: [ExportField], attributes: [AttributeDescription], photos: PhotoExport,
        tabs: Bool, spreadsheetSafe: Bool
    ) {
        buffer = ExportBuffer(output: output)
        isTSV = tabs
        separator = tabs ? 0x09 : UInt8(ascii: ",")
        self.spreadsheetSafe = spreadsheetSafe
        self.photos = photos
        objectKeys = fields.map { $0.objectKeys.map { JSONRecordWriter.quoted($0) + [UInt8(ascii: ":")] } }
        header = fields.flatMap { field -> [String] in
            guard case .attribute(let index) = field.source, attributes[index].type == .binaryData else {
                return [field.name]
            }
            switch photos {
            case .none: return []
            case .hash: return [field.name + "Bytes", field.name + "SHA256"]
            case .inline: return [field.name + "Bytes", field.name + "SHA256", field.name + "Base64"]
            }
        }
    }

    mutating func begin() throws {
        for column in header {
            var column = column
            column.withUTF8 { cell($0) }
        }
        try endRecord()
    }

    mutating func beginRecord() {}

    mutating func null(_ field: Int) { separate() }

    mutating func text(_ field: Int, _ bytes: UnsafeBufferPointer<UInt8>) { cell(bytes) }

    mutating func integer(_ field: Int, _ value: Int64) {
        separate()
        buffer.integer(value)
    }

    mutating func real(_ field: Int, _ value: Double) {
        separate()
        buffer.real(value)
    }

    mutating func bool(_ field: Int, _ value: Bool) {
        separate()
        buffer.append(value ? "true" : "false")
    }

    mutating func date(_ field: Int, secondsSince1970 value: Double) {
        separate()
        buffer.date(secondsSince1970: value)
    }

    mutating func color(_ field: Int, _ color: Color) {
        separate()
        buffer.hexColor(color)
    }

    mutating func photo(_ field: Int, _ cell: PhotoCell) throws {
        switch cell {
        case .notExported:
            return
        case .missing:
            separate()
            separate()
            if photos == .inline { separate() }
        case .described(let byteCount, let sha256, _, let data):
            integer(field, byteCount)
            text(field, sha256)
            guard photos == .inline else { return }
            separate()
            if let data { try buffer.base64(data) }
        }
    }

    mutating func names(_ field: Int, _ names: [String]) {
        // One name (or none) is its own cell: no joined copy.
        guard names.count > 1 else {
            var name = names.first ?? ""
            return name.withUTF8 { cell($0) }
        }
        var joined = names.joined(separator: ", ")
        joined.withUTF8 { cell($0) }
    }

    /// A list of objects (`wears`) is one cell of JSON text, as JSON
    /// writes it (`[{"date":"2014-06-19T18:15:24Z","note":"gala"}]`):
    /// a cell holds any text, and JSON says exactly what each value is,
    /// so the import reads it back whole. No objects: `[]`, which an
    /// import reads as "no history" (an empty cell leaves it alone).
    mutating func objects(_ field: Int, _ objects: [ExportObject]) {
        guard !objects.isEmpty else {
            // Most ties: no array to build.
            separate()
            return buffer.append("[]")
        }
        var json: [UInt8] = [UInt8(ascii: "[")]
        let keys = objectKeys[field]
        for (index, object) in objects.enumerated() {
            json.append(contentsOf: index == 0 ? [UInt8(ascii: "{")] : [UInt8(ascii: ","), UInt8(ascii: "{")])
            for (position, value) in object.enumerated() where position < keys.count {
                if position > 0 { json.append(UInt8(ascii: ",")) }
                json.append(contentsOf: keys[position])
                switch value {
                case nil: json.append(contentsOf: "null".utf8)
                case .text(let text)?: json.append(contentsOf: JSONRecordWriter.quoted(text))
                case .real(let number)?:
                    json.append(contentsOf: (number.isFinite ? "\(number)" : "null").utf8)
                case .integer(let number)?: json.append(contentsOf: "\(number)".utf8)
                case .bool(let flag)?: json.append(contentsOf: (flag ? "true" : "false").utf8)
                case .date(let seconds)?:
                    json.append(contentsOf: JSONRecordWriter.quoted(Self.isoDate(seconds)))
                }
            }
            json.append(UInt8(ascii: "}"))
        }
        json.append(UInt8(ascii: "]"))
        json.withUnsafeBufferPointer { cell($0) }
    }

    /// A date as every export writes one: whole seconds, UTC.
    private static func isoDate(_ seconds: Double) -> String {
        ISO8601.string(from: Date(timeIntervalSince1970: seconds.rounded(.down)))
    }

    mutating func endRecord() throws {
        if !isTSV { buffer.append(0x0D) }
        buffer.append(0x0A)
        atRowStart = true
        try buffer.flushIfFull()
    }

    mutating func finish() throws {
        try buffer.flush()
    }

    /// A text cell, quoted or escaped as the format needs.
    private mutating func cell(_ bytes: UnsafeBufferPointer<UInt8>) {
        separate()
        guard let first = bytes.first else { return }
        let defused = spreadsheetSafe && Self.startsFormula(first)
        if isTSV {
            if defused { buffer.append(UInt8(ascii: "'")) }
            guard Self.needsEscapes(bytes) else {
                buffer.append(bytes)
                return
            }
            for byte in bytes {
                switch byte {
                case 0x09: buffer.append("\\t")
                case 0x0A: buffer.append("\\n")
                case 0x0D: buffer.append("\\r")
                case UInt8(ascii: "\\"): buffer.append("\\\\")
                default: buffer.append(byte)
                }
            }
            return
        }
        guard defused || Self.needsQuotes(bytes) else {
            buffer.append(bytes)
            return
        }
        buffer.append(UInt8(ascii: "\""))
        if defused { buffer.append(UInt8(ascii: "'")) }
        for byte in bytes {
            if byte == UInt8(ascii: "\"") { buffer.append(byte) }
            buffer.append(byte)
        }
        buffer.append(UInt8(ascii: "\""))
    }

    @inline(__always)
    private mutating func separate() {
        if atRowStart {
            atRowStart = false
        } else {
            buffer.append(separator)
        }
    }

    /// Whether a CSV cell holds a comma, a double quote, CR or LF.
    ///
    /// Eight bytes at a time: each of them is below 0x2D (`,`), so a word
    /// with no byte below that (letters, digits, `-./:`, any non-ASCII)
    /// is passed whole, and only the others are looked at byte by byte.
    @inline(__always)
    private static func needsQuotes(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        func special(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: ",") || byte == UInt8(ascii: "\"") || byte == 0x0D || byte == 0x0A
        }
        return scan(bytes, special) { word in hasByte(in: word, below: 0x2D) }
    }

    /// Whether a TSV cell holds a tab, LF, CR or backslash (eight bytes at
    /// a time, as ``needsQuotes(_:)``: the first three are below 0x0E).
    @inline(__always)
    private static func needsEscapes(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        func special(_ byte: UInt8) -> Bool {
            byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == UInt8(ascii: "\\")
        }
        return scan(bytes, special) { word in
            hasByte(in: word, below: 0x0E) || hasByte(in: word ^ 0x5C5C_5C5C_5C5C_5C5C, below: 0x01)
        }
    }

    /// Whether any byte is `special`, looking byte by byte only at the
    /// 8-byte words `maybe` does not rule out.
    @inline(__always)
    private static func scan(
        _ bytes: UnsafeBufferPointer<UInt8>, _ special: (UInt8) -> Bool, maybe: (UInt64) -> Bool
    ) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        let count = bytes.count
        var index = 0
        while index + 8 <= count {
            if maybe(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)) {
                for offset in index..<index + 8 where special(base[offset]) { return true }
            }
            index += 8
        }
        while index < count {
            if special(base[index]) { return true }
            index += 1
        }
        return false
    }

    /// Whether some byte of `word` is below `limit` (at most 0x80): the
    /// classic bit trick, exact as a yes or no.
    @inline(__always)
    private static func hasByte(in word: UInt64, below limit: UInt8) -> Bool {
        (word &- 0x0101_0101_0101_0101 &* UInt64(limit)) & ~word & 0x8080_8080_8080_8080 != 0
    }

    private static func startsFormula(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "=") || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: "@") || byte == 0x09 || byte == 0x0D
    }
}
