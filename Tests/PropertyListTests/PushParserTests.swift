import Foundation
@_spi(Fuzzing) import PropertyList
import Testing

/// The SAX2 push parser behind `PropertyListReader`: chunk boundaries
/// change nothing, and locations come from libxml2's cursor, exact where
/// the text reader could only estimate them.
@Suite("The push parser")
struct PushParserTests {
    /// Every record of `data`, read `chunkSize` bytes at a time (the
    /// reader's own 64 KiB when nil), or the error after them.
    static func records(_ data: Data, chunkSize: Int? = nil) -> (items: [PropertyListItem], error: String?) {
        var items: [PropertyListItem] = []
        do {
            let reader =
                try chunkSize.map { try PropertyListReader(data: data, displayName: "t.plist", chunkSize: $0) }
                ?? PropertyListReader(data: data, displayName: "t.plist")
            while let item = try reader.next() {
                items.append(item)
            }
            return (items, nil)
        } catch {
            return (items, "\(error)")
        }
    }

    @Test(
        "Any chunk size reads the same records at the same locations",
        arguments: [
            "AllTypes.plist", "ArrayRoot.plist", "BadInteger.plist", "DuplicateKey.plist",
            // Found by the push target (fuzz/README.md, findings): a tag
            // over several lines, after a processing instruction far along
            // its first line, lost its `<`'s column in small chunks.
            "PushFindingTagColumn1.plist", "PushFindingTagColumn2.plist",
        ])
    func chunkSizesAgree(fixture: String) throws {
        let data = try Data(contentsOf: fixtureURL(fixture))
        let whole = Self.records(data)
        for size in [1, 2, 3, 5, 7, 16, 61, 64, 100, 512] {
            let chunked = Self.records(data, chunkSize: size)
            // Compared as text: a <real>nan</real> is not == itself.
            #expect("\(chunked.items)" == "\(whole.items)", "chunks of \(size) bytes")
            #expect(chunked.error == whole.error, "chunks of \(size) bytes")
        }
    }

    /// XML ends every line break as LF before parsing: CR LF and a lone
    /// CR, in text and in CDATA; a CR written `&#13;` stays. libxml2's
    /// push loop handed CDATA over as it was (fuzz finding 6, where the
    /// driven read, `bowties import`'s, gave LF): the same strings now in
    /// every chunking and in both reads, a CR LF cut between two of the
    /// push loop's 300-byte pieces of a long section included.
    @Test("Line breaks in CDATA and text end as LF, in any chunks and both reads")
    func lineBreaksEndAsLineFeeds() throws {
        let long = String(repeating: "a", count: 299)
        let cases: [(xml: String, value: String)] = [
            ("<![CDATA[<b>\r\r<d</b> & more]]>", "<b>\n\n<d</b> & more"),
            ("<![CDATA[x\r\ny\rz\n]]>", "x\ny\nz\n"),
            ("<![CDATA[\r]]><![CDATA[\nx]]>", "\n\nx"),
            ("<![CDATA[\(long)\r\nb]]>", "\(long)\nb"),
            ("<![CDATA[\(long)a\r\nb]]>", "\(long)a\nb"),
            ("<![CDATA[\(long)\r]]>\n", "\(long)\n\n"),
            ("x\r\ry\r\nz", "x\n\ny\nz"),
            ("x&#13;\r\ny&#13;", "x\r\ny\r"),
        ]
        for (xml, value) in cases {
            let document = "<plist><array><string>\(xml)</string></array></plist>\n"
            let data = Data(document.utf8)
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("cr-\(UUID().uuidString).plist")
            defer { try? FileManager.default.removeItem(at: url) }
            try data.write(to: url)
            guard case .read(let driven, nil)? = DrivenParserTests.outcome(url, driven: true) else {
                Issue.record("the driven read failed: \(xml.debugDescription)")
                continue
            }
            #expect(driven.first?.value == .string(value), "driven: \(xml.debugDescription)")
            for size in [nil, 1, 2, 3, 7, 61, 300, 301, 302] {
                let pushed = Self.records(data, chunkSize: size)
                #expect(pushed.error == nil)
                #expect(
                    pushed.items.first?.value == .string(value),
                    "\(xml.debugDescription) in chunks of \(size.map(String.init) ?? "64 KiB")")
            }
        }
    }

    @Test("A long document in small chunks: the same records, lines past 65,535")
    func longDocumentInSmallChunks() {
        var document = "<plist>\n<array>\n"
        for index in 0..<70_000 {
            document += "\t<dict><key>k</key><integer>\(index)</integer></dict>\n"
        }
        document += "</array>\n</plist>\n"
        let data = Data(document.utf8)
        let whole = Self.records(data)
        #expect(whole.error == nil)
        #expect(whole.items.count == 70_000)
        #expect(whole.items.last?.location.description == "t.plist:70002:2")
        let chunked = Self.records(data, chunkSize: 997)
        #expect(chunked.items == whole.items)
    }

    @Test("Columns after an entity reference on the same line are exact")
    func columnsAfterEntityReferences() throws {
        let root = try read(
            "<plist><dict><key>a</key><string>x &amp; y</string><key>b</key><integer>2</integer></dict></plist>")
        let entries = try #require(root.value.dictionary?.entries)
        #expect(entries[0].item.value == .string("x & y"))
        // The text reader counted "x & y" as 5 columns where the file has
        // 9, and put these 4 columns early.
        #expect(entries[1].keyLocation.description == "test.plist:1:52")
        #expect(entries[1].item.location.description == "test.plist:1:64")
    }

    @Test("A start tag over two lines is located at its <")
    func tagOverTwoLines() throws {
        let root = try read("<plist>\n<array>\n  <integer\n  >7</integer>\n</array>\n</plist>\n")
        #expect(root.value.array?.first?.location.description == "test.plist:3:3")
    }

    @Test("An error comes after every record before it, then again")
    func errorAfterRecords() throws {
        let document = plist("<array>\n<true/>\n<false/>\n<integer>x</integer>\n<true/>\n</array>")
        let reader = try PropertyListReader(data: Data(document.utf8), displayName: "t.plist")
        #expect(try reader.next()?.value == .bool(true))
        #expect(try reader.next()?.value == .bool(false))
        let error = propertyListError { _ = try reader.next() }
        #expect(error?.description == "t.plist:7:1: invalid <integer> \"x\"")
        let again = propertyListError { _ = try reader.next() }
        #expect(again?.description == error?.description)
    }

    @Test("Progress only moves forward and ends at the document's size")
    func progress() throws {
        var document = "<plist><array>\n"
        for index in 0..<5_000 {
            document += "<string>\(index)</string>\n"
        }
        document += "</array></plist>\n"
        let data = Data(document.utf8)
        let reader = try PropertyListReader(data: data, displayName: "t.plist")
        var last = reader.bytesConsumed
        while try reader.next() != nil {
            #expect(reader.bytesConsumed >= last)
            #expect(reader.bytesConsumed <= data.count)
            last = reader.bytesConsumed
        }
        #expect(reader.bytesConsumed == data.count)
    }
}
