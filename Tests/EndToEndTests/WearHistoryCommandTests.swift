import Foundation
import Testing

/// The wear history: `wear KEY --on DATE [--note TEXT]`, `unwear KEY` and
/// `history KEY`.
///
/// Each wear is a `Wear` record (a date, an optional note) of its tie, and
/// the tie's counters follow from them: `timesWorn` is what the import
/// brought (the baseline, 12 for R) plus the recorded wears, `lastWorn`
/// the latest of the baseline's date and theirs.
@Suite("bowties wear --on, unwear and history")
struct WearHistoryCommandTests {
    /// R's id in the sample data.
    static let redID = "B77AF80E-55E7-4111-B05C-A5641DE4D6B3"
    /// R's `lastWorn` in the sample data: the baseline's date.
    static let redLastWorn = "2014-06-19T18:15:24Z"

    // MARK: - wear

    @Test("wear R without --on: the same output as before, and one wear of today in the history")
    func wearNow() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let before = todayUTC()
        let wear = try workspace.run("wear", "R")
        #expect(wear.status == 0, "\(wear)")
        #expect(wear.stdout == "Wore Classic Red Bow Tie (R): 13 times so far.\n", "\(wear)")
        #expect(wear.stderr.isEmpty, "\(wear)")

        let history = try Self.history(workspace, "R")
        let after = todayUTC()
        let wears = try Self.wears(history)
        try #require(wears.count == 1, "\(history)")
        #expect([before, after].contains { wears[0].date.hasPrefix($0 + "T") }, "\(history)")
        #expect(wears[0].note == nil, "\(history)")
        #expect(history["timesWorn"] as? Int == 13, "\(history)")
        #expect(history["lastWorn"] as? String == wears[0].date, "\(history)")
    }

    @Test("wear R --on 2026-11-20 --note wedding: that day at 00:00 UTC, with its note")
    func wearOnDay() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let wear = try workspace.run("wear", "R", "--on", "2026-11-20", "--note", "wedding")
        #expect(wear.status == 0, "\(wear)")
        #expect(wear.stdout == "Wore Classic Red Bow Tie (R) on 2026-11-20: 13 times so far.\n", "\(wear)")
        #expect(wear.stderr.isEmpty, "\(wear)")

        let tie = try Self.tie(workspace, "R")
        #expect(tie["timesWorn"] as? Int == 13, "\(tie)")
        #expect(tie["lastWorn"] as? String == "2026-11-20T00:00:00Z", "\(tie)")
        let wears = try Self.wears(try Self.history(workspace, "R"))
        #expect(wears == [RecordedWear("2026-11-20T00:00:00Z", "wedding")])
    }

    @Test("--on takes its date with spaces, tabs and no-break spaces around it, and nothing else")
    func wearOnPaddedDay() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let padded = try workspace.run("wear", "R", "--on", " \t2026-11-20\u{00A0}\u{2003}")
        #expect(padded.status == 0, "\(padded)")
        #expect(padded.stdout == "Wore Classic Red Bow Tie (R) on 2026-11-20: 13 times so far.\n", "\(padded)")
        #expect(try Self.wears(try Self.history(workspace, "R")) == [RecordedWear("2026-11-20T00:00:00Z", nil)])

        // A line break is not a space here, as `CharacterSet.whitespaces`
        // has it: the date is refused and nothing is recorded.
        let broken = try workspace.run("wear", "R", "--on", "2026-11-21\n")
        #expect(broken.status == 64, "\(broken)")
        #expect(broken.stderr.contains("is not a date"), "\(broken)")
        #expect(try Self.wears(try Self.history(workspace, "R")).count == 1)
    }

    @Test("wear R --on a full ISO 8601 date-time keeps the time; the output names the day")
    func wearOnDateTime() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let wear = try workspace.run("wear", "R", "--on", "2026-11-20T18:30:00Z")
        #expect(wear.status == 0, "\(wear)")
        #expect(wear.stdout == "Wore Classic Red Bow Tie (R) on 2026-11-20: 13 times so far.\n", "\(wear)")

        let tie = try Self.tie(workspace, "R")
        #expect(tie["lastWorn"] as? String == "2026-11-20T18:30:00Z", "\(tie)")
        let wears = try Self.wears(try Self.history(workspace, "R"))
        #expect(wears == [RecordedWear("2026-11-20T18:30:00Z", nil)])
    }

    @Test("a wear older than the imported last wear counts, but lastWorn stays the imported date")
    func wearBeforeBaseline() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let wear = try workspace.run("wear", "R", "--on", "2001-01-01")
        #expect(wear.status == 0, "\(wear)")
        #expect(wear.stdout == "Wore Classic Red Bow Tie (R) on 2001-01-01: 13 times so far.\n", "\(wear)")

        let tie = try Self.tie(workspace, "R")
        #expect(tie["timesWorn"] as? Int == 13, "\(tie)")
        #expect(tie["lastWorn"] as? String == Self.redLastWorn, "\(tie)")
        let history = try Self.history(workspace, "R")
        #expect(history["lastWorn"] as? String == Self.redLastWorn, "\(history)")
        #expect(try Self.wears(history) == [RecordedWear("2001-01-01T00:00:00Z", nil)])
    }

    @Test("a date of tomorrow is accepted: it is today somewhere east of UTC")
    func wearTomorrow() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let tomorrow = todayUTC(Date().addingTimeInterval(86_400))
        let wear = try workspace.run("wear", "R", "--on", tomorrow)
        #expect(wear.status == 0, "\(wear)")
        #expect(wear.stdout == "Wore Classic Red Bow Tie (R) on \(tomorrow): 13 times so far.\n", "\(wear)")
        #expect(try Self.wears(try Self.history(workspace, "R")) == [RecordedWear(tomorrow + "T00:00:00Z", nil)])
    }

    @Test(
        "a date that cannot be read is a usage error, exit 64, naming it; nothing is stored",
        arguments: ["yesterday", "20/11/2026", "2026-13-01", "2026-11-20T18:30", "11/20"])
    func unreadableDate(_ date: String) throws {
        try Self.expectRefused(date)
    }

    @Test(
        "a date more than one day in the future is refused, exit 64, naming it; nothing is stored",
        arguments: [
            todayUTC(Date().addingTimeInterval(3 * 86_400)),
            WearHistoryCommandTests.dateTimeUTC(Date().addingTimeInterval(3 * 86_400)),
            "2099-01-01T00:00:00Z",
        ])
    func futureDate(_ date: String) throws {
        try Self.expectRefused(date)
    }

    /// `wear R --on date` exits 64 naming the date, and leaves no trace.
    static func expectRefused(_ date: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let before = try workspace.snapshot()
        let result = try workspace.run("wear", "R", "--on", date)
        #expect(result.status == 64, "\(result)", sourceLocation: sourceLocation)
        #expect(result.stdout.isEmpty, "\(result)", sourceLocation: sourceLocation)
        #expect(result.stderr.hasPrefix("bowties: error:"), "\(result)", sourceLocation: sourceLocation)
        #expect(result.stderr.contains(date), "\(result)", sourceLocation: sourceLocation)
        try NoTraceTests.expectNoTrace(workspace, before: before, result)
    }

    @Test("a note of 1000 characters is kept whole; one of 1001 fails validation, exit 65 (1660), nothing stored")
    func noteLength() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let longest = String(repeating: "\u{E9}", count: 1000)  // é, one character, two UTF-8 bytes
        let kept = try workspace.run("wear", "R", "--on", "2026-11-20", "--note", longest)
        #expect(kept.status == 0, "\(kept)")
        #expect(try Self.wears(try Self.history(workspace, "R")) == [RecordedWear("2026-11-20T00:00:00Z", longest)])

        let before = try workspace.snapshot()
        let tooLong = try workspace.run("wear", "R", "--on", "2026-11-21", "--note", longest + "e")
        #expect(tooLong.status == 65, "\(tooLong)")
        #expect(tooLong.stdout.isEmpty, "\(tooLong)")
        #expect(tooLong.stderr.hasPrefix("bowties: error:"), "\(tooLong)")
        #expect(tooLong.stderr.contains("1660"), "\(tooLong)")
        try NoTraceTests.expectNoTrace(workspace, before: before, tooLong)
    }

    @Test("wear and unwear with --json print the tie as show --json does")
    func json() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let wear = try workspace.run("wear", "R", "--on", "2026-11-20", "--json")
        try #require(wear.status == 0, "\(wear)")
        let worn = try #require(try wear.json() as? [String: Any], "\(wear)")
        #expect(worn["timesWorn"] as? Int == 13, "\(wear)")
        #expect(worn["lastWorn"] as? String == "2026-11-20T00:00:00Z", "\(wear)")
        try Self.expectSameTie(worn, as: try Self.tie(workspace, "R"), "\(wear)")

        let unwear = try workspace.run("unwear", "R", "--json")
        try #require(unwear.status == 0, "\(unwear)")
        let unworn = try #require(try unwear.json() as? [String: Any], "\(unwear)")
        #expect(unworn["timesWorn"] as? Int == 12, "\(unwear)")
        #expect(unworn["lastWorn"] as? String == Self.redLastWorn, "\(unwear)")
        try Self.expectSameTie(unworn, as: try Self.tie(workspace, "R"), "\(unwear)")
    }

    @Test("4 processes each wearing R on their own day 10 times record exactly 40 wears")
    func concurrentWears() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let binary = try BowTiesRunner.executableURL()
        let processes = try (1...4).map { worker -> Process in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            // Each worker stops at its first failure and says which.
            process.arguments = [
                "-c",
                #"i=0; while [ $i -lt 10 ]; do "$0" wear R --on "2020-01-0$1" >/dev/null || { echo "worker $1: wear $i failed" >&2; exit 1; }; i=$((i+1)); done"#,
                binary.path, String(worker),
            ]
            process.environment = workspace.environment
            process.standardInput = FileHandle.nullDevice
            try process.run()
            return process
        }
        for process in processes {
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
        }
        #expect(try workspace.timesWorn("R") == 12 + 40)
        let history = try Self.history(workspace, "R")
        let wears = try Self.wears(history)
        #expect(wears.count == 40, "\(history)")
        #expect(history["timesWorn"] as? Int == 52, "\(history)")
        // Newest first: ten of each day, the 4th first.
        #expect(
            wears.map(\.date) == (1...4).reversed().flatMap { Array(repeating: "2020-01-0\($0)T00:00:00Z", count: 10) })
    }

    // MARK: - unwear

    @Test("unwear removes the wear just recorded: show --json is as before the wear")
    func unwear() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let before = try workspace.run("show", "R", "--json")
        try #require(before.status == 0, "\(before)")
        let wear = try workspace.run("wear", "R", "--on", "2026-11-20", "--note", "wedding")
        try #require(wear.status == 0, "\(wear)")

        let unwear = try workspace.run("unwear", "R")
        #expect(unwear.status == 0, "\(unwear)")
        #expect(
            unwear.stdout == "Removed the wear of 2026-11-20 from Classic Red Bow Tie (R): 12 times so far.\n",
            "\(unwear)")
        #expect(unwear.stderr.isEmpty, "\(unwear)")
        let after = try workspace.run("show", "R", "--json")
        #expect(after.stdout == before.stdout, "before the wear:\n\(before)\nafter the unwear:\n\(after)")
        #expect(try Self.wears(try Self.history(workspace, "R")).isEmpty)
    }

    @Test("unwear removes the latest date first, whatever the order the wears were recorded in")
    func unwearLatestDate() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        for (date, note) in [("2026-11-10", "a"), ("2026-11-20", "b"), ("2026-11-15", "c")] {
            let wear = try workspace.run("wear", "R", "--on", date, "--note", note)
            try #require(wear.status == 0, "\(wear)")
        }
        let unwear = try workspace.run("unwear", "R")
        #expect(unwear.status == 0, "\(unwear)")
        #expect(
            unwear.stdout == "Removed the wear of 2026-11-20 from Classic Red Bow Tie (R): 14 times so far.\n",
            "\(unwear)")
        let history = try Self.history(workspace, "R")
        #expect(
            try Self.wears(history) == [
                RecordedWear("2026-11-15T00:00:00Z", "c"), RecordedWear("2026-11-10T00:00:00Z", "a"),
            ])
        #expect(history["timesWorn"] as? Int == 14, "\(history)")
        #expect(history["lastWorn"] as? String == "2026-11-15T00:00:00Z", "\(history)")
    }

    @Test("among wears of the same date, unwear removes the one added last")
    func unwearSameDate() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        for note in ["first", "second"] {
            let wear = try workspace.run("wear", "R", "--on", "2026-11-20", "--note", note)
            try #require(wear.status == 0, "\(wear)")
        }
        let unwear = try workspace.run("unwear", "R")
        #expect(unwear.status == 0, "\(unwear)")
        #expect(
            unwear.stdout == "Removed the wear of 2026-11-20 from Classic Red Bow Tie (R): 13 times so far.\n",
            "\(unwear)")
        #expect(try Self.wears(try Self.history(workspace, "R")) == [RecordedWear("2026-11-20T00:00:00Z", "first")])
    }

    @Test("unwear of a tie with no recorded wear: exit 1, and the catalog is byte-identical")
    func unwearNothingRecorded() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        // A wear of B: only R's own history counts.
        let other = try workspace.run("wear", "B")
        try #require(other.status == 0, "\(other)")
        let before = try workspace.snapshot()
        let result = try workspace.run("unwear", "R")
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        #expect(result.stderr.hasPrefix("bowties: error:"), "\(result)")
        #expect(result.stderr.contains("no recorded wear"), "\(result)")
        try NoTraceTests.expectNoTrace(workspace, before: before, result)
        #expect(try workspace.timesWorn("R") == 12)
    }

    // MARK: - history

    @Test("history R: the title, one line per wear newest first, then the count")
    func historyText() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        for arguments in [["--on", "2026-11-10"], ["--on", "2026-11-20T18:30:00Z", "--note", "wedding"]] {
            let wear = try workspace.run(arguments: ["wear", "R"] + arguments)
            try #require(wear.status == 0, "\(wear)")
        }
        let result = try workspace.run("history", "R")
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.isEmpty, "\(result)")
        #expect(
            result.stdout == """
                Classic Red Bow Tie (R)
                2026-11-20  wedding
                2026-11-10
                14 times worn: 2 recorded, 12 before the history began.

                """, "\(result)")
    }

    @Test("history of a tie with no recorded wear: the title and the imported count")
    func historyEmpty() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let result = try workspace.run("history", "R")
        #expect(result.status == 0, "\(result)")
        #expect(
            result.stdout == """
                Classic Red Bow Tie (R)
                12 times worn: 0 recorded, 12 before the history began.

                """, "\(result)")
    }

    @Test("history R --json: the tie, its totals, the baseline and the wears newest first")
    func historyJSON() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        for arguments in [["--on", "2026-11-20T18:30:00Z", "--note", "wedding"], ["--on", "2026-11-10"]] {
            let wear = try workspace.run(arguments: ["wear", "R"] + arguments)
            try #require(wear.status == 0, "\(wear)")
        }
        let result = try workspace.run("history", "R", "--json")
        #expect(result.status == 0, "\(result)")
        let history = try #require(try result.json() as? [String: Any], "\(result)")
        #expect(
            Set(history.keys) == ["id", "searchKey", "name", "timesWorn", "lastWorn", "baseline", "wears"],
            "\(result)")
        #expect(history["id"] as? String == Self.redID, "\(result)")
        #expect(history["searchKey"] as? String == "R", "\(result)")
        #expect(history["name"] as? String == "Classic Red Bow Tie", "\(result)")
        #expect(history["timesWorn"] as? Int == 14, "\(result)")
        #expect(history["lastWorn"] as? String == "2026-11-20T18:30:00Z", "\(result)")
        let baseline = try #require(history["baseline"] as? [String: Any], "\(result)")
        #expect(Set(baseline.keys) == ["timesWorn", "lastWorn"], "\(result)")
        #expect(baseline["timesWorn"] as? Int == 12, "\(result)")
        #expect(baseline["lastWorn"] as? String == Self.redLastWorn, "\(result)")
        #expect(
            try Self.wears(history) == [
                RecordedWear("2026-11-20T18:30:00Z", "wedding"), RecordedWear("2026-11-10T00:00:00Z", nil),
            ], "\(result)")
    }

    @Test("a tie imported without timesWorn or lastWorn: a baseline of 0 and null, then the wears' date")
    func historyWithoutBaseline() throws {
        let workspace = try CatalogWorkspace()
        let file = try workspace.writeInput(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0">
            <array>
            \t<dict>
            \t\t<key>name</key>
            \t\t<string>Never Worn</string>
            \t\t<key>searchKey</key>
            \t\t<string>N</string>
            \t</dict>
            </array>
            </plist>

            """, to: "NeverWorn.plist")
        let imported = try workspace.run("import", file.path)
        try #require(imported.status == 0, "\(imported)")

        let empty = try Self.history(workspace, "N")
        #expect(empty["timesWorn"] as? Int == 0, "\(empty)")
        #expect(empty["lastWorn"] is NSNull, "\(empty)")
        let baseline = try #require(empty["baseline"] as? [String: Any], "\(empty)")
        #expect(baseline["timesWorn"] as? Int == 0, "\(empty)")
        #expect(baseline["lastWorn"] is NSNull, "\(empty)")
        #expect(try Self.wears(empty).isEmpty)

        let wear = try workspace.run("wear", "N", "--on", "2026-11-20")
        #expect(wear.stdout == "Wore Never Worn (N) on 2026-11-20: 1 time so far.\n", "\(wear)")
        let worn = try Self.history(workspace, "N")
        #expect(worn["timesWorn"] as? Int == 1, "\(worn)")
        #expect(worn["lastWorn"] as? String == "2026-11-20T00:00:00Z", "\(worn)")
        #expect((worn["baseline"] as? [String: Any])?["lastWorn"] is NSNull, "\(worn)")

        let unwear = try workspace.run("unwear", "N")
        #expect(unwear.status == 0, "\(unwear)")
        #expect(try Self.tie(workspace, "N")["lastWorn"] is NSNull)
    }

    @Test("history of an unknown key exits 1 with the usual message")
    func historyUnknownKey() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let result = try workspace.run("history", "Q")
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        #expect(result.stderr.hasPrefix("bowties: error: no bow tie has the search key or id \"Q\""), "\(result)")
    }

    @Test("history and history --json leave the store's folder byte-identical", arguments: [false, true])
    func historyReadsOnly(json: Bool) throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let wear = try workspace.run("wear", "R", "--on", "2026-11-20", "--note", "wedding")
        try #require(wear.status == 0, "\(wear)")
        let before = try workspace.snapshot()
        let result = try workspace.run(arguments: ["history", "R"] + (json ? ["--json"] : []))
        #expect(result.status == 0, "\(result)")
        let after = try workspace.snapshot()
        let identical = after.isByteIdentical(to: before)
        #expect(identical, "the store's folder changed:\n\(after.byteDifference(from: before))\n\(result)")
    }

    @Test("history works on a catalog the user can read but not write, with the same output")
    func historyOnUnwritableCatalog() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let wear = try workspace.run("wear", "R", "--on", "2026-11-20", "--note", "wedding")
        try #require(wear.status == 0, "\(wear)")
        try UnwritableCatalog.prepare(workspace)
        defer { try? UnwritableCatalog.makeWritable(workspace) }  // so the runner can remove it

        for arguments in [["history", "R"], ["history", "R", "--json"]] {
            // First as the owner of a writable catalog...
            try UnwritableCatalog.makeWritable(workspace)
            let writable = try workspace.run(arguments: arguments)
            try #require(writable.status == 0, "on the writable catalog: \(writable)")

            // ...then, with the same path and the same user, read-only.
            try UnwritableCatalog.makeReadOnly(workspace)
            #expect(ReadOnlyCommandTests.journalModeIsWAL(workspace.storeURL), "the store is not in WAL mode")
            try #require(!FileManager.default.fileExists(atPath: workspace.walURL.path))
            let before = try workspace.snapshot()
            let readOnly = try workspace.run(arguments: arguments)
            #expect(readOnly.status == 0, "on the read-only catalog: \(readOnly)")
            #expect(
                readOnly.stdout == writable.stdout,
                "standard output differs from the writable run's\n--- writable\n\(writable)\n--- read-only\n\(readOnly)"
            )
            let after = try workspace.snapshot()
            let identical = after.isByteIdentical(to: before)
            #expect(identical, "\(after.byteDifference(from: before))")
        }
    }

    // MARK: - delete

    @Test("delete removes the tie's wears in the same transaction; other ties keep theirs")
    func deleteCascades() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        for arguments in [["wear", "R", "--on", "2026-11-10"], ["wear", "R", "--on", "2026-11-20"], ["wear", "B"]] {
            let wear = try workspace.run(arguments: arguments)
            try #require(wear.status == 0, "\(wear)")
        }
        let blueID = try #require(try Self.tie(workspace, "B")["id"] as? String)
        try #require(try Self.storedWears(of: Self.redID, in: workspace).count == 2)
        try #require(try Self.storedWears(of: blueID, in: workspace).count == 1)

        let delete = try workspace.run("delete", "R")
        #expect(delete.status == 0, "\(delete)")
        #expect(delete.stdout == "Deleted Classic Red Bow Tie (R).\n", "\(delete)")
        #expect(try Self.storedWears(of: Self.redID, in: workspace).isEmpty)
        #expect(try Self.storedWears(of: blueID, in: workspace).count == 1)
        #expect(try Self.wears(try Self.history(workspace, "B")).count == 1)
        let check = try workspace.run("check")
        #expect(check.status == 0, "\(check)")
    }

    // MARK: - Helpers

    /// One entry of `history --json`'s `wears`.
    struct RecordedWear: Equatable, CustomStringConvertible {
        var date: String
        var note: String?

        init(_ date: String, _ note: String?) {
            self.date = date
            self.note = note
        }

        var description: String { "\(date) \(note.map { "\"\($0)\"" } ?? "null")" }
    }

    /// `show KEY --json`, which must succeed.
    static func tie(
        _ workspace: CatalogWorkspace, _ key: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [String: Any] {
        let show = try workspace.run("show", key, "--json")
        try #require(show.status == 0, "\(show)", sourceLocation: sourceLocation)
        return try #require(try show.json() as? [String: Any], "\(show)", sourceLocation: sourceLocation)
    }

    /// `history KEY --json`, which must succeed.
    static func history(
        _ workspace: CatalogWorkspace, _ key: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [String: Any] {
        let history = try workspace.run("history", key, "--json")
        try #require(history.status == 0, "\(history)", sourceLocation: sourceLocation)
        return try #require(try history.json() as? [String: Any], "\(history)", sourceLocation: sourceLocation)
    }

    /// The `wears` of a `history --json` object, in its order; each entry
    /// must have exactly a `date` and a `note` (null when none).
    static func wears(_ history: [String: Any], sourceLocation: SourceLocation = #_sourceLocation) throws
        -> [RecordedWear]
    {
        let entries = try #require(history["wears"] as? [[String: Any]], "\(history)", sourceLocation: sourceLocation)
        return try entries.map { entry in
            #expect(Set(entry.keys) == ["date", "note"], "\(entry)", sourceLocation: sourceLocation)
            let date = try #require(entry["date"] as? String, "\(entry)", sourceLocation: sourceLocation)
            let note = entry["note"] as? String
            #expect(note != nil || entry["note"] is NSNull, "\(entry)", sourceLocation: sourceLocation)
            return RecordedWear(date, note)
        }
    }

    /// Checks that `printed` (from `wear` or `unwear --json`) is the tie
    /// `show --json` describes. The photo aside: `show` reads it and adds
    /// its type and `photoProblem`, as `list --json` does not.
    static func expectSameTie(
        _ printed: [String: Any], as shown: [String: Any], _ exchange: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        var printed = printed
        var shown = shown
        for key in ["photo", "photoProblem"] {
            printed[key] = nil
            shown[key] = nil
        }
        // As JSON with sorted keys: NSDictionary's comparison on Linux
        // does not see two empty arrays as equal.
        let canonical = { (object: [String: Any]) throws -> Data in
            try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        }
        #expect(
            try canonical(printed) == canonical(shown), "show --json says \(shown)\n\(exchange)",
            sourceLocation: sourceLocation)
    }

    /// `date` as a full ISO 8601 date-time in UTC: `2026-11-26T10:56:08Z`.
    static func dateTimeUTC(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }

    /// The rows of table `wear` whose `bowTie_id` is `id`, read from the
    /// store file itself (after the command, which checkpoints on close).
    static func storedWears(of id: String, in workspace: CatalogWorkspace) throws -> [String] {
        try SQLiteLibrary().dump(workspace.storeURL.path).filter { line in
            line.hasPrefix("wear: ") && line.uppercased().contains("'\(id.uppercased())'")
        }
    }
}
