import Foundation
import PropertyList
import Testing

@testable import BowTiesKit

/// The structured and tab-separated exports, read back with independent
/// parsers (Foundation's JSON, our ``PropertyListReader``): whatever the
/// catalog holds comes back, but what XML 1.0 cannot hold.
@Suite("Export formats")
struct ExportFormatTests {
    /// ``ExportTests/awkward``, and a name with characters XML 1.0 cannot
    /// hold, a carriage return and a tab.
    static let ties =
        ExportTests.awkward + [
            BowTie(name: "bell\u{7} and \u{FFFE}, cr\r, tab\there", searchKey: "X", rating: 2)
        ]

    private struct Exported {
        var directory: TemporaryDirectory
        var catalog: Catalog
        var data: Data
        var summary: ExportSummary
    }

    private func export(_ options: ExportOptions, ties: [BowTie] = Self.ties) throws -> Exported {
        let directory = try TemporaryDirectory()
        let catalog = try Catalog.temporary(in: directory)
        for tie in ties { try catalog.save(tie) }
        if !ties.isEmpty {
            try history(catalog)
        }
        let output = directory.path("ties.out")
        let summary = try catalog.export(to: .file(output), options: options)
        #expect(summary.count == ties.count)
        return Exported(directory: directory, catalog: catalog, data: try Data(contentsOf: output), summary: summary)
    }

    /// Two wears (the later one first) and two tags for P.
    private func history(_ catalog: Catalog) throws {
        _ = try catalog.wear("P", at: Date(timeIntervalSince1970: 1_400_000_000), note: "second & <last>")
        _ = try catalog.wear("P", at: Date(timeIntervalSince1970: 1_300_000_000.75), note: nil)
        _ = try catalog.tag("P", with: ["Formal", "black tie"])
    }

    @Test("JSON: an array of objects with every key, in declaration order, null when missing")
    func json() throws {
        let exported = try export(ExportOptions(format: .json))
        let objects = try #require(try JSONSerialization.jsonObject(with: exported.data) as? [[String: Any]])
        #expect(objects.count == Self.ties.count)
        let keys = Catalog.exportFieldNames
        for (tie, object) in zip(Self.ties, objects) {
            #expect(Set(object.keys) == Set(keys))
            #expect(object["id"] as? String == tie.id.uuidString)
            #expect(object["name"] as? String == tie.name)
            #expect(object["rating"] as? Double == tie.rating)
            if tie.searchKey != "P" {  // P's wears moved its last worn
                #expect(object["lastWorn"] as? String == tie.lastWorn.map(ISO8601.string(from:)))
            }
            #expect((object["tintColor"] as? String) == tie.tintColor?.hexString)
            #expect(object["photo"] is NSNull)
        }
        #expect(objects[1]["url"] is NSNull)
        let plain = objects[0]
        #expect(plain["tags"] as? [String] == ["black tie", "Formal"])
        let wears = try #require(plain["wears"] as? [[String: Any]])
        #expect(wears.count == 2)
        #expect(wears.first?["date"] as? String == "2011-03-13T07:06:40Z", "oldest first")
        #expect(wears.first?["note"] is NSNull)
        #expect(wears.last?["note"] as? String == "second & <last>")
        let text = String(decoding: exported.data, as: UTF8.self)
        #expect(text.hasPrefix("[\n{\"id\":"))
        #expect(text.hasSuffix("}\n]\n"))
        #expect(text.split(separator: "\n").count == Self.ties.count + 2, "one object per line")
    }

    @Test("JSON Lines: one object per line, the same objects")
    func jsonLines() throws {
        let lines = try export(ExportOptions(format: .jsonl)).data.split(separator: UInt8(ascii: "\n"))
        let array = try #require(
            try JSONSerialization.jsonObject(with: export(ExportOptions(format: .json)).data) as? [[String: Any]])
        #expect(lines.count == Self.ties.count)
        for (line, object) in zip(lines, array) {
            let decoded = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
            #expect(decoded["name"] as? String == object["name"] as? String)
            #expect(decoded.count == object.count)
        }
    }

    @Test("an empty export is [] in JSON, nothing in JSON Lines, an empty array in a property list")
    func empty() throws {
        #expect(try export(ExportOptions(format: .json), ties: []).data == Data("[]\n".utf8))
        #expect(try export(ExportOptions(format: .jsonl), ties: []).data.isEmpty)
        let plist = try export(ExportOptions(format: .plist), ties: [])
        let root = try PropertyListReader.read(data: plist.data, displayName: "empty.plist")
        #expect(root.value == .array([]))
    }

    @Test("the property list reads back in our reader; what XML 1.0 cannot hold becomes U+FFFD, counted")
    func propertyList() throws {
        let exported = try export(ExportOptions(format: .plist))
        #expect(exported.summary.replacedCharacters == 2)
        let root = try PropertyListReader.read(data: exported.data, displayName: "ties.plist")
        guard case .array(let items) = root.value else {
            Issue.record("not an array: \(root.value.elementName)")
            return
        }
        #expect(items.count == Self.ties.count)
        for (tie, item) in zip(Self.ties, items) {
            guard case .dictionary(let dict) = item.value else {
                Issue.record("not a dict")
                continue
            }
            let expectedName =
                tie.searchKey == "X" ? "bell\u{FFFD} and \u{FFFD}, cr\r, tab\there" : tie.name
            #expect(dict["name"]?.value == expectedName.map(PropertyListValue.string))
            #expect(dict["id"]?.value == .string(tie.id.uuidString))
            #expect(dict["rating"]?.value == .real(tie.rating))
            #expect(dict["isFavorite"]?.value == .bool(tie.isFavorite))
            if tie.searchKey != "P" {  // P's wears count
                #expect(dict["timesWorn"]?.value == .integer(Int64(tie.timesWorn)))
                #expect(
                    dict["lastWorn"]?.value
                        == tie.lastWorn.map {
                            .date(Date(timeIntervalSince1970: $0.timeIntervalSince1970.rounded(.down)))
                        })
            } else {
                #expect(dict["timesWorn"]?.value == .integer(5))
                #expect(dict["lastWorn"]?.value == .date(Date(timeIntervalSince1970: 1_400_000_000)))
            }
            #expect(dict["tintColor"]?.value == tie.tintColor.map { .string($0.hexString) })
            #expect(dict["url"]?.value == tie.url.map { .string($0.absoluteString) })
            // No null in a property list: a missing value has no key.
            #expect(dict["photo"] == nil)
        }
        guard case .dictionary(let plain) = items[0].value, case .array(let wears)? = plain["wears"]?.value,
            case .array(let tags)? = plain["tags"]?.value
        else {
            Issue.record("no wears or tags")
            return
        }
        #expect(tags.map(\.value) == [.string("black tie"), .string("Formal")])
        #expect(wears.count == 2)
        guard case .dictionary(let first) = wears[0].value, case .dictionary(let last) = wears[1].value else {
            Issue.record("wears are not dicts")
            return
        }
        #expect(first["date"]?.value == .date(Date(timeIntervalSince1970: 1_300_000_000)))
        #expect(first["note"] == nil)
        #expect(last["note"]?.value == .string("second & <last>"))
    }

    @Test("TSV: one line per record, tabs and line ends escaped")
    func tsv() throws {
        let text = String(decoding: try export(ExportOptions(format: .tsv)).data, as: UTF8.self)
        #expect(!text.contains("\r"))
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == Self.ties.count + 2)  // header, rows, "" after the last LF
        #expect(lines[0].split(separator: "\t").map(String.init) == Catalog.csvColumns)
        for line in lines.dropFirst().dropLast() {
            #expect(line.split(separator: "\t", omittingEmptySubsequences: false).count == Catalog.csvColumns.count)
        }
        #expect(lines[2].contains("Comma, \"quotes\"\\r\\nand lines\\nhere"))
        #expect(lines.last == "")
        #expect(text.contains("\t\\tT\t"), "a search key starting with a tab")
    }

    @Test("--fields: those fields, in that order; unknown ones are refused with a suggestion")
    func fields() throws {
        let exported = try export(ExportOptions(format: .jsonl, fields: ["searchKey", "wears", "name"]))
        let first = String(decoding: exported.data.split(separator: UInt8(ascii: "\n"))[0], as: UTF8.self)
        #expect(first.hasPrefix("{\"searchKey\":\"P\",\"wears\":[{\"date\":"), "\(first)")
        #expect(first.hasSuffix(",\"name\":\"Plain\"}"), "\(first)")
        // CSV holds a list of objects as one cell of JSON text.
        let csv = String(
            decoding: try export(ExportOptions(format: .csv, fields: ["searchKey", "wears"])).data, as: UTF8.self)
        #expect(
            csv.hasPrefix(#"searchKey,wears\#r\#nP,"[{""date"":""2011-03-13T07:06:40Z"",""note"":null},"#),
            "\(csv)")
        do {
            _ = try export(ExportOptions(format: .json, fields: ["name", "ratng"]))
            Issue.record("an unknown field was accepted")
        } catch let error as ExportFieldError {
            #expect(error.kind == .unknownField)
            #expect(error.suggestion == "rating")
        }
    }
}
