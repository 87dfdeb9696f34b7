import Foundation

/// The objects of a binary property list (`bplist00`): its trailer,
/// checked once, and the decoding of objects by index into the values the
/// XML reader produces.
///
/// Every read is checked against the file before it happens, and every
/// count against the bytes that remain before anything is reserved, so a
/// hostile file gets a located ``PropertyListError`` and never a trap, an
/// out-of-bounds read or an allocation its size does not pay for.
///
/// Memory is bounded by the file's size in two ways:
/// - ``maximumValueCount``: an honest file produces at most one value per
///   object reference it holds (plus the root). Containers referenced
///   from several places are expanded at each place, so a few bytes can
///   describe an exponential tree (a binary "billion laughs"). Values are
///   counted as containers announce them, and more than four per
///   reference slot is refused.
/// - strings and data are decoded once per object while they stay in a
///   bounded cache (``BinaryObjectCache``) and shared (Swift's
///   copy-on-write) by every reference; the decoded bytes of those longer
///   than a small inline string are capped at twice the object area,
///   which objects that overlap one another (only a hostile file has
///   those) would otherwise exceed quadratically.
struct BinaryObjectTable {
    /// The file's bytes, read through its page cache.
    let region: ByteRegion
    /// The offset table's bytes: the same file through pages of its own
    /// (or `region` itself for bytes in memory). Every object is found
    /// through the table, between reads of the objects; one cache for
    /// both switched pages about 220 times a record.
    let offsetRegion: ByteRegion
    let file: String
    /// ``file`` for the location of every object.
    private let fileName: SourceLocation.FileName
    let offsetIntSize: Int
    let objectRefSize: Int
    let objectCount: Int
    let topObject: Int
    /// Where the offset table starts; objects lie in `8..<offsetTableOffset`.
    let offsetTableOffset: Int
    let maximumValueCount: Int
    let maximumDecodedBytes: Int

    /// Values announced so far (the roots, and each container's count).
    private(set) var valueCount = 0
    /// Bytes of the strings and data decoded so far.
    private var decodedBytes = 0
    /// Strings and data already decoded, by object index.
    private var cache = BinaryObjectCache()
    /// Strings of up to 15 UTF-8 bytes and data of up to 14 bytes are
    /// stored inline by Swift: copying them costs nothing on the heap.
    private static let inlineLength = 14

    static let headerLength = 8
    static let trailerLength = 32
    static let magic = Array("bplist00".utf8)

    /// An array, set or dictionary whose references are being read.
    struct Container {
        var offset: Int
        var isDictionary: Bool
        var count: Int
        /// Where the first reference is (for a dictionary, the first key's).
        var references: Int
    }

    // MARK: - Trailer

    /// Checks the header and trailer of `bytes`.
    init(region: ByteRegion, offsetRegion: ByteRegion? = nil, file: String) throws(PropertyListError) {
        let bytes = region
        self.region = region
        self.offsetRegion = offsetRegion ?? region
        self.file = file
        fileName = SourceLocation.FileName(file)
        let minimum = Self.headerLength + Self.trailerLength
        if bytes.count >= Self.headerLength {
            let header = try bytes.withBytes(in: 0..<Self.headerLength) { Array($0) }
            guard header == Self.magic else {
                throw Self.malformed(
                    "expected the header \"bplist00\", found \(Self.quoted(header))", at: 0, in: file)
            }
        }
        guard bytes.count >= minimum else {
            throw Self.malformed(
                "a binary property list has at least \(minimum) bytes (8-byte header, 32-byte trailer); "
                    + "this one has \(bytes.count)",
                at: bytes.count, in: file)
        }
        let trailer = bytes.count - Self.trailerLength
        let offsetIntSize = Int(try bytes.byte(trailer + 6))
        let objectRefSize = Int(try bytes.byte(trailer + 7))
        guard (1...8).contains(offsetIntSize) else {
            throw Self.malformed(
                "the trailer's offset size is \(offsetIntSize), not 1 to 8 bytes", at: trailer + 6, in: file)
        }
        guard (1...8).contains(objectRefSize) else {
            throw Self.malformed(
                "the trailer's object reference size is \(objectRefSize), not 1 to 8 bytes",
                at: trailer + 7, in: file)
        }
        let objectCount = try region.readUInt(at: trailer + 8, size: 8)
        let topObject = try region.readUInt(at: trailer + 16, size: 8)
        let tableOffset = try region.readUInt(at: trailer + 24, size: 8)
        guard objectCount > 0 else {
            throw Self.malformed("the trailer declares no objects", at: trailer + 8, in: file)
        }
        // At least one object between the header and the table.
        guard tableOffset > UInt64(Self.headerLength), tableOffset <= UInt64(trailer) else {
            throw Self.malformed(
                "the trailer puts the offset table at byte \(tableOffset), "
                    + "outside bytes \(Self.headerLength + 1) to \(trailer)",
                at: trailer + 24, in: file)
        }
        let room = (UInt64(trailer) - tableOffset) / UInt64(offsetIntSize)
        guard objectCount <= room else {
            throw Self.malformed(
                "the trailer declares \(objectCount) objects, but the offset table at byte \(tableOffset) "
                    + "has room for \(room)",
                at: trailer + 8, in: file)
        }
        guard topObject < objectCount else {
            throw Self.malformed(
                "the trailer's root object \(topObject) is out of range (\(objectCount) objects)",
                at: trailer + 16, in: file)
        }
        self.offsetIntSize = offsetIntSize
        self.objectRefSize = objectRefSize
        // All three fit in Int: they are below the file's size.
        self.objectCount = Int(objectCount)
        self.topObject = Int(topObject)
        self.offsetTableOffset = Int(tableOffset)
        let objectArea = offsetTableOffset - Self.headerLength
        maximumValueCount = 4 * (objectArea / objectRefSize) + 4096
        maximumDecodedBytes = 2 * objectArea + 4096
    }

    // MARK: - Objects

    /// The offset of object `index` (already checked to be below
    /// ``objectCount``), from the offset table.
    func offset(ofObject index: Int) throws(PropertyListError) -> Int {
        let entry = offsetTableOffset + index * offsetIntSize
        let offset = try offsetRegion.readUInt(at: entry, size: offsetIntSize)
        guard offset >= UInt64(Self.headerLength), offset < UInt64(offsetTableOffset) else {
            throw malformed(
                "the offset table gives object \(index) the offset \(offset), "
                    + "outside the objects (bytes \(Self.headerLength) to \(offsetTableOffset - 1))",
                at: entry)
        }
        return Int(offset)
    }

    /// The object reference stored at byte `position`.
    func reference(at position: Int) throws(PropertyListError) -> Int {
        let reference = try region.readUInt(at: position, size: objectRefSize)
        guard reference < UInt64(objectCount) else {
            throw malformed(
                "object reference \(reference) is out of range (\(objectCount) objects)", at: position)
        }
        return Int(reference)
    }

    /// Counts one more root value against ``maximumValueCount``.
    mutating func announceRoot(at offset: Int) throws(PropertyListError) {
        try announce(1, at: offset)
    }

    /// Reads the header of the array, set or dictionary at `offset`, checks
    /// its references fit before the offset table, and counts its values.
    mutating func container(at offset: Int) throws(PropertyListError) -> Container {
        let marker = try region.byte(offset)
        let isDictionary = marker >> 4 == 0xD
        let (count, references) = try count(of: marker, at: offset)
        let slots = isDictionary ? 2 : 1
        let room = UInt64((offsetTableOffset - references) / (slots * objectRefSize))
        guard count <= room else {
            throw malformed(
                "the \(Self.typeName(marker)) at byte \(offset) claims \(count) "
                    + (isDictionary ? "entries" : "elements")
                    + ", more than the \(offsetTableOffset - references) bytes before the offset table hold",
                at: offset)
        }
        let elements = Int(count)
        try announce(elements * slots, at: offset)
        return Container(offset: offset, isDictionary: isDictionary, count: elements, references: references)
    }

    /// The string or data value of `object`, with its offset, when it has
    /// been decoded and is still cached.
    @inline(__always)
    func cached(_ object: Int) -> (offset: Int, value: PropertyListValue)? {
        cache.lookup(object)
    }

    /// Decodes `object`, at `offset`, when it is not a container.
    mutating func scalar(object: Int, at offset: Int) throws(PropertyListError) -> PropertyListValue {
        let marker = try region.byte(offset)
        let nibble = Int(marker & 0x0F)
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x08: return .bool(false)
            case 0x09: return .bool(true)
            case 0x00:
                throw PropertyListError(
                    .invalidValue, "null (marker 0x00) has no property-list value", at: location(offset))
            default:
                throw unknownMarker(marker, at: offset)
            }
        case 0x1:
            guard nibble <= 4 else { throw unknownMarker(marker, at: offset) }
            let size = 1 << nibble
            try ensure(size, bytesAfter: offset + 1, for: "the integer at byte \(offset)")
            switch size {
            case 1, 2, 4:
                return .integer(Int64(try region.readUInt(at: offset + 1, size: size)))
            case 8:
                return .integer(Int64(bitPattern: try region.readUInt(at: offset + 1, size: 8)))
            default:
                // 128 bits, signed: the high half must only extend the sign
                // of the low half.
                let high = try region.readUInt(at: offset + 1, size: 8)
                let low = Int64(bitPattern: try region.readUInt(at: offset + 9, size: 8))
                guard high == (low < 0 ? UInt64.max : 0) else {
                    throw PropertyListError(
                        .invalidValue,
                        "128-bit integer outside the 64-bit signed range (\(Int64.min) to \(Int64.max))",
                        at: location(offset))
                }
                return .integer(low)
            }
        case 0x2:
            switch nibble {
            case 2:
                try ensure(4, bytesAfter: offset + 1, for: "the real at byte \(offset)")
                let bits = UInt32(truncatingIfNeeded: try region.readUInt(at: offset + 1, size: 4))
                return .real(Double(Float(bitPattern: bits)))
            case 3:
                try ensure(8, bytesAfter: offset + 1, for: "the real at byte \(offset)")
                return .real(Double(bitPattern: try region.readUInt(at: offset + 1, size: 8)))
            default:
                throw unknownMarker(marker, at: offset)
            }
        case 0x3:
            guard marker == 0x33 else { throw unknownMarker(marker, at: offset) }
            try ensure(8, bytesAfter: offset + 1, for: "the date at byte \(offset)")
            let seconds = Double(bitPattern: try region.readUInt(at: offset + 1, size: 8))
            // The XML reader's range: years 0000 to 9999.
            guard seconds >= Self.earliestDate, seconds < Self.dateLimit else {
                throw PropertyListError(
                    .invalidValue,
                    "date \(seconds) seconds from 2001-01-01 is outside the years 0000 to 9999",
                    at: location(offset))
            }
            return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case 0x4, 0x5, 0x6:
            if let hit = cache.lookup(object) {
                return hit.value
            }
            let value = try sequence(marker, at: offset)
            let length: Int
            switch value {
            case .data(let data): length = data.count
            case .string(let string): length = string.utf8.count
            default: length = 0
            }
            if length > Self.inlineLength {
                decodedBytes += length
                guard decodedBytes <= maximumDecodedBytes else {
                    throw malformed(
                        "the strings and data decode to more than \(maximumDecodedBytes) bytes "
                            + "(objects that overlap one another)",
                        at: offset)
                }
            }
            cache.insert(value, object: object, offset: offset, length: length)
            return value
        case 0x8:
            throw PropertyListError(
                .invalidValue, "UIDs (NSKeyedArchiver) are not supported", at: location(offset))
        default:
            throw unknownMarker(marker, at: offset)
        }
    }

    /// Decodes the data or string at `offset`.
    private func sequence(_ marker: UInt8, at offset: Int) throws(PropertyListError) -> PropertyListValue {
        let (count, start) = try count(of: marker, at: offset)
        let unit = marker >> 4 == 0x6 ? 2 : 1
        let room = UInt64((offsetTableOffset - start) / unit)
        guard count <= room else {
            throw malformed(
                "the \(Self.typeName(marker)) at byte \(offset) claims \(count) "
                    + (unit == 1 ? "bytes" : "UTF-16 units")
                    + ", more than the \(offsetTableOffset - start) bytes before the offset table",
                at: offset)
        }
        let end = start + Int(count) * unit
        let file = self.file
        return try region.withBytes(in: start..<end) { (bytes) throws(PropertyListError) -> PropertyListValue in
            switch marker >> 4 {
            case 0x4:
                return .data(Data(buffer: bytes))
            case 0x5:
                if let index = bytes.firstIndex(where: { $0 >= 0x80 }) {
                    throw PropertyListError(
                        .invalidValue,
                        "byte 0x\(Self.hex(bytes[index])) in an ASCII string (marker 0x5n)",
                        at: SourceLocation(file: file, byteOffset: start + index))
                }
                return .string(String(decoding: bytes, as: UTF8.self))
            default:
                var scalars = String.UnicodeScalarView()
                var index = 0
                while index < bytes.count {
                    let unit = UInt32(bytes[index]) << 8 | UInt32(bytes[index + 1])
                    var value = unit
                    if (0xD800...0xDBFF).contains(unit), index + 2 < bytes.count {
                        let low = UInt32(bytes[index + 2]) << 8 | UInt32(bytes[index + 3])
                        if (0xDC00...0xDFFF).contains(low) {
                            value = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                            index += 2
                        }
                    }
                    guard let scalar = Unicode.Scalar(value) else {
                        throw PropertyListError(
                            .invalidValue,
                            "unpaired UTF-16 surrogate 0x\(String(unit, radix: 16, uppercase: true)) "
                                + "in a UTF-16 string",
                            at: SourceLocation(file: file, byteOffset: start + index))
                    }
                    scalars.append(scalar)
                    index += 2
                }
                return .string(String(scalars))
            }
        }
    }

    /// Decodes the string `object`, a dictionary key, and gives where
    /// it is.
    mutating func key(object: Int) throws(PropertyListError) -> (key: String, offset: Int) {
        if let hit = cache.lookup(object), case .string(let key) = hit.value {
            return (key, hit.offset)
        }
        let offset = try offset(ofObject: object)
        let marker = try region.byte(offset)
        guard marker >> 4 == 0x5 || marker >> 4 == 0x6 else {
            throw PropertyListError(
                .unexpectedElement, "expected a string as dictionary key, found \(Self.typeName(marker))",
                at: location(offset))
        }
        guard case .string(let key) = try scalar(object: object, at: offset) else {
            // Unreachable: markers 0x5n and 0x6n decode to strings.
            throw unknownMarker(marker, at: offset)
        }
        return (key, offset)
    }

    // MARK: - Helpers

    /// The count in a marker's low nibble, or the integer object that
    /// follows a nibble of 0xF; and where the object's contents start.
    private func count(of marker: UInt8, at offset: Int) throws(PropertyListError) -> (UInt64, Int) {
        let nibble = marker & 0x0F
        guard nibble == 0x0F else { return (UInt64(nibble), offset + 1) }
        let integer = offset + 1
        try ensure(1, bytesAfter: integer, for: "the count of the object at byte \(offset)")
        let integerMarker = try region.byte(integer)
        guard integerMarker >> 4 == 0x1, integerMarker & 0x0F <= 3 else {
            throw malformed(
                "expected an integer count (marker 0x10 to 0x13) after marker 0x\(Self.hex(marker)), "
                    + "found 0x\(Self.hex(integerMarker))",
                at: integer)
        }
        let size = 1 << Int(integerMarker & 0x0F)
        try ensure(size, bytesAfter: integer + 1, for: "the count of the object at byte \(offset)")
        return (try region.readUInt(at: integer + 1, size: size), integer + 1 + size)
    }

    /// Checks that `count` bytes from `position` lie before the offset
    /// table. `what` is built only for the message (an autoclosure: it was
    /// a `String` interpolated for every integer, real and date, 6 % of
    /// a binary import's reading thread).
    private func ensure(
        _ count: Int, bytesAfter position: Int, for what: @autoclosure () -> String
    ) throws(PropertyListError) {
        guard position <= offsetTableOffset - count else {
            throw malformed("\(what()) runs into the offset table at byte \(offsetTableOffset)", at: position)
        }
    }

    private mutating func announce(_ count: Int, at offset: Int) throws(PropertyListError) {
        valueCount += count
        guard valueCount <= maximumValueCount else {
            throw malformed(
                "the file expands to more than \(maximumValueCount) values "
                    + "(containers referenced from many places); refused to bound memory",
                at: offset)
        }
    }

    func location(_ offset: Int) -> SourceLocation {
        SourceLocation(fileName: fileName, byteOffset: offset)
    }

    func malformed(_ message: String, at offset: Int) -> PropertyListError {
        Self.malformed(message, at: offset, in: file)
    }

    private func unknownMarker(_ marker: UInt8, at offset: Int) -> PropertyListError {
        malformed("unknown object marker 0x\(Self.hex(marker))", at: offset)
    }

    static func malformed(_ message: String, at offset: Int, in file: String) -> PropertyListError {
        PropertyListError(.malformedBinary, message, at: SourceLocation(file: file, byteOffset: offset))
    }

    /// How messages name the object a marker starts, in the XML reader's
    /// words.
    static func typeName(_ marker: UInt8) -> String {
        switch marker >> 4 {
        case 0x0: marker == 0x08 ? "<false/>" : marker == 0x09 ? "<true/>" : "marker 0x\(hex(marker))"
        case 0x1: "<integer>"
        case 0x2: "<real>"
        case 0x3: "<date>"
        case 0x4: "<data>"
        case 0x5, 0x6: "<string>"
        case 0x8: "UID"
        case 0xA: "<array>"
        case 0xC: "set"
        case 0xD: "<dict>"
        default: "marker 0x\(hex(marker))"
        }
    }

    static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return byte < 0x10 ? "0" + digits : digits
    }

    static func quoted(_ bytes: some Collection<UInt8>) -> String {
        PropertyListReader.quoted(bytes.map { $0 < 0x20 || $0 >= 0x7F ? UInt8(ascii: "?") : $0 })
    }

    /// 0000-01-01T00:00:00Z and 10000-01-01T00:00:00Z, in seconds from
    /// 2001-01-01.
    static let earliestDate: Double = -62_167_219_200 - 978_307_200
    static let dateLimit: Double = 253_402_300_800 - 978_307_200
}
