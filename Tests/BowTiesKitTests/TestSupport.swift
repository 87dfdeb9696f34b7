import Foundation
import GRDB
import Testing

@testable import BowTiesKit

/// A temporary folder removed when the value goes away.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("bowties-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    func path(_ name: String) -> URL { url.appendingPathComponent(name) }

    /// Writes `text` to `name` and returns its URL.
    @discardableResult
    func write(_ text: String, to name: String) throws -> URL {
        let file = path(name)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: file)
        return file
    }

    /// Every file below the folder, relative paths, sorted.
    func allFiles() -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: url.path)
        var files: [String] = []
        while let name = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.appendingPathComponent(name).path, isDirectory: &isDirectory),
                !isDirectory.boolValue
            {
                files.append(name)
            }
        }
        return files.sorted()
    }
}

enum Fixtures {
    /// The package's folder (this file is Tests/BowTiesKitTests/TestSupport.swift).
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let samplePlist = packageRoot.appendingPathComponent("SampleData/SampleData.plist")
    static let sampleImages = packageRoot.appendingPathComponent("SampleData/Images")

    static func sampleImage(_ name: String) throws -> Data {
        try Data(contentsOf: sampleImages.appendingPathComponent(name))
    }

    /// A photo of `count` bytes (deterministic, distinct per seed).
    static func photo(bytes count: Int, seed: UInt8 = 1) -> Data {
        var data = Data(count: count)
        for index in 0..<count { data[index] = UInt8(truncatingIfNeeded: index &* 31 &+ Int(seed) &* 7) }
        // A PNG's signature first: bowties stores only what starts as an
        // image.
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        data.replaceSubrange(0..<min(count, 8), with: signature.prefix(count))
        return data
    }

    /// A property list of bow-tie records written the way Apple writes them.
    static func plist(_ records: [String]) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <array>
        \(records.joined(separator: "\n"))
        </array>
        </plist>

        """
    }

    /// One record's `<dict>`; `extra` lines go inside it.
    static func record(
        key: String, name: String, rating: String = "<real>3</real>", id: String? = UUID().uuidString,
        extra: [String] = []
    ) -> String {
        var lines = ["\t<dict>"]
        if let id { lines.append("\t\t<key>id</key>\n\t\t<string>\(id)</string>") }
        lines.append("\t\t<key>name</key>\n\t\t<string>\(name)</string>")
        lines.append("\t\t<key>searchKey</key>\n\t\t<string>\(key)</string>")
        lines.append("\t\t<key>rating</key>\n\t\t\(rating)")
        lines += extra.map { "\t\t" + $0 }
        lines.append("\t</dict>")
        return lines.joined(separator: "\n")
    }
}

extension Catalog {
    /// A new catalog in `directory`.
    static func temporary(in directory: TemporaryDirectory) throws -> Catalog {
        try Catalog(url: directory.path("catalog.sqlite"))
    }

    /// Distinct photo contents stored (inline or external).
    func storedBlobCount() throws -> Int {
        try read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM blob") ?? 0 }
    }

    /// The external photo files present.
    var externalFiles: [String] { photos.storedHashes().sorted() }
}
