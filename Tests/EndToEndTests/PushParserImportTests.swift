import Foundation
import Testing

/// `bowties import` on libxml2's SAX2 push parser (issue 21): the places
/// it reports come from libxml2's own cursor, so they are exact where the
/// text reader's running count drifted, and the catalog is untouched by a
/// file that fails.
@Suite("Import through the push parser")
struct PushParserImportTests {
    /// One record on one line: `&amp;` in the name takes 5 characters in
    /// the file for 1 in the value. The text reader counted the value's
    /// characters and put the `<real>` 4 columns early (83 instead of 87).
    static let oneLine =
        "<plist><array><dict><key>name</key><string>Black &amp; White</string>"
        + "<key>rating</key><real>abc</real></dict></array></plist>\n"

    @Test("An invalid value after an entity reference on the same line is located at its column")
    func columnAfterEntityReference() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let file = try bowties.write(Self.oneLine, to: "OneLine.plist")
        let before = try StoreSnapshot(storeURL: bowties.storeURL)
        let result = try bowties.run("import", file.path)
        #expect(result.status == 65, "\(result)")
        #expect(
            result.stderr.hasPrefix("bowties: error: OneLine.plist:1:87: invalid <real> \"abc\""), "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        let after = try StoreSnapshot(storeURL: bowties.storeURL)
        #expect(after.isByteIdentical(to: before), "\(after.byteDifference(from: before))")
    }

    @Test("A binary property list of many records imports through its own thread, in order")
    func binaryArrayRoot() throws {
        let bowties = try BowTiesRunner()
        var records = ""
        for index in 0..<300 {
            records += """
                <dict><key>name</key><string>Tie \(index)</string>\
                <key>searchKey</key><string>K\(index)</string>\
                <key>rating</key><real>\(index % 6)</real></dict>
                """
        }
        let xml = try bowties.write(
            "<?xml version=\"1.0\"?><plist version=\"1.0\"><array>\(records)</array></plist>", to: "Many.xml")
        let binary = bowties.directory.appendingPathComponent("Many.plist")
        let convert = Process()
        convert.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        convert.arguments = [
            "python3", "-c",
            "import plistlib,sys; plistlib.dump(plistlib.load(open(sys.argv[1],'rb')), "
                + "open(sys.argv[2],'wb'), fmt=plistlib.FMT_BINARY)",
            xml.path, binary.path,
        ]
        try convert.run()
        convert.waitUntilExit()
        try #require(convert.terminationStatus == 0)

        let result = try bowties.run("import", binary.path)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("added 300, updated 0, unchanged 0"), "\(result)")
        let shown = try bowties.run("show", "K299")
        #expect(shown.stdout.contains("Tie 299"), "\(shown)")
    }
}
