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

    @Test("piped, the table sizes columns over every tie by display width: a wide name past the first page lines up")
    func widthsOverEveryTie() throws {
        let bowties = try BowTiesRunner()
        // Tie 200 has the widest name in cells (wide characters and an
        // emoji take two) though not the longest in characters; tie 120
        // the widest count (1,234,567). Both are past the first 100.
        let wide = "蝶ネクタイ蝶ネクタイ🎀"  // 11 characters, 22 cells
        let ties = (1...250).map { index in
            let name = index == 200 ? wide : "Plain Tie Number \(index)"  // at most 20 characters
            let worn = index == 120 ? 1_234_567 : index
            return #"{"searchKey": "K\#(index)", "name": "\#(name)", "timesWorn": \#(worn)}"#
        }
        let file = try bowties.write("[\n" + ties.joined(separator: ",\n") + "\n]\n", to: "wide.json")
        let imported = try bowties.run("import", file.path)
        try #require(imported.status == 0, "\(imported)")

        let result = try bowties.run("list")
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result)")
        let lines = result.stdoutLines
        try #require(lines.count == 254, "\(result)")  // header, 250 ties, blank, count, final newline
        let header =
            "KEY " + "  " + "NAME" + String(repeating: " ", count: 18) + "  " + "RATING" + "  " + "     WORN"
            + "  " + "LAST WORN" + "  " + "FAV" + "  " + "COLOUR"
        #expect(lines[0] == header, "\(result)")
        // Every tie's line ends with `never` under LAST WORN: as many
        // cells as the header up to that column, plus 5.
        func cells(_ text: Substring) -> Int { text.unicodeScalars.reduce(0) { $0 + ($1.isASCII ? 1 : 2) } }
        let lastWorn = try #require(header.range(of: "LAST WORN"))
        let width = cells(header[..<lastWorn.lowerBound]) + 5
        let misaligned = lines[1...250].filter { cells($0[...]) != width || !$0.hasSuffix("never") }
        #expect(misaligned.isEmpty, "\(misaligned.prefix(3))")
        #expect(lines[200].hasPrefix("K200  \(wide)  "), "\(lines[200])")
        #expect(lines[120].contains("  1,234,567  never"), "\(lines[120])")
    }
}
