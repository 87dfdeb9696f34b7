import Foundation
import PropertyList
import Testing

@Suite("Reading property lists")
struct PropertyListReaderTests {
    // MARK: - Every element type

    @Test("Every element type of a dictionary root")
    func allTypes() throws {
        let root = try PropertyListReader.read(contentsOf: fixtureURL("AllTypes.plist"))
        let dictionary = try #require(root.value.dictionary)

        #expect(
            dictionary.keys == [
                "string", "entities", "cdata", "empty string", "positive", "negative", "signed", "hex",
                "largest", "smallest", "real", "exponent", "nan", "infinity", "yes", "no", "date",
                "data", "empty array", "empty dict", "nested",
            ])
        #expect(dictionary["string"]?.value == .string("Bow tie"))
        #expect(dictionary["entities"]?.value == .string("<>&'\"é🎀"))
        #expect(dictionary["cdata"]?.value == .string("<b>bold</b> & more"))
        #expect(dictionary["empty string"]?.value == .string(""))
        #expect(dictionary["positive"]?.value == .integer(42))
        #expect(dictionary["negative"]?.value == .integer(-17))
        #expect(dictionary["signed"]?.value == .integer(8))
        #expect(dictionary["hex"]?.value == .integer(31))
        #expect(dictionary["largest"]?.value == .integer(.max))
        #expect(dictionary["smallest"]?.value == .integer(.min))
        #expect(dictionary["real"]?.value == .real(3.25))
        #expect(dictionary["exponent"]?.value == .real(-0.0015))
        if case .real(let nan) = dictionary["nan"]?.value {
            #expect(nan.isNaN)
        } else {
            Issue.record("nan is not a <real>")
        }
        #expect(dictionary["infinity"]?.value == .real(-.infinity))
        #expect(dictionary["yes"]?.value == .bool(true))
        #expect(dictionary["no"]?.value == .bool(false))
        #expect(dictionary["date"]?.value == .date(Date(timeIntervalSince1970: 1_401_626_096)))
        #expect(dictionary["data"]?.value == .data(Data("Hello, bow ties!".utf8)))
        #expect(dictionary["empty array"]?.value == .array([]))
        #expect(dictionary["empty dict"]?.value == .dictionary(PropertyListDictionary()))

        let nested = try #require(dictionary["nested"]?.value.array)
        #expect(nested.count == 2)
        #expect(nested[0].value.dictionary?["name"]?.value == .string("inner"))
        #expect(nested[1].value == .integer(1))
    }

    @Test("Items and keys carry the line and column of their start tags")
    func locations() throws {
        let root = try PropertyListReader.read(contentsOf: fixtureURL("AllTypes.plist"))
        let dictionary = try #require(root.value.dictionary)

        #expect(root.location.description == "AllTypes.plist:4:1")
        let first = try #require(dictionary.entries.first)
        #expect(first.keyLocation.description == "AllTypes.plist:5:2")
        #expect(first.item.location.description == "AllTypes.plist:6:2")
        #expect(dictionary["data"]?.location.line == 40)
        #expect(dictionary["yes"]?.location.line == 34)

        let nested = try #require(dictionary["nested"])
        #expect(nested.location.line == 49)
        let items = try #require(nested.value.array)
        #expect(items[0].location.description == "AllTypes.plist:50:3")
        let inner = try #require(items[0].value.dictionary?.entries.first)
        #expect(inner.keyLocation.description == "AllTypes.plist:51:4")
        #expect(inner.item.location.description == "AllTypes.plist:52:4")
        #expect(items[1].location.description == "AllTypes.plist:56:3")
    }

    @Test("Columns on a line holding several elements")
    func columnsWithinALine() throws {
        let root = try read(
            """
            <plist><dict>
              <key>a</key><string>x</string><key>b</key> <integer>2</integer>
            </dict></plist>
            """)
        let entries = try #require(root.value.dictionary?.entries)
        #expect(root.location.description == "test.plist:1:8")
        #expect(entries[0].keyLocation.description == "test.plist:2:3")
        #expect(entries[0].item.location.description == "test.plist:2:15")
        #expect(entries[1].keyLocation.description == "test.plist:2:33")
        #expect(entries[1].item.location.description == "test.plist:2:46")
    }

    @Test("Lines stay right past line 65,535, where libxml2's node lines stop")
    func linesBeyondLibxml2Limit() throws {
        let count = 70_000
        var document = "<plist>\n<array>\n"
        for index in 0..<count {
            document += "\t<integer>\(index)</integer>\n"
        }
        document += "\t<string>last</string><string>same line</string>\n</array>\n</plist>\n"

        let reader = try PropertyListReader(data: Data(document.utf8), displayName: "big.plist")
        var items: [PropertyListItem] = []
        while let item = try reader.next() {
            items.append(item)
        }
        #expect(items.count == count + 2)
        #expect(items[0].location.description == "big.plist:3:2")
        #expect(items[65_531].location.line == 65_534)
        #expect(items[65_540].location.line == 65_543)
        #expect(items[count - 1].location.description == "big.plist:\(count + 2):2")
        #expect(items[count].location.description == "big.plist:\(count + 3):2")
        #expect(items[count + 1].location.description == "big.plist:\(count + 3):23")
    }

    @Test("CRLF line endings and a byte-order mark keep locations right")
    func crlfAndByteOrderMark() throws {
        let document =
            "\u{FEFF}<?xml version=\"1.0\"?>\r\n<plist>\r\n<dict>\r\n"
            + "\t<key>a</key>\r\n\t<string>x\r\ny</string>\r\n\t<key>b</key><true/>\r\n</dict>\r\n</plist>\r\n"
        let root = try read(document)
        let entries = try #require(root.value.dictionary?.entries)
        #expect(root.location.description == "test.plist:3:1")
        #expect(entries[0].keyLocation.description == "test.plist:4:2")
        #expect(entries[0].item.location.description == "test.plist:5:2")
        #expect(entries[0].item.value == .string("x\ny"))
        #expect(entries[1].keyLocation.description == "test.plist:7:2")
        #expect(entries[1].item.location.description == "test.plist:7:14")
    }

    // MARK: - Scalars

    @Test(
        "Integers: sign, decimal, hexadecimal, Int64 bounds",
        arguments: [
            ("0", 0), ("-0", 0), ("+12", 12), ("007", 7), (" 42 ", 42), ("0x1f", 31), ("0XFF", 255),
            ("-0x10", -16), ("0x7FFFFFFFFFFFFFFF", Int64.max),
        ] as [(String, Int64)])
    func integers(text: String, expected: Int64) throws {
        #expect(try readValue("<integer>\(text)</integer>") == .integer(expected))
    }

    @Test(
        "Reals: decimals, exponents, infinities",
        arguments: [
            ("1", 1.0), ("-2.5", -2.5), (".5", 0.5), ("5.", 5.0), ("1E3", 1000.0), ("1e+2", 100.0),
            ("2.5e-1", 0.25), ("inf", .infinity), ("+inf", .infinity), ("-INF", -.infinity),
            ("Infinity", .infinity), ("-infinity", -.infinity), ("\n 7.25\n", 7.25),
        ] as [(String, Double)])
    func reals(text: String, expected: Double) throws {
        #expect(try readValue("<real>\(text)</real>") == .real(expected))
    }

    @Test("NaN in any case", arguments: ["nan", "NaN", "NAN"])
    func notANumber(text: String) throws {
        guard case .real(let value) = try readValue("<real>\(text)</real>") else {
            Issue.record("not a <real>")
            return
        }
        #expect(value.isNaN)
    }

    @Test(
        "Dates are UTC, leap days included",
        arguments: [
            ("2014-06-01T12:34:56Z", 1_401_626_096), ("1970-01-01T00:00:00Z", 0),
            ("1969-12-31T23:59:59Z", -1), ("2016-02-29T00:00:00Z", 1_456_704_000),
            ("2000-02-29T00:00:00Z", 951_782_400), ("0001-01-01T00:00:00Z", -62_135_596_800),
        ] as [(String, Double)])
    func dates(text: String, seconds: Double) throws {
        #expect(try readValue("<date>\(text)</date>") == .date(Date(timeIntervalSince1970: seconds)))
    }

    @Test(
        "Base64 with line breaks, indentation and optional padding",
        arguments: [
            ("SGk=", "Hi"), ("SGk", "Hi"), ("\n\t\tSG\n\t\tk=\n\t", "Hi"), ("", ""), ("QQ==", "A"),
            ("QUJD", "ABC"),
        ])
    func base64(text: String, expected: String) throws {
        #expect(try readValue("<data>\(text)</data>") == .data(Data(expected.utf8)))
    }

    @Test("Strings keep their whitespace; empty forms are empty")
    func stringsAndEmptyForms() throws {
        #expect(try readValue("<string>  two  spaces\n</string>") == .string("  two  spaces\n"))
        #expect(try readValue("<string></string>") == .string(""))
        #expect(try readValue("<string/>") == .string(""))
        #expect(try readValue("<data/>") == .data(Data()))
        #expect(try readValue("<true></true>") == .bool(true))
        #expect(try readValue("<array></array>") == .array([]))
        #expect(try readValue("<dict></dict>") == .dictionary(PropertyListDictionary()))
        #expect(try readValue("<string>a<!-- comment -->b<?pi x?>c</string>") == .string("abc"))
        #expect(try readValue("<string>&#x1F380; &#233;t&#233;</string>") == .string("🎀 été"))
        let keys = try #require(readValue("<dict><key/><string>empty key</string></dict>").dictionary)
        #expect(keys[""]?.value == .string("empty key"))
    }

    // MARK: - Roots and streaming

    @Test("An array root is streamed element by element")
    func arrayRoot() throws {
        let reader = try PropertyListReader(contentsOf: fixtureURL("ArrayRoot.plist"))
        #expect(reader.rootIsArray)
        #expect(reader.rootLocation.description == "ArrayRoot.plist:4:1")

        let first = try #require(try reader.next())
        #expect(first.location.description == "ArrayRoot.plist:5:2")
        #expect(first.value.dictionary?["name"]?.value == .string("Paisley"))
        #expect(first.value.dictionary?.entries[1].keyLocation.line == 8)

        let second = try #require(try reader.next())
        #expect(second.location.line == 11)
        #expect(second.value.dictionary?["rating"]?.value == .real(3))

        let third = try #require(try reader.next())
        #expect(third.value == .string("not a record"))
        #expect(third.location.line == 17)

        #expect(try reader.next() == nil)
        #expect(try reader.next() == nil)
    }

    @Test("A dictionary root is returned once")
    func dictionaryRoot() throws {
        let reader = try PropertyListReader(contentsOf: fixtureURL("AllTypes.plist"))
        #expect(!reader.rootIsArray)
        #expect(reader.rootLocation.line == 4)
        let root = try #require(try reader.next())
        #expect(root.value.dictionary?.count == 21)
        #expect(try reader.next() == nil)
        #expect(try reader.next() == nil)
    }

    @Test("A scalar root is returned once")
    func scalarRoot() throws {
        let reader = try PropertyListReader(
            data: Data(plist("<string>solo</string>").utf8), displayName: "solo.plist")
        #expect(!reader.rootIsArray)
        #expect(reader.rootLocation.description == "solo.plist:4:1")
        #expect(try reader.next() == PropertyListItem(.string("solo"), at: reader.rootLocation))
        #expect(try reader.next() == nil)
    }

    @Test("Empty root array and dictionary")
    func emptyRoots() throws {
        let array = try PropertyListReader(data: Data(plist("<array/>").utf8), displayName: "a")
        #expect(array.rootIsArray)
        #expect(try array.next() == nil)

        let dictionary = try PropertyListReader(data: Data(plist("<dict/>").utf8), displayName: "d")
        #expect(!dictionary.rootIsArray)
        #expect(try dictionary.next()?.value == .dictionary(PropertyListDictionary()))
        #expect(try dictionary.next() == nil)
    }

    @Test("read(...) materialises an array root")
    func readWholeArray() throws {
        let root = try PropertyListReader.read(contentsOf: fixtureURL("ArrayRoot.plist"))
        #expect(root.value.array?.count == 3)
        #expect(root.location.line == 4)
    }

    @Test("Ten thousand elements come one at a time, reading only as far as needed")
    func streamingTenThousand() throws {
        let count = 10_000
        var document = "<?xml version=\"1.0\"?>\n<plist version=\"1.0\">\n<array>\n"
        for index in 0..<count {
            document += "\t<dict><key>id</key><integer>\(index)</integer></dict>\n"
        }
        document += "</array>\n</plist>\n"
        let data = Data(document.utf8)

        let reader = try PropertyListReader(data: data, displayName: "many.plist")
        let first = try #require(try reader.next())
        #expect(first.value.dictionary?["id"]?.value == .integer(0))
        // libxml2 reads ahead by a chunk, not by the document.
        #expect(reader.bytesConsumed < 16 * 1024)
        #expect(reader.bytesConsumed < data.count / 10)

        var seen = 1
        while let item = try reader.next() {
            #expect(item.value.dictionary?["id"]?.value == .integer(Int64(seen)))
            #expect(item.location.line == seen + 4)
            seen += 1
        }
        #expect(seen == count)
        #expect(reader.bytesConsumed == data.count)
    }

    // MARK: - Names

    @Test("The display name defaults to the file name")
    func displayNames() throws {
        let url = try fixtureURL("BadInteger.plist")
        let byDefault = propertyListError { _ = try PropertyListReader.read(contentsOf: url) }
        #expect(byDefault?.location?.file == "BadInteger.plist")
        let named = propertyListError {
            _ = try PropertyListReader.read(contentsOf: url, displayName: "records/bad.plist")
        }
        #expect(named?.description.hasPrefix("records/bad.plist:10:3: ") == true)
    }
}
