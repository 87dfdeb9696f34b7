import Foundation
import Testing

@Suite("bowties favorite")
struct FavoriteCommandTests {
    @Test("favorite R marks it, --off unmarks it")
    func favoriteAndOff() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()

        let on = try bowties.run("favorite", "R")
        #expect(on.status == 0, "\(on)")
        #expect(on.stdout == "Classic Red Bow Tie (R) is now a favourite.\n", "\(on)")
        #expect(try bowties.run("show", "R").stdoutLines.contains("Favourite: yes"))
        #expect(try favoriteKeys(bowties) == ["R", "B"])

        let off = try bowties.run("favorite", "R", "--off")
        #expect(off.status == 0, "\(off)")
        #expect(off.stdout == "Classic Red Bow Tie (R) is no longer a favourite.\n", "\(off)")
        #expect(try bowties.run("show", "R").stdoutLines.contains("Favourite: no"))
        #expect(try favoriteKeys(bowties) == ["B"])
    }

    @Test("favorite twice says it already is, exit 0, and logs no second action; --off twice the same")
    func twice() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        #expect(try bowties.run("favorite", "R").status == 0)
        let before = try StoreSnapshot(storeURL: bowties.storeURL)
        let again = try bowties.run("favorite", "R")
        #expect(again.status == 0, "\(again)")
        #expect(again.stdout == "Classic Red Bow Tie (R) is already a favourite.\n", "\(again)")
        #expect(again.stderr.isEmpty, "\(again)")
        let after = try StoreSnapshot(storeURL: bowties.storeURL)
        #expect(after.rows == before.rows, "\(after.difference(from: before))")
        let log = try bowties.run("log")
        #expect(log.stdout.components(separatedBy: "Favorite Classic Red Bow Tie").count == 2, "\(log)")

        #expect(try bowties.run("favorite", "O", "--off").stdout == "Orange Sherbet (O) is not a favourite.\n")
        #expect(try bowties.run("undo").stdout.hasPrefix("Undid \"Favorite Classic Red Bow Tie\""))
    }

    @Test("favourite, the spelling bowties prints, is the same command")
    func britishSpelling() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let on = try bowties.run("favourite", "R")
        #expect(on.status == 0, "\(on)")
        #expect(on.stdout == "Classic Red Bow Tie (R) is now a favourite.\n", "\(on)")
        let off = try bowties.run("--store", bowties.storeURL.path, "favourite", "R", "--off")
        #expect(off.status == 0, "\(off)")
        #expect(off.stdout == "Classic Red Bow Tie (R) is no longer a favourite.\n", "\(off)")
        let help = try bowties.run("help", "favourite")
        #expect(help.status == 0 && help.stdout.hasPrefix("OVERVIEW: Mark a bow tie as a favourite"), "\(help)")
    }

    private func favoriteKeys(_ bowties: BowTiesRunner) throws -> [String] {
        let result = try bowties.run("list", "--favorites", "--json")
        try #require(result.status == 0, "\(result)")
        let ties = try #require(try result.json() as? [[String: Any]], "\(result)")
        return ties.compactMap { $0["searchKey"] as? String }
    }
}
