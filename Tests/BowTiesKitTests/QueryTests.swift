import Foundation
import GRDB
import Testing

@testable import BowTiesKit

/// The query language: parsed against the declaration, compiled to SQL,
/// run on the sample data plus N, a tie with no lastWorn, url or photo.
/// R and B are tagged formal, B wedding too.
@Suite("Query language")
struct QueryTests {
    /// Relative dates count back from 2014-07-01T00:00:00Z.
    static let now = Date(timeIntervalSince1970: 1_404_172_800)

    let directory: TemporaryDirectory
    let catalog: Catalog

    init() throws {
        directory = try TemporaryDirectory()
        catalog = try Catalog.temporary(in: directory)
        _ = try catalog.importPropertyList(at: Fixtures.samplePlist)
        _ = try catalog.save(BowTie(name: "Not Worn Yet", searchKey: "N", rating: 2))
        _ = try catalog.tag("R", with: ["Formal"])
        _ = try catalog.tag("B", with: ["formal", "wedding"])
    }

    /// The search keys `terms` select, in the query's order.
    func keys(_ terms: String...) throws -> [String] {
        try catalog.bowTies(matching: catalog.query(terms, now: Self.now)).compactMap(\.searchKey)
    }

    func failure(_ terms: String...) -> QueryError? {
        do {
            _ = try catalog.query(terms, now: Self.now)
            return nil
        } catch let error as QueryError {
            return error
        } catch {
            return nil
        }
    }

    @Test("no terms: every tie, as added")
    func everything() throws {
        #expect(try keys() == ["R", "O", "Y", "G", "B", "I", "V", "N"])
        #expect(try catalog.count(matching: catalog.query([])) == 8)
    }

    @Test("bare words match the name or the search key, ignoring case")
    func bareWords() throws {
        #expect(try keys("silk") == ["B"])
        #expect(try keys("PAISLEY") == ["G"])
        #expect(try keys("n") == ["O", "Y", "G", "B", "I", "N"])
        #expect(try keys("^n") == ["R", "V"])
        #expect(try keys("gold", "green") == ["G"])
    }

    @Test("field:value is a substring ignoring case; LIKE's wildcards are literal")
    func substring() throws {
        #expect(try keys("name:VELVET") == ["V"])
        #expect(try keys("url:shop.example") == ["O", "B", "V"])
        #expect(try keys("name:%") == [])
        #expect(try keys("name:_") == [])
        #expect(try keys("NAME:blue") == ["B"])  // field names ignore case too
        #expect(try keys("name:CRÊPE") == ["I"])  // beyond ASCII too
        #expect(try keys("crê") == ["I"])
        #expect(try keys("name:(ê") == [])  // literal, not a pattern
    }

    @Test("field:=value is exact")
    func exact() throws {
        #expect(try keys("searchKey:=R") == ["R"])
        #expect(try keys("name:=violet velvet") == [])
        #expect(try keys("name:=Violet Velvet") == ["V"])
        #expect(try keys("id:=b77af80e-55e7-4111-b05c-a5641de4d6b3") == ["R"])
    }

    @Test("field::REGEX is a regular expression; a missing value matches neither way")
    func regularExpression() throws {
        #expect(try keys("name::^(Classic|Violet)") == ["R", "V"])
        #expect(try keys("url::^https://shop") == ["O", "B", "V"])
        #expect(try keys("name::(?i)^midnight") == ["B"])
        #expect(try keys("^url::^https://shop") == ["R", "Y", "G", "I", "N"])
    }

    @Test("numbers: ranges closed at both ends, and single values")
    func numbers() throws {
        #expect(try keys("rating:3..5") == ["R", "O", "B", "I"])
        #expect(try keys("rating:3.5..4") == ["R", "O", "I"])
        #expect(try keys("rating:4") == ["O"])
        #expect(try keys("rating:=4") == ["O"])
        #expect(try keys("rating:4..") == ["O", "B"])
        #expect(try keys("rating:..1") == ["Y"])
        #expect(try keys("timesWorn:..2") == ["Y", "I", "N"])
        #expect(try keys("^timesWorn:..2") == ["R", "O", "G", "B", "V"])
    }

    @Test("dates: partial dates are whole years, months and days, in UTC")
    func dates() throws {
        #expect(try keys("lastWorn:2014-06") == ["R", "G", "B"])
        #expect(try keys("lastWorn:2014-01..2014-05") == ["O", "I", "V"])
        #expect(try keys("lastWorn:2014-06-19") == ["R"])
        #expect(try keys("lastWorn:2013") == ["Y"])
        #expect(try keys("lastWorn:2014-06-21..") == ["B"])
        #expect(try keys("lastWorn:..2014-04-01") == ["Y", "I", "V"])
        #expect(try keys("lastWorn:2014-06-19T18:15:24Z") == ["R"])
    }

    @Test("relative dates count back from now: d, w, m, y")
    func relativeDates() throws {
        #expect(try keys("lastWorn:..-30d") == ["O", "Y", "I", "V"])
        #expect(try keys("lastWorn:-2w..") == ["R", "B"])
        #expect(try keys("lastWorn:-3m..-1m") == ["O", "V"])
        #expect(try keys("lastWorn:..-1y") == [])
        #expect(try keys("lastWorn:-10d") == ["B"])  // the whole day 2014-06-21
    }

    @Test("a tie without a value fails a comparison, and its negation matches it")
    func missingValues() throws {
        #expect(try keys("lastWorn:..-30d").contains("N") == false)
        #expect(try keys("^lastWorn:..-30d") == ["R", "G", "B", "N"])
        #expect(try keys("^lastWorn:2014-06") == ["O", "Y", "I", "V", "N"])
        #expect(try keys("^url:example") == ["R", "N"])
    }

    @Test("is:, has: and tag:")
    func keywords() throws {
        #expect(try keys("is:favorite") == ["B"])
        #expect(try keys("is:isFavorite") == ["B"])
        #expect(try keys("isFavorite:false").count == 7)
        #expect(try keys("^is:favorite") == ["R", "O", "Y", "G", "I", "V", "N"])
        #expect(try keys("has:photo").count == 7)
        #expect(try keys("^has:photoData") == ["N"])
        #expect(try keys("^has:url") == ["N"])
        #expect(try keys("has:tags") == ["R", "B"])
        #expect(try keys("tag:FORMAL") == ["R", "B"])
        #expect(try keys("tag:wedding") == ["B"])
        #expect(try keys("^tag:formal") == ["O", "Y", "G", "I", "V", "N"])
        #expect(try keys("tag:none") == [])
    }

    @Test("a lone comma makes an OR of AND-ed groups")
    func groups() throws {
        #expect(try keys("is:favorite", ",", "rating:..1") == ["Y", "B"])
        #expect(try keys("tag:formal", "rating:..4", ",", "name:velvet") == ["R", "V"])
        let query = try catalog.query(["silk", ",", "paisley"]).and(catalog.query(["rating:3.."]))
        #expect(try catalog.bowTies(matching: query).compactMap(\.searchKey) == ["B"])
        #expect(try catalog.count(matching: query) == 1)
    }

    @Test("sort: terms order in turn; the rowid breaks ties")
    func sorting() throws {
        #expect(try keys("sort:rating-") == ["B", "O", "I", "R", "G", "N", "V", "Y"])
        #expect(try keys("sort:timesWorn+", "sort:name-") == ["Y", "N", "I", "O", "V", "G", "R", "B"])
        #expect(try keys("sort:name", "rating:3..") == ["R", "I", "B", "O"])
        let reversed = try catalog.bowTies(matching: catalog.query(["sort:rating"]), reverse: true)
        #expect(reversed.compactMap(\.searchKey) == ["B", "O", "I", "R", "G", "N", "V", "Y"])
        let byKey = try catalog.bowTies(matching: catalog.query(["rating:4..", "sort:searchKey"]))
        #expect(byKey.compactMap(\.searchKey) == ["B", "O"])
    }

    @Test("an unknown field suggests the closest declared one")
    func unknownField() throws {
        let error = try #require(failure("blue", "lastWorm:2014"))
        #expect(error.kind == .unknownField)
        #expect(error.position == 2)
        #expect(error.suggestion == "lastWorn")
        #expect(error.description == "term 2 (lastWorm:2014): unknown field \"lastWorm\"; did you mean \"lastWorn\"?")
        #expect(failure("ratng:4")?.suggestion == "rating")
        #expect(failure("tgs:formal")?.suggestion == "tag")
        #expect(failure("is:favourite")?.suggestion == "isFavorite")
        #expect(failure("has:foto")?.suggestion == "photo")
        #expect(failure("sort:ratin-")?.suggestion == "rating")
        let far = try #require(failure("xyzzy:1"))
        #expect(far.suggestion == nil)
        #expect(far.message.contains("fields: id, name, searchKey"))
    }

    @Test("malformed terms and bad values name their position")
    func malformed() throws {
        #expect(failure("^")?.kind == .malformedTerm)
        #expect(failure("rating:")?.kind == .malformedTerm)
        #expect(failure("rating:..")?.kind == .malformedTerm)
        #expect(failure(",", "silk")?.position == 1)
        #expect(failure("silk", ",")?.position == 2)
        #expect(failure("silk", ",", ",", "paisley")?.position == 3)
        let value = try #require(failure("silk", "rating:high"))
        #expect(value.kind == .invalidValue && value.position == 2 && value.term == "rating:high")
        #expect(failure("lastWorn:2014-13")?.kind == .invalidValue)
        #expect(failure("lastWorn:2014-02-30")?.kind == .invalidValue)
        #expect(failure("lastWorn:-3x..")?.kind == .invalidValue)
        #expect(failure("isFavorite:maybe")?.kind == .invalidValue)
        #expect(failure("tintColor:red")?.kind == .invalidValue)
        #expect(failure("has:name")?.kind == .invalidValue)
        #expect(failure("^sort:name")?.kind == .malformedTerm)
        let regex = try #require(failure("x", "y", "name::(unclosed"))
        #expect(regex.kind == .invalidRegularExpression && regex.position == 3)
    }

    @Test("values are bound, never written into the SQL")
    func boundArguments() throws {
        let query = try catalog.query(["name:x'; DROP TABLE bowtie; --", "rating:1..2"])
        let compiled = try QueryCompiler(codec: catalog.bowTieCodec).compile(query)
        let sql = try #require(compiled.whereSQL)
        #expect(!sql.contains("DROP"))
        #expect(!sql.contains("1.0") && !sql.contains("2.0"))
        #expect(compiled.arguments.count == 3)
        #expect(try catalog.bowTies(matching: query).isEmpty)
    }

    @Test("searchKey:=R searches the search key's index")
    func indexUse() throws {
        let (sql, arguments) = try catalog.selectSQL(matching: catalog.query(["searchKey:=R"]))
        let plan = try catalog.database.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: StatementArguments(arguments.map(SQLiteSession.databaseValue)))
                .map { $0["detail"] as String }
        }
        let search = try #require(plan.first { $0.hasPrefix("SEARCH bowtie ") }, "\(plan)")
        #expect(search.contains("INDEX") && search.contains("(searchKey=?)"), "\(plan)")
        #expect(!plan.contains { $0.hasPrefix("SCAN bowtie") }, "\(plan)")
    }

    @Test("a CSV export with a query writes only the matching ties, in its order")
    func export() throws {
        let file = directory.path("some.csv")
        let count = try catalog.exportCSV(to: .file(file), query: catalog.query(["rating:4..", "sort:rating-"]))
        #expect(count == 2)
        let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\r\n")
        #expect(lines.count == 3)
        #expect(lines[1].contains(",B,") && lines[2].contains(",O,"))
    }

    @Test("the regexp function: NULL for a NULL value, one compilation per pattern")
    func regexpFunction() throws {
        let values = try catalog.database.read { db in
            try Row.fetchOne(db, sql: "SELECT NULL REGEXP 'a', 'abc' REGEXP 'b', 'abc' REGEXP '^b'")
        }
        let row = try #require(values)
        #expect((row[0] as DatabaseValue).isNull)
        #expect(row[1] as Bool == true)
        #expect(row[2] as Bool == false)
        #expect(try RegularExpressionFunction.compiled("x+") === RegularExpressionFunction.compiled("x+"))
    }
}
