import Foundation

/// Reads JSON records one at a time into the same located values as the
/// property-list readers: a root array of objects (``Layout/array``),
/// streamed element by element, or JSON Lines (``Layout/lines``), one
/// value per line.
///
/// ```swift
/// let reader = try JSONReader(contentsOf: url)
/// while let record = try reader.next() {
///     // record.value: .dictionary, located "Ties.json:12:3"
/// }
/// ```
///
/// Memory holds one record and a 64 KiB chunk of the file, whatever its
/// size; the input may be a pipe. JSON maps onto property-list values as
/// `string`, `integer` (a number without fraction or exponent that fits
/// `Int64`), `real`, `bool`, `array` and `dictionary`; `null` means "no
/// value": an object member whose value is `null` is left out.
///
/// The reader is safe on untrusted input. It refuses, located at the
/// offending byte (`file:line:column`) with
/// ``PropertyListError/Kind/malformedText``: anything RFC 8259 does not
/// allow, invalid UTF-8, NUL characters (raw or `\u0000`), lone
/// surrogates, strings longer than ``maximumStringBytes``, numbers longer
/// than ``maximumNumberLength`` characters or outside `Int64`/`Double`,
/// `null` inside an array, content after the root array, a file in
/// UTF-16 or UTF-32, a record whose strings hold more than
/// ``maximumRecordStringBytes`` or which holds more than
/// ``maximumRecordValues`` values; repeated keys
/// (``PropertyListError/Kind/duplicateKey``); and nesting deeper than
/// ``maximumDepth`` (``PropertyListError/Kind/tooDeeplyNested``).
///
/// Not `Sendable`: create one per document and use it where it was made.
public final class JSONReader {
    /// How records are laid out in the file.
    public enum Layout: Sendable, Hashable {
        /// `[ {...}, {...} ]`: the root array's elements are the records.
        case array
        /// JSON Lines: one value per line; blank lines are skipped.
        case lines
    }

    /// The property-list readers' limit.
    public static let maximumDepth = PropertyListReader.maximumDepth
    /// The longest string, in UTF-8 bytes once unescaped: room for a
    /// Base64 photo of 12 MiB.
    public static let maximumStringBytes = 16 * 1024 * 1024
    /// The longest number, in characters.
    public static let maximumNumberLength = 64
    /// The most UTF-8 bytes the strings (keys included) of one record may
    /// hold in all: a record is held whole, so this and
    /// ``maximumRecordValues`` bound memory, with room for a 16 MiB
    /// Base64 photo beside the rest.
    public static let maximumRecordStringBytes = 32 * 1024 * 1024
    /// The most values (each string, number, boolean, array and object,
    /// keys not counted) one record may hold: about 36 MiB of located
    /// values at most.
    public static let maximumRecordValues = 1 << 18

    /// The layout, once known (told from the first character when not
    /// given: `[` is an array, anything else JSON Lines).
    public private(set) var layout: Layout?

    private let stream: ByteStream
    private var started = false
    private var finished = false
    private var elements = 0
    /// The bytes of the string being read, reused.
    private var scratch: [UInt8] = []
    /// Values and string bytes of the record being read, against the
    /// record limits.
    private var recordValues = 0
    private var recordStringBytes = 0

    /// Opens the JSON file at `url`.
    ///
    /// - Parameters:
    ///   - displayName: the name locations show; the URL's last path
    ///     component by default.
    ///   - layout: nil to tell it from the content.
    /// - Throws: ``PropertyListError`` when the file is missing or unreadable.
    public convenience init(contentsOf url: URL, displayName: String? = nil, layout: Layout? = nil)
        throws(PropertyListError)
    {
        let name = displayName ?? url.lastPathComponent
        self.init(stream: try ByteStream(path: url.path, file: name), layout: layout)
    }

    /// Reads JSON from an open descriptor such as standard input, which
    /// stays open.
    ///
    /// - Parameter prefix: bytes already read from the descriptor (to
    ///   tell its format): they are read first.
    public convenience init(descriptor: Int32, displayName: String, prefix: [UInt8] = [], layout: Layout? = nil) {
        self.init(stream: ByteStream(descriptor: descriptor, file: displayName, prefix: prefix), layout: layout)
    }

    init(stream: ByteStream, layout: Layout?) {
        self.stream = stream
        self.layout = layout
    }

    /// Bytes of the input read so far.
    public var bytesConsumed: Int { stream.offset }

    /// Reads one JSON value held in `text` (a cell of a CSV file that
    /// holds a list as JSON), white space around it allowed, with the
    /// limits of a record.
    ///
    /// - Parameter location: Where the text starts; locations inside it
    ///   count from there.
    /// - Returns: The value; nil for `null`.
    /// - Throws: ``PropertyListError``, located, for anything but one
    ///   JSON value.
    public static func value(in text: String, at location: SourceLocation) throws(PropertyListError)
        -> PropertyListItem?
    {
        let reader = JSONReader(stream: ByteStream(bytes: Array(text.utf8), at: location), layout: .lines)
        reader.started = true
        try reader.skipWhitespace()
        let start = reader.stream.location
        reader.startRecord()
        let value = try reader.value(depth: 1)
        try reader.skipWhitespace()
        if let extra = try reader.stream.peek() {
            throw reader.failure("unexpected \(reader.describe(extra)) after the JSON value")
        }
        return value.map { PropertyListItem($0, at: start) }
    }

    /// The next record, or nil after the last one.
    ///
    /// - Throws: ``PropertyListError``, located; after an error the reader
    ///   returns nil.
    public func next() throws(PropertyListError) -> PropertyListItem? {
        guard !finished else { return nil }
        do throws(PropertyListError) {
            if !started { try start() }
            guard !finished else { return nil }
            switch layout {
            case .array?: return try nextElement()
            case .lines?, nil: return try nextLine()
            }
        } catch {
            finished = true
            throw error
        }
    }

    // MARK: - Layouts

    private func start() throws(PropertyListError) {
        started = true
        // A UTF-8 byte-order mark, as some editors write; not UTF-16.
        try stream.skipByteOrderMark()
        try skipWhitespace()
        guard let first = try stream.peek() else {
            if layout == .array { throw failure("the file is empty (expected a JSON array)") }
            finished = true
            return
        }
        if layout == nil { layout = first == UInt8(ascii: "[") ? .array : .lines }
        if layout == .array {
            guard first == UInt8(ascii: "[") else {
                throw failure("expected a JSON array of objects, found \(describe(first))")
            }
            stream.advance()
        }
    }

    private func nextElement() throws(PropertyListError) -> PropertyListItem? {
        try skipWhitespace()
        guard let byte = try stream.peek() else { throw failure("the file ends inside the root array (missing ])") }
        if byte == UInt8(ascii: "]") {
            stream.advance()
            try skipWhitespace()
            if let extra = try stream.peek() {
                throw failure("unexpected \(describe(extra)) after the end of the root array")
            }
            finished = true
            return nil
        }
        if elements > 0 {
            guard byte == UInt8(ascii: ",") else { throw failure("expected , or ] after a record, found \(describe(byte))") }
            stream.advance()
            try skipWhitespace()
        }
        elements += 1
        let location = stream.location
        startRecord()
        guard let value = try value(depth: 1) else {
            throw PropertyListError(.malformedText, "null is not a record", at: location)
        }
        return PropertyListItem(value, at: location)
    }

    private func nextLine() throws(PropertyListError) -> PropertyListItem? {
        try skipWhitespace()
        guard try stream.peek() != nil else {
            finished = true
            return nil
        }
        let location = stream.location
        startRecord()
        guard let value = try value(depth: 1) else {
            throw PropertyListError(.malformedText, "null is not a record", at: location)
        }
        // The rest of the line: blanks only.
        while let byte = try stream.peek(), byte == 0x20 || byte == 0x09 || byte == 0x0D {
            stream.advance()
        }
        if let byte = try stream.peek(), byte != 0x0A {
            throw failure("expected one JSON value per line, found \(describe(byte)) after it")
        }
        return PropertyListItem(value, at: location)
    }

    // MARK: - Values

    private func startRecord() {
        recordValues = 0
        recordStringBytes = 0
    }

    /// The value at the stream's position; nil for `null`.
    private func value(depth: Int) throws(PropertyListError) -> PropertyListValue? {
        guard let byte = try stream.peek() else { throw failure("the file ends where a value should be") }
        recordValues += 1
        if recordValues > Self.maximumRecordValues {
            throw failure("a record holds more than \(Self.maximumRecordValues) values")
        }
        switch byte {
        case UInt8(ascii: "{"):
            return .dictionary(try object(depth: depth))
        case UInt8(ascii: "["):
            return .array(try array(depth: depth))
        case UInt8(ascii: "\""):
            return .string(try string())
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return try number()
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return nil
        default:
            throw failure("expected a JSON value, found \(describe(byte))")
        }
    }

    private func checkDepth(_ depth: Int) throws(PropertyListError) {
        if depth > Self.maximumDepth {
            throw PropertyListError(.tooDeeplyNested, PropertyListReader.tooDeeplyNestedMessage, at: stream.location)
        }
    }

    private func object(depth: Int) throws(PropertyListError) -> PropertyListDictionary {
        try checkDepth(depth)
        stream.advance()  // {
        var entries: [PropertyListDictionary.Entry] = []
        var index: [String: Int]?
        try skipWhitespace()
        if try stream.peek() == UInt8(ascii: "}") {
            stream.advance()
            return PropertyListDictionary(entries: entries)
        }
        while true {
            try skipWhitespace()
            let keyLocation = stream.location
            guard let quote = try stream.peek() else { throw failure("the file ends inside an object (missing })") }
            guard quote == UInt8(ascii: "\"") else {
                throw failure("expected a \"key\" in the object, found \(describe(quote))")
            }
            let key = try string()
            if let first = DuplicateKeys.entry(forKey: key, in: entries, index: &index) {
                throw PropertyListError(
                    .duplicateKey,
                    "duplicate key \"\(Self.abbreviated(key))\" (first at line \(first.keyLocation.line))",
                    at: keyLocation)
            }
            try skipWhitespace()
            guard try stream.next() == UInt8(ascii: ":") else {
                throw PropertyListError(.malformedText, "expected : after the key \"\(Self.abbreviated(key))\"", at: keyLocation)
            }
            try skipWhitespace()
            let location = stream.location
            if let value = try value(depth: depth + 1) {
                entries.append(.init(key: key, keyLocation: keyLocation, item: PropertyListItem(value, at: location)))
                index?[key] = entries.count - 1
            }
            try skipWhitespace()
            guard let separator = try stream.peek() else { throw failure("the file ends inside an object (missing })") }
            stream.advance()
            if separator == UInt8(ascii: "}") { return PropertyListDictionary(entries: entries) }
            guard separator == UInt8(ascii: ",") else {
                throw PropertyListError(
                    .malformedText, "expected , or } in the object, found \(describe(separator))",
                    at: SourceLocation(file: stream.file, line: stream.line, column: max(1, stream.column - 1)))
            }
        }
    }

    private func array(depth: Int) throws(PropertyListError) -> [PropertyListItem] {
        try checkDepth(depth)
        stream.advance()  // [
        var items: [PropertyListItem] = []
        try skipWhitespace()
        if try stream.peek() == UInt8(ascii: "]") {
            stream.advance()
            return items
        }
        while true {
            try skipWhitespace()
            let location = stream.location
            guard let value = try value(depth: depth + 1) else {
                throw PropertyListError(.malformedText, "null is not allowed in an array", at: location)
            }
            items.append(PropertyListItem(value, at: location))
            try skipWhitespace()
            guard let separator = try stream.next() else { throw failure("the file ends inside an array (missing ])") }
            if separator == UInt8(ascii: "]") { return items }
            guard separator == UInt8(ascii: ",") else {
                throw failure("expected , or ] in the array, found \(describe(separator))")
            }
        }
    }

    private func string() throws(PropertyListError) -> String {
        let location = stream.location
        stream.advance()  // "
        scratch.removeAll(keepingCapacity: true)
        // What this string may hold: its own limit, and what the record's
        // strings have left.
        let limit = min(Self.maximumStringBytes, Self.maximumRecordStringBytes - recordStringBytes)
        while true {
            guard let byte = try stream.next() else {
                throw PropertyListError(.malformedText, "the file ends inside a string", at: location)
            }
            switch byte {
            case UInt8(ascii: "\""):
                guard let text = String(validating: scratch, as: UTF8.self) else {
                    throw PropertyListError(.malformedText, "invalid UTF-8 in a string", at: location)
                }
                recordStringBytes += scratch.count
                if scratch.capacity > 1 << 20 { scratch = [] }
                return text
            case UInt8(ascii: "\\"):
                try escape(in: location)
            case 0x00:
                throw failure("NUL character in a string", back: 1)
            case 0x01..<0x20:
                throw failure("control character U+\(Self.hex(UInt32(byte), width: 4)) in a string (escape it)", back: 1)
            default:
                scratch.append(byte)
            }
            if scratch.count > limit {
                throw PropertyListError(
                    .malformedText,
                    limit == Self.maximumStringBytes
                        ? "string longer than \(Self.maximumStringBytes / 1_048_576) MiB"
                        : "the strings of one record are longer than "
                            + "\(Self.maximumRecordStringBytes / 1_048_576) MiB in all",
                    at: location)
            }
        }
    }

    private func escape(in location: SourceLocation) throws(PropertyListError) {
        guard let byte = try stream.next() else {
            throw PropertyListError(.malformedText, "the file ends inside a string", at: location)
        }
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(byte)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try hex4()
            if (0xD800..<0xDC00).contains(scalar) {
                guard try stream.next() == UInt8(ascii: "\\"), try stream.next() == UInt8(ascii: "u") else {
                    throw failure("lone surrogate \\u\(Self.hex(scalar, width: 4)) in a string")
                }
                let low = try hex4()
                guard (0xDC00..<0xE000).contains(low) else {
                    throw failure("lone surrogate \\u\(Self.hex(scalar, width: 4)) in a string")
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(scalar) {
                throw failure("lone surrogate \\u\(Self.hex(scalar, width: 4)) in a string")
            }
            guard scalar != 0, let unicode = Unicode.Scalar(scalar) else {
                throw failure("NUL character (\\u0000) in a string")
            }
            scratch.append(contentsOf: UTF8.encode(unicode).map(Array.init) ?? [])
        default:
            throw failure("invalid escape \\\(describe(byte, quoted: false)) in a string", back: 1)
        }
    }

    private func hex4() throws(PropertyListError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = try stream.next() else { throw failure("the file ends inside a \\u escape") }
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("expected four hexadecimal digits after \\u", back: 1)
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    private func number() throws(PropertyListError) -> PropertyListValue {
        let location = stream.location
        var text: [UInt8] = []
        var isInteger = true
        while let byte = try stream.peek() {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"):
                break
            case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"):
                isInteger = false
            default:
                return try numberValue(text, isInteger: isInteger, at: location)
            }
            text.append(byte)
            stream.advance()
            if text.count > Self.maximumNumberLength {
                throw PropertyListError(
                    .malformedText, "number longer than \(Self.maximumNumberLength) characters", at: location)
            }
        }
        return try numberValue(text, isInteger: isInteger, at: location)
    }

    private func numberValue(_ bytes: [UInt8], isInteger: Bool, at location: SourceLocation)
        throws(PropertyListError) -> PropertyListValue
    {
        let text = String(decoding: bytes, as: UTF8.self)
        guard Self.isJSONNumber(bytes) else {
            throw PropertyListError(.malformedText, "invalid number \"\(text)\"", at: location)
        }
        if isInteger {
            guard let value = Int64(text) else {
                throw PropertyListError(.malformedText, "integer \(text) is out of range", at: location)
            }
            return .integer(value)
        }
        guard let value = Double(text), value.isFinite else {
            throw PropertyListError(.malformedText, "number \(text) is out of range", at: location)
        }
        return .real(value)
    }

    /// RFC 8259's grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    static func isJSONNumber(_ bytes: [UInt8]) -> Bool {
        var index = 0
        func digits() -> Int {
            let start = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            return index - start
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count else { return false }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else if digits() == 0 {
            return false
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { return false }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard digits() > 0 else { return false }
        }
        return index == bytes.count
    }

    private func literal(_ word: StaticString) throws(PropertyListError) {
        let location = stream.location
        var pointer = word.utf8Start
        for _ in 0..<word.utf8CodeUnitCount {
            guard try stream.next() == pointer.pointee else {
                throw PropertyListError(.malformedText, "expected \(word)", at: location)
            }
            pointer += 1
        }
    }

    // MARK: - Helpers

    private func skipWhitespace() throws(PropertyListError) {
        while let byte = try stream.peek(), byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
            stream.advance()
        }
    }

    /// An error at the stream's position, or `back` characters before it
    /// (on the same line).
    private func failure(_ message: String, back: Int = 0) -> PropertyListError {
        PropertyListError(
            .malformedText, message,
            at: SourceLocation(file: stream.file, line: stream.line, column: max(1, stream.column - back)))
    }

    private func describe(_ byte: UInt8, quoted: Bool = true) -> String {
        if byte == 0 { return "a NUL byte" }
        if byte >= 0x21 && byte < 0x7F {
            let character = String(UnicodeScalar(byte))
            return quoted ? "'\(character)'" : character
        }
        return "byte 0x\(Self.hex(UInt32(byte), width: 2))"
    }

    private static func hex(_ value: UInt32, width: Int) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    /// At most 64 characters of `text`, for messages.
    static func abbreviated(_ text: String) -> String {
        text.count <= 64 ? text : String(text.prefix(61)) + "..."
    }
}
