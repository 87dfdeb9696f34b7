/// Writes CSV (RFC 4180: comma-separated, CRLF line ends, fields quoted
/// only when they hold a comma, a double quote, CR or LF) or TSV (tabs,
/// LF line ends, `\t`, `\n`, `\r` and `\\` escaped inside cells, never
/// quoted), one row per record after a header row.
///
/// Columns: one per field; the photo is `photoBytes` and `photoSHA256`
/// (`--photos hash`), those and `photoBase64` (`inline`), or nothing
/// (`none`). Names (`tags`) are one cell, joined by `, `. Empty cells for
/// missing values.
///
/// With `spreadsheetSafe`, a text cell that a spreadsheet would run as a
/// formula (it starts with `=`, `+`, `-`, `@`, a tab or a carriage return)
/// gets a `'` in front (and in CSV is quoted), as OWASP's CSV-injection
/// advice says.
struct DelimitedRecordWriter: RecordStreamWriter {
    private var buffer: ExportBuffer
    private let header: [String]
    private let separator: UInt8
    private let isTSV: Bool
    private let spreadsheetSafe: Bool
    private let photos: PhotoExport
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
        var joined = names.joined(separator: ", ")
        joined.withUTF8 { cell($0) }
    }

    mutating func objects(_ field: Int, _ objects: [ExportObject]) {
        // Refused when the fields are resolved: a list of objects has no cell.
        separate()
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
            guard bytes.contains(where: { $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || $0 == UInt8(ascii: "\\") })
            else {
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
        let needsQuotes =
            defused
            || bytes.contains { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 0x0D || $0 == 0x0A }
        guard needsQuotes else {
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

    private static func startsFormula(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "=") || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: "@") || byte == 0x09 || byte == 0x0D
    }
}
