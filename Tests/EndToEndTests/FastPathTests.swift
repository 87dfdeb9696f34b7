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
        ["--version"], ["--help"], ["-h"], ["help"],
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

    /// `--help` as printed from the copy (`RootHelp.swift`) and as
    /// ArgumentParser lays it out, at every width the copy is printed at
    /// and some it is not. When this fails, run `scripts/update-root-help`.
    @Test("--help prints what ArgumentParser prints, at 80 columns and at others")
    func helpSameAsArgumentParser() throws {
        let bowties = try BowTiesRunner()
        let widths: [String?] = [nil, "80", "100", "40", "wide"]
        for form in [["--help"], ["-h"], ["help"], ["--help", "--version"]] {
            for columns in widths {
                let environment: [String: String?] = ["COLUMNS": columns, "LINES": nil]
                let fast = try bowties.run(arguments: form, environment: environment)
                var slowEnvironment = environment
                slowEnvironment["BOWTIES_NO_FAST_PATH"] = "1"
                let slow = try bowties.run(arguments: form, environment: slowEnvironment)
                #expect(fast.status == slow.status, "\(form) COLUMNS=\(columns ?? "unset")")
                #expect(
                    fast.stdout == slow.stdout, "\(form) COLUMNS=\(columns ?? "unset"): run scripts/update-root-help")
                #expect(fast.stderr == slow.stderr, "\(form) COLUMNS=\(columns ?? "unset")")
            }
        }
        let help = try bowties.run("--help", environment: ["COLUMNS": nil])
        #expect(help.status == 0 && help.stdout.hasPrefix("OVERVIEW: A catalog for your bow ties"), "\(help)")
    }

    /// The calls the completion scripts make at a Tab after a command that
    /// takes a key or query terms, answered without ArgumentParser, and
    /// calls it must leave to ArgumentParser.
    static let completionCalls: [[String]] = [
        ["show", "--", "positional@0", "2", "1", "bowties", "show", "R"],
        ["show", "--", "positional@0", "4", "1", "bowties", "show", "--store", "STORE", "R"],
        ["show", "--", "positional@0", "4", "1", "bowties", "show", "--store=STORE", "b"],
        ["show", "--", "positional@0", "2", "0", "bowties", "show", ""],
        ["show", "--", "positional@0", "2", "0", "bowties", "show"],
        ["show", "--", "positional@0", "2", "1", "bowties", "show"],
        ["show", "--", "positional@0", "2", "9", "bowties", "show", "R"],
        ["show", "--", "positional@0", "2", "1", "bowties", "show", "Z"],
        ["show", "--", "positional@0", "2", "x", "bowties", "show", "R"],
        ["show", "--", "positional@1", "2", "1", "bowties", "show", "R"],
        ["show", "--", "positional@0", "4", "1", "bowties", "show", "--store", "DIR/none.sqlite", "R"],
        ["history", "--", "positional@0", "2", "1", "bowties", "history", "G"],
        ["rate", "--", "positional@0", "2", "1", "bowties", "rate", "O"],
        ["rate", "--", "positional@1", "3", "0", "bowties", "rate", "O", ""],
        ["favorite", "--", "positional@0", "2", "1", "bowties", "favorite", "B"],
        ["favourite", "--", "positional@0", "2", "1", "bowties", "favourite", "B"],
        ["unwear", "--", "positional@0", "2", "1", "bowties", "unwear", "Y"],
        ["edit", "--", "positional@0", "2", "1", "bowties", "edit", "V"],
        ["photo", "--", "positional@0", "2", "1", "bowties", "photo", "I"],
        ["wear", "--", "positional@0", "2", "3", "bowties", "wear", "rat"],
        ["wear", "--", "positional@0", "2", "4", "bowties", "wear", "tag:"],
        ["wear", "--", "positional@0", "2", "1", "bowties", "wear", "R"],
        ["delete", "--", "positional@0", "2", "2", "bowties", "delete", "^t"],
        ["list", "--", "positional@0", "2", "1", "bowties", "list", "R"],
        ["show", "--", "--store", "2", "0", "bowties", "show", "--store", ""],
    ]

    @Test("the completion of keys and query terms prints what ArgumentParser prints, for each shell")
    func completionSameAsArgumentParser() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        for call in Self.completionCalls {
            let arguments =
                ["---completion"]
                + call.map {
                    $0.replacingOccurrences(of: "STORE", with: bowties.storeURL.path)
                        .replacingOccurrences(of: "DIR", with: bowties.directory.path)
                }
            for shell in ["bash", "zsh", "fish", nil] {
                let environment: [String: String?] = [
                    "SAP_SHELL": shell, "SAP_SHELL_VERSION": shell.map { _ in "5.2" },
                ]
                let fast = try bowties.run(arguments: arguments, environment: environment)
                var slowEnvironment = environment
                slowEnvironment["BOWTIES_NO_FAST_PATH"] = "1"
                let slow = try bowties.run(arguments: arguments, environment: slowEnvironment)
                let label = "\(call) SAP_SHELL=\(shell ?? "unset")"
                #expect(fast.status == slow.status, "\(label)\n\(fast)\n\(slow)")
                #expect(fast.stdout == slow.stdout, "\(label)")
                #expect(fast.stderr == slow.stderr, "\(label)")
            }
        }
        let keys = try bowties.run(
            arguments: ["---completion", "show", "--", "positional@0", "2", "0", "bowties", "show", ""],
            environment: ["SAP_SHELL": "bash"])
        #expect(keys.status == 0 && keys.stdout.split(separator: "\n").contains("R"), "\(keys)")
    }
}
