import Foundation

/// The bytes an export has written but not yet handed to its
/// ``ExportOutput``: 64 KiB at a time, so that writing costs one system
/// call per few hundred records, and memory stays the same whatever the
/// catalog's size.
///
/// Export writes millions of small values: each is appended as bytes
/// (numbers and dates digit by digit), never through a `String` per value.
struct ExportBuffer {
    static let flushThreshold = 64 * 1024

    private(set) var bytes: [UInt8] = []
    let output: ExportOutput

    init(output: ExportOutput) {
        self.output = output
        bytes.reserveCapacity(Self.flushThreshold + 4096)
    }

    var isEmpty: Bool { bytes.isEmpty }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        bytes.append(byte)
    }

    mutating func append(_ buffer: UnsafeBufferPointer<UInt8>) {
        bytes.append(contentsOf: buffer)
    }

    mutating func append(_ bytes: [UInt8]) {
        self.bytes.append(contentsOf: bytes)
    }

    mutating func append(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// UTF-8 text that is not a literal (literals take the
    /// `StaticString` overload, which copies their bytes directly).
    mutating func appendText(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    /// A decimal integer, without a `String`.
    mutating func integer(_ value: Int64) {
        guard value != 0 else {
            bytes.append(UInt8(ascii: "0"))
            return
        }
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        let start = bytes.count
        while magnitude > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
            magnitude /= 10
        }
        bytes[start...].reverse()
    }

    /// A number as ``AttributeValue/format(_:)`` writes it: whole numbers
    /// without a fraction (`4`), others in Swift's shortest form (`3.75`),
    /// `nan`, `inf`, `-inf`.
    mutating func real(_ number: Double) {
        if number == number.rounded(), abs(number) < 1e15 {
            integer(Int64(number))
        } else {
            appendText(AttributeValue.format(number))
        }
    }

    /// `#RRGGBB`, upper-case, as ``Color/hexString`` writes it.
    mutating func hexColor(_ color: Color) {
        let (red, green, blue) = color.rgb8
        bytes.append(UInt8(ascii: "#"))
        hexByte(UInt8(clamping: red))
        hexByte(UInt8(clamping: green))
        hexByte(UInt8(clamping: blue))
    }

    private mutating func hexByte(_ byte: UInt8) {
        bytes.append(Self.hexDigits[Int(byte >> 4)])
        bytes.append(Self.hexDigits[Int(byte & 0x0F)])
    }

    private static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

    /// Two digits, zero-padded (for dates).
    private mutating func twoDigits(_ value: Int64) {
        bytes.append(UInt8(ascii: "0") + UInt8(value / 10))
        bytes.append(UInt8(ascii: "0") + UInt8(value % 10))
    }

    /// `YYYY-MM-DDTHH:MM:SSZ` (UTC, whole seconds rounded down), as
    /// ``ISO8601/string(from:)`` writes it, digit by digit.
    mutating func date(secondsSince1970 value: Double) {
        guard value.isFinite, abs(value) < 1e14 else {
            appendText(ISO8601.string(from: .init(timeIntervalSince1970: value)))
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
            appendText(ISO8601.string(from: .init(timeIntervalSince1970: value)))
            return
        }
        twoDigits(year / 100)
        twoDigits(year % 100)
        bytes.append(UInt8(ascii: "-"))
        twoDigits(month)
        bytes.append(UInt8(ascii: "-"))
        twoDigits(day)
        bytes.append(UInt8(ascii: "T"))
        twoDigits(rest / 3600)
        bytes.append(UInt8(ascii: ":"))
        twoDigits(rest % 3600 / 60)
        bytes.append(UInt8(ascii: ":"))
        twoDigits(rest % 60)
        bytes.append(UInt8(ascii: "Z"))
    }

    private static let base64Digits: [UInt8] = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Base64 (RFC 4648, with padding, on one line), flushing as it goes:
    /// a photo may be larger than the buffer.
    mutating func base64(_ data: UnsafeRawBufferPointer) throws {
        var index = 0
        let count = data.count
        while index + 3 <= count {
            let value = UInt32(data[index]) << 16 | UInt32(data[index + 1]) << 8 | UInt32(data[index + 2])
            bytes.append(Self.base64Digits[Int(value >> 18 & 63)])
            bytes.append(Self.base64Digits[Int(value >> 12 & 63)])
            bytes.append(Self.base64Digits[Int(value >> 6 & 63)])
            bytes.append(Self.base64Digits[Int(value & 63)])
            index += 3
            if bytes.count >= 4 * Self.flushThreshold { try flush() }
        }
        let rest = count - index
        if rest > 0 {
            var value = UInt32(data[index]) << 16
            if rest == 2 { value |= UInt32(data[index + 1]) << 8 }
            bytes.append(Self.base64Digits[Int(value >> 18 & 63)])
            bytes.append(Self.base64Digits[Int(value >> 12 & 63)])
            bytes.append(rest == 2 ? Self.base64Digits[Int(value >> 6 & 63)] : UInt8(ascii: "="))
            bytes.append(UInt8(ascii: "="))
        }
    }

    /// Hands the bytes over once there are 64 KiB of them.
    @inline(__always)
    mutating func flushIfFull() throws {
        if bytes.count >= Self.flushThreshold { try flush() }
    }

    /// Hands whatever is buffered to the output.
    mutating func flush() throws {
        guard !bytes.isEmpty else { return }
        try bytes.withUnsafeBytes { try output.write($0) }
        bytes.removeAll(keepingCapacity: true)
    }
}
