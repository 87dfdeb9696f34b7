import Foundation
import PropertyList
import Testing

/// Documents an attacker could send: none may read a local file, expand
/// without bound, exhaust the stack, or print through libxml2.
@Suite("Refusing unsafe documents")
struct PropertyListSafetyTests {
    /// A comment longer than the reader's prolog scan, so that the DTD
    /// reaches libxml2 and the second line of defence (the DTD node) has
    /// to refuse it.
    static let longComment = "<!-- " + String(repeating: "padding ", count: 10_000) + "-->\n"

    @Test("An internal DTD subset is refused, at its line")
    func internalSubset() throws {
        let error = propertyListError {
            _ = try PropertyListReader.read(contentsOf: fixtureURL("InternalSubset.plist"))
        }
        #expect(error?.kind == .forbiddenDeclaration)
        #expect(error?.location?.description == "InternalSubset.plist:2:1")
        #expect(error?.message.contains("internal DTD subset") == true)
    }

    @Test("An empty internal subset is refused too")
    func emptyInternalSubset() {
        let error = readingError("<!DOCTYPE plist []><plist><string>x</string></plist>")
        #expect(error?.kind == .forbiddenDeclaration)
    }

    @Test("Quoted brackets in the DOCTYPE line are not an internal subset")
    func bracketInSystemIdentifier() throws {
        let document = """
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://example.com/[odd].dtd">
            <plist><string>fine</string></plist>
            """
        #expect(try read(document).value == .string("fine"))
    }

    @Test("XXE: an external entity naming a local file never leaks it", arguments: [false, true])
    func externalEntity(pastPrologScan: Bool) throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let secret = "TOP-SECRET-\(UUID().uuidString)"
        let secretURL = directory.appendingPathComponent("secret.txt")
        try Data(secret.utf8).write(to: secretURL)

        let document = """
            <?xml version="1.0"?>
            \(pastPrologScan ? Self.longComment : "")<!DOCTYPE plist [ <!ENTITY xxe SYSTEM "\(secretURL.absoluteString)"> ]>
            <plist version="1.0"><dict><key>name</key><string>&xxe;</string></dict></plist>
            """
        let documentURL = directory.appendingPathComponent("xxe.plist")
        try Data(document.utf8).write(to: documentURL)

        for attempt in [
            { try PropertyListReader.read(contentsOf: documentURL) },
            { try PropertyListReader.read(data: Data(document.utf8), displayName: "xxe.plist") },
        ] {
            do {
                let item = try attempt()
                Issue.record("read an XXE document: \(item)")
                #expect(!"\(item)".contains(secret))
            } catch let error as PropertyListError {
                #expect(error.kind == .forbiddenDeclaration)
                #expect(!error.description.contains(secret))
            }
        }
    }

    @Test("An external parameter entity is refused", arguments: [false, true])
    func externalParameterEntity(pastPrologScan: Bool) throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let secret = "TOP-SECRET-\(UUID().uuidString)"
        let dtdURL = directory.appendingPathComponent("evil.dtd")
        try Data("<!ENTITY leak \"\(secret)\">".utf8).write(to: dtdURL)

        let document = """
            <?xml version="1.0"?>
            \(pastPrologScan ? Self.longComment : "")<!DOCTYPE plist [ <!ENTITY % remote SYSTEM "\(dtdURL.absoluteString)"> %remote; ]>
            <plist version="1.0"><string>&leak;</string></plist>
            """
        let error = readingError(document)
        #expect(error?.kind == .forbiddenDeclaration)
        #expect(error?.description.contains(secret) == false)
    }

    @Test("Billion laughs is refused quickly", arguments: [false, true])
    func billionLaughs(pastPrologScan: Bool) throws {
        let fixture = try String(contentsOf: fixtureURL("BillionLaughs.plist"), encoding: .utf8)
        let document =
            pastPrologScan
            ? fixture.replacingOccurrences(of: "?>\n", with: "?>\n" + Self.longComment)
            : fixture
        let start = ContinuousClock.now
        let error = readingError(document)
        #expect(error?.kind == .forbiddenDeclaration)
        #expect(ContinuousClock.now - start < .seconds(5))
    }

    @Test("Billion laughs from the fixture file, located at the DOCTYPE")
    func billionLaughsFile() throws {
        let error = propertyListError {
            _ = try PropertyListReader.read(contentsOf: fixtureURL("BillionLaughs.plist"))
        }
        #expect(error?.kind == .forbiddenDeclaration)
        #expect(error?.location?.description == "BillionLaughs.plist:2:1")
    }

    @Test("A reference to an undeclared entity is refused", arguments: [true, false])
    func undeclaredEntity(withDoctype: Bool) {
        let body = "<dict>\n<key>name</key>\n<string>caf&eacute;</string>\n</dict>"
        let document = withDoctype ? plist(body) : "<plist>\n\(body)\n</plist>"
        let error = readingError(document)
        #expect(error?.kind == .forbiddenDeclaration)
        #expect(error?.message.contains("&eacute;") == true)
        #expect(error?.location?.line == (withDoctype ? 6 : 4))
    }

    @Test("The standard DOCTYPE is accepted and never fetched")
    func standardDoctype() throws {
        // A DTD URL that cannot be fetched: reading must not even try.
        let document = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist SYSTEM "file:///nonexistent/PropertyList-1.0.dtd">
            <plist version="1.0"><true/></plist>
            """
        #expect(try read(document).value == .bool(true))
        #expect(try readValue("<false/>") == .bool(false))
    }

    @Test("An external DTD on disk is never loaded, so its entities stay undeclared")
    func externalDTDNotLoaded() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let secret = "TOP-SECRET-\(UUID().uuidString)"
        let dtdURL = directory.appendingPathComponent("evil.dtd")
        try Data("<!ENTITY leak \"\(secret)\">".utf8).write(to: dtdURL)

        let document = """
            <?xml version="1.0"?>
            <!DOCTYPE plist SYSTEM "\(dtdURL.absoluteString)">
            <plist version="1.0"><string>&leak;</string></plist>
            """
        let error = readingError(document)
        #expect(error?.kind == .forbiddenDeclaration)
        #expect(error?.description.contains(secret) == false)
    }

    // MARK: - Nesting

    static func nested(_ depth: Int) -> String {
        plist(String(repeating: "<array>", count: depth) + String(repeating: "</array>", count: depth))
    }

    @Test("512 levels of nesting are accepted")
    func deepestAccepted() throws {
        var value = try read(Self.nested(PropertyListReader.maximumDepth)).value
        var depth = 1
        while case .array(let items) = value, let first = items.first {
            value = first.value
            depth += 1
        }
        #expect(depth == 512)
    }

    @Test("513 levels of nesting are refused")
    func oneLevelTooDeep() {
        let error = readingError(Self.nested(513))
        #expect(error?.kind == .tooDeeplyNested)
        #expect(error?.message == "nesting deeper than 512 levels")
        #expect(error?.location?.line == 4)
    }

    @Test("10,000 levels of nesting are refused without exhausting the stack")
    func farTooDeep() {
        #expect(readingError(Self.nested(10_000))?.kind == .tooDeeplyNested)
        let dictionaries = plist(
            String(repeating: "<dict><key>k</key>", count: 10_000)
                + String(repeating: "</dict>", count: 10_000))
        #expect(readingError(dictionaries)?.kind == .tooDeeplyNested)
    }

    @Test("Nesting is counted from the root inside a streamed array")
    func deepInsideStreamedArray() throws {
        let inner =
            String(repeating: "<dict><key>k</key>", count: 512) + "<true/>"
            + String(repeating: "</dict>", count: 512)
        let reader = try PropertyListReader(
            data: Data(plist("<array><true/>\(inner)</array>").utf8), displayName: "deep.plist")
        #expect(try reader.next()?.value == .bool(true))
        let error = propertyListError { _ = try reader.next() }
        #expect(error?.kind == .tooDeeplyNested)
    }

    // MARK: - Binary

    @Test("A binary property list is named as such")
    func binary() throws {
        let error = propertyListError {
            _ = try PropertyListReader.read(contentsOf: fixtureURL("Binary.plist"))
        }
        #expect(error?.kind == .binaryPropertyList)
        #expect(error?.location == nil)
        #expect(
            error?.description == "Binary.plist: binary property lists are not supported yet "
                + "(found \"bplist00\" header); convert with: plutil -convert xml1 Binary.plist")

        let inMemory = propertyListError {
            _ = try PropertyListReader(data: Data("bplist00\u{1}\u{2}".utf8), displayName: "x.plist")
        }
        #expect(inMemory?.kind == .binaryPropertyList)
    }
}
