/// Writes RFC 4180 CSV (comma-separated, CRLF line ends, fields quoted only
/// when they hold a comma, a double quote, CR or LF) straight into a byte
/// buffer, and hands the buffer to a sink every 64 KiB.
///
/// Export writes millions of small fields: building a `String` per field
/// and a stream write per byte (as a general CSV library does) costs more
/// than reading the rows.
///
/// With `spreadsheetSafe`, a text field that a spreadsheet would run as a
/// formula (it starts with `=`, `+`, `-`, `@`, a tab or a carriage return)
/// gets a `'` in front and is quoted, as OWASP's CSV-injection advice says.
struct CSVRowWriter {
    static let flushThreshold = 64 * 1024

    private var buffer: [UInt8] = []
    private var atRowStart = true
    private let spreadsheetSafe: Bool
    private let sink: ([UInt8]) throws -> Void

    init(spreadsheetSafe: Bool, sink: @escaping ([UInt8]) throws -> Void) {
        self.spreadsheetSafe = spreadsheetSafe
        self.sink = sink
        buffer.reserveCapacity(Self.flushThreshold + 4096)
    }

    /// A text field; nil writes an empty field.
    mutating func text(_ bytes: UnsafeBufferPointer<UInt8>?) {
        separate()
        guard let bytes, let first = bytes.first else { return }
        let defused = spreadsheetSafe && Self.startsFormula(first)
        let needsQuotes =
            defused
            || bytes.contains { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 0x0D || $0 == 0x0A }
        guard needsQuotes else {
            buffer.append(contentsOf: bytes)
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

    /// A text field from a `String`.
    mutating func text(_ string: String) {
        var string = string
        string.withUTF8 { text($0) }
    }

    /// A field that never needs quoting (numbers, dates, `#RRGGBB`).
    mutating func plain(_ bytes: some Sequence<UInt8>) {
        separate()
        buffer.append(contentsOf: bytes)
    }

    mutating func empty() {
        separate()
    }

    /// A decimal integer, without a `String`.
    mutating func integer(_ value: Int64) {
        separate()
        guard value != 0 else {
            buffer.append(UInt8(ascii: "0"))
            return
        }
        if value < 0 { buffer.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        let start = buffer.count
        while magnitude > 0 {
            buffer.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
            magnitude /= 10
        }
        buffer[start...].reverse()
    }

    /// `#RRGGBB`, upper-case, as ``Color/hexString`` writes it.
    mutating func hexColor(_ color: Color) {
        separate()
        let digits: StaticString = "0123456789ABCDEF"
        let (red, green, blue) = color.rgb8
        buffer.append(UInt8(ascii: "#"))
        for component in [red, green, blue] {
            let byte = UInt8(clamping: component)
            buffer.append(digits.utf8Start[Int(byte >> 4)])
            buffer.append(digits.utf8Start[Int(byte & 0x0F)])
        }
    }

    /// Two digits, zero-padded (for dates).
    private mutating func twoDigits(_ value: Int64) {
        buffer.append(UInt8(ascii: "0") + UInt8(value / 10))
        buffer.append(UInt8(ascii: "0") + UInt8(value % 10))
    }

    /// `YYYY-MM-DDTHH:MM:SSZ` (UTC, whole seconds rounded down), as
    /// ``ISO8601/string(from:)`` writes it, digit by digit.
    mutating func date(secondsSince1970 value: Double) {
        guard value.isFinite, abs(value) < 1e14 else {
            plain(ISO8601.string(from: .init(timeIntervalSince1970: value)).utf8)
            return
        }
        let seconds = Int64(value.rounded(.down))
        var days = seconds / 86_400
        var rest = seconds % 86_400
        if rest < 0 {
            rest += 86_400
            days -= 1
        }
        let (year, month, day) = ISO8601.civil(fromDays: days)
        guard (0...9999).contains(year) else {
            plain(ISO8601.string(from: .init(timeIntervalSince1970: value)).utf8)
            return
        }
        separate()
        twoDigits(year / 100)
        twoDigits(year % 100)
        buffer.append(UInt8(ascii: "-"))
        twoDigits(month)
        buffer.append(UInt8(ascii: "-"))
        twoDigits(day)
        buffer.append(UInt8(ascii: "T"))
        twoDigits(rest / 3600)
        buffer.append(UInt8(ascii: ":"))
        twoDigits(rest % 3600 / 60)
        buffer.append(UInt8(ascii: ":"))
        twoDigits(rest % 60)
        buffer.append(UInt8(ascii: "Z"))
    }

    /// Ends the row with CRLF, handing the buffer over once it is large.
    mutating func endRow() throws {
        buffer.append(0x0D)
        buffer.append(0x0A)
        atRowStart = true
        if buffer.count >= Self.flushThreshold { try flush() }
    }

    /// Hands whatever is buffered to the sink.
    mutating func flush() throws {
        guard !buffer.isEmpty else { return }
        try sink(buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    private mutating func separate() {
        if atRowStart {
            atRowStart = false
        } else {
            buffer.append(UInt8(ascii: ","))
        }
    }

    private static func startsFormula(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "=") || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: "@") || byte == 0x09 || byte == 0x0D
    }
}
