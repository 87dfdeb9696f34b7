import Foundation

/// One object of a binary property list, as stored: containers hold the
/// indexes of their elements, not the elements.
///
/// NSKeyedArchiver's archives need exactly this: their objects refer to
/// one another by UID (an index into `$objects`), share objects and form
/// cycles, so they are read by index, never expanded into a tree.
enum PlistObject: Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case real(Double)
    /// Seconds since 2001-01-01 00:00:00 UTC.
    case date(Double)
    case data(Data)
    case string(String)
    /// NSKeyedArchiver's reference to an object of `$objects`.
    case uid(Int)
    case array([Int])
    case set([Int])
    case dictionary(keys: [Int], values: [Int])
}

/// The objects of a binary property list (`bplist00`), checked as they
/// are read: every offset, count and reference against the file, so that
/// a damaged or hostile file gets a ``CoreDataError`` with its byte offset,
/// never a trap or an allocation its size does not pay for.
///
/// The structure is the one REFERENCE §8 describes: header, objects, an
/// offset table, a 32-byte trailer.
struct BinaryPlistObjects {
    let bytes: [UInt8]
    let file: String
    let offsetIntSize: Int
    let objectRefSize: Int
    let count: Int
    let top: Int
    let tableOffset: Int

    static let magic = Array("bplist00".utf8)

    init(_ data: Data, file: String) throws(CoreDataError) {
        self.file = file
        bytes = [UInt8](data)
        guard bytes.count >= 8 + 32 else {
            throw CoreDataError(
                .malformedArchive, "\(bytes.count) bytes is too short for a binary property list", file: file)
        }
        guard bytes.starts(with: Self.magic) else {
            throw CoreDataError(.malformedArchive, "not a binary property list (no bplist00 header)", file: file)
        }
        let trailer = bytes.count - 32
        offsetIntSize = Int(bytes[trailer + 6])
        objectRefSize = Int(bytes[trailer + 7])
        guard (1...8).contains(offsetIntSize), (1...8).contains(objectRefSize) else {
            throw CoreDataError(
                .malformedArchive, "the trailer's offset or reference size is not 1 to 8 bytes", file: file,
                at: "byte \(trailer + 6)")
        }
        let declaredCount = Self.uint(bytes, at: trailer + 8, size: 8)
        let declaredTop = Self.uint(bytes, at: trailer + 16, size: 8)
        let declaredTable = Self.uint(bytes, at: trailer + 24, size: 8)
        guard declaredTable >= 8, declaredTable <= UInt64(trailer),
            declaredCount <= (UInt64(trailer) - declaredTable) / UInt64(offsetIntSize)
        else {
            throw CoreDataError(
                .malformedArchive,
                "the trailer's offset table (\(declaredCount) objects at byte \(declaredTable)) "
                    + "does not fit before the trailer",
                file: file, at: "byte \(trailer + 8)")
        }
        guard declaredTop < declaredCount else {
            throw CoreDataError(
                .malformedArchive, "the top object \(declaredTop) is out of range (\(declaredCount) objects)",
                file: file, at: "byte \(trailer + 16)")
        }
        count = Int(declaredCount)
        top = Int(declaredTop)
        tableOffset = Int(declaredTable)
    }

    /// Object `index`, decoded one level deep.
    func object(_ index: Int) throws(CoreDataError) -> PlistObject {
        guard index >= 0, index < count else {
            throw malformed("object reference \(index) is out of range (\(count) objects)", at: tableOffset)
        }
        let declared = Self.uint(bytes, at: tableOffset + index * offsetIntSize, size: offsetIntSize)
        // Compared before it becomes an Int: an 8-byte offset may not fit.
        guard declared >= 8, declared < UInt64(tableOffset) else {
            throw malformed("object \(index) has the offset \(declared), outside the objects", at: tableOffset)
        }
        let offset = Int(declared)
        let marker = bytes[offset]
        let nibble = Int(marker & 0x0F)
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x00: return .null
            case 0x08: return .bool(false)
            case 0x09: return .bool(true)
            default: throw malformed("unknown object marker 0x\(String(marker, radix: 16))", at: offset)
            }
        case 0x1:
            guard nibble <= 4 else { throw malformed("integer of 2^\(nibble) bytes", at: offset) }
            let size = 1 << nibble
            try ensure(size, after: offset + 1, at: offset)
            switch size {
            case 1, 2, 4: return .integer(Int64(Self.uint(bytes, at: offset + 1, size: size)))
            case 8: return .integer(Int64(bitPattern: Self.uint(bytes, at: offset + 1, size: 8)))
            default: return .integer(Int64(bitPattern: Self.uint(bytes, at: offset + 9, size: 8)))
            }
        case 0x2:
            guard nibble == 2 || nibble == 3 else { throw malformed("real of 2^\(nibble) bytes", at: offset) }
            let size = 1 << nibble
            try ensure(size, after: offset + 1, at: offset)
            let bits = Self.uint(bytes, at: offset + 1, size: size)
            return .real(size == 4 ? Double(Float(bitPattern: UInt32(truncatingIfNeeded: bits))) : Double(bitPattern: bits))
        case 0x3:
            guard marker == 0x33 else { throw malformed("unknown object marker 0x\(String(marker, radix: 16))", at: offset) }
            try ensure(8, after: offset + 1, at: offset)
            return .date(Double(bitPattern: Self.uint(bytes, at: offset + 1, size: 8)))
        case 0x4, 0x5, 0x6:
            let (length, start) = try countAndStart(marker, at: offset)
            let unit = marker >> 4 == 0x6 ? 2 : 1
            guard length <= UInt64((tableOffset - start) / unit) else {
                throw malformed("a string or data of \(length) units runs past the objects", at: offset)
            }
            let end = start + Int(length) * unit
            switch marker >> 4 {
            case 0x4:
                return .data(Data(bytes[start..<end]))
            case 0x5:
                return .string(String(decoding: bytes[start..<end], as: UTF8.self))
            default:
                var units: [UInt16] = []
                units.reserveCapacity(Int(length))
                var position = start
                while position < end {
                    units.append(UInt16(bytes[position]) << 8 | UInt16(bytes[position + 1]))
                    position += 2
                }
                return .string(String(decoding: units, as: UTF16.self))
            }
        case 0x8:
            let size = nibble + 1
            try ensure(size, after: offset + 1, at: offset)
            let value = Self.uint(bytes, at: offset + 1, size: min(size, 8))
            guard value < UInt64(count) else {
                throw malformed("UID \(value) is out of range (\(count) objects)", at: offset)
            }
            return .uid(Int(value))
        case 0xA, 0xC, 0xD:
            let (elements, start) = try countAndStart(marker, at: offset)
            let slots = marker >> 4 == 0xD ? 2 : 1
            guard elements <= UInt64((tableOffset - start) / (slots * objectRefSize)) else {
                throw malformed("a container of \(elements) elements runs past the objects", at: offset)
            }
            let n = Int(elements)
            var references: [Int] = []
            references.reserveCapacity(n * slots)
            for slot in 0..<(n * slots) {
                let position = start + slot * objectRefSize
                let reference = Self.uint(bytes, at: position, size: objectRefSize)
                guard reference < UInt64(count) else {
                    throw malformed("object reference \(reference) is out of range (\(count) objects)", at: position)
                }
                references.append(Int(reference))
            }
            switch marker >> 4 {
            case 0xA: return .array(references)
            case 0xC: return .set(references)
            default: return .dictionary(keys: Array(references[0..<n]), values: Array(references[n...]))
            }
        default:
            throw malformed("unknown object marker 0x\(String(marker, radix: 16))", at: offset)
        }
    }

    /// The string object `index`, or `nil` when it is something else.
    func string(_ index: Int) throws(CoreDataError) -> String? {
        if case .string(let string) = try object(index) { return string }
        return nil
    }

    /// The dictionary object `index` with string keys, or `nil`.
    func stringKeyedDictionary(_ index: Int) throws(CoreDataError) -> [String: Int]? {
        guard case .dictionary(let keys, let values) = try object(index) else { return nil }
        var result: [String: Int] = [:]
        for (key, value) in zip(keys, values) {
            guard let name = try string(key) else { return nil }
            result[name] = value
        }
        return result
    }

    private func countAndStart(_ marker: UInt8, at offset: Int) throws(CoreDataError) -> (UInt64, Int) {
        let nibble = marker & 0x0F
        guard nibble == 0x0F else { return (UInt64(nibble), offset + 1) }
        try ensure(1, after: offset + 1, at: offset)
        let integerMarker = bytes[offset + 1]
        guard integerMarker >> 4 == 0x1, integerMarker & 0x0F <= 3 else {
            throw malformed("expected an integer count after marker 0x\(String(marker, radix: 16))", at: offset + 1)
        }
        let size = 1 << Int(integerMarker & 0x0F)
        try ensure(size, after: offset + 2, at: offset)
        return (Self.uint(bytes, at: offset + 2, size: size), offset + 2 + size)
    }

    private func ensure(_ size: Int, after position: Int, at offset: Int) throws(CoreDataError) {
        guard position <= tableOffset - size else {
            throw malformed("the object runs into the offset table at byte \(tableOffset)", at: offset)
        }
    }

    func malformed(_ message: String, at offset: Int) -> CoreDataError {
        CoreDataError(.malformedArchive, message, file: file, at: "byte \(offset)")
    }

    /// A big-endian unsigned integer of `size` bytes (the caller checked
    /// the bytes are there).
    static func uint(_ bytes: [UInt8], at offset: Int, size: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in offset..<(offset + size) {
            value = value << 8 | UInt64(bytes[index])
        }
        return value
    }
}
