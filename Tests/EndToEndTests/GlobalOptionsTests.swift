import Foundation
import Testing

/// The shared options (`--store`, `--json`, `--wait`) work before the
/// command's name as well as after it, as git users type them; an empty
/// `--store` is an error, not the default catalog.
@Suite("Global options anywhere")
struct GlobalOptionsTests {
    /// The runner's default store (`$BOWTIES_STORE`) with the sample data,
    /// and another one, `other/ties.sqlite`, where R was worn once more:
    /// a command that used the wrong store would print something else.
    static func twoStores() throws -> (BowTiesRunner, URL) {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let other = bowties.directory.appendingPathComponent("other/ties.sqlite")
        let imported = try bowties.run("import", "--store", other.path)
        try #require(imported.status == 0, "\(imported)")
        let wear = try bowties.run("wear", "R", "--store", other.path)
        try #require(wear.status == 0, "\(wear)")
        return (bowties, other)
    }

    @Test("bowties --store X list, bowties list --store X and BOWTIES_STORE=X bowties list print the same")
    func storeBeforeOrAfter() throws {
        let (bowties, other) = try Self.twoStores()
        let byEnvironment = try bowties.run("list", environment: ["BOWTIES_STORE": other.path])
        try #require(byEnvironment.status == 0, "\(byEnvironment)")
        try #require(
            byEnvironment.stdoutLines.contains { $0.hasPrefix("R ") && $0.contains(" 13  ") }, "\(byEnvironment)")

        let before = try bowties.run("--store", other.path, "list")
        #expect(before.status == 0, "\(before)")
        #expect(before.stdout == byEnvironment.stdout, "\(before)")
        let after = try bowties.run("list", "--store", other.path)
        #expect(after.status == 0, "\(after)")
        #expect(after.stdout == byEnvironment.stdout, "\(after)")
    }

    @Test("bowties --json show R prints what bowties show R --json prints")
    func jsonBefore() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let after = try bowties.run("show", "R", "--json")
        try #require(after.status == 0, "\(after)")
        let before = try bowties.run("--json", "show", "R")
        #expect(before.status == 0, "\(before)")
        #expect(before.stdout == after.stdout, "\(before)")
        #expect((try? before.json()) is [String: Any], "\(before)")
    }

    @Test("bowties --store X --wait 5 wear R wears R in X")
    func storeAndWaitBefore() throws {
        let (bowties, other) = try Self.twoStores()
        let result = try bowties.run("--store", other.path, "--wait", "5", "wear", "R")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "Wore Classic Red Bow Tie (R): 14 times so far.\n", "\(result)")
        // The default store was left alone.
        let show = try bowties.run("show", "R", "--json")
        #expect((try? show.json() as? [String: Any])??["timesWorn"] as? Int == 12, "\(show)")
    }

    @Test(
        "--store '' is a usage error (exit 64) naming the option, not the default store",
        arguments: [["--store", "", "list"], ["list", "--store", ""], ["--store", "", "wear", "R"]])
    func emptyStore(_ arguments: [String]) throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let before = try StoreSnapshot(storeURL: bowties.storeURL)
        let result = try bowties.run(arguments: arguments)
        #expect(result.status == 64, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        #expect(result.stderr.contains("store"), "the message does not mention the store\n\(result)")
        // Refused as empty, not as an option in the wrong place.
        #expect(!result.stderr.contains("Unknown option"), "\(result)")
        let after = try StoreSnapshot(storeURL: bowties.storeURL)
        let sameRows = after.rows == before.rows
        #expect(sameRows, "the default store was used:\n\(after.difference(from: before))")
    }
}
