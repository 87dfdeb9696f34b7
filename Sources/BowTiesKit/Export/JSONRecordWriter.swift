/// Writes records as JSON objects, by the declaration: one key per field
/// in order, every key present, `null` for no value; dates in ISO 8601
/// UTC, colours `#RRGGBB`, names (`tags`) an array of strings, objects
/// (`wears`) an array of objects (`{"date": ..., "note": ...}`). The photo
/// is `{"bytes", "sha256", "storage"[, "file"]}` (`--photos hash`), a
/// Base64 string (`inline`) or `null` (`none`). Numbers that are not
/// finite (which validation never lets in) are `null`.
///
/// `.json` is one array, streamed: `[`, one object per line separated by
/// `,`, `]` (an empty array is `[]`). `.jsonl` (JSON Lines) writes one
/// object per line and nothing else.
struct JSONRecordWriter: RecordStreamWriter, ~Copyable {
    private var buffer: ExportBuffer
    private let lines: Bool
    /// `"name":` for each field, JSON-escaped once.
    private let keys: [[UInt8]]
    /// The same for each field's objects' keys.
    private let objectKeys: [[[UInt8]]]
    /// The photo folder's path and a `/`, JSON-escaped (no quotes).
    private let photoFolder: [UInt8]
    private var count = 0
    private var firstInRecord = true

    var replacedCharacters: Int { 0 }

    init(output: ExportOutput, fields: [ExportField], photoFolder: String, lines: Bool) {
        buffer = ExportBuffer(output: output)
        self.lines = lines
        keys = fields.map { Self.quoted($0.name) + [UInt8(ascii: ":")] }
        objectKeys = fields.map { $0.objectKeys.map { Self.quoted($0) + [UInt8(ascii: ":")] } }
        self.photoFolder = Array(Self.quoted(photoFolder + "/").dropFirst().dropLast())
    }

    /// `"text"`, escaped.
    static func quoted(_ text: String) -> [UInt8] {
        var buffer: [UInt8] = [UInt8(ascii: "\"")]
        for byte in text.utf8 { escape(byte, into: &buffer) }
        buffer.append(UInt8(ascii: "\""))
        return buffer
    }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    @inline(__always)
    private static func escape(_ byte: UInt8, into buffer: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "\""): buffer += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
        case UInt8(ascii: "\\"): buffer += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
        case 0x0A: buffer += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
        case 0x0D: buffer += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
        case 0x09: buffer += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
        case ..<0x20:
            buffer += Array("\\u00".utf8)
            buffer.append(hex[Int(byte >> 4)])
            buffer.append(hex[Int(byte & 0x0F)])
        default: buffer.append(byte)
        }
    }

    mutating func begin() throws {
        if !lines { buffer.append(UInt8(ascii: "[")) }
    }

    mutating func beginRecord() {
        if !lines { buffer.append(count == 0 ? "\n" : ",\n") }
        buffer.append(UInt8(ascii: "{"))
        firstInRecord = true
    }

    @inline(__always)
    private mutating func key(_ field: Int) {
        if firstInRecord {
            firstInRecord = false
        } else {
            buffer.append(UInt8(ascii: ","))
        }
        buffer.append(keys[field])
    }

    mutating func null(_ field: Int) {
        key(field)
        buffer.append("null")
    }

    mutating func text(_ field: Int, _ bytes: UnsafeBufferPointer<UInt8>) {
        key(field)
        string(bytes)
    }

    private mutating func string(_ bytes: UnsafeBufferPointer<UInt8>) {
        buffer.append(UInt8(ascii: "\""))
        if bytes.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            var escaped: [UInt8] = []
            escaped.reserveCapacity(bytes.count + 16)
            for byte in bytes { Self.escape(byte, into: &escaped) }
            buffer.append(escaped)
        } else {
            buffer.append(bytes)
        }
        buffer.append(UInt8(ascii: "\""))
    }

    private mutating func string(_ text: String) {
        var text = text
        text.withUTF8 { string($0) }
    }

    mutating func integer(_ field: Int, _ value: Int64) {
        key(field)
        buffer.integer(value)
    }

    mutating func real(_ field: Int, _ value: Double) {
        key(field)
        number(value)
    }

    private mutating func number(_ value: Double) {
        if value.isFinite { buffer.real(value) } else { buffer.append("null") }
    }

    mutating func bool(_ field: Int, _ value: Bool) {
        key(field)
        buffer.append(value ? "true" : "false")
    }

    mutating func date(_ field: Int, secondsSince1970 value: Double) {
        key(field)
        buffer.append(UInt8(ascii: "\""))
        buffer.date(secondsSince1970: value)
        buffer.append(UInt8(ascii: "\""))
    }

    mutating func color(_ field: Int, _ color: Color) {
        key(field)
        buffer.append(UInt8(ascii: "\""))
        buffer.hexColor(color)
        buffer.append(UInt8(ascii: "\""))
    }

    mutating func photo(_ field: Int, _ cell: PhotoCell) throws {
        key(field)
        switch cell {
        case .notExported, .missing:
            buffer.append("null")
        case .described(_, _, _, let data?):
            buffer.append(UInt8(ascii: "\""))
            try buffer.base64(data)
            buffer.append(UInt8(ascii: "\""))
        case .described(let byteCount, let sha256, let external, nil):
            buffer.append("{\"bytes\":")
            buffer.integer(byteCount)
            buffer.append(",\"sha256\":")
            string(sha256)
            buffer.append(external ? ",\"storage\":\"external\",\"file\":\"" : ",\"storage\":\"inline\"}")
            guard external else { return }
            buffer.append(photoFolder)
            buffer.append(sha256)
            buffer.append("\"}")
        }
    }

    mutating func names(_ field: Int, _ names: [String]) {
        key(field)
        buffer.append(UInt8(ascii: "["))
        for (index, name) in names.enumerated() {
            if index > 0 { buffer.append(UInt8(ascii: ",")) }
            string(name)
        }
        buffer.append(UInt8(ascii: "]"))
    }

    mutating func objects(_ field: Int, _ objects: [ExportObject]) {
        key(field)
        buffer.append(UInt8(ascii: "["))
        let keys = objectKeys[field]
        for (index, object) in objects.enumerated() {
            buffer.append(index == 0 ? "{" : ",{")
            for (position, value) in object.enumerated() {
                if position > 0 { buffer.append(UInt8(ascii: ",")) }
                buffer.append(keys[position])
                switch value {
                case nil: buffer.append("null")
                case .text(let text)?: string(text)
                case .real(let number)?: self.number(number)
                case .integer(let number)?: buffer.integer(number)
                case .bool(let flag)?: buffer.append(flag ? "true" : "false")
                case .date(let seconds)?:
                    buffer.append(UInt8(ascii: "\""))
                    buffer.date(secondsSince1970: seconds)
                    buffer.append(UInt8(ascii: "\""))
                }
            }
            buffer.append(UInt8(ascii: "}"))
        }
        buffer.append(UInt8(ascii: "]"))
    }

    mutating func endRecord() throws {
        buffer.append(UInt8(ascii: "}"))
        if lines { buffer.append(UInt8(ascii: "\n")) }
        count += 1
        try buffer.flushIfFull()
    }

    mutating func finish() throws {
        if !lines { buffer.append(count == 0 ? "]\n" : "\n]\n") }
        try buffer.flush()
    }
}
