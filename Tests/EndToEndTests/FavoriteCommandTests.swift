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

    private func favoriteKeys(_ bowties: BowTiesRunner) throws -> [String] {
        let result = try bowties.run("list", "--favorites", "--json")
        try #require(result.status == 0, "\(result)")
        let ties = try #require(try result.json() as? [[String: Any]], "\(result)")
        return ties.compactMap { $0["searchKey"] as? String }
    }
}
