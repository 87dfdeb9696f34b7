import Foundation
import Testing

/// `wear`, `rate` and `favorite` write through SQLite's own connection
/// (`SQLiteWriteStore`) when the catalog is current, instead of GRDB's
/// queue: what each guarantee looks like from outside, on the built
/// binary. The catalog file is read `immutable=1` (``SQLiteLibrary/dump(_:)``),
/// so what it shows is in the file itself, not in a `-wal` beside it.
@Suite("Point writes on SQLite's own connection")
struct PointWriteTests {
    /// The lines of the dump that belong to `table`.
    static func rows(_ table: String, _ workspace: CatalogWorkspace) throws -> [String] {
        try SQLiteLibrary().dump(workspace.storeURL.path).filter { $0.hasPrefix("\(table): ") }
    }

    @Test("each write is in the catalog file itself when the command returns, with no -wal left beside it")
    func durableOnReturn() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let wearsBefore = try Self.rows("wear", workspace).count

        let wear = try workspace.run("wear", "R", "--on", "2026-11-20", "--note", "at the opera")
        #expect(wear.status == 0 && wear.stderr.isEmpty, "\(wear)")
        #expect(!FileManager.default.fileExists(atPath: workspace.walURL.path), "a -wal file is left: \(wear)")
        let wears = try Self.rows("wear", workspace)
        #expect(wears.count == wearsBefore + 1, "\(wears)")
        #expect(wears.last?.contains("'at the opera'") == true, "\(wears)")

        let rate = try workspace.run("rate", "R", "2.5")
        #expect(rate.status == 0 && rate.stderr.isEmpty, "\(rate)")
        #expect(!FileManager.default.fileExists(atPath: workspace.walURL.path), "a -wal file is left: \(rate)")
        let favorite = try workspace.run("favorite", "R", "--off")
        #expect(favorite.status == 0 && favorite.stderr.isEmpty, "\(favorite)")
        #expect(!FileManager.default.fileExists(atPath: workspace.walURL.path), "a -wal file is left: \(favorite)")

        // rating 2.5 and isFavorite 0, as the file holds them.
        let red = try Self.rows("bowtie", workspace).filter { $0.contains("'Classic Red Bow Tie'") }
        #expect(red.count == 1 && red[0].contains(" | 2.5 | ") && red[0].contains(" | 0 | "), "\(red)")
    }

    @Test("each write is one action of the undo history, named after the tie, and undo takes it back")
    func recordedForUndo() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let before = try workspace.snapshot()
        #expect(try workspace.run("wear", "R", "--on", "2026-11-20").status == 0)
        #expect(try workspace.run("rate", "R", "1").status == 0)
        #expect(try workspace.run("favorite", "O").status == 0)

        let log = try workspace.run("log")
        let titles = log.stdoutLines.filter { !$0.isEmpty }.dropFirst().map { String($0.drop { $0 != " " }) }
        #expect(titles.count == 4, "\(log)")
        #expect(titles[0].hasSuffix("Favorite Orange Sherbet"), "\(log)")
        #expect(titles[1].hasSuffix("Rate Classic Red Bow Tie"), "\(log)")
        #expect(titles[2].hasSuffix("Wear Classic Red Bow Tie"), "\(log)")

        for expected in ["Favorite Orange Sherbet", "Rate Classic Red Bow Tie", "Wear Classic Red Bow Tie"] {
            let undo = try workspace.run("undo")
            #expect(undo.status == 0 && undo.stdout.hasPrefix("Undid \"\(expected)\""), "\(undo)")
        }
        let after = try workspace.snapshot()
        for table in ["bowtie", "wear", "tag", "bowtie_tag", "blob"] {
            #expect(
                after.rows.filter { $0.hasPrefix("\(table): ") } == before.rows.filter { $0.hasPrefix("\(table): ") },
                "\(table) differs:\n\(after.difference(from: before))")
        }
    }

    @Test("a refused write changes no byte: a rating out of range (65), an unknown key (1, as grep says nothing matched)")
    func refusedWriteChangesNothing() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let before = try workspace.snapshot()

        let rate = try workspace.run("rate", "R", "9")
        #expect(rate.status == 65, "\(rate)")
        #expect(rate.stderr.hasPrefix("bowties: error: "), "\(rate)")
        let wear = try workspace.run("wear", "NO-SUCH-TIE")
        #expect(wear.status == 1, "\(wear)")
        #expect(wear.stderr.hasPrefix("bowties: error: "), "\(wear)")

        let after = try workspace.snapshot()
        #expect(after.isByteIdentical(to: before), "the store's folder changed:\n\(after.byteDifference(from: before))")
    }

    @Test("wears from eight processes at once are all counted")
    func concurrentWears() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let timesWorn = try workspace.timesWorn("R")
        let processes = try (0..<8).map { _ in try workspace.start(["wear", "R"]) }
        for process in processes {
            let exit = process.wait()
            #expect(exit.status == 0, "\(process.describe())")
        }
        #expect(try workspace.timesWorn("R") == timesWorn + 8)
        let check = try workspace.run("check")
        #expect(check.status == 0 && check.stdout.contains("No problems found."), "\(check)")
    }
}
