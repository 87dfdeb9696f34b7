/// Writes records as an XML property list (Apple's PLIST 1.0 DTD): a root
/// `<array>` of one `<dict>` per record, streamed, that Apple's parser,
/// Python's `plistlib` and ``PropertyList/PropertyListReader`` read back.
///
/// Keys as in JSON (``JSONRecordWriter``). A property list has no null: a
/// value that is missing leaves its key out. Text is `<string>`, numbers
/// `<integer>` or `<real>` (`nan`, `inf` as Apple writes them), Booleans
/// `<true/>` or `<false/>`, dates `<date>YYYY-MM-DDTHH:MM:SSZ</date>`, the
/// colour `<string>#RRGGBB</string>`, names an `<array>` of `<string>`,
/// objects (`wears`) an `<array>` of `<dict>`. The photo is a `<dict>` of
/// `bytes`, `sha256`, `storage` (and `file` when external) with
/// `--photos hash`, `<data>` (Base64) with `inline`.
///
/// Escaping: `&`, `<` and `>` as entities, a carriage return as `&#13;`
/// (XML parsers turn a raw one into a line feed). XML 1.0 cannot hold
/// the other control characters (U+0000–U+001F but tab and line feed) nor
/// U+FFFE and U+FFFF, not even as references: each is written as U+FFFD
/// (the replacement character) and counted in ``replacedCharacters``, so
/// the command can say so. The file stays well-formed.
struct PropertyListRecordWriter: RecordStreamWriter, ~Copyable {
    private var buffer: ExportBuffer
    /// `\t\t<key>name</key>\n` for each field.
    private let keys: [[UInt8]]
    private let objectKeys: [[[UInt8]]]
    /// The photo folder's path and a `/`, escaped.
    private let photoFolder: [UInt8]
    private(set) var replacedCharacters = 0

    init(output: ExportOutput, fields: [ExportField], photoFolder: String) {
        buffer = ExportBuffer(output: output)
        var replaced = 0
        keys = fields.map { Array("\t\t<key>".utf8) + Self.escaped($0.name, &replaced) + Array("</key>\n".utf8) }
        objectKeys = fields.map { field in
            field.objectKeys.map { Array("\t\t\t\t<key>".utf8) + Self.escaped($0, &replaced) + Array("</key>\n".utf8) }
        }
        self.photoFolder = Self.escaped(photoFolder + "/", &replaced)
    }

    static func escaped(_ text: String, _ replaced: inout Int) -> [UInt8] {
        var bytes: [UInt8] = []
        var text = text
        text.withUTF8 { escape($0, into: &bytes, replaced: &replaced) }
        return bytes
    }

    /// Whether `bytes` can be written as they are.
    @inline(__always)
    private static func isPlain(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        !bytes.contains { byte in
            byte < 0x20 && byte != 0x09 && byte != 0x0A || byte == UInt8(ascii: "&") || byte == UInt8(ascii: "<")
                || byte == UInt8(ascii: ">") || byte == 0xEF
        }
    }

    private static func escape(_ bytes: UnsafeBufferPointer<UInt8>, into output: inout [UInt8], replaced: inout Int) {
        let replacement: [UInt8] = [0xEF, 0xBF, 0xBD]
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "&"): output += Array("&amp;".utf8)
            case UInt8(ascii: "<"): output += Array("&lt;".utf8)
            case UInt8(ascii: ">"): output += Array("&gt;".utf8)
            case 0x0D: output += Array("&#13;".utf8)
            case 0x09, 0x0A: output.append(byte)
            case ..<0x20:
                output += replacement
                replaced += 1
            case 0xEF where index + 1 < bytes.count && bytes[index] == 0xBF && bytes[index + 1] >= 0xBE:
                // U+FFFE, U+FFFF: not characters XML allows.
                output += replacement
                replaced += 1
                index += 2
            default: output.append(byte)
            }
        }
    }

    mutating func begin() throws {
        buffer.append(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <array>

            """)
    }

    mutating func beginRecord() {
        buffer.append("\t<dict>\n")
    }

    mutating func null(_ field: Int) {}

    private mutating func string(_ bytes: UnsafeBufferPointer<UInt8>, indent: StaticString = "\t\t") {
        buffer.append(indent)
        buffer.append("<string>")
        if Self.isPlain(bytes) {
            buffer.append(bytes)
        } else {
            var escaped: [UInt8] = []
            Self.escape(bytes, into: &escaped, replaced: &replacedCharacters)
            buffer.append(escaped)
        }
        buffer.append("</string>\n")
    }

    private mutating func string(_ text: String, indent: StaticString) {
        var text = text
        text.withUTF8 { string($0, indent: indent) }
    }

    mutating func text(_ field: Int, _ bytes: UnsafeBufferPointer<UInt8>) {
        buffer.append(keys[field])
        string(bytes)
    }

    mutating func integer(_ field: Int, _ value: Int64) {
        buffer.append(keys[field])
        integer(value, indent: "\t\t")
    }

    private mutating func integer(_ value: Int64, indent: StaticString) {
        buffer.append(indent)
        buffer.append("<integer>")
        buffer.integer(value)
        buffer.append("</integer>\n")
    }

    mutating func real(_ field: Int, _ value: Double) {
        buffer.append(keys[field])
        real(value, indent: "\t\t")
    }

    private mutating func real(_ value: Double, indent: StaticString) {
        buffer.append(indent)
        buffer.append("<real>")
        buffer.real(value)
        buffer.append("</real>\n")
    }

    mutating func bool(_ field: Int, _ value: Bool) {
        buffer.append(keys[field])
        buffer.append(value ? "\t\t<true/>\n" : "\t\t<false/>\n")
    }

    mutating func date(_ field: Int, secondsSince1970 value: Double) {
        buffer.append(keys[field])
        date(value, indent: "\t\t")
    }

    private mutating func date(_ value: Double, indent: StaticString) {
        buffer.append(indent)
        buffer.append("<date>")
        buffer.date(secondsSince1970: value)
        buffer.append("</date>\n")
    }

    mutating func color(_ field: Int, _ color: Color) {
        buffer.append(keys[field])
        buffer.append("\t\t<string>")
        buffer.hexColor(color)
        buffer.append("</string>\n")
    }

    mutating func photo(_ field: Int, _ cell: PhotoCell) throws {
        guard case .described(let byteCount, let sha256, let external, let data) = cell else { return }
        buffer.append(keys[field])
        if let data {
            buffer.append("\t\t<data>")
            try buffer.base64(data)
            buffer.append("</data>\n")
            return
        }
        buffer.append("\t\t<dict>\n\t\t\t<key>bytes</key>\n")
        integer(byteCount, indent: "\t\t\t")
        buffer.append("\t\t\t<key>sha256</key>\n")
        string(sha256, indent: "\t\t\t")
        buffer.append("\t\t\t<key>storage</key>\n")
        buffer.append(external ? "\t\t\t<string>external</string>\n" : "\t\t\t<string>inline</string>\n")
        if external {
            buffer.append("\t\t\t<key>file</key>\n\t\t\t<string>")
            buffer.append(photoFolder)
            buffer.append(sha256)
            buffer.append("</string>\n")
        }
        buffer.append("\t\t</dict>\n")
    }

    mutating func names(_ field: Int, _ names: [String]) {
        buffer.append(keys[field])
        guard !names.isEmpty else {
            buffer.append("\t\t<array/>\n")
            return
        }
        buffer.append("\t\t<array>\n")
        for name in names { string(name, indent: "\t\t\t") }
        buffer.append("\t\t</array>\n")
    }

    mutating func objects(_ field: Int, _ objects: [ExportObject]) {
        buffer.append(keys[field])
        guard !objects.isEmpty else {
            buffer.append("\t\t<array/>\n")
            return
        }
        buffer.append("\t\t<array>\n")
        let keys = objectKeys[field]
        for object in objects {
            buffer.append("\t\t\t<dict>\n")
            for (position, value) in object.enumerated() {
                guard let value else { continue }
                buffer.append(keys[position])
                switch value {
                case .text(let text): string(text, indent: "\t\t\t\t")
                case .real(let number): real(number, indent: "\t\t\t\t")
                case .integer(let number): integer(number, indent: "\t\t\t\t")
                case .bool(let flag): buffer.append(flag ? "\t\t\t\t<true/>\n" : "\t\t\t\t<false/>\n")
                case .date(let seconds): date(seconds, indent: "\t\t\t\t")
                }
            }
            buffer.append("\t\t\t</dict>\n")
        }
        buffer.append("\t\t</array>\n")
    }

    mutating func endRecord() throws {
        buffer.append("\t</dict>\n")
        try buffer.flushIfFull()
    }

    mutating func finish() throws {
        buffer.append("</array>\n</plist>\n")
        try buffer.flush()
    }
}
