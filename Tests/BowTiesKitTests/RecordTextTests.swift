import Foundation
import Testing

@testable import BowTiesKit

@Suite("RecordText: a record as editable text")
struct RecordTextTests {
    let form = RecordText(entity: BowTieModel.entity, model: BowTieModel.model)

    func sampleTie() -> BowTie {
        var tie = BowTie(
            name: "Classic Red Bow Tie", searchKey: "R", rating: 3.5, timesWorn: 12, isFavorite: true,
            url: URL(string: "https://en.wikipedia.org/wiki/Bow_tie"),
            tintColor: Color(red8: 200, green8: 30, blue8: 45))
        tie.tags = ["formal", "red"]
        return tie
    }

    @Test("the fields are the declaration's editable attributes, then tags")
    func fields() {
        #expect(form.attributes.map(\.name) == ["name", "searchKey", "rating", "isFavorite", "url", "tintColor"])
        #expect(form.namedRelationships.map(\.name) == ["tags"])
    }

    @Test("the body is one field: value line each")
    func body() {
        #expect(
            form.body(of: sampleTie().record) == """
                name: Classic Red Bow Tie
                searchKey: R
                rating: 3.5
                isFavorite: true
                url: https://en.wikipedia.org/wiki/Bow_tie
                tintColor: #C81E2D
                tags: formal, red

                """)
    }

    @Test("a field without a value is the bare field name, and reads back as no value")
    func noValue() throws {
        let tie = BowTie(name: "Plain", searchKey: "P")
        let body = form.body(of: tie.record)
        #expect(body.contains("\nurl:\n") && body.contains("\ntintColor:\n") && body.hasSuffix("\ntags:\n"))
        #expect(try form.parse(body, onto: tie.record)?.values == tie.record.values)
    }

    @Test("the rendered text reads back as the same record")
    func roundTrip() throws {
        var tie = sampleTie()
        tie.name = "Two\nlines \\ and a tab\t."
        let text = form.render(tie.record)
        #expect(text.hasPrefix("# Editing "))
        let parsed = try #require(try form.parse(text, onto: tie.record))
        #expect(parsed == tie.record)
    }

    @Test("changed lines replace values; an empty value means no value; a removed line keeps its value")
    func changes() throws {
        let tie = sampleTie()
        let text = """
            # a comment
            name:   Paisley  
            rating: 4.75
            url:
            tags: Wedding,  formal ,
            """
        let parsed = try #require(try form.parse(text, onto: tie.record))
        let edited = BowTie(record: parsed)
        #expect(edited.name == "Paisley")
        #expect(edited.rating == 4.75)
        #expect(edited.url == nil)
        #expect(edited.tags == ["Wedding", "formal"])
        #expect(edited.searchKey == "R")
        #expect(edited.isFavorite)
        #expect(edited.tintColor == tie.tintColor)
    }

    @Test("a text of comments and blank lines is empty")
    func empty() throws {
        #expect(try form.parse("# nothing\n\n   \n", onto: sampleTie().record) == nil)
        #expect(try form.parse("", onto: sampleTie().record) == nil)
    }

    @Test(
        "malformed lines name their line and field",
        arguments: [
            ("name: A\nrating: high", "line 2: rating: \"high\" is not a number such as 4.5"),
            ("tintColor: red", "line 1: tintColor: \"red\" is not a colour #RRGGBB"),
            ("isFavorite: perhaps", "line 1: isFavorite: \"perhaps\" is not true or false"),
            ("just words", "line 1: expected \"field: value\", found \"just words\""),
            ("name: A\nname: B", "line 2: name appears more than once"),
        ])
    func malformed(text: String, message: String) throws {
        #expect(throws: RecordTextError.self) { try form.parse(text, onto: sampleTie().record) }
        do {
            _ = try form.parse(text, onto: sampleTie().record)
        } catch let error as RecordTextError {
            #expect(error.description == message)
        }
    }

    @Test("unknown and read-only fields are refused with the fields one may edit")
    func unknownFields() throws {
        for (text, expected) in [
            ("colour: #FFFFFF", "unknown field \"colour\""),
            ("Rating: 3", "(did you mean rating?)"),
            ("timesWorn: 3", "timesWorn cannot be edited here: it follows the wears history"),
            ("id: E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "id cannot be edited here"),
            ("photoData: x", "`bowties photo` changes it"),
        ] {
            do {
                _ = try form.parse(text, onto: sampleTie().record)
                Issue.record("\(text) was accepted")
            } catch let error as RecordTextError {
                #expect(error.description.contains(expected), "\(error)")
                #expect(error.description.contains("the fields are name, searchKey, rating"), "\(error)")
            }
        }
    }

    @Test("errors go on top as comments, replacing earlier ones, and parsing ignores them")
    func errorsOnTop() throws {
        let tie = sampleTie()
        let text = form.render(tie.record)
        let once = form.withErrors(["rating is too large."], text)
        #expect(once.hasPrefix("# ERROR: rating is too large.\n# Editing"))
        let twice = form.withErrors(["line 3: oops", "second"], once)
        #expect(twice.hasPrefix("# ERROR: line 3: oops\n# ERROR: second\n# Editing"))
        #expect(try form.parse(twice, onto: tie.record) == tie.record)
    }

    @Test("values are typed by the declaration")
    func typedValues() throws {
        let entity = BowTieModel.entity
        #expect(try entity["rating"]?.value(fromText: " 4 ") == .double(4))
        #expect(try entity["tintColor"]?.value(fromText: "#c81e2d") == .color(Color(red8: 200, green8: 30, blue8: 45)))
        // The form only: validation refuses a relative one (1690).
        #expect(try entity["url"]?.value(fromText: "example.com") == .uri("example.com"))
        #expect(
            try entity["lastWorn"]?.value(fromText: "2014-06-19") == .date(Date(timeIntervalSince1970: 1_403_136_000)))
        #expect(try entity["rating"]?.value(fromText: "") == nil)
        #expect(throws: ValueTextError.self) { try entity["rating"]?.value(fromText: "4,5") }
        #expect(throws: ValueTextError.self) { try entity["tintColor"]?.value(fromText: "#GGGGGG") }
    }
}
