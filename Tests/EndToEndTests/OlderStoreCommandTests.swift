import Foundation
import Testing

/// A command that reads, as run on a copy of a release's store
/// (``OlderStoreCommandTests``).
enum OlderStoreRead: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case list, listQuery, show, showJSON, export, exportJSON, count, history, tags, log, report, photo, photoBytes
    case config, check, checkJSON, dryRun

    func arguments(_ workspace: CatalogWorkspace) -> [String] {
        switch self {
        case .list: ["list"]
        // Tags are a table v1 did not have.
        case .listQuery: ["list", "tag:formal", ",", "rating:4.."]
        case .show: ["show", "R"]
        case .showJSON: ["show", "R", "--json"]
        case .export: ["export"]
        case .exportJSON: ["export", "--json"]
        case .count: ["count", "rating:3.."]
        case .history: ["history", "R"]
        case .tags: ["tags"]
        case .log: ["log"]
        case .report: ["report", "--output", workspace.outputDirectory.appendingPathComponent("report.html").path]
        case .photo: ["photo", "O"]
        case .photoBytes: ["photo", "O", "--output", "-"]
        case .config: ["config"]
        case .check: ["check"]
        case .checkJSON: ["check", "--json"]
        case .dryRun: ["import", BowTiesRunner.sampleDataURL.path, "--dry-run"]
        }
    }

    /// Whether it prints the same before and after the store's upgrade
    /// (`check` adds a note on the older schema; the report is a file).
    var printsTheSameAfterAnUpgrade: Bool { ![.check, .checkJSON, .report].contains(self) }

    var testDescription: String {
        switch self {
        case .list: "list"
        case .listQuery: "list tag:formal , rating:4.."
        case .show: "show R"
        case .showJSON: "show R --json"
        case .export: "export"
        case .exportJSON: "export --json"
        case .count: "count rating:3.."
        case .history: "history R"
        case .tags: "tags"
        case .log: "log"
        case .report: "report --output FILE"
        case .photo: "photo O"
        case .photoBytes: "photo O --output -"
        case .config: "config"
        case .check: "check"
        case .checkJSON: "check --json"
        case .dryRun: "import SampleData.plist --dry-run"
        }
    }
}

/// Old catalogs just work: the first command after an upgrade of bowties,
/// read or write, works on the store of every earlier release
/// (`Fixtures/Stores/<version>`). Reads see it as it is, through the
/// migrations' read shims, and leave every byte; a write upgrades it in
/// one transaction and says so once on standard error. A store from a
/// newer release is still refused, untouched.
///
/// Before the shims, every read of an earlier release's store exited 74
/// ("not ready to read: its schema is missing or out of date").
@Suite("Stores of earlier releases, read and written by today's commands")
struct OlderStoreCommandTests {
    static let releases = ReleasedStoreTests.releases

    /// A workspace holding a copy of the store `version` made, with its
    /// photo folder.
    static func workspace(_ version: String) throws -> CatalogWorkspace {
        let workspace = try CatalogWorkspace()
        let fixture = try ReleasedStoreTests.fixture(version)
        try FileManager.default.copyItem(
            at: fixture.appendingPathComponent("catalog.sqlite"), to: workspace.storeURL)
        try FileManager.default.copyItem(
            at: fixture.appendingPathComponent(".catalog_SUPPORT"),
            to: workspace.storeFolder.appendingPathComponent(".catalog_SUPPORT"))
        try #require(workspace.photoFiles().count >= 3, "the photo files were not copied: \(workspace.photoFiles())")
        return workspace
    }

    /// The line a write prints when it upgrades the workspace's store, nil
    /// when that store has today's schema.
    static func upgradeLine(_ workspace: CatalogWorkspace) throws -> String? {
        let applied = try ReleasedStoreTests.appliedMigrations(storeURL: workspace.storeURL)
        let known = ReleasedStoreTests.knownMigrations
        guard applied.count < known.count else { return nil }
        return "bowties: upgraded the catalog from schema v\(applied.count) to v\(known.count)\n"
    }

    @Test(
        "every read command works on it as it is, says nothing of an upgrade, and leaves every byte",
        arguments: releases, OlderStoreRead.allCases)
    func readsLeaveItAsItIs(version: String, command: OlderStoreRead) throws {
        let workspace = try Self.workspace(version)
        let isOlder = try Self.upgradeLine(workspace) != nil
        let before = try workspace.snapshot()
        let result = try workspace.run(arguments: command.arguments(workspace))
        #expect(result.status == 0, "\(result)")
        #expect(!result.stderr.contains("upgrade"), "\(result)")
        let after = try workspace.snapshot()
        #expect(after.isByteIdentical(to: before), "the store's folder changed:\n\(after.byteDifference(from: before))")

        switch command {
        case .list:
            #expect(
                result.stdout.contains("Classic Red Bow Tie") && result.stdout.contains("Violet Velvet"), "\(result)")
        case .check:
            #expect(result.stdout.contains("No problems found."), "\(result)")
            #expect(result.stdout.contains("Checked \(workspace.storeURL.path): 7 bow ties"), "\(result)")
            #expect(result.stdout.contains("from an earlier bowties") == isOlder, "\(result)")
        case .checkJSON:
            let report = try #require(try result.json() as? [String: Any], "\(result)")
            #expect(report["healthy"] as? Bool == true, "\(result)")
            #expect(report["bowTies"] as? Int == 7, "\(result)")
            let older = report["olderSchema"] as? [String: Int]
            let applied = try ReleasedStoreTests.appliedMigrations(storeURL: workspace.storeURL).count
            let known = ReleasedStoreTests.knownMigrations.count
            #expect(isOlder ? older == ["version": applied, "upgradesTo": known] : older == nil, "\(result)")
        case .photoBytes:
            let orange = try Data(contentsOf: BowTiesRunner.sampleImagesURL.appendingPathComponent("orange.png"))
            #expect(result.stdoutData == orange)
        default:
            break
        }
    }

    @Test("every read prints the same before the upgrade as after it", arguments: releases)
    func readsMatchTheUpgradedStore(version: String) throws {
        let workspace = try Self.workspace(version)
        let commands = OlderStoreRead.allCases.filter(\.printsTheSameAfterAnUpgrade)
        let asItIs = try commands.map { try workspace.run(arguments: $0.arguments(workspace)) }
        // A write that changes no value: the threshold the release set.
        let upgrade = try workspace.run("config", "--photo-threshold", "17000")
        try #require(upgrade.status == 0, "\(upgrade)")
        #expect(
            try ReleasedStoreTests.appliedMigrations(storeURL: workspace.storeURL) == ReleasedStoreTests.knownMigrations
        )
        for (command, before) in zip(commands, asItIs) {
            let after = try workspace.run(arguments: command.arguments(workspace))
            #expect(before.status == after.status, "\(command)\n\(before)\n\(after)")
            #expect(before.stdout == after.stdout, "\(command)\n--- as it was\n\(before)\n--- upgraded\n\(after)")
        }
    }

    @Test(
        "the first command that writes upgrades it in one go and says so in one line; the next says nothing",
        arguments: releases)
    func firstWriteUpgradesOnce(version: String) throws {
        let workspace = try Self.workspace(version)
        let expectedLine = try Self.upgradeLine(workspace)
        let timesWorn = try workspace.timesWorn("O")

        let wear = try workspace.run("wear", "O")
        #expect(wear.status == 0, "\(wear)")
        #expect(wear.stderr == (expectedLine ?? ""), "\(wear)")
        #expect(
            try ReleasedStoreTests.appliedMigrations(storeURL: workspace.storeURL) == ReleasedStoreTests.knownMigrations
        )
        #expect(try workspace.timesWorn("O") == timesWorn + 1)

        let rate = try workspace.run("rate", "O", "4")
        #expect(rate.status == 0, "\(rate)")
        #expect(rate.stderr.isEmpty, "\(rate)")
        let check = try workspace.run("check")
        #expect(check.status == 0 && check.stdout.contains("No problems found."), "\(check)")
        #expect(!check.stdout.contains("from an earlier bowties"), "\(check)")
    }

    @Test("in a folder the user cannot write, it is still read, and left as it is", arguments: releases)
    func unwritableFolder(version: String) throws {
        let workspace = try Self.workspace(version)
        try UnwritableCatalog.prepare(workspace)
        defer { try? UnwritableCatalog.makeWritable(workspace) }  // so the runner can remove it
        try UnwritableCatalog.makeReadOnly(workspace)
        let before = try workspace.snapshot()
        for command in [OlderStoreRead.list, .showJSON, .exportJSON, .history, .tags, .log, .photoBytes, .check] {
            let result = try workspace.run(arguments: command.arguments(workspace))
            #expect(result.status == 0, "\(command): \(result)")
            #expect(!result.stdout.isEmpty, "\(command): \(result)")
        }
        let after = try workspace.snapshot()
        #expect(after.isByteIdentical(to: before), "the store's folder changed:\n\(after.byteDifference(from: before))")
    }

    @Test(
        "from a newer release (a migration unknown here), it is refused by every command and left byte-identical",
        arguments: releases)
    func newerStoreIsRefused(version: String) throws {
        let workspace = try Self.workspace(version)
        try SQLiteLibrary().execute(
            "INSERT INTO grdb_migrations (identifier) VALUES ('v99: from a newer bowties')", in: workspace.storeURL.path
        )
        let before = try workspace.snapshot()
        let reads = OlderStoreRead.allCases.filter { ![.check, .checkJSON].contains($0) }
        for arguments in reads.map({ $0.arguments(workspace) }) + [
            ["wear", "R"], ["config", "--photo-threshold", "1"],
        ] {
            let result = try workspace.run(arguments: arguments)
            #expect(result.status == 74, "\(result)")
            #expect(result.stderr.contains("was written by a newer version of bowties"), "\(result)")
            #expect(result.stdout.isEmpty, "\(result)")
        }
        let check = try workspace.run("check")
        #expect(check.status == 65, "\(check)")
        #expect(check.stdout.contains("v99: from a newer bowties"), "\(check)")
        let after = try workspace.snapshot()
        #expect(after.isByteIdentical(to: before), "the store's folder changed:\n\(after.byteDifference(from: before))")
    }
}
