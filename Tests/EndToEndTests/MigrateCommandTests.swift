import Foundation
import Testing

/// `bowties migrate` on an SQLite catalog: the upgrade the first write
/// would make, made now and said on standard output; nothing to do on a
/// current catalog; a missing file is not created. (On PostgreSQL, where
/// it is the database owner's step: ``PostgreSQLRoleTests``.)
@Suite("bowties migrate on SQLite")
struct MigrateCommandTests {
    @Test("an earlier release's store is upgraded once, keeps every tie, then there is nothing to do")
    func upgradesAnOlderStore() throws {
        let workspace = try OlderStoreCommandTests.workspace("0.1.0")
        let before = try workspace.run("export", "--format", "jsonl")
        let known = ReleasedStoreTests.knownMigrations.count
        let upgraded = try workspace.run("migrate")
        #expect(upgraded.status == 0 && upgraded.stderr.isEmpty, "\(upgraded)")
        #expect(
            upgraded.stdout == "Upgraded the catalog at \(workspace.storeURL.path) from schema v1 to v\(known).\n",
            "\(upgraded)")
        #expect(try ReleasedStoreTests.appliedMigrations(storeURL: workspace.storeURL) == ReleasedStoreTests.knownMigrations)
        let again = try workspace.run("migrate", "--json")
        #expect(again.status == 0, "\(again)")
        let report = try #require(try again.json() as? [String: Any], "\(again)")
        #expect(report["before"] as? Int == known && report["after"] as? Int == known, "\(again)")
        #expect((report["applied"] as? [Any])?.isEmpty == true, "\(again)")
        let text = try workspace.run("migrate")
        #expect(
            text.stdout == "The catalog at \(workspace.storeURL.path) is up to date (schema v\(known)): nothing to do.\n",
            "\(text)")
        // A write after it has nothing to upgrade, and says nothing of it.
        let wear = try workspace.run("wear", "R")
        #expect(wear.status == 0 && !wear.stderr.contains("upgraded"), "\(wear)")
        let after = try workspace.run("export", "--format", "jsonl")
        #expect(after.stdout.split(separator: "\n").count == before.stdout.split(separator: "\n").count, "\(after)")
    }

    @Test("no catalog file: exit 66, and none is created")
    func missingFile() throws {
        let bowties = try BowTiesRunner()
        let result = try bowties.run("migrate")
        #expect(result.status == 66, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        #expect(result.stderr.hasPrefix("bowties: error: no catalog at \(bowties.storeURL.path)\n"), "\(result)")
        #expect(!FileManager.default.fileExists(atPath: bowties.storeURL.path))
        #expect(!FileManager.default.fileExists(atPath: bowties.storeURL.path + "-lock"))
    }

    @Test("migrate --help tells a newcomer what it is for and who runs it")
    func help() throws {
        let result = try BowTiesRunner().run("migrate", "--help")
        #expect(result.status == 0, "\(result)")
        let text = result.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for phrase in [
            "OVERVIEW: Create or upgrade the catalog's tables for this version of bowties (a database owner's step).",
            "the first command that changes the catalog upgrades it",
            "only by the role that owns the database", "SELECT, INSERT, UPDATE and DELETE",
            "\"Roles on PostgreSQL\"", "77 this role does not own the database",
        ] {
            #expect(text.contains(phrase), "\(phrase)\n\(result)")
        }
    }
}
