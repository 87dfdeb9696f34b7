import Foundation

/// The bytes an export has written but not yet handed to its
/// ``ExportOutput``: 64 KiB at a time, so that writing costs one system
/// call per few hundred records, and memory stays the same whatever the
/// catalog's size.
///
/// Export writes millions of small values: each is appended as bytes
/// (numbers and dates digit by digit), never through a `String` per value.
/// The bytes live in memory the buffer allocates and frees itself: an
/// append is a capacity check and a store, where an `[UInt8]` paid a
/// uniqueness check (a runtime call) for every byte. That is why the
/// buffer is `~Copyable`: two copies would write over each other's bytes,
/// and the compiler now refuses to make one.
struct ExportBuffer: ~Copyable {
    static let flushThreshold = 64 * 1024

    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// Bytes written since the last flush.
    private(set) var count = 0
    let output: ExportOutput

    init(output: ExportOutput) {
        self.output = output
        capacity = Self.flushThreshold + 4096
        base = .allocate(capacity: capacity)
    }

    deinit {
        base.deallocate()
    }

    var isEmpty: Bool { count == 0 }

    /// Makes room for `extra` more bytes: a cell longer than the slack
    /// above ``flushThreshold`` grows the buffer (as an array would).
    @inline(__always)
    private mutating func reserve(_ extra: Int) {
        if count + extra > capacity { grow(to: count + extra) }
    }

    @inline(never)
    private mutating func grow(to needed: Int) {
        let newCapacity = max(capacity * 2, needed)
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        grown.initialize(from: base, count: count)
        base.deallocate()
        base = grown
        capacity = newCapacity
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count += 1
    }

    @inline(__always)
    mutating func append(_ buffer: UnsafeBufferPointer<UInt8>) {
        guard let source = buffer.baseAddress, !buffer.isEmpty else { return }
        reserve(buffer.count)
        (base + count).update(from: source, count: buffer.count)
        count += buffer.count
    }

    mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { append($0) }
    }

    @inline(__always)
    mutating func append(_ text: StaticString) {
        append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// UTF-8 text that is not a literal (literals take the
    /// `StaticString` overload, which copies their bytes directly).
    mutating func appendText(_ text: String) {
        var text = text
        text.withUTF8 { append($0) }
    }

    /// A decimal integer, without a `String`.
    mutating func integer(_ value: Int64) {
        // 19 digits and a sign at most.
        reserve(20)
        if value < 0 {
            base[count] = UInt8(ascii: "-")
            count += 1
        }
        var magnitude = value.magnitude
        var digits = 1
        var rest = magnitude / 10
        while rest > 0 {
            digits += 1
            rest /= 10
        }
        var position = count + digits
        repeat {
            position -= 1
            base[position] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude % 10)
            magnitude /= 10
        } while magnitude > 0
        count += digits
    }

    /// A number as ``AttributeValue/format(_:)`` writes it: whole numbers
    /// without a fraction (`4`), others in Swift's shortest form (`3.75`),
    /// `nan`, `inf`, `-inf`.
    mutating func real(_ number: Double) {
        if number == number.rounded(), abs(number) < 1e15 {
            integer(Int64(number))
            return
        }
        if let text = realTexts[number.bitPattern] {
            appendText(text)
            return
        }
        let text = AttributeValue.format(number)
        if realTexts.count >= Self.realTextsLimit { realTexts.removeAll(keepingCapacity: true) }
        realTexts[number.bitPattern] = text
        appendText(text)
    }

    /// The text of each fractional number met, by bit pattern: ratings
    /// repeat (3.75, 4.5), and Swift's shortest form costs more than the
    /// rest of a row's numbers. Bounded, so memory stays flat.
    private var realTexts: [UInt64: String] = [:]
    private static let realTextsLimit = 1024

    /// `#RRGGBB`, upper-case, as ``Color/hexString`` writes it.
    mutating func hexColor(_ color: Color) {
        let (red, green, blue) = color.rgb8
        reserve(7)
        base[count] = UInt8(ascii: "#")
        count += 1
        hexByte(UInt8(clamping: red))
        hexByte(UInt8(clamping: green))
        hexByte(UInt8(clamping: blue))
    }

    /// Two upper-case digits; the caller reserved room.
    @inline(__always)
    private mutating func hexByte(_ byte: UInt8) {
        let digits: StaticString = "0123456789ABCDEF"
        base[count] = digits.utf8Start[Int(byte >> 4)]
        base[count + 1] = digits.utf8Start[Int(byte & 0x0F)]
        count += 2
    }

    /// Two digits, zero-padded (for dates), at `offset` from the end.
    @inline(__always)
    private func twoDigits(_ value: Int64, at offset: Int) {
        base[count + offset] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: value / 10)
        base[count + offset + 1] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: value % 10)
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
        reserve(20)
        twoDigits(year / 100, at: 0)
        twoDigits(year % 100, at: 2)
        base[count + 4] = UInt8(ascii: "-")
        twoDigits(month, at: 5)
        base[count + 7] = UInt8(ascii: "-")
        twoDigits(day, at: 8)
        base[count + 10] = UInt8(ascii: "T")
        twoDigits(rest / 3600, at: 11)
        base[count + 13] = UInt8(ascii: ":")
        twoDigits(rest % 3600 / 60, at: 14)
        base[count + 16] = UInt8(ascii: ":")
        twoDigits(rest % 60, at: 17)
        base[count + 19] = UInt8(ascii: "Z")
        count += 20
    }

    /// Base64 (RFC 4648, with padding, on one line), flushing as it goes:
    /// a photo may be larger than the buffer.
    mutating func base64(_ data: UnsafeRawBufferPointer) throws {
        let digits: StaticString = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
        let digit = digits.utf8Start
        var index = 0
        let total = data.count
        while index + 3 <= total {
            let value = UInt32(data[index]) << 16 | UInt32(data[index + 1]) << 8 | UInt32(data[index + 2])
            reserve(4)
            base[count] = digit[Int(value >> 18 & 63)]
            base[count + 1] = digit[Int(value >> 12 & 63)]
            base[count + 2] = digit[Int(value >> 6 & 63)]
            base[count + 3] = digit[Int(value & 63)]
            count += 4
            index += 3
            if count >= 4 * Self.flushThreshold { try flush() }
        }
        let rest = total - index
        if rest > 0 {
            var value = UInt32(data[index]) << 16
            if rest == 2 { value |= UInt32(data[index + 1]) << 8 }
            reserve(4)
            base[count] = digit[Int(value >> 18 & 63)]
            base[count + 1] = digit[Int(value >> 12 & 63)]
            base[count + 2] = rest == 2 ? digit[Int(value >> 6 & 63)] : UInt8(ascii: "=")
            base[count + 3] = UInt8(ascii: "=")
            count += 4
        }
    }

    /// Hands the bytes over once there are 64 KiB of them.
    @inline(__always)
    mutating func flushIfFull() throws {
        if count >= Self.flushThreshold { try flush() }
    }

    /// Hands whatever is buffered to the output.
    mutating func flush() throws {
        guard count > 0 else { return }
        try output.write(UnsafeRawBufferPointer(start: base, count: count))
        count = 0
    }
}
