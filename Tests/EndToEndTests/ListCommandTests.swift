import Foundation
import Testing

@Suite("bowties list")
struct ListCommandTests {
    @Test("the table shows the seven ties in the file's order, then a count")
    func table() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let result = try bowties.run("list")
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.isEmpty, "\(result)")
        let lines = result.stdoutLines
        #expect(lines.count == 11, "\(result)")  // header, 7 rows, blank, count, final newline
        #expect(lines.first == "KEY  NAME                       RATING  WORN  LAST WORN   FAV  COLOUR", "\(result)")
        #expect(lines.dropFirst().prefix(7).map { String($0.prefix(1)) } == ["R", "O", "Y", "G", "B", "I", "V"])
        #expect(lines[1] == "R    Classic Red Bow Tie           3.5    12  2014-06-19       #C81E2D", "\(result)")
        #expect(lines[5] == "B    Midnight Blue Silk           4.75    21  2014-06-21  *    #1E5AC8", "\(result)")
        #expect(lines[9] == "7 bow ties, 1 favourite", "\(result)")
        // NO_COLOR: no escape sequences.
        #expect(!result.stdout.contains("\u{1B}"), "\(result)")
    }

    @Test("--json gives one object per tie")
    func json() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let result = try bowties.run("list", "--json")
        #expect(result.status == 0, "\(result)")
        let ties = try #require(try result.json() as? [[String: Any]], "\(result)")
        #expect(ties.count == 7)
        let red = try #require(ties.first)
        #expect(red["id"] as? String == "B77AF80E-55E7-4111-B05C-A5641DE4D6B3")
        #expect(red["name"] as? String == "Classic Red Bow Tie")
        #expect(red["searchKey"] as? String == "R")
        #expect(red["rating"] as? Double == 3.5)
        #expect(red["timesWorn"] as? Int == 12)
        #expect(red["lastWorn"] as? String == "2014-06-19T18:15:24Z")
        #expect(red["isFavorite"] as? Bool == false)
        #expect(red["url"] as? String == "https://en.wikipedia.org/wiki/Bow_tie")
        #expect(red["tintColor"] as? String == "#C81E2D")
        let photo = try #require(red["photo"] as? [String: Any])
        #expect(photo["storage"] as? String == "inline")
        #expect(photo["bytes"] as? Int == 16_698)
        #expect(
            ties.map { ($0["photo"] as? [String: Any])?["storage"] as? String }.filter { $0 == "external" }.count == 2)
    }

    @Test("--favorites shows only B")
    func favorites() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let result = try bowties.run("list", "--favorites")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdoutLines.count == 5, "\(result)")
        #expect(result.stdoutLines[1].hasPrefix("B    Midnight Blue Silk"), "\(result)")
        #expect(result.stdoutLines[3] == "1 bow tie, 1 favourite", "\(result)")
    }

    @Test("--sort rating --reverse puts the best first")
    func sortByRating() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let result = try bowties.run("list", "--sort", "rating", "--reverse", "--json")
        #expect(result.status == 0, "\(result)")
        let ties = try #require(try result.json() as? [[String: Any]], "\(result)")
        #expect(ties.compactMap { $0["searchKey"] as? String } == ["B", "O", "I", "R", "G", "V", "Y"])
        #expect(ties.compactMap { $0["rating"] as? Double } == [4.75, 4, 3.75, 3.5, 2.25, 1.25, 0.5])

        let ascending = try bowties.run("list", "--sort", "rating", "--json")
        let keys = try #require(try ascending.json() as? [[String: Any]]).compactMap { $0["searchKey"] as? String }
        #expect(keys == ["Y", "V", "G", "R", "I", "O", "B"])
    }

    @Test("--sort name and --sort timesWorn")
    func otherOrders() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let byName = try bowties.run("list", "--sort", "name", "--json")
        #expect(
            try #require(try byName.json() as? [[String: Any]]).compactMap { $0["searchKey"] as? String }
                == ["R", "G", "I", "B", "O", "V", "Y"], "\(byName)")
        let byWear = try bowties.run("list", "--sort", "timesWorn", "--reverse", "--json")
        #expect(
            try #require(try byWear.json() as? [[String: Any]]).compactMap { $0["timesWorn"] as? Int }
                == [21, 12, 7, 5, 3, 1, 0], "\(byWear)")
    }

    @Test("an unknown sort order is a usage error")
    func unknownOrder() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let result = try bowties.run("list", "--sort", "colour")
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.contains("colour"), "\(result)")
    }

    @Test("an empty catalog says how to fill it")
    func empty() throws {
        let bowties = try BowTiesRunner()
        #expect(try bowties.run("config", "--photo-threshold", "102400").status == 0)
        let result = try bowties.run("list")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "The catalog is empty: add ties with `bowties import`.\n", "\(result)")
    }

    /// 250 ties: tie 200 has the widest name in cells (wide characters
    /// and an emoji take two) though not the longest in characters; tie
    /// 120 the widest count (1,234,567). Both are past the first 100.
    static let wideName = "蝶ネクタイ蝶ネクタイ🎀"  // 11 characters, 22 cells

    static func wideCatalog() throws -> BowTiesRunner {
        let bowties = try BowTiesRunner()
        let ties = (1...250).map { index in
            let name = index == 200 ? wideName : "Plain Tie Number \(index)"  // at most 20 characters
            let worn = index == 120 ? 1_234_567 : index
            return #"{"searchKey": "K\#(index)", "name": "\#(name)", "timesWorn": \#(worn)}"#
        }
        let file = try bowties.write("[\n" + ties.joined(separator: ",\n") + "\n]\n", to: "wide.json")
        let imported = try bowties.run("import", file.path)
        try #require(imported.status == 0, "\(imported)")
        return bowties
    }

    /// Cells a line of ``wideCatalog()``'s table takes (ASCII one, the rest two).
    static func cells(_ text: Substring) -> Int { text.unicodeScalars.reduce(0) { $0 + ($1.isASCII ? 1 : 2) } }

    /// The lines of ``wideCatalog()``'s table whose `never` (LAST WORN) is
    /// not where `header` puts it.
    static func misaligned(_ lines: [String], header: String) throws -> [Int] {
        let lastWorn = try #require(header.range(of: "LAST WORN"))
        let width = cells(header[..<lastWorn.lowerBound]) + 5
        return (1...250).filter { cells(lines[$0][...]) != width || !lines[$0].hasSuffix("never") }
    }

    @Test("into a file, the table sizes columns over every tie by display width: a wide name past the first page lines up")
    func widthsOverEveryTie() throws {
        let bowties = try Self.wideCatalog()
        let result = try bowties.run("list")  // the runner's standard output is a file
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result)")
        let lines = result.stdoutLines
        try #require(lines.count == 254, "\(result)")  // header, 250 ties, blank, count, final newline
        let header =
            "KEY " + "  " + "NAME" + String(repeating: " ", count: 18) + "  " + "RATING" + "  " + "     WORN"
            + "  " + "LAST WORN" + "  " + "FAV" + "  " + "COLOUR"
        #expect(lines[0] == header, "\(result)")
        // Every tie's line ends with `never` under LAST WORN.
        #expect(try Self.misaligned(lines, header: header).isEmpty, "\(result)")
        #expect(lines[200].hasPrefix("K200  \(Self.wideName)  "), "\(lines[200])")
        #expect(lines[120].contains("  1,234,567  never"), "\(lines[120])")

        // --widths page asks for the first page's widths, even into a file.
        let paged = try bowties.run("list", "--widths", "page")
        #expect(paged.status == 0 && paged.stdoutLines.count == 254, "\(paged)")
        #expect(try Self.misaligned(paged.stdoutLines, header: paged.stdoutLines[0]) == [120, 200], "\(paged)")
    }

    @Test("into a pipe, the table sizes columns from the first page, so that `list | head -1` is at once; --widths all lines up")
    func widthsIntoAPipe() throws {
        let bowties = try Self.wideCatalog()
        func piped(_ arguments: String) throws -> [String] {
            let result = try bowties.piped("list \(arguments)")
            try #require(result.status == 0, "list \(arguments) | cat: exit \(result.status)")
            return result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        }
        // The first 100 ties: names up to 20 characters, counts up to 3 digits.
        let page = try piped("")
        try #require(page.count == 254, "\(page)")
        let pageHeader =
            "KEY " + "  " + "NAME" + String(repeating: " ", count: 16) + "  " + "RATING" + "  " + "WORN"
            + "  " + "LAST WORN" + "  " + "FAV" + "  " + "COLOUR"
        #expect(page[0] == pageHeader, "\(page[0])")
        // Only the two wider ties push the rest of their line.
        #expect(try Self.misaligned(page, header: pageHeader) == [120, 200], "\(page[120])\n\(page[200])")
        #expect(page[200].hasPrefix("K200  \(Self.wideName)  "), "\(page[200])")

        let all = try piped("--widths all")
        try #require(all.count == 254, "\(all)")
        #expect(try Self.misaligned(all, header: all[0]).isEmpty, "\(all.prefix(3))")
        #expect(all[0].hasPrefix("KEY   NAME" + String(repeating: " ", count: 18) + "  RATING"), "\(all[0])")
    }
}
