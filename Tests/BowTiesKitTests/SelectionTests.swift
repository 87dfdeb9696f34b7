import Foundation
import Testing

@testable import BowTiesKit

/// ``Catalog/selection(_:now:)``: the arguments that are search keys
/// select their ties, the others are a query, and the two are or-ed;
/// ``QueryWord`` says which words can never be keys, and the model
/// refuses them as search keys.
@Suite("Selections of keys and query terms")
struct SelectionTests {
    let directory: TemporaryDirectory
    let catalog: Catalog

    init() throws {
        directory = try TemporaryDirectory()
        catalog = try Catalog.temporary(in: directory)
        _ = try catalog.importPropertyList(at: Fixtures.samplePlist)
    }

    func keys(_ words: String...) throws -> [String] {
        try catalog.bowTies(matching: catalog.selection(words).query).compactMap(\.searchKey)
    }

    @Test("keys select their ties; other words are the query; the two are or-ed")
    func keysAndQuery() throws {
        #expect(try keys("G", "Y") == ["Y", "G"])
        #expect(try keys("R", "rating:4..") == ["R", "O", "B"])
        #expect(try keys("rating:4..", "r") == ["R", "O", "B"])
        #expect(try keys("R", "sort:name") == ["R"])
        #expect(try keys("silk") == ["B"])
        let selection = try catalog.selection(["G", "silk", "sort:name"])
        #expect(selection.keys.map(\.word) == ["G"])
        #expect(selection.queryWords == ["silk", "sort:name"])
        #expect(!selection.isExactlyKeys)
        #expect(try catalog.selection(["G", "Y", "sort:name"]).isExactlyKeys)
        #expect(try !catalog.selection([]).isExactlyKeys)
    }

    @Test("commas around keys: a group of keys goes with one comma; a stray comma is still an error")
    func commas() throws {
        #expect(try keys("G", ",", "rating:4") == ["O", "G"])
        #expect(try keys("rating:4", ",", "G", ",", "silk") == ["O", "G", "B"])
        #expect(throws: QueryError.self) { try catalog.selection([",", "rating:4"]) }
        do {
            _ = try catalog.selection(["G", "ratng:4"])
            Issue.record("no error")
        } catch let error as QueryError {
            #expect(error.position == 2)
        }
    }

    @Test(
        "words that read as query syntax are never keys",
        arguments: [
            ("rating:4", QueryWord.Syntax.fieldValue), ("^R", .negation), ("3..5", .range), (",", .separator),
            (" , ", .separator), ("a=b", .assignment), ("+x", .tagChange("+")), ("-x", .tagChange("-")),
        ])
    func syntax(word: String, syntax: QueryWord.Syntax) {
        #expect(QueryWord.syntax(in: word) == syntax)
    }

    @Test("plain words are plain", arguments: ["R", "a.b", "x-y", "Crêpe", "a,b", "12 30"])
    func plain(word: String) {
        #expect(QueryWord.syntax(in: word) == nil)
    }

    @Test("the model refuses such a search key with 1680, in the one validation routine")
    func modelRefuses() throws {
        let entity = BowTieModel.entity
        let key = try #require(entity["searchKey"])
        #expect(key.isQueryWord)
        let broken = key.brokenRule(.string("rating:4"))
        #expect(broken?.0 == .stringPatternMatching)
        #expect(broken?.1 == "searchKey contains \":\", which a query reads as field:value.")
        #expect(throws: ValidationError.self) {
            try catalog.save(BowTie(name: "Query Tie", searchKey: "^x", rating: 1))
        }
    }
}
