import Foundation
import PropertyList
import Testing

@Suite("Errors say what was expected, what was found, and where")
struct PropertyListErrorTests {
    // MARK: - Files

    @Test("A missing file")
    func fileNotFound() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let error = propertyListError {
            _ = try PropertyListReader(contentsOf: directory.appendingPathComponent("missing.plist"))
        }
        #expect(error?.kind == .fileNotFound)
        #expect(error?.location == nil)
        #expect(error?.description.hasPrefix("missing.plist: ") == true)
    }

    @Test("A directory is unreadable")
    func directory() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let error = propertyListError {
            _ = try PropertyListReader(contentsOf: directory, displayName: "records")
        }
        #expect(error?.kind == .unreadable)
        #expect(error?.description == "records: cannot read file: is a directory")
    }

    @Test("A file without read permission is unreadable", .enabled(if: geteuid() != 0))
    func permissionDenied() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("locked.plist")
        try Data(plist("<true/>").utf8).write(to: url)
        try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: url.path)
        let error = propertyListError { _ = try PropertyListReader(contentsOf: url) }
        #expect(error?.kind == .unreadable)
    }

    @Test("An empty file is malformed XML")
    func emptyFile() {
        #expect(readingError("")?.kind == .malformedXML)
        #expect(readingError("  \n")?.kind == .malformedXML)
    }

    // MARK: - Located errors

    @Test("An invalid value deep in a file points at its element")
    func locatedInvalidValue() throws {
        let error = propertyListError {
            _ = try PropertyListReader.read(contentsOf: fixtureURL("BadInteger.plist"))
        }
        #expect(error?.kind == .invalidValue)
        #expect(error?.description == "BadInteger.plist:10:3: invalid <integer> \"12x\"")
    }

    @Test("A streamed array returns the good elements before the bad one")
    func streamedErrorAfterGoodElements() throws {
        let reader = try PropertyListReader(contentsOf: fixtureURL("BadInteger.plist"))
        #expect(try reader.next()?.value.dictionary?["name"]?.value == .string("Paisley"))
        let error = propertyListError { _ = try reader.next() }
        #expect(error?.location?.line == 10)
        // The reader stays failed.
        let again = propertyListError { _ = try reader.next() }
        #expect(again?.description == error?.description)
    }

    @Test("A duplicate key points at the second key and names the first")
    func duplicateKey() throws {
        let error = propertyListError {
            _ = try PropertyListReader.read(contentsOf: fixtureURL("DuplicateKey.plist"))
        }
        #expect(error?.kind == .duplicateKey)
        #expect(
            error?.description
                == "DuplicateKey.plist:8:2: duplicate key \"name\" in <dict> (first at line 4)")
    }

    @Test("Duplicate keys are found in large dictionaries too")
    func duplicateKeyInLargeDictionary() {
        var body = "<dict>\n"
        for index in 0..<100 {
            body += "<key>k\(index)</key><integer>\(index)</integer>\n"
        }
        body += "<key>k42</key><integer>0</integer>\n</dict>"
        let error = readingError(plist(body))
        #expect(error?.kind == .duplicateKey)
        #expect(error?.message == "duplicate key \"k42\" in <dict> (first at line 47)")
        #expect(error?.location?.line == 105)
    }

    @Test("libxml2's errors keep its line, column and words")
    func malformedXML() throws {
        let error = propertyListError {
            _ = try PropertyListReader.read(contentsOf: fixtureURL("MismatchedTag.plist"))
        }
        #expect(error?.kind == .malformedXML)
        #expect(error?.location?.file == "MismatchedTag.plist")
        #expect(error?.location?.line == 7)
        #expect((error?.location?.column ?? 0) > 1)
        #expect(error?.message.hasPrefix("malformed XML: Opening and ending tag mismatch") == true)
        #expect(error?.message.hasSuffix("\n") == false)
    }

    // MARK: - Document structure

    @Test("A truncated document")
    func truncated() {
        let document = plist("<array>\n<string>a</string>\n<string>b</str")
            .replacingOccurrences(of: "\n</plist>", with: "")
        let error = readingError(document)
        #expect(error?.kind == .malformedXML)
        #expect(error?.location != nil)
    }

    @Test(
        "Anything but comments after </plist> is refused",
        arguments: [
            "</plist>garbage", "</plist><plist/>", "</plist>\n<string>x</string>",
        ])
    func trailingGarbage(ending: String) {
        let document = "<plist><array><true/></array>\(ending)"
        #expect(readingError(document)?.kind == .malformedXML)
    }

    @Test("Comments and processing instructions after </plist> are fine")
    func trailingComments() throws {
        let document = "<plist><array><true/></array></plist>\n<!-- done -->\n<?pi?>\n"
        #expect(try read(document).value.array?.count == 1)
    }

    @Test("A second root object is refused")
    func secondRootObject() {
        let error = readingError(plist("<string>a</string>\n<string>b</string>"))
        #expect(error?.kind == .unexpectedElement)
        #expect(error?.message == "expected </plist> after the root object, found <string>")
        #expect(error?.location?.line == 5)
    }

    @Test("The root element must be <plist>")
    func rootMustBePlist() {
        let error = readingError("<?xml version=\"1.0\"?>\n<array><true/></array>")
        #expect(error?.kind == .unexpectedElement)
        #expect(error?.description == "test.plist:2:1: expected <plist>, found <array>")
    }

    @Test("<plist> must hold an object")
    func emptyPlist() {
        #expect(readingError("<plist/>")?.kind == .unexpectedElement)
        #expect(readingError("<plist></plist>")?.message.hasSuffix("found </plist>") == true)
        #expect(readingError("<plist><key>k</key></plist>")?.kind == .unexpectedElement)
    }

    // MARK: - Grammar

    @Test("A value without a key")
    func valueWithoutKey() {
        let error = readingError(plist("<dict>\n\t<string>orphan</string>\n</dict>"))
        #expect(error?.kind == .unexpectedElement)
        #expect(error?.description == "test.plist:5:2: expected <key> or </dict>, found <string>")
    }

    @Test(
        "A key without a value",
        arguments: [
            ("<dict><key>a</key></dict>", "found </dict>"),
            ("<dict><key>a</key><key>b</key><true/></dict>", "found <key>"),
        ])
    func keyWithoutValue(body: String, found: String) {
        let error = readingError(plist(body))
        #expect(error?.kind == .unexpectedElement)
        #expect(error?.message == "expected a property-list object for key \"a\", \(found)")
    }

    @Test("An unknown element")
    func unknownElement() {
        let error = readingError(plist("<array>\n  <true/>\n  <foo>bar</foo>\n</array>"))
        #expect(error?.kind == .unexpectedElement)
        #expect(
            error?.description == "test.plist:6:3: expected a property-list object "
                + "(<dict>, <array>, <string>, ...), found <foo>")
    }

    @Test("Namespaced look-alikes are unknown elements")
    func namespacedElement() {
        let error = readingError("<plist xmlns:x=\"urn:x\"><x:string>a</x:string></plist>")
        #expect(error?.kind == .unexpectedElement)
        #expect(error?.message.hasSuffix("found <x:string>") == true)
    }

    @Test(
        "Text where an element is expected",
        arguments: [
            "<array>loose</array>", "<dict>loose</dict>", "<dict><key>a</key>loose</dict>",
            "loose<true/>",
        ])
    func looseText(body: String) {
        let error = readingError(plist(body))
        #expect(error?.kind == .unexpectedElement)
        #expect(error?.message.contains("found text \"loose\"") == true)
    }

    @Test("Elements inside scalars are refused")
    func elementInsideScalar() {
        let error = readingError(plist("<string>a<b>bold</b></string>"))
        #expect(error?.kind == .unexpectedElement)
        #expect(error?.message == "expected text or </string>, found <b>")
        #expect(readingError(plist("<true><false/></true>"))?.kind == .unexpectedElement)
    }

    // MARK: - Invalid values

    @Test(
        "Invalid integers",
        arguments: [
            "12x", "", " ", "1 2", "0x", "0xG", "--1", "+", "1.0", "9223372036854775808",
            "-9223372036854775809", "0x8000000000000000", "١٢",
        ])
    func invalidIntegers(text: String) {
        let error = readingError(plist("<integer>\(text)</integer>"))
        #expect(error?.kind == .invalidValue)
        #expect(error?.message.hasPrefix("invalid <integer> \"") == true)
    }

    @Test(
        "Invalid reals",
        arguments: [
            "", "abc", "1,5", "1e", "1e+", ".", "-", "0x1p3", "nan(1)", "infinite", "+nan", "1.2.3", "e5",
        ])
    func invalidReals(text: String) {
        let error = readingError(plist("<real>\(text)</real>"))
        #expect(error?.kind == .invalidValue)
        #expect(error?.message == "invalid <real> \"\(text)\"")
    }

    @Test(
        "Invalid dates",
        arguments: [
            "2014-13-01", "2014-13-01T00:00:00Z", "2014-02-30T00:00:00Z", "2015-02-29T00:00:00Z",
            "1900-02-29T00:00:00Z", "2014-01-01T24:00:00Z", "2014-01-01T00:60:00Z",
            "2014-01-01T00:00:60Z", "2014-01-01T00:00:00", "2014-01-01T00:00:00+01:00",
            "2014-01-01 00:00:00Z", "14-01-01T00:00:00Z", "2014-1-01T00:00:00Z", "",
        ])
    func invalidDates(text: String) {
        let error = readingError(plist("<date>\(text)</date>"))
        #expect(error?.kind == .invalidValue)
        #expect(error?.message == "<date> must be YYYY-MM-DDTHH:MM:SSZ, found \"\(text)\"")
    }

    @Test("Invalid Base64", arguments: ["SGk!", "S", "SGk=x", "SG=k", "SGk===", "SGVsb"])
    func invalidBase64(text: String) {
        let error = readingError(plist("<data>\(text)</data>"))
        #expect(error?.kind == .invalidValue)
        #expect(error?.message.hasPrefix("invalid Base64 in <data>") == true)
    }

    @Test("<true/> and <false/> must be empty")
    func nonEmptyBoolean() {
        let error = readingError(plist("<true>yes</true>"))
        #expect(error?.kind == .invalidValue)
        #expect(error?.message == "<true/> must be empty, found \"yes\"")
    }

    @Test("Quoted values are shortened and escaped")
    func quotedValues() {
        let long = String(repeating: "9", count: 100)
        let error = readingError(plist("<integer>\(long)</integer>"))
        #expect(error?.message == "invalid <integer> \"\(String(repeating: "9", count: 40))...\"")
        let multiline = readingError(plist("<integer>1\n2</integer>"))
        #expect(multiline?.message == "invalid <integer> \"1\\n2\"")
    }

    // MARK: - Description

    @Test("description is file:line:column: message, or file: message")
    func descriptions() {
        let located = PropertyListError(
            .invalidValue, "invalid <integer> \"12x\"",
            at: SourceLocation(file: "a.plist", line: 3, column: 5))
        #expect(located.description == "a.plist:3:5: invalid <integer> \"12x\"")
        #expect(located.file == "a.plist")
        let unlocated = PropertyListError(.fileNotFound, "cannot open file", file: "b.plist")
        #expect(unlocated.description == "b.plist: cannot open file")
    }
}
