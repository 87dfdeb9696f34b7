import Foundation
import PropertyList
import Testing

/// The prefetcher's XML reading, which lets libxml2 drive the parse
/// (`xmlParseDocument` over a read callback), against the reader's own
/// ``PropertyListReader/next()``, which pushes chunks: the same records,
/// locations and errors, on every input the fuzzers kept and on documents
/// long enough to cross many deliveries and chunks.
@Suite("The driven parser reads what the push parser reads")
struct DrivenParserTests {
    static let fuzzCorpus = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("fuzz/corpus", isDirectory: true)
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures", isDirectory: true)
    /// The end-to-end suite's hostile inputs.
    static let hostile = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("EndToEndTests/Fixtures/Hostile", isDirectory: true)

    /// Every input of the reader's and the push parser's fuzz corpora,
    /// and the XML fixtures.
    static let inputs: [URL] = {
        var urls: [URL] = []
        for folder in ["reader", "push"] {
            let directory = fuzzCorpus.appendingPathComponent(folder, isDirectory: true)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            urls += names.filter { !$0.hasPrefix(".") }.sorted().map { directory.appendingPathComponent($0) }
        }
        for folder in [fixtures, hostile] {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            urls += names.filter { $0.hasSuffix(".plist") }.sorted().map { folder.appendingPathComponent($0) }
        }
        return urls
    }()

    enum Outcome: CustomStringConvertible {
        case opened(PropertyListError)
        case read([PropertyListItem], PropertyListError?)

        var description: String {
            switch self {
            case .opened(let error): "refused at opening: \(error)"
            case .read(let items, let error): "\(items.count) records, then \(error.map { "\($0)" } ?? "the end")"
            }
        }
    }

    /// Reads `url` with `next()` (pushed chunks), or through a prefetcher
    /// (driven) when the root is an array.
    static func outcome(_ url: URL, driven: Bool) -> Outcome? {
        let reader: PropertyListReader
        do {
            reader = try PropertyListReader(contentsOf: url, displayName: "input.plist")
        } catch let error as PropertyListError {
            return .opened(error)
        } catch {
            Issue.record("not a PropertyListError: \(error)")
            return nil
        }
        if driven && !reader.rootIsArray { return nil }
        var items: [PropertyListItem] = []
        do {
            if driven {
                let prefetcher = PropertyListPrefetcher(reader, batchSize: 7, maximumBatches: 2)
                while let item = try prefetcher.next() { items.append(item) }
            } else {
                while let item = try reader.next() { items.append(item) }
            }
            return .read(items, nil)
        } catch let error as PropertyListError {
            return .read(items, error)
        } catch {
            Issue.record("not a PropertyListError: \(error)")
            return nil
        }
    }

    static func expectSame(_ url: URL) {
        guard let driven = outcome(url, driven: true) else { return }
        guard let pushed = outcome(url, driven: false) else {
            Issue.record("\(url.lastPathComponent): the push reader failed where the driven one did not")
            return
        }
        switch (pushed, driven) {
        case (.opened(let a), .opened(let b)):
            #expect(Self.same(a, b), "\(url.lastPathComponent): \(a) / \(b)")
        case (.read(let a, let aError), .read(let b, let bError)):
            #expect(FuzzCorpusTests.same(a, b), "\(url.lastPathComponent): \(a.count) / \(b.count) records differ")
            #expect(Self.same(aError, bError), "\(url.lastPathComponent): \(pushed) / \(driven)")
        default:
            Issue.record("\(url.lastPathComponent): pushed \(pushed), driven \(driven)")
        }
    }

    /// The same kind, message and location.
    static func same(_ a: PropertyListError?, _ b: PropertyListError?) -> Bool {
        a?.kind == b?.kind && a?.location == b?.location && a?.description == b?.description
    }

    @Test("The corpora are present")
    func present() {
        #expect(Self.inputs.count >= 100)
    }

    @Test("Each corpus input and fixture reads the same", arguments: inputs)
    func corpusInput(_ url: URL) {
        Self.expectSame(url)
    }

    /// A document of `count` records with what moves locations: tags over
    /// several lines, non-ASCII text, entities, comments, CDATA, a long
    /// line, tabs; `tail` ends it.
    static func document(records count: Int, tail: String) -> String {
        var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n<array>\n"
        for index in 0..<count {
            text += "\t<dict>\n\t\t<key>name</key>\n\t\t<string>Tie \(index) &amp; ß 日本 <![CDATA[<x>]]></string>\n"
            text += "\t\t<!-- a comment -->\n\t\t<key\n\t\t>rating</key><real>\(Double(index % 50) / 10)</real>\n"
            if index % 97 == 0 {
                text += "\t\t<key>long</key><string>" + String(repeating: "é", count: 3000) + "</string>\n"
            }
            text += "\t\t<key>worn</key><date>2024-0\(index % 9 + 1)-01T10:00:00Z</date><key>on</key><true/>\n\t</dict>\n"
        }
        return text + tail
    }

    @Test(
        "Thousands of records across deliveries and chunks, and the errors at their end",
        arguments: [
            "</array>\n</plist>\n",
            "\t<dict><key>name</key><key>twice</key></dict>\n</array>\n</plist>\n",
            "\t<dict><key>a</key><string>1</string><key>a</key><string>2</string></dict>\n</array></plist>",
            "\t<dict><key>r</key><real>one</real></dict>\n</array>\n</plist>\n",
            "\t<dict><key>cut</key><string>the file ends here",
            "\t<dict>\n\t\t<key>cut</key>\n\t</dict>\n",
            "\t<dict>\n\t\t<key>cut</key>\n\t</dict>\n\n\n",
            "\t<dict>\n\t\t<key>cut</key>\n\t</dict>",
            "\t<dict><key>é</key><string>ß</string></dict>\n",
            "</array>\n</plist>\n<extra/>",
            "</array>\n</plist>\n\0\0\0",
            "</array>\n</plist>\n<!-- after -->\n\0",
            "</array>\n</plist>\n\nx",
            "\t<dict>&undeclared;</dict>\n</array>\n</plist>\n",
        ])
    func longDocument(_ tail: String) throws {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("driven-\(UUID().uuidString).plist")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data(Self.document(records: 3_000, tail: tail).utf8).write(to: url)
        Self.expectSame(url)
        if case .read(let items, _) = Self.outcome(url, driven: true) {
            #expect(items.count >= 3_000)
        } else {
            Issue.record("the driven read did not read the records")
        }
    }
}
