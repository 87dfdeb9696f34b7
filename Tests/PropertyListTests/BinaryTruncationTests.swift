import Foundation
import PropertyList
import Testing

/// A binary property list cut short by another process while it is read:
/// the reader reads through a page cache with `pread`, so the next read
/// past the new end is a located error. (A mapped file would end the
/// process with SIGBUS there.)
@Suite("Binary property list truncated while it is read")
struct BinaryTruncationTests {
    /// A root array of `count` distinct 64-byte ASCII strings, written by
    /// hand: 4-byte offsets and references.
    static func manyStrings(_ count: Int) -> Data {
        var bytes = Array("bplist00".utf8)
        func uint32(_ value: Int) -> [UInt8] {
            [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
        }
        var offsets = [bytes.count]
        // The root array: marker 0xAF, its count as a 4-byte integer, then
        // the references to objects 1...count.
        bytes += [0xAF, 0x12] + uint32(count)
        for index in 1...count { bytes += uint32(index) }
        for index in 0..<count {
            offsets.append(bytes.count)
            let text = String(format: "string %08d ", index) + String(repeating: "x", count: 48)
            bytes += [0x5F, 0x10, UInt8(text.utf8.count)] + Array(text.utf8)
        }
        let table = bytes.count
        for offset in offsets { bytes += uint32(offset) }
        bytes += [0, 0, 0, 0, 0, 0, 4, 4]
        for value in [offsets.count, 0, table] {
            bytes += [0, 0, 0, 0] + uint32(value)
        }
        return Data(bytes)
    }

    @Test("The file reads whole when nobody touches it")
    func whole() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("whole-\(UUID().uuidString).bplist")
        defer { try? FileManager.default.removeItem(at: url) }
        try Self.manyStrings(40_000).write(to: url)
        let reader = try BinaryPropertyListReader(contentsOf: url)
        var count = 0
        while let item = try reader.next() {
            if count == 39_999 {
                #expect(item.value == .string("string 00039999 " + String(repeating: "x", count: 48)))
            }
            count += 1
        }
        #expect(count == 40_000)
    }

    @Test("Cut short between two reads: a located error, not a crash", arguments: [9, 4096, 1_000_000])
    func cutShort(to length: Int) throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cut-\(UUID().uuidString).bplist")
        defer { try? FileManager.default.removeItem(at: url) }
        // 2.8 MB: more than the reader's page cache holds.
        let data = Self.manyStrings(40_000)
        try data.write(to: url)
        let reader = try BinaryPropertyListReader(contentsOf: url, displayName: "cut.bplist")
        for _ in 0..<10 { _ = try reader.next() }

        let handle = try FileHandle(forWritingTo: url)
        try handle.truncate(atOffset: UInt64(length))
        try handle.close()

        var read = 10
        do {
            while try reader.next() != nil { read += 1 }
            Issue.record("read \(read) strings from a file cut to \(length) bytes")
        } catch {
            #expect(error.kind == .malformedBinary, "\(error)")
            let offset = try #require(error.location?.byteOffset, "\(error)")
            #expect(offset >= length && offset < data.count, "\(error)")
            #expect(
                error.description
                    == "cut.bplist: byte \(offset): the file was cut short while it was read: "
                    + "it has \(length) bytes, \(data.count) when it was opened")
        }
        // The error stays.
        #expect(throws: PropertyListError.self) { try reader.next() }
    }
}
