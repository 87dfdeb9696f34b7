import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A binary property list truncated by another process while `bowties
/// import` reads it. A reader that mapped the file would die of SIGBUS at
/// the first lost page; bowties reads it with `pread` and says where the
/// file ended, exit 65, the catalog as it was.
@Suite("An input truncated while it is imported")
struct TruncatedInputTests {
    /// A root array of `count` dicts `{name, searchKey}`, written by hand
    /// with 4-byte offsets and references: objects 1 and 2 are the keys,
    /// then a dict, its name and its search key per record.
    static func ties(_ count: Int) -> Data {
        var bytes = Array("bplist00".utf8)
        func uint32(_ value: Int) -> [UInt8] {
            [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
        }
        func ascii(_ text: String) -> [UInt8] {
            let utf8 = Array(text.utf8)
            return (utf8.count < 15 ? [0x50 | UInt8(utf8.count)] : [0x5F, 0x10, UInt8(utf8.count)]) + utf8
        }
        var offsets = [bytes.count]
        bytes += [0xAF, 0x12] + uint32(count)
        for index in 0..<count { bytes += uint32(3 + 3 * index) }
        offsets.append(bytes.count)
        bytes += ascii("name")
        offsets.append(bytes.count)
        bytes += ascii("searchKey")
        for index in 0..<count {
            let dict = 3 + 3 * index
            offsets.append(bytes.count)
            bytes += [0xD2] + uint32(1) + uint32(2) + uint32(dict + 1) + uint32(dict + 2)
            offsets.append(bytes.count)
            bytes += ascii(String(format: "Truncated Tie %06d", index))
            offsets.append(bytes.count)
            bytes += ascii(String(format: "T%06d", index))
        }
        let table = bytes.count
        for offset in offsets { bytes += uint32(offset) }
        bytes += [0, 0, 0, 0, 0, 0, 4, 4]
        for value in [offsets.count, 0, table] {
            bytes += [0, 0, 0, 0] + uint32(value)
        }
        return Data(bytes)
    }

    /// Bytes the process has read so far (`rchar` of `/proc/PID/io`,
    /// which counts `pread` too); nil once it is gone.
    static func bytesRead(by pid: pid_t) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/io", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("rchar:") {
            return Int(line.dropFirst("rchar:".count).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }

    @Test("A binary plist cut short mid-import: located error, exit 65, no signal, catalog unchanged")
    func binaryPlistCutShort() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let before = try workspace.snapshot()
        // 6 MB, read a page at a time as the records are imported.
        let data = Self.ties(100_000)
        let input = workspace.inputDirectory.appendingPathComponent("cut.plist")
        try data.write(to: input)

        let importer = try workspace.start(["import", input.path])
        // Once the import has read 2 MiB (the store and the first 4 KiB
        // are a few KiB), it is inside the file: cut it to 1 KiB.
        var truncated = false
        let deadline = Date().addingTimeInterval(60)
        while importer.isRunning, Date() < deadline {
            if let read = Self.bytesRead(by: importer.pid), read >= 2 << 20 {
                #expect(truncate(input.path, 1024) == 0)
                truncated = true
                break
            }
            usleep(1_000)
        }
        let exit = importer.wait()
        try #require(truncated, "the import ended before it had read 2 MiB: \(exit) \(importer.stderr)")
        #expect(exit.signal == nil, "\(exit)\n\(importer.stderr)")
        #expect(exit.status == 65, "\(exit)\n\(importer.stderr)")
        #expect(importer.stderr.hasPrefix("bowties: error: cut.plist: byte "), "\(importer.stderr)")
        #expect(
            importer.stderr.contains(
                "the file was cut short while it was read: it has 1024 bytes, \(data.count) when it was opened"),
            "\(importer.stderr)")
        #expect(try workspace.snapshot() == before)
    }
}
