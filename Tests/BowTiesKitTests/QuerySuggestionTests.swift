import Foundation
import Testing

@testable import BowTiesKit

/// What the query parser says about slips: suggestions by name and label
/// through ``EditDistance``, and ranges that are empty.
@Suite("Query suggestions and empty ranges")
struct QuerySuggestionTests {
    func failure(_ terms: String...) -> QueryError? {
        do {
            _ = try Query.parse(terms)
            return nil
        } catch let error as QueryError {
            return error
        } catch {
            return nil
        }
    }

    @Test("labels count: colour is tintColor's, as the table heads it; has: suggests what it takes")
    func labels() {
        #expect(failure("has:colour")?.suggestion == "tintColor")
        #expect(failure("colour:#C81E2D")?.suggestion == "tintColor")
        #expect(failure("has:foto")?.suggestion == "photo")
        #expect(failure("sort:lastworm")?.suggestion == "lastWorn")
        #expect(failure("is:favourite")?.suggestion == "isFavorite")
        #expect(QueryParser.suggestion(for: "colour", among: [("url", []), ("tintColor", ["colour"])]) == "tintColor")
    }

    @Test("bounded: a word far from every name gets no guess, and has: lists what it takes")
    func bounded() throws {
        #expect(QueryParser.suggestion(for: "xyzzy", among: ["url", "tintColor"]) == nil)
        let far = try #require(failure("has:xyzzy"))
        #expect(far.suggestion == nil && far.message.contains("has: takes") && far.message.contains("tintColor"))
        // A swap of two letters is one edit (EditDistance), as for commands.
        #expect(QueryParser.suggestion(for: "rtaing", among: ["rating", "name"]) == "rating")
    }

    @Test("a range whose start is after its end is an error that suggests the other way round")
    func emptyRanges() throws {
        let numbers = try #require(failure("silk", "rating:5..3"))
        #expect(numbers.kind == .invalidValue && numbers.position == 2 && numbers.suggestion == "rating:3..5")
        #expect(numbers.description.contains("the range 5..3 is empty: its start is after its end"))
        #expect(failure("lastWorn:2014-06..2014-01")?.kind == .invalidValue)
        #expect(failure("timesWorn:=9..2")?.suggestion == "timesWorn:2..9")
        #expect(failure("rating:3..3") == nil)
        #expect(failure("lastWorn:2014-06..2014-06") == nil)
    }

    @Test("a colour term is read as #RRGGBB, in any case, with or without #")
    func colours() throws {
        for text in ["tintColor:#C81E2D", "tintColor:c81e2d", "TINTCOLOR:=#c81e2d"] {
            #expect(failure(text) == nil, "\(text)")
        }
        #expect(failure("tintColor:red")?.kind == .invalidValue)
        #expect(failure("photoData:abc")?.kind == .invalidValue)
    }
}
