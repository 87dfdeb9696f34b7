import Foundation

/// A repeatable pseudo-random generator (SplitMix64), so that a failing
/// stress or crash run can be replayed from its seed.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Large BowTies property lists written at test time: every field on every
/// record, and photos in an `Images` folder beside the file.
///
/// ```swift
/// let plist = try GeneratedPlist.write(
///     to: folder.appendingPathComponent("Many.plist"), records: 100_000, keyPrefix: "K",
///     photo: { index in index % 7 == 0 ? "big0" : nil })
/// ```
enum GeneratedPlist {
    /// Writes `count` bytes of deterministic noise to `name` in `folder`
    /// after a PNG signature (bowties stores only what starts as an image).
    @discardableResult
    static func writePhoto(named name: String, bytes count: Int, seed: UInt64, in folder: URL) throws -> URL {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var generator = SeededGenerator(seed: seed)
        var data = Data(capacity: count + 8)
        // A PNG's signature first: bowties stores only what starts as an
        // image.
        data.append(contentsOf: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        while data.count < count {
            withUnsafeBytes(of: generator.next()) { data.append(contentsOf: $0) }
        }
        let url = folder.appendingPathComponent(name)
        try data.prefix(count).write(to: url)
        return url
    }

    /// Writes a property list of `records` bow ties to `url`, streamed in
    /// chunks so that 100,000 records never sit in memory as one string.
    ///
    /// - Parameters:
    ///   - keyPrefix: Search keys are `<keyPrefix><index>`: unique across
    ///     files that use different prefixes.
    ///   - seed: Makes the ids; the same seed gives the same file.
    ///   - photo: The `imageName` of the record at an index, or nil.
    static func write(
        to url: URL, records: Int, keyPrefix: String, seed: UInt64 = 1, photo: (Int) -> String? = { _ in nil }
    ) throws {
        try Data().write(to: url)
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var generator = SeededGenerator(seed: seed)
        var chunk = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <array>

            """
        for index in 0..<records {
            chunk += record(index, keyPrefix: keyPrefix, id: uuid(&generator), imageName: photo(index))
            if chunk.utf8.count > 1 << 20 {
                try handle.write(contentsOf: Data(chunk.utf8))
                chunk = ""
            }
        }
        chunk += "</array>\n</plist>\n"
        try handle.write(contentsOf: Data(chunk.utf8))
    }

    /// One `<dict>` with every key the importer knows.
    private static func record(_ index: Int, keyPrefix: String, id: String, imageName: String?) -> String {
        let day = 1 + index % 28
        let image = imageName.map { "\t\t<key>imageName</key>\n\t\t<string>\($0)</string>\n" } ?? ""
        return """
            \t<dict>
            \t\t<key>id</key>
            \t\t<string>\(id)</string>
            \(image)\t\t<key>isFavorite</key>
            \t\t<\(index % 5 == 0 ? "true" : "false")/>
            \t\t<key>lastWorn</key>
            \t\t<date>2014-06-\(day < 10 ? "0" : "")\(day)T18:15:24Z</date>
            \t\t<key>name</key>
            \t\t<string>Tie \(index) &amp; Co. «\(keyPrefix)»</string>
            \t\t<key>rating</key>
            \t\t<real>\(Double(index % 21) / 4)</real>
            \t\t<key>searchKey</key>
            \t\t<string>\(keyPrefix)\(index)</string>
            \t\t<key>timesWorn</key>
            \t\t<integer>\(index % 50)</integer>
            \t\t<key>tintColor</key>
            \t\t<dict>
            \t\t\t<key>blue</key>
            \t\t\t<integer>\(index % 256)</integer>
            \t\t\t<key>green</key>
            \t\t\t<integer>\((index / 256) % 256)</integer>
            \t\t\t<key>red</key>
            \t\t\t<integer>200</integer>
            \t\t</dict>
            \t\t<key>url</key>
            \t\t<string>https://example.com/ties/\(keyPrefix)/\(index)</string>
            \t</dict>

            """
    }

    /// An upper-case version 4 UUID from the generator.
    private static func uuid(_ generator: inout SeededGenerator) -> String {
        var bytes = (0..<2).flatMap { _ in withUnsafeBytes(of: generator.next()) { Array($0) } }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let uuid = UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
        return uuid.uuidString
    }
}
