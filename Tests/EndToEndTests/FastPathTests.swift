import Foundation
import Testing

/// The point commands read without ArgumentParser (`FastPath`) must do
/// exactly what ArgumentParser's reading does: every form below runs
/// twice, on two catalogs made the same way, once as usual and once with
/// `BOWTIES_NO_FAST_PATH=1`, and prints the same, exits the same and
/// leaves the same store.
@Suite("The fast path of point commands")
struct FastPathTests {
    /// Forms the fast path reads, and forms it must leave to
    /// ArgumentParser (their errors must not change either).
    static let forms: [[String]] = [
        ["--version"],
        ["show", "R"], ["show", "r"], ["show", "R", "--json"], ["--json", "show", "R"], ["show", "--json", "R"],
        ["show", "Q"], ["show"], ["show", "R", "B"], ["show", "R", "--bogus"], ["show", "R", "-h"],
        ["show", "R", "--store="], ["show", "R", "--wait", "-1"], ["show", "R", "--wait", "x"],
        ["show", "R", "--color", "never"], ["show", "R", "--color=sometimes"], ["show", "R", "--json", "--json"],
        ["show", "R", "--no-pager"], ["show", "help"], ["show", "--", "R"], ["show", "R", "--version"],
        ["history", "R"], ["history", "R", "--json"], ["history", "Q"],
        ["count"], ["count", "rating:4.."], ["count", "rating:4..", "--json"], ["count", "ratng:4"],
        ["count", "^tag:x", ",", "R"], ["count", "searchKey:=R"],
        ["rate", "R", "4.5"], ["rate", "R", "6"], ["rate", "R", "-1"], ["rate", "R", "x"], ["rate", "R"],
        ["rate", "R", "3", "--json"], ["rate", "Q", "3"],
        ["favorite", "R"], ["favorite", "R", "--off"], ["favorite", "R", "--json"], ["favorite", "R", "--of"],
        ["favourite", "R"], ["favourite", "R", "--off"],
        ["wear", "R", "--on", "2026-11-20"], ["wear", "R", "--on=2026-11-21", "--note", "party"],
        ["wear", "R", "--on", "2026-11-22", "--json"], ["wear", "R", "--on", "never"],
        // Every wear has a date: "now" would differ between the two runs.
        ["wear", "R", "--on", "2026-11-23", "--note", "-x"], ["wear", "rating:4..", "--dry-run", "--on", "2026-11-24"],
        ["wear", "Q", "--on", "2026-11-20"],
        ["wear", "R", "--on", "2026-11-20", "--note", "a", "--note", "b"],
        ["--store", "STORE", "show", "R"], ["show", "R", "--store=STORE"],
    ]

    /// The text with the runner's folder written as DIR.
    static func mask(_ text: String, _ runner: BowTiesRunner) -> String {
        text.replacingOccurrences(of: runner.directory.path, with: "DIR")
    }

    @Test("prints, exits and stores the same as ArgumentParser's reading")
    func sameAsArgumentParser() throws {
        let fast = try BowTiesRunner()
        let full = try BowTiesRunner()
        try fast.importSampleData()
        try full.importSampleData()
        for form in Self.forms {
            let fastResult = try fast.run(arguments: form.map { $0 == "STORE" ? fast.storeURL.path : $0 })
            let fullResult = try full.run(
                arguments: form.map { $0 == "STORE" ? full.storeURL.path : $0 },
                environment: ["BOWTIES_NO_FAST_PATH": "1"])
            #expect(fastResult.status == fullResult.status, "\(form)\n\(fastResult)\n\(fullResult)")
            #expect(Self.mask(fastResult.stdout, fast) == Self.mask(fullResult.stdout, full), "\(form)")
            #expect(Self.mask(fastResult.stderr, fast) == Self.mask(fullResult.stderr, full), "\(form)")
        }
        // The same changes, made the same way: the same ties and history.
        let fastExport = try fast.run("export", "--format", "json")
        let fullExport = try full.run("export", "--format", "json")
        #expect(fastExport.status == 0)
        #expect(Self.mask(fastExport.stdout, fast) == Self.mask(fullExport.stdout, full))
        let fastLog = try fast.run("log")
        let fullLog = try full.run("log")
        #expect(fastLog.stdout.count == fullLog.stdout.count && fastLog.status == fullLog.status)
    }
}
