import Foundation
import Testing

/// `set` and `delete` on what a KEY or a query selects: one tie changes
/// at once; several are listed first, asked about on a terminal, refused
/// without one unless `--yes`; `--dry-run` changes nothing.
@Suite("bowties set and delete with queries")
struct BatchCommandTests {
    /// The sample's ties that are not favourites: R, O, Y, G, I, V (B is one).
    static let notFavourites = "^is:favorite"

    static func ratings(_ workspace: CatalogWorkspace) throws -> [String: Double] {
        let list = try workspace.run("list", "--json")
        let ties = try #require(try list.json() as? [[String: Any]], "\(list)")
        return Dictionary(
            uniqueKeysWithValues: ties.compactMap { tie in
                (tie["searchKey"] as? String).map { ($0, tie["rating"] as? Double ?? -1) }
            })
    }

    @Test("set KEY field=value changes that tie at once and says how")
    func setOne() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let result = try workspace.run("set", "R", "rating=4.5", "url=https://example.com/r")
        #expect(result.status == 0, "\(result)")
        #expect(
            result.stdout
                == "Changed Classic Red Bow Tie (R): rating 3.5 → 4.5, url https://en.wikipedia.org/wiki/Bow_tie → https://example.com/r.\n",
            "\(result)")
        #expect(try Self.ratings(workspace)["R"] == 4.5)
    }

    @Test("several ties without a terminal: listed, refused with exit 64 naming --yes, nothing changed")
    func severalWithoutTerminal() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let before = try workspace.snapshot()
        let result = try workspace.run("set", Self.notFavourites, "rating=1")
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.contains("--yes") && result.stderr.contains("--dry-run"), "\(result)")
        #expect(result.stdoutLines.contains("Classic Red Bow Tie (R): rating 3.5 → 1"), "\(result)")
        try NoTraceTests.expectNoTrace(workspace, before: before, result)
    }

    @Test("--dry-run lists the same changes and leaves the catalog byte-identical")
    func dryRun() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let before = try workspace.snapshot()
        let result = try workspace.run("set", Self.notFavourites, "rating=1", "--dry-run")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdoutLines.contains("Orange Sherbet (O): rating 4 → 1"), "\(result)")
        #expect(
            result.stdoutLines.last(where: { !$0.isEmpty }) == "Dry run: 6 bow ties would change; nothing changed.",
            "\(result)")
        try NoTraceTests.expectNoTrace(workspace, before: before, result)
    }

    @Test("--yes changes every tie the query selects, in one go")
    func yes() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let result = try workspace.run("set", Self.notFavourites, "rating=1", "--yes")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdoutLines.last(where: { !$0.isEmpty }) == "Changed 6 bow ties.", "\(result)")
        let ratings = try Self.ratings(workspace)
        #expect(ratings.filter { $0.value == 1 }.count == 6 && ratings["B"] == 4.75, "\(ratings)")
    }

    @Test("on a terminal it asks: y applies; n and end of input decline, exit 1", arguments: ["y\n", "n\n", ""])
    func asksOnATerminal(answer: String) throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let before = try workspace.snapshot()
        let (text, status) = try workspace.runOnTerminal(
            ["set", "'\(Self.notFavourites)'", "rating=1"], typing: answer)
        #expect(text.contains("Change 6 bow ties? [y/N]"), "\(text)")
        if answer == "y\n" {
            #expect(status == 0, "\(text)")
            #expect(text.contains("Changed 6 bow ties."), "\(text)")
            #expect(try Self.ratings(workspace)["R"] == 1)
        } else {
            #expect(status == 1, "\(text)")
            #expect(text.contains("Nothing changed."), "\(text)")
            try NoTraceTests.expectNoTrace(workspace, before: before, text)
        }
    }

    @Test("a query that selects nothing exits 1; a value the model refuses exits 65; both change nothing")
    func refusals() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let before = try workspace.snapshot()
        let none = try workspace.run("set", "rating:6..", "rating=1")
        #expect(none.status == 1 && none.stderr.contains("No bow tie matches"), "\(none)")
        let invalid = try workspace.run("set", Self.notFavourites, "rating=9", "--yes")
        #expect(invalid.status == 65 && invalid.stderr.contains("1610"), "\(invalid)")
        let derived = try workspace.run("set", "R", "timesWorn=3")
        #expect(derived.status == 65 && derived.stderr.contains("bowties wear"), "\(derived)")
        let typed = try workspace.run("set", "R", "rating=high")
        #expect(typed.status == 65, "\(typed)")
        let nothing = try workspace.run("set", "R")
        #expect(nothing.status == 64, "\(nothing)")
        try NoTraceTests.expectNoTrace(workspace, before: before, "\(none)\n\(invalid)\n\(derived)\n\(typed)")
    }

    @Test("delete with a query: listed and refused without --yes; with it, every selected tie and its wears go")
    func deleteQuery() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        #expect(try workspace.run("wear", "O", "--on", "2026-11-20").status == 0)
        let before = try workspace.snapshot()
        let refused = try workspace.run("delete", "rating:..4")
        #expect(refused.status == 64, "\(refused)")
        try NoTraceTests.expectNoTrace(workspace, before: before, refused)

        let deleted = try workspace.run("delete", "rating:..4", "--yes")
        #expect(deleted.status == 0, "\(deleted)")
        #expect(deleted.stdoutLines.last(where: { !$0.isEmpty }) == "Deleted 6 bow ties.", "\(deleted)")
        #expect(try Self.ratings(workspace).keys.sorted() == ["B"])
        let check = try workspace.run("check")
        #expect(check.status == 0, "\(check)")

        // A KEY still deletes its one tie without asking.
        let one = try workspace.run("delete", "B")
        #expect(one.status == 0 && one.stdout == "Deleted Midnight Blue Silk (B).\n", "\(one)")
        let unknown = try workspace.run("delete", "Q")
        #expect(
            unknown.status == 1 && unknown.stderr.contains("no bow tie has the search key or id \"Q\""), "\(unknown)")
    }

    @Test("wear with a query: several ties need --yes; each gets one wear in the history")
    func wearQuery() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let before = try workspace.snapshot()
        let refused = try workspace.run("wear", "rating:4..", "--on", "2026-11-20")
        #expect(refused.status == 64, "\(refused)")
        try NoTraceTests.expectNoTrace(workspace, before: before, refused)

        let worn = try workspace.run("wear", "rating:4..", "--on", "2026-11-20", "--yes")
        #expect(worn.status == 0, "\(worn)")
        #expect(worn.stdoutLines.last(where: { !$0.isEmpty }) == "Wore 2 bow ties on 2026-11-20.", "\(worn)")
        for key in ["O", "B"] {
            let history = try workspace.run("history", key, "--json")
            let wears = (try history.json() as? [String: Any])?["wears"] as? [[String: Any]]
            #expect(wears?.count == 1, "\(history)")
        }
        let none = try workspace.run("wear", "rating:6..")
        #expect(none.status == 1, "\(none)")
    }

    @Test("tag with a query and +names, as Taskwarrior writes tags: every selected tie gets them")
    func tagQuery() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let tagged = try workspace.run("tag", "rating:4..", "+formal", "+Silk", "--yes")
        #expect(tagged.status == 0, "\(tagged)")
        #expect(tagged.stdoutLines.last(where: { !$0.isEmpty }) == "Tagged 2 bow ties: formal, Silk.", "\(tagged)")
        let tags = try workspace.run("tags", "--json")
        let counts = (try tags.json() as? [[String: Any]])?.map { "\($0["name"] ?? "")=\($0["count"] ?? "")" }
        #expect(counts == ["formal=2", "Silk=2"], "\(tags)")
        let one = try workspace.run("tag", "R", "wedding")
        #expect(one.status == 0 && one.stdout == "Tagged Classic Red Bow Tie (R): wedding.\n", "\(one)")
    }
}
