import Foundation
import Testing

/// Stores made by released versions (`Fixtures/Stores/<version>`, see the
/// README there), opened by today's binary: upgraded if they must be, and
/// every value and photo kept.
@Suite("Stores made by released versions")
struct ReleasedStoreTests {
    /// The versions whose stores are kept as fixtures: each release's,
    /// and one made before a schema change by the build of the time
    /// (`0.2.0-dev-v3` and `0.2.0-dev-v4`, see their READMEs).
    static let releases = ["0.1.0", "0.2.0-dev-v3", "0.2.0-dev-v4"]

    /// Every migration today's bowties knows, as a store records them.
    /// A new migration is added here too: a store that today's commands
    /// opened records them all.
    static let knownMigrations = [
        "v1: bow ties, blobs and settings", "v2: wear history and tags", "v3: undo history",
        "v4: bow tie ids kept by a unique index", "v5: indexes for the name, rating and last-worn orders",
        "v6: each tie's count of wears kept",
    ]

    /// Where the fixture's expected JSON says the store was; tests put
    /// their own folder in its place.
    static func folderWhenMade(_ version: String) -> String { "/tmp/bowties-\(version)-fixture" }

    /// Each tie's photo in `SampleData/Images`; V's was removed.
    static let photos = [
        "R": "red.png", "O": "orange.png", "Y": "yellow.png", "G": "green.png", "B": "blue.png", "I": "indigo.png",
    ]

    /// The fixture folder of `version` in the test bundle.
    static func fixture(_ version: String) throws -> URL {
        let url = Bundle.module.url(forResource: version, withExtension: nil, subdirectory: "Fixtures/Stores")
        return try #require(url, "Fixtures/Stores/\(version) is missing from the test bundle")
    }

    /// Copies the store `version` made, and its photo folder, to the
    /// runner's store.
    static func copyStore(_ version: String, to bowties: BowTiesRunner) throws {
        let fixture = try fixture(version)
        try FileManager.default.copyItem(at: fixture.appendingPathComponent("catalog.sqlite"), to: bowties.storeURL)
        try FileManager.default.copyItem(
            at: fixture.appendingPathComponent(".catalog_SUPPORT"),
            to: bowties.directory.appendingPathComponent(".catalog_SUPPORT"))
        let files = try FileManager.default.contentsOfDirectory(
            atPath: fixture.appendingPathComponent(".catalog_SUPPORT/_EXTERNAL_DATA").path)
        try #require(
            bowties.supportFiles().count == files.count && files.count >= 3,
            "the photo files were not copied: \(bowties.supportFiles())")
    }

    /// Today's JSON of a tie against what the release printed: every value
    /// the release printed, the same; and since, `tags` (empty: the
    /// release had none), and `null` for what has no value (the release
    /// left those out), and `photoProblem` (null: intact).
    static func expectSameValues(
        _ tie: [String: Any], as released: [String: Any], _ exchange: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let canonical = { (object: Any) throws -> Data in
            try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .fragmentsAllowed])
        }
        for (key, value) in released {
            #expect(
                try canonical(tie[key] ?? NSNull()) == canonical(value), "\(key)\n\(exchange)",
                sourceLocation: sourceLocation)
        }
        for (key, value) in tie where released[key] == nil {
            // The counts before the history (timesWornBefore): the totals
            // when the release kept no history for the tie; with one, the
            // total less the wears listed, and a last wear no later.
            if key.hasSuffix("Before"), let total = tie[String(key.dropLast("Before".count))] {
                let wears = (tie["wears"] as? [Any])?.count ?? 0
                if wears == 0 {
                    #expect(
                        try canonical(value) == canonical(total), "\(key)\n\(exchange)",
                        sourceLocation: sourceLocation)
                } else if let count = value as? Int, let totalCount = total as? Int {
                    #expect(count == totalCount - wears, "\(key)\n\(exchange)", sourceLocation: sourceLocation)
                } else if let date = value as? String, let last = total as? String {
                    #expect(date <= last, "\(key)\n\(exchange)", sourceLocation: sourceLocation)
                }
                continue
            }
            // Relationships added since (tags, wears) are empty arrays.
            let isEmptyList = ["tags", "wears"].contains(key) && (value as? [Any])?.isEmpty == true
            #expect(
                isEmptyList || value is NSNull, "new key \(key): \(value)\n\(exchange)", sourceLocation: sourceLocation)
        }
    }

    /// A file of the fixture, as text, with the runner's folder where the
    /// store was when the release printed it.
    static func expected(_ name: String, _ version: String, in bowties: BowTiesRunner) throws -> String {
        try String(contentsOf: fixture(version).appendingPathComponent(name), encoding: .utf8)
            .replacingOccurrences(of: folderWhenMade(version), with: bowties.directory.path)
    }

    @Test("today's bowties opens it, keeps every value and photo, and checks it clean", arguments: releases)
    func storeIsKept(version: String) throws {
        let bowties = try BowTiesRunner()
        try Self.copyStore(version, to: bowties)

        // A command that writes (and so upgrades) without changing a value:
        // the threshold the release set, set again.
        let config = try bowties.run("config", "--photo-threshold", "17000")
        #expect(config.status == 0, "\(config)")
        #expect(config.stdout.contains("Photo threshold: 17,000 bytes"), "\(config)")

        let export = try bowties.run("export")
        #expect(export.status == 0, "\(export)")
        // What the release printed, then the columns added since: `tags`
        // (empty when the release had none), the counts before the history
        // and `wears`, whose values the round-trip tests check.
        let releasedCSV = try Self.expected("export.csv", version, in: bowties)
        let releasedRows = try ExportCommandTests.parse(releasedCSV)
        let exported = try ExportCommandTests.parse(export.stdout)
        let hasTags = releasedRows.first?.contains("tags") ?? false
        let expectedRows = releasedRows.map { hasTags ? $0 : $0 + [$0 == releasedRows.first ? "tags" : ""] }
        let width = expectedRows.first?.count ?? 0
        #expect(exported.map { Array($0.prefix(width)) } == expectedRows, "\(export)")
        // (a store of v4 was exported with them already).
        let addedSince = ["timesWornBefore", "lastWornBefore", "wears"].filter { !(expectedRows.first ?? []).contains($0) }
        #expect(Array(exported.first?.dropFirst(width) ?? []) == addedSince)

        let json = try bowties.run("export", "--json")
        #expect(json.status == 0, "\(json)")
        let releasedJSON = try Self.expected("export.json", version, in: bowties)
        let ties = try #require(try json.json() as? [[String: Any]], "\(json)")
        let released = try #require(
            try JSONSerialization.jsonObject(with: Data(releasedJSON.utf8)) as? [[String: Any]])
        #expect(ties.count == released.count, "\(json)")
        for (tie, was) in zip(ties, released) {
            try Self.expectSameValues(tie, as: was, "\(json)")
        }

        // `show --json` has said `photoProblem` since (null: the photo is
        // intact); every field the release printed is there, the same.
        let show = try bowties.run("show", "R", "--json")
        #expect(show.status == 0, "\(show)")
        let photoProblem = "  \"photoProblem\" : null,\n"
        #expect(show.stdout.contains(photoProblem), "\(show)")
        let expectedShow = try Self.expected("show-R.json", version, in: bowties)
        try Self.expectSameValues(
            try #require(try show.json() as? [String: Any]),
            as: try #require(try JSONSerialization.jsonObject(with: Data(expectedShow.utf8)) as? [String: Any]),
            "\(show)")

        for (key, image) in Self.photos.sorted(by: { $0.key < $1.key }) {
            let photo = try bowties.run("photo", key, "--output", "-")
            #expect(photo.status == 0, "\(photo)")
            let original = try Data(contentsOf: BowTiesRunner.sampleImagesURL.appendingPathComponent(image))
            #expect(photo.stdoutData == original, "\(key): \(photo.stdoutData.count) bytes, not \(image)")
        }

        let check = try bowties.run("check")
        #expect(check.status == 0, "\(check)")
        #expect(check.stdout.contains("No problems found."), "\(check)")
        let applied = try Self.appliedMigrations(bowties)
        #expect(applied == Self.knownMigrations)

        // And it takes changes as any store does.
        let timesWorn = { () throws -> Int? in
            (try bowties.run("show", "O", "--json").json() as? [String: Any])?["timesWorn"] as? Int
        }
        let wornBefore = try #require(try timesWorn())
        let wear = try bowties.run("wear", "O")
        #expect(wear.status == 0, "\(wear)")
        #expect(try timesWorn() == wornBefore + 1)
        #expect(!FileManager.default.fileExists(atPath: bowties.storeURL.path + "-wal"))
    }

    @Test("a copy with a migration unknown here is refused by list and wear, and left byte-identical")
    func newerStoreIsRefusedAndUntouched() throws {
        let bowties = try BowTiesRunner()
        try Self.copyStore("0.1.0", to: bowties)
        try SQLiteLibrary().execute(
            "INSERT INTO grdb_migrations (identifier) VALUES ('v99: from a newer bowties')", in: bowties.storeURL.path)
        let before = try Self.contents(of: bowties.directory)
        #expect(before.keys.contains("catalog.sqlite") && before.count == 4, "\(before.keys.sorted())")

        for arguments in [["list"], ["wear", "R"]] {
            let result = try bowties.run(arguments: arguments)
            #expect(result.status == 74, "\(result)")
            #expect(result.stderr.contains("was written by a newer version of bowties"), "\(result)")
            #expect(result.stderr.contains("Upgrade bowties"), "\(result)")
            #expect(result.stdout.isEmpty, "\(result)")
        }
        let after = try Self.contents(of: bowties.directory)
        #expect(after.keys.sorted() == before.keys.sorted())
        #expect(after == before, "a file changed: \(after.keys.filter { after[$0] != before[$0] }.sorted())")
    }

    /// The identifiers the store records as applied, sorted.
    static func appliedMigrations(_ bowties: BowTiesRunner) throws -> [String] {
        try appliedMigrations(storeURL: bowties.storeURL)
    }

    /// The identifiers the store at `storeURL` records as applied, sorted.
    static func appliedMigrations(storeURL: URL) throws -> [String] {
        let prefix = "grdb_migrations: "
        return try SQLiteLibrary().dump(storeURL.path)
            .filter { $0.hasPrefix(prefix) }
            .map { String($0.dropFirst(prefix.count).dropFirst().dropLast()) }  // the quotes
            .sorted()
    }

    /// Every regular file below `folder` and its bytes, by relative path.
    static func contents(of folder: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(atPath: folder.path)
        while let path = enumerator?.nextObject() as? String {
            let url = folder.appendingPathComponent(path)
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue {
                files[path] = try Data(contentsOf: url)
            }
        }
        return files
    }
}
