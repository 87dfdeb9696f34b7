import Foundation
import Testing

@testable import PropertyList

/// `JSONReader` and `CSVReader` on text written here, through a pipe as
/// `import -` reads them.
@Suite("JSON and CSV readers")
struct TextReaderTests {
    /// The bytes `text` through a pipe: what the readers stream.
    static func pipe(_ text: String) throws -> Pipe {
        let pipe = Pipe()
        try pipe.fileHandleForWriting.write(contentsOf: Data(text.utf8))
        try pipe.fileHandleForWriting.close()
        return pipe
    }

    static func json(_ text: String, layout: JSONReader.Layout? = nil) throws -> [PropertyListItem] {
        let pipe = try pipe(text)
        let reader = JSONReader(
            descriptor: pipe.fileHandleForReading.fileDescriptor, displayName: "t.json", layout: layout)
        var items: [PropertyListItem] = []
        while let item = try reader.next() { items.append(item) }
        return items
    }

    static func jsonError(_ text: String) -> PropertyListError? {
        do {
            _ = try json(text)
            return nil
        } catch let error as PropertyListError {
            return error
        } catch {
            return nil
        }
    }

    static func csv(_ text: String, dialect: CSVReader.Dialect = .csv) throws -> [[CSVReader.Field]] {
        let pipe = try pipe(text)
        let reader = CSVReader(
            descriptor: pipe.fileHandleForReading.fileDescriptor, displayName: "t.csv", dialect: dialect)
        var rows: [[CSVReader.Field]] = []
        while let row = try reader.nextRow() { rows.append(row) }
        return rows
    }

    @Test("a root array yields one located record at a time; null members are left out")
    func array() throws {
        let items = try Self.json("[\n  {\"a\": 1, \"b\": null},\n  {\"c\": [true, 2.5, \"x\"]}\n]\n")
        #expect(items.count == 2)
        #expect(items[0].location.description == "t.json:2:3")
        guard case .dictionary(let first) = items[0].value, case .dictionary(let second) = items[1].value else {
            Issue.record("records are not dictionaries")
            return
        }
        #expect(first.keys == ["a"])
        #expect(first["a"]?.value == .integer(1))
        #expect(first.entries[0].keyLocation.description == "t.json:2:4")
        guard case .array(let values)? = second["c"]?.value else {
            Issue.record("c is not an array")
            return
        }
        #expect(values.map(\.value) == [.bool(true), .real(2.5), .string("x")])
    }

    @Test("JSON Lines: one value per line, blank lines skipped")
    func lines() throws {
        let items = try Self.json("{\"a\": 1}\n\n{\"a\": 2}\r\n{\"a\": 3}")
        #expect(items.map(\.location.line) == [1, 3, 4])
    }

    @Test("escapes, surrogate pairs and UTF-8 decode; columns count characters")
    func strings() throws {
        let items = try Self.json("[\"é\\u00e9\\ud83d\\ude00\\n\\\"\", \"x\"]")
        #expect(items.map(\.value) == [.string("éé😀\n\""), .string("x")])
        #expect(items[1].location.column == 29)
    }

    @Test("numbers: integers in Int64, reals finite, RFC 8259's grammar")
    func numbers() throws {
        #expect(try Self.json("[-0, 12, 1.5e3, 9223372036854775807]").map(\.value) == [
            .integer(0), .integer(12), .real(1500), .integer(Int64.max),
        ])
        for bad in ["[01]", "[1.]", "[.5]", "[+1]", "[1e]", "[9223372036854775808]", "[1e400]", "[-]"] {
            #expect(Self.jsonError(bad)?.kind == .malformedText, "\(bad)")
        }
    }

    @Test("hostile JSON is refused, located", arguments: [
        ("[{\"a\": 1, \"a\": 2}]", PropertyListError.Kind.duplicateKey, "t.json:1:11"),
        ("[\"a\u{1}\"]", .malformedText, "t.json:1:4"),
        ("[\"\\u0000\"]", .malformedText, "t.json:1:9"),
        ("[\"\\udc00\"]", .malformedText, "t.json:1:9"),
        ("[{\"a\": 1}", .malformedText, "t.json:1:10"),
        ("[{\"a\": 1}] x", .malformedText, "t.json:1:12"),
        ("[null]", .malformedText, "t.json:1:2"),
        ("{\"a\": 1} {\"b\": 2}", .malformedText, "t.json:1:10"),
        (String(repeating: "[", count: 600), .tooDeeplyNested, "t.json:1:514"),
    ])
    func hostileJSON(_ text: String, _ kind: PropertyListError.Kind, _ location: String) {
        let error = Self.jsonError(text)
        #expect(error?.kind == kind, "\(String(describing: error))")
        #expect(error?.location?.description == location, "\(String(describing: error))")
    }

    @Test("CSV: quoted fields hold separators, quotes and line breaks; CRLF or LF")
    func csvQuoting() throws {
        let rows = try Self.csv("a,b,c\r\n\"x, y\",\"say \"\"hi\"\"\",\"two\nlines\"\n1,,3\n")
        #expect(rows.map { $0.map(\.text) } == [["a", "b", "c"], ["x, y", "say \"hi\"", "two\nlines"], ["1", "", "3"]])
        #expect(rows[2][2].location.description == "t.csv:4:4")
        #expect(try Self.csv("a\tb\n1\t2\n", dialect: .tsv).map { $0.map(\.text) } == [["a", "b"], ["1", "2"]])
    }

    @Test("hostile CSV is refused, located", arguments: [
        ("a\n\"open", "t.csv:2:1"),
        ("a\n\"x\"y", "t.csv:2:4"),
        ("a\nx\"y", "t.csv:2:2"),
        ("a\nx\u{0}", "t.csv:2:2"),
    ])
    func hostileCSV(_ text: String, _ location: String) {
        do {
            _ = try Self.csv(text)
            Issue.record("accepted \(text)")
        } catch let error as PropertyListError {
            #expect(error.kind == .malformedText)
            #expect(error.location?.description == location, "\(error)")
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test("a lone CR ends a line as LF and CRLF do: locations stay right")
    func carriageReturns() throws {
        let rows = try Self.csv("a,b\rx,y\r\nz,w\n\"q\rr\",s\rt,u")
        #expect(rows.map { $0.map(\.location.line) } == [[1, 1], [2, 2], [3, 3], [4, 5], [6, 6]])
        #expect(rows[3][1].location.column == 4)
        #expect(Self.jsonError("[1,\r2,\r\r]")?.location?.description == "t.json:4:1")
    }

    @Test("TSV: quotes are characters, \\t \\n \\r \\\\ are escapes, as export writes them")
    func tsv() throws {
        let rows = try Self.csv("a\tb\n\"q\" x\ty \"z\"\ntab\\there\tline\\nbreak \\r back\\\\slash\n", dialect: .tsv)
        #expect(
            rows.map { $0.map(\.text) } == [
                ["a", "b"], ["\"q\" x", "y \"z\""], ["tab\there", "line\nbreak \r back\\slash"],
            ])
        #expect(rows[2][1].location.description == "t.csv:3:11")
        do {
            _ = try Self.csv("a\tb\nC:\\path\tx\n", dialect: .tsv)
            Issue.record("a bad escape was accepted")
        } catch let error as PropertyListError {
            #expect(error.location?.description == "t.csv:2:3", "\(error)")
            #expect(error.message.hasPrefix("a backslash that starts no escape"), "\(error)")
        }
    }

    @Test("UTF-16 and UTF-32 are refused at the first byte; a UTF-8 byte-order mark is skipped")
    func encodings() throws {
        #expect(try Self.json("\u{FEFF}[1]").map(\.value) == [.integer(1)])
        #expect(try Self.csv("\u{FEFF}a\n1\n").map { $0.map(\.text) } == [["a"], ["1"]])
        for bytes: [UInt8] in [[0xFF, 0xFE, 0x5B, 0x00], [0xFE, 0xFF, 0x00, 0x5B], [0x00, 0x00, 0xFE, 0xFF]] {
            let pipe = Pipe()
            try pipe.fileHandleForWriting.write(contentsOf: Data(bytes))
            try pipe.fileHandleForWriting.close()
            let reader = JSONReader(descriptor: pipe.fileHandleForReading.fileDescriptor, displayName: "t.json")
            #expect(throws: PropertyListError.self) { _ = try reader.next() }
            do {
                _ = try reader.next()
            } catch {
                Issue.record("the reader went on after its error: \(error)")
            }
        }
    }

    @Test("one JSON value from a CSV cell: read whole, located from the cell, anything more refused")
    func valueInText() throws {
        let cell = SourceLocation(file: "t.csv", line: 3, column: 40)
        let text = #" [{"date": "2014-06-19T18:15:24Z", "note": null}] "#
        let item = try #require(try JSONReader.value(in: text, at: cell))
        #expect(item.location.line == 3 && item.location.column == 41)
        guard case .array(let objects) = item.value, case .dictionary(let wear)? = objects.first?.value else {
            Issue.record("not an array of objects: \(item.value)")
            return
        }
        #expect(wear.entries.map(\.key) == ["date"], "null members are left out")
        #expect(try JSONReader.value(in: "null", at: cell) == nil)
        do {
            _ = try JSONReader.value(in: "[] x", at: cell)
            Issue.record("text after the value was accepted")
        } catch {
            #expect(error.location?.line == 3 && error.location?.column == 43, "\(error)")
            #expect("\(error)".contains("after the JSON value"), "\(error)")
        }
        #expect(throws: PropertyListError.self) { _ = try JSONReader.value(in: "[1,", at: cell) }
    }
}
