import Foundation
import Testing

/// What the fuzzers found (fuzz/README.md, "Findings"), checked where a
/// user meets it: the `bowties` command's exit status and standard error.
@Suite("Fuzzer findings")
struct FuzzFindingTests {
    /// Documents whose bytes libxml2 cannot convert. libxml2 used to print
    /// `encoding error : input conversion failed due to input error` and
    /// `I/O error : encoder error` on standard error, beside bowties' own
    /// message, because those errors bypass the reader's error handler.
    static let unconvertible: [(name: String, bytes: [UInt8])] = [
        // UTF-7 is 7-bit: 0xFF cannot be converted.
        (
            "Utf7.plist",
            Array(#"<?xml version="1.0" encoding="UTF-7"?><plist><string>"#.utf8) + [0xFF]
                + Array("</string></plist>".utf8)
        ),
        ("Ucs4.plist", [0x3C, 0x00, 0x00, 0x00, 0x00, 0x0A]),
    ]

    @Test(
        "An encoding libxml2 cannot convert fails with one bowties error and no libxml2 output",
        arguments: unconvertible.map(\.name))
    func unconvertibleEncoding(_ name: String) throws {
        let bowties = try BowTiesRunner()
        let bytes = try #require(Self.unconvertible.first { $0.name == name }).bytes
        let file = bowties.directory.appendingPathComponent(name)
        try Data(bytes).write(to: file)
        let result = try bowties.run("import", file.path)
        #expect(result.status == 65, "\(result)")
        #expect(result.stderr.hasPrefix("bowties: error: \(name):1:"), "\(result)")
        #expect(result.stderr.contains("malformed XML"), "\(result)")
        #expect(!result.stderr.contains("encoding error"), "\(result)")
        #expect(!result.stderr.contains("I/O error"), "\(result)")
        #expect(!FileManager.default.fileExists(atPath: bowties.storeURL.path), "\(result)")
    }
}
