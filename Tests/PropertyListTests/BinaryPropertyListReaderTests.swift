import Foundation
import PropertyList
import Testing

/// The URL of a file under `Fixtures/Binary/` (written by
/// `Fixtures/Binary/make-fixtures.py`).
func binaryFixtureURL(_ name: String) throws -> URL {
    try fixtureURL("Binary").appendingPathComponent(name)
}

/// Reads a whole binary fixture.
func readBinary(_ name: String) throws -> PropertyListItem {
    try BinaryPropertyListReader.read(contentsOf: binaryFixtureURL(name))
}

/// Whether two values are the same ignoring locations, NaN equal to NaN.
func sameValue(_ a: PropertyListValue, _ b: PropertyListValue) -> Bool {
    switch (a, b) {
    case (.real(let x), .real(let y)):
        return x == y || (x.isNaN && y.isNaN)
    case (.array(let x), .array(let y)):
        return x.count == y.count && zip(x, y).allSatisfy { sameValue($0.value, $1.value) }
    case (.dictionary(let x), .dictionary(let y)):
        return x.count == y.count
            && zip(x.entries, y.entries).allSatisfy { $0.key == $1.key && sameValue($0.item.value, $1.item.value) }
    default:
        return a == b
    }
}

/// Every value and key of `item` is located by byte offset in `file`.
func allLocatedByByte(_ item: PropertyListItem, file: String) -> Bool {
    var pending = [item]
    while let item = pending.popLast() {
        guard item.location.file == file, item.location.byteOffset != nil else { return false }
        switch item.value {
        case .array(let items):
            pending.append(contentsOf: items)
        case .dictionary(let dictionary):
            for entry in dictionary.entries {
                guard entry.keyLocation.byteOffset != nil else { return false }
                pending.append(entry.item)
            }
        default:
            break
        }
    }
    return true
}

@Suite("Binary property-list reader")
struct BinaryPropertyListReaderTests {
    // MARK: - Every object type

    @Test("Every type plistlib writes reads as the XML reader would read it")
    func allTypes() throws {
        let root = try readBinary("AllTypes.bplist")
        let dictionary = try #require(root.value.dictionary)
        #expect(dictionary["string"]?.value == .string("Bow tie"))
        #expect(dictionary["unicode"]?.value == .string("caf\u{E9} \u{1F380}"))
        #expect(dictionary["empty string"]?.value == .string(""))
        #expect(
            dictionary["long string"]?.value == .string(String(repeating: "A bow tie is a type of necktie. ", count: 4))
        )
        #expect(dictionary["zero"]?.value == .integer(0))
        #expect(dictionary["one byte"]?.value == .integer(255))
        #expect(dictionary["two bytes"]?.value == .integer(256))
        #expect(dictionary["four bytes"]?.value == .integer(65536))
        #expect(dictionary["eight bytes"]?.value == .integer(1 << 32))
        #expect(dictionary["negative"]?.value == .integer(-17))
        #expect(dictionary["largest"]?.value == .integer(.max))
        #expect(dictionary["smallest"]?.value == .integer(.min))
        #expect(dictionary["real"]?.value == .real(3.25))
        #expect(dictionary["exponent"]?.value == .real(-1.5e-3))
        if case .real(let nan) = dictionary["nan"]?.value {
            #expect(nan.isNaN)
        } else {
            Issue.record("nan is not a real")
        }
        #expect(dictionary["infinity"]?.value == .real(-.infinity))
        #expect(dictionary["yes"]?.value == .bool(true))
        #expect(dictionary["no"]?.value == .bool(false))
        // 2014-06-01T12:34:56Z
        #expect(dictionary["date"]?.value == .date(Date(timeIntervalSince1970: 1_401_626_096)))
        #expect(dictionary["data"]?.value == .data(Data("Hello, bow ties!".utf8)))
        #expect(dictionary["long data"]?.value == .data(Data((0...255).map { UInt8($0) })))
        #expect(dictionary["empty array"]?.value == .array([]))
        #expect(dictionary["empty dict"]?.value == .dictionary(PropertyListDictionary()))
        let nested = try #require(dictionary["nested"]?.value.array)
        #expect(nested.count == 2)
        #expect(nested.first?.value.dictionary?["name"]?.value == .string("inner"))
        #expect(nested.last?.value == .integer(1))
        #expect(dictionary.keys.first == "string", "keys keep the file's order")
        #expect(allLocatedByByte(root, file: "AllTypes.bplist"))
    }

    @Test("4-byte reals, sets, in-range 128-bit integers and UTF-16 strings")
    func handMade() throws {
        let items = try #require(try readBinary("HandMade.bplist").value.array)
        #expect(
            items.map(\.value) == [
                .real(1.5),
                .array([
                    PropertyListItem(.string("a"), at: SourceLocation(file: "HandMade.bplist", byteOffset: 43)),
                    PropertyListItem(.string("b"), at: SourceLocation(file: "HandMade.bplist", byteOffset: 45)),
                ]),
                .integer(-5),
                .string("h\u{E9}"),
            ])
    }

    @Test("8-byte offsets and object references")
    func wideSizes() throws {
        let items = try #require(try readBinary("WideSizes.bplist").value.array)
        #expect(items.map(\.value) == [.string("wide"), .integer(7)])
    }

    @Test("More than 256 objects: 2-byte references and offsets, streamed")
    func large() throws {
        let reader = try BinaryPropertyListReader(contentsOf: binaryFixtureURL("Large.bplist"))
        #expect(reader.rootIsArray)
        #expect(reader.rootLocation.byteOffset != nil)
        var count = 0
        while let record = try reader.next() {
            let dictionary = try #require(record.value.dictionary)
            #expect(dictionary["id"]?.value == .integer(Int64(count)))
            #expect(dictionary["name"]?.value == .string("tie \(count)"))
            count += 1
        }
        #expect(count == 300)
        #expect(try reader.next() == nil)
        // Streaming and reading whole agree.
        let whole = try readBinary("Large.bplist")
        #expect(whole.value.array?.count == 300)
    }

    @Test("Counts of 15 and more follow the marker as an integer")
    func longCounts() throws {
        let dictionary = try #require(try readBinary("LongCounts.bplist").value.dictionary)
        #expect(dictionary["items"]?.value.array?.map(\.value) == (0..<20).map { .integer(Int64($0)) })
        #expect(dictionary["text"]?.value == .string(String(repeating: "x", count: 40)))
        #expect(dictionary["bytes"]?.value == .data(Data(repeating: 1, count: 20)))
    }

    @Test("A container referenced twice is read at both places")
    func sharedContainer() throws {
        let records = try #require(try readBinary("SharedContainer.bplist").value.array)
        let tags = records.map { $0.value.dictionary?["tags"]?.value.array?.map(\.value) }
        #expect(tags == [[.string("silk"), .string("red")], [.string("silk"), .string("red")]])
    }

    @Test("A scalar root: next() returns it once")
    func scalarRoot() throws {
        let reader = try BinaryPropertyListReader(contentsOf: binaryFixtureURL("ScalarRoot.bplist"))
        #expect(!reader.rootIsArray)
        #expect(try reader.next()?.value == .string("just a string"))
        #expect(try reader.next() == nil)
    }

    @Test("512 levels of nesting read; the 513th is refused (TooDeep.bplist)")
    func deepest() throws {
        var item = try readBinary("Deepest.bplist")
        var depth = 1
        while case .array(let items) = item.value, let first = items.first {
            item = first
            depth += 1
        }
        #expect(depth == BinaryPropertyListReader.maximumDepth)
    }

    // MARK: - The same plist in XML and binary

    @Test(
        "XML and binary forms of the same plist give equal values",
        arguments: [
            ("SampleData.bplist", "SampleData.plist"),
            ("AllTypesFromXML.bplist", "AllTypes.plist"),
        ])
    func sameAsXML(_ binary: String, _ xml: String) throws {
        let xmlURL =
            xml == "SampleData.plist"
            ? URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("SampleData/SampleData.plist")
            : try fixtureURL(xml)
        let fromXML = try PropertyListReader.read(contentsOf: xmlURL)
        let fromBinary = try readBinary(binary)
        #expect(sameValue(fromXML.value, fromBinary.value))

        // Streamed, record by record.
        let reader = try BinaryPropertyListReader(contentsOf: binaryFixtureURL(binary))
        if reader.rootIsArray, let records = fromXML.value.array {
            for record in records {
                let next = try #require(try reader.next())
                #expect(sameValue(record.value, next.value))
            }
            #expect(try reader.next() == nil)
        }
    }

    @Test("Memory and file give the same values")
    func memoryAndFile() throws {
        let url = try binaryFixtureURL("SampleData.bplist")
        let fromFile = try BinaryPropertyListReader.read(contentsOf: url)
        let fromMemory = try BinaryPropertyListReader.read(
            data: Data(contentsOf: url), displayName: "SampleData.bplist")
        #expect(fromFile == fromMemory)
    }

    // MARK: - Hostile files

    struct Expectation: Decodable, Sendable, CustomTestStringConvertible {
        var name = ""
        var kind: String
        var offset: Int?
        var message: String
        var testDescription: String { name }

        private enum CodingKeys: String, CodingKey {
            case kind, offset, message
        }
    }

    /// `Fixtures/Binary/hostile.json`: what each hostile file must throw.
    static let hostile: [Expectation] = {
        guard let url = try? binaryFixtureURL("hostile.json"), let data = try? Data(contentsOf: url),
            let table = try? JSONDecoder().decode([String: Expectation].self, from: data)
        else { return [] }
        return table.map { name, expectation in
            var expectation = expectation
            expectation.name = name
            return expectation
        }.sorted { $0.name < $1.name }
    }()

    @Test("The hostile files are present")
    func hostilePresent() {
        #expect(Self.hostile.count >= 30)
    }

    @Test("Each hostile file is refused with a located error", arguments: hostile)
    func refused(_ expected: Expectation) throws {
        let url = try binaryFixtureURL(expected.name)
        let whole = propertyListError { _ = try BinaryPropertyListReader.read(contentsOf: url) }
        var streamed: PropertyListError?
        do {
            let reader = try BinaryPropertyListReader(contentsOf: url)
            while try reader.next() != nil {}
            Issue.record("\(expected.name): streaming read it")
        } catch {
            streamed = error
        }
        for error in [whole, streamed] {
            let error = try #require(error)
            #expect("\(error.kind)" == expected.kind, "\(error)")
            #expect(error.message.contains(expected.message), "\(error)")
            #expect(error.file == expected.name)
            let offset = try #require(error.location?.byteOffset, "\(error)")
            if let expectedOffset = expected.offset {
                #expect(offset == expectedOffset, "\(error)")
            }
            #expect(error.description.hasPrefix("\(expected.name): byte \(offset): "))
        }
    }

    @Test("After an error, next() throws it again")
    func errorRepeats() throws {
        let reader = try BinaryPropertyListReader(contentsOf: binaryFixtureURL("Cycle.bplist"))
        let first = propertyListError { _ = try reader.next() }
        let again = propertyListError { _ = try reader.next() }
        #expect(first?.description == again?.description)
        #expect(first?.description == "Cycle.bplist: byte 8: object 0 at byte 8 contains itself (a cycle)")
    }

    @Test("A missing file and a directory")
    func missingAndDirectory() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let missing = propertyListError {
            _ = try BinaryPropertyListReader(contentsOf: directory.appendingPathComponent("none.bplist"))
        }
        #expect(missing?.kind == .fileNotFound)
        let folder = propertyListError { _ = try BinaryPropertyListReader(contentsOf: directory) }
        #expect(folder?.kind == .unreadable)
    }

    @Test("Bytes assembled in memory: an empty file, a lone header")
    func tiny() {
        for bytes in [[], Array("bplist00".utf8)] as [[UInt8]] {
            let error = propertyListError {
                _ = try BinaryPropertyListReader(data: Data(bytes), displayName: "t.bplist")
            }
            #expect(error?.kind == .malformedBinary)
            #expect(error?.location?.byteOffset == bytes.count)
        }
    }

    // MARK: - Format detection and locations

    @Test("The format is told from the content")
    func detect() throws {
        #expect(PropertyListFormat.detect(Data("bplist00\u{D0}".utf8)) == .binary)
        #expect(PropertyListFormat.detect(Data("bplist15".utf8)) == .unknown)
        #expect(PropertyListFormat.detect(Data("<?xml version=\"1.0\"?>".utf8)) == .xml)
        #expect(PropertyListFormat.detect(Data("\u{FEFF}\n  <plist>".utf8)) == .xml)
        #expect(PropertyListFormat.detect(Data("<!DOCTYPE plist".utf8)) == .xml)
        #expect(PropertyListFormat.detect(Data([0xFF, 0xFE, 0x3C, 0x00])) == .xml)
        #expect(PropertyListFormat.detect(Data("{\"id\": 1}".utf8)) == .unknown)
        #expect(PropertyListFormat.detect(Data()) == .unknown)
        let sample = try Data(contentsOf: binaryFixtureURL("SampleData.bplist"))
        #expect(PropertyListFormat.detect(sample.prefix(PropertyListFormat.sniffLength)) == .binary)
    }

    @Test("Byte-offset locations print as file: byte N; line locations are unchanged")
    func locations() {
        let byte = SourceLocation(file: "a.bplist", byteOffset: 42)
        #expect(byte.description == "a.bplist: byte 42")
        #expect(byte.byteOffset == 42)
        let line = SourceLocation(file: "a.plist", line: 3, column: 5)
        #expect(line.description == "a.plist:3:5")
        #expect(line.byteOffset == nil)
    }
}
