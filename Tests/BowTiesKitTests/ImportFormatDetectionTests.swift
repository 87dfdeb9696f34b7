import Foundation
import Testing

@testable import BowTiesKit

/// ``ImportFormat/detect(_:columns:file:)`` and ``CSVColumnNames``: the
/// format told by content, and what a file no format fits looks like.
@Suite("Import format detection and CSV header names")
struct ImportFormatDetectionTests {
    static let columns = Catalog.csvColumns + ["imageName", "photo"]

    static func detect(_ text: String) throws -> ImportFormat {
        try ImportFormat.detect(Array(text.utf8), columns: columns, file: "f")
    }

    static func refusal(_ bytes: [UInt8]) -> String? {
        do {
            _ = try ImportFormat.detect(bytes, columns: columns, file: "f")
            return nil
        } catch {
            return error.message
        }
    }

    @Test("each format by its first bytes; < and an empty file go to the XML reader")
    func formats() throws {
        #expect(try Self.detect("<?xml version=\"1.0\"?>") == .plist)
        #expect(try Self.detect("<html>") == .plist)
        #expect(try Self.detect("") == .plist)
        #expect(try Self.detect("bplist00") == .plist)
        #expect(try Self.detect(" [{\"name\": \"A\"}]") == .json)
        #expect(try Self.detect("{\"name\": \"A\"}\n") == .jsonl)
        #expect(try Self.detect("name,searchKey\nA,A\n") == .csv)
        #expect(try Self.detect("Name,Search Key,Rating\nA,A,4\n") == .csv)
        #expect(try Self.detect("NAME\tsearch_key\nA\tA\n") == .tsv)
        #expect(try Self.detect("\"Last Worn\"\n2024-03-15\n") == .csv)
    }

    @Test("what a file no format fits looks like")
    func refusals() {
        #expect(Self.refusal(Array("hello world\n".utf8))?.hasPrefix("the file is text in no format") == true)
        #expect(
            Self.refusal(Array("a;b;c\n".utf8))?.hasPrefix("the file looks like values separated by semicolons") == true
        )
        #expect(Self.refusal(Array("Title,Price\n".utf8))?.hasPrefix("the file looks like CSV, but its header") == true)
        #expect(Self.refusal([0xFF, 0xD8, 0xFF, 0xE0]) == "f: this is a JPEG image, not a file of bow ties")
        #expect(Self.refusal(Array("%PDF-1.7".utf8)) == "f: this is a PDF document, not a file of bow ties")
        #expect(Self.refusal(Array("SQLite format 3".utf8) + [0])?.contains("an SQLite database") == true)
        #expect(Self.refusal([0x41, 0x00, 0x42])?.contains("binary data") == true)
        // UTF-8 cut short at the end of the prefix is still text.
        #expect(Self.refusal(Array("caf".utf8) + [0xC3])?.hasPrefix("the file is text") == true)
    }

    @Test("header names fold case, spaces, _ and -, and take the labels list and show print")
    func columnNames() {
        let names = CSVColumnNames(Self.columns)
        #expect(names.column(for: "Search Key") == "searchKey")
        #expect(names.column(for: "search_key") == "searchKey")
        #expect(names.column(for: "LAST-WORN") == "lastWorn")
        #expect(names.column(for: "Key") == "searchKey")
        #expect(names.column(for: "Worn") == "timesWorn")
        #expect(names.column(for: "Favourite") == "isFavorite")
        #expect(names.column(for: "Colour") == "tintColor")
        #expect(names.column(for: "fabric") == nil)
        #expect(names.suggestion(for: "Serch Key") == "searchKey")
        #expect(names.suggestion(for: "Raitng") == "rating")
        #expect(names.suggestion(for: "fabric") == nil)
        // A label is read only when its column is known.
        #expect(CSVColumnNames(["name"]).column(for: "Key") == nil)
    }
}
