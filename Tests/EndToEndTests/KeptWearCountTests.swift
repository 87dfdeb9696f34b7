import Foundation
import Testing

/// Schema v6 keeps each tie's count of wears in `bowtie_wears_count`,
/// which the wear triggers add to and take from, instead of counting the
/// tie's history at every wear. What the user sees must not change:
/// `timesWorn` through every way a wear comes and goes (undo puts rows
/// back in its own order), and `check` finds a count that disagrees and
/// `--repair` counts again.
@Suite("a tie's count of wears, kept")
struct KeptWearCountTests {
    /// `# times worn: N` of `show KEY`.
    static func timesWorn(_ bowties: BowTiesRunner, _ key: String) throws -> Int? {
        let show = try bowties.run("show", key)
        return show.stdoutLines.first { $0.hasPrefix("# times worn: ") }.flatMap { Int($0.dropFirst(14)) }
    }

    @Test("wear, unwear, undo, redo, delete and its undo, export and import back: the count is right and check agrees")
    func countFollowsEveryChange() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        // The sample's R was worn 12 times before its history began.
        #expect(try Self.timesWorn(bowties, "R") == 12)
        for _ in 1...3 { try #require(try bowties.run("wear", "R").status == 0) }
        try #require(try bowties.run("wear", "R", "--note", "a wedding").status == 0)
        #expect(try Self.timesWorn(bowties, "R") == 16)
        try #require(try bowties.run("unwear", "R").status == 0)
        #expect(try Self.timesWorn(bowties, "R") == 15)
        // Undo puts the bow tie's row back from its image and the wear
        // back as a row: the count must not take the wear twice.
        try #require(try bowties.run("undo").status == 0)
        #expect(try Self.timesWorn(bowties, "R") == 16)
        try #require(try bowties.run("redo").status == 0)
        #expect(try Self.timesWorn(bowties, "R") == 15)
        try #require(try bowties.run("delete", "R", "--yes").status == 0)
        try #require(try bowties.run("undo").status == 0)
        #expect(try Self.timesWorn(bowties, "R") == 15)
        try #require(try bowties.run("wear", "R").status == 0)
        #expect(try Self.timesWorn(bowties, "R") == 16)
        let check = try bowties.run("check")
        #expect(check.status == 0, "\(check)")

        // The same history into a new catalog (an import's staged wears).
        let export = try bowties.run("export", "--format", "json")
        try #require(export.status == 0, "\(export)")
        let file = try bowties.write(export.stdout, to: "ties.json")
        let other = try BowTiesRunner()
        try #require(try other.run("import", file.path).status == 0)
        #expect(try Self.timesWorn(other, "R") == 16)
        #expect(try other.run("check").status == 0)
        // And undone whole (the tables set aside) and redone.
        try #require(try other.run("undo").status == 0)
        try #require(try other.run("redo").status == 0)
        #expect(try Self.timesWorn(other, "R") == 16)
        try #require(try other.run("wear", "R").status == 0)
        #expect(try Self.timesWorn(other, "R") == 17)
        let checkOther = try other.run("check")
        #expect(checkOther.status == 0, "\(checkOther)")
    }

    @Test("a kept count that disagrees with the history: check names it, exit 65; --repair counts again")
    func checkAndRepair() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        for _ in 1...2 { try #require(try bowties.run("wear", "R").status == 0) }
        let id = try #require(
            try bowties.run("show", "R").stdoutLines.first { $0.hasPrefix("Id: ") }.map { String($0.dropFirst(4)) })
        do {
            let connection = try SQLiteConnection(path: bowties.storeURL.path)
            try connection.execute("UPDATE bowtie_wears_count SET count = 99")
        }
        let check = try bowties.run("check")
        #expect(check.status == 65, "\(check)")
        #expect(check.stdout.contains("bowtie_wears_count counts 99 wear rows for \(id), wear has 2"), "\(check)")

        let repair = try bowties.run("check", "--repair")
        #expect(repair.status == 0, "\(repair)")
        #expect(try bowties.run("check").status == 0)
        // The next wear counts from the repaired count.
        try #require(try bowties.run("wear", "R").status == 0)
        #expect(try Self.timesWorn(bowties, "R") == 15)
    }
}
