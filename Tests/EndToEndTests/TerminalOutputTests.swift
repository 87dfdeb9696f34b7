import Foundation
import Testing

/// What bowties does on a terminal (a pseudo-terminal made by util-linux's
/// `script`) and off one: colours, the pager, the progress line, escaping
/// and display widths.
@Suite("bowties on a terminal")
struct TerminalOutputTests {
    static let script: String? = ["/usr/bin/script", "/bin/script"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Runs bowties with its standard streams on a pseudo-terminal of
    /// `columns` columns; returns what the terminal received, `\r\n` as `\n`.
    /// `PAGER` is `cat` unless `environment` says otherwise.
    static func inTerminal(
        _ bowties: BowTiesRunner, _ arguments: [String], environment: [String: String?] = [:], columns: Int = 100
    ) throws -> String {
        try runInTerminal(bowties, arguments, environment: environment, columns: columns).output
    }

    /// ``inTerminal(_:_:environment:columns:)``, and bowties' exit status.
    ///
    /// - Parameter resize: A width the window takes after some seconds
    ///   (`stty` on the terminal, which sends SIGWINCH), while bowties runs.
    static func runInTerminal(
        _ bowties: BowTiesRunner, _ arguments: [String], environment: [String: String?] = [:], columns: Int = 100,
        resize: (columns: Int, after: Double)? = nil
    ) throws -> (output: String, status: Int32) {
        func quoted(_ word: String) -> String { "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let later = resize.map { "(sleep \($0.after); stty cols \($0.columns) rows 50 </dev/tty) & " } ?? ""
        let command =
            "stty cols \(columns) rows 50; \(later)exec "
            + ([try BowTiesRunner.executableURL().path] + arguments).map(quoted).joined(separator: " ")
        var variables = bowties.environment
        variables["NO_COLOR"] = nil
        variables["TERM"] = "xterm-256color"
        variables["COLORTERM"] = nil
        // No pager unless the test names one: less would add its own
        // escape sequences to what the terminal receives.
        variables["PAGER"] = "cat"
        for (name, value) in environment { variables[name] = value }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(script))
        process.arguments = ["-qec", command, "/dev/null"]
        process.environment = variables
        process.currentDirectoryURL = bowties.directory
        let output = bowties.directory.appendingPathComponent("terminal-\(UUID().uuidString)")
        try Data().write(to: output)
        let handle = try FileHandle(forWritingTo: output)
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try handle.close()
        let text = String(decoding: try Data(contentsOf: output), as: UTF8.self).replacingOccurrences(
            of: "\r\n", with: "\n")
        return (text, process.terminationStatus)
    }

    @Test(
        "swatches: the 256-colour palette on a terminal, 24-bit only with COLORTERM, none when turned off",
        .enabled(if: script != nil, "util-linux script is not installed"))
    func colours() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        // R is #C81E2D: palette entry 160, or 200;30;45 in 24-bit.
        #expect(try Self.inTerminal(bowties, ["list"]).contains("\u{1B}[48;5;160m"))
        let trueColor = try Self.inTerminal(bowties, ["list"], environment: ["COLORTERM": "truecolor"])
        #expect(trueColor.contains("\u{1B}[48;2;200;30;45m"))
        for (arguments, environment) in [
            (["list"], ["NO_COLOR": "1"]), (["list", "--color", "never"], [:]), (["--color=never", "list"], [:]),
            (["list"], ["TERM": "dumb"]),
        ] as [([String], [String: String?])] {
            let output = try Self.inTerminal(bowties, arguments, environment: environment)
            #expect(output.contains("#C81E2D") && !output.contains("\u{1B}["), "\(arguments) \(environment): \(output)")
        }
        // Not a terminal: no colour unless asked for.
        #expect(!(try bowties.run("list", environment: ["NO_COLOR": nil]).stdout.contains("\u{1B}[")))
        let always = try bowties.run("list", "--color", "always")
        #expect(always.stdout.contains("\u{1B}[48;5;160m"), "\(always)")
        let forced = try bowties.run("list", environment: ["NO_COLOR": nil, "CLICOLOR_FORCE": "1"])
        #expect(forced.stdout.contains("\u{1B}[48;5;160m"), "\(forced)")
        // add's own --color is the tie's; the global one goes before its name.
        let added = try bowties.run("--color", "always", "add", "--name", "Teal", "--key", "T", "--color", "#008080")
        #expect(added.status == 0, "\(added)")
        let bad = try bowties.run("list", "--color", "sometimes")
        #expect(bad.status == 64 && bad.stderr.contains("--color takes auto, always or never"), "\(bad)")
        let badBeforeAdd = try bowties.run("--color", "sometimes", "add", "--name", "N", "--key", "N")
        #expect(badBeforeAdd.status == 64, "\(badBeforeAdd)")
        #expect(badBeforeAdd.stderr.contains("--color takes auto, always or never"), "\(badBeforeAdd)")
        // Before or after the name, = or a separate word, for show as for list.
        for arguments in [["show", "R", "--color", "always"], ["--color=always", "show", "R"]] {
            let shown = try bowties.run(arguments: arguments)
            #expect(shown.status == 0 && shown.stdout.contains("\u{1B}[48;5;160m"), "\(shown)")
        }
        let never = try Self.inTerminal(bowties, ["show", "R", "--color=never"])
        #expect(never.contains("#C81E2D") && !never.contains("\u{1B}["), "\(never)")
    }

    @Test("--color is an option of every command, in its help; add's own --color is the tie's")
    func colorOptionInHelp() throws {
        let bowties = try BowTiesRunner()
        let root = try bowties.run("--help")
        let names = root.stdout.components(separatedBy: "SUBCOMMANDS:").last?
            .split(separator: "\n").compactMap { line -> String? in
                // A command's line, not the continuation of an abstract.
                guard line.hasPrefix("  "), !line.hasPrefix("   "), let word = line.split(separator: " ").first,
                    word.allSatisfy(\.isLowercase)
                else { return nil }
                return String(word)
            } ?? []
        try #require(names.count >= 20 && names.contains("list"), "\(root)")
        for name in names where !["add", "help"].contains(name) {
            let help = try bowties.run(name, "--help")
            #expect(help.status == 0 && help.stdout.contains("--color <when>"), "\(name): \(help)")
            #expect(help.stdout.contains("When to colour the output: auto, always or never."), "\(name)")
        }
        let add = try bowties.run("add", "--help")
        #expect(add.stdout.contains("--color <#RRGGBB>") && !add.stdout.contains("--color <when>"), "\(add)")
        let words = add.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(words.contains("goes before the command's name: bowties --color never add"), "\(add)")
    }

    @Test(
        "long output goes through $PAGER on a terminal, never with --no-pager or off a terminal",
        .enabled(if: script != nil, "util-linux script is not installed"))
    func pager() throws {
        let bowties = try BowTiesRunner()
        let paged = try Self.inTerminal(bowties, ["model"], environment: ["PAGER": "sed s/^/PAGED:/"])
        #expect(paged.contains("PAGED:BowTie ("), "\(paged)")
        let direct = try Self.inTerminal(bowties, ["model", "--no-pager"], environment: ["PAGER": "sed s/^/PAGED:/"])
        #expect(!direct.contains("PAGED:") && direct.contains("BowTie ("), "\(direct)")
        let piped = try bowties.run("model", environment: ["PAGER": "sed s/^/PAGED:/"])
        #expect(!piped.stdout.contains("PAGED:") && piped.stdout.hasPrefix("BowTie ("), "\(piped)")
    }

    @Test(
        "list, tags, log and check's problems go through $PAGER on a terminal, colours kept; not otherwise",
        .enabled(if: script != nil, "util-linux script is not installed"))
    func pagedCommands() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        try #require(try workspace.run("tag", "R", "formal").status == 0)
        let bowties = workspace.runner
        let store = ["BOWTIES_STORE": workspace.storeURL.path]
        let pager = store.merging(["PAGER": "sed s/^/PAGED:/"]) { $1 }
        let list = try Self.inTerminal(bowties, ["list"], environment: pager)
        #expect(list.contains("PAGED:KEY  NAME"), "\(list)")
        #expect(list.contains("PAGED:7 bow ties, 1 favourite"), "\(list)")
        // Colours are decided on the terminal, not on the pipe to the pager.
        #expect(list.contains("\u{1B}[48;5;160m"), "\(list)")
        for (arguments, expected) in [(["tags"], "formal"), (["log"], "WHEN (UTC)")] {
            let paged = try Self.inTerminal(bowties, arguments, environment: pager)
            let line = paged.split(separator: "\n").first { $0.contains(expected) }
            #expect(line?.hasPrefix("PAGED:") == true, "\(arguments): \(paged)")
        }
        for (arguments, environment) in [
            (["list", "--no-pager"], pager), (["--no-pager", "list"], pager),
            (["list"], store.merging(["PAGER": ""]) { $1 }), (["list"], store.merging(["PAGER": "cat"]) { $1 }),
            (["list", "--format", "csv"], pager), (["list", "--json"], pager), (["tags", "--json"], pager),
            (["tags", "--no-pager"], pager), (["list"], pager.merging(["TERM": "dumb"]) { $1 }),
        ] as [([String], [String: String?])] {
            let direct = try Self.inTerminal(bowties, arguments, environment: environment)
            #expect(direct.contains("formal") || direct.contains("Classic Red Bow Tie"), "\(arguments): \(direct)")
            #expect(!direct.contains("PAGED:"), "\(arguments) \(environment): \(direct)")
        }
        let piped = try workspace.run("list", environment: ["PAGER": "sed s/^/PAGED:/"])
        #expect(piped.status == 0 && piped.stdout.hasPrefix("KEY ") && !piped.stdout.contains("PAGED:"), "\(piped)")
        // A damaged catalog: the problems are paged, the error comes after them.
        let photo = try #require(workspace.photoFiles().first)
        try FileManager.default.removeItem(at: workspace.photoFolder.appendingPathComponent(photo))
        let (check, status) = try Self.runInTerminal(bowties, ["check"], environment: pager)
        #expect(status == 65, "\(check)")
        #expect(check.contains("PAGED:1 problem:"), "\(check)")
        let lastPaged = try #require(check.range(of: "PAGED:", options: .backwards), "\(check)")
        let error = try #require(check.range(of: "bowties: error:"), "\(check)")
        #expect(lastPaged.lowerBound < error.lowerBound, "the error is inside the paged text: \(check)")
    }

    @Test(
        "a pager that leaves early ends list quietly with 0, the catalog byte-identical",
        .enabled(if: script != nil, "util-linux script is not installed"))
    func pagerLeavesEarly() throws {
        let workspace = try CatalogWorkspace()
        let plist = workspace.inputDirectory.appendingPathComponent("Many.plist")
        // 3,000 lines: far more than a pipe holds.
        try GeneratedPlist.write(to: plist, records: 3000, keyPrefix: "K")
        try #require(try workspace.run("import", plist.path).status == 0)
        let before = try workspace.snapshot()
        let (output, status) = try Self.runInTerminal(
            workspace.runner, ["list"],
            environment: ["BOWTIES_STORE": workspace.storeURL.path, "PAGER": "head -n 3"])
        #expect(status == 0, "\(output)")
        #expect(output.split(separator: "\n").count == 3 && output.hasPrefix("KEY "), "\(output)")
        let after = try workspace.snapshot()
        #expect(after.isByteIdentical(to: before), "\(after.byteDifference(from: before))")
    }

    static let tmux: String? = ["/usr/bin/tmux", "/bin/tmux", "/usr/local/bin/tmux"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }
    static let less: String? = ["/usr/bin/less", "/bin/less"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    @Test(
        "list in less in tmux: the first screen at once, q ends bowties with 0, the catalog byte-identical",
        .enabled(if: tmux != nil && less != nil, "tmux or less is not installed"))
    func quitLess() throws {
        let workspace = try CatalogWorkspace()
        let plist = workspace.inputDirectory.appendingPathComponent("Many.plist")
        try GeneratedPlist.write(to: plist, records: 3000, keyPrefix: "K")
        try #require(try workspace.run("import", plist.path).status == 0)
        let before = try workspace.snapshot()
        let tmux = try #require(Self.tmux)
        let socket = "bowties-e2e-\(UUID().uuidString)"
        let statusFile = workspace.runner.directory.appendingPathComponent("status")
        let errorFile = workspace.runner.directory.appendingPathComponent("stderr")
        func quoted(_ word: String) -> String { "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        // A shell in the pane runs bowties with the default pager (less
        // -FRX, LESS unset) and writes down its status when it ends.
        let command = [
            "env", "-u", "LESS", "-u", "PAGER", "-u", "NO_COLOR", "TERM=xterm-256color",
            "BOWTIES_STORE=" + workspace.storeURL.path, "/bin/sh", "-c",
            "\"$0\" list 2>\(quoted(errorFile.path)); echo $? >\(quoted(statusFile.path)); sleep 60",
            try BowTiesRunner.executableURL().path,
        ].map(quoted).joined(separator: " ")
        let client = TmuxClient(
            tmux: tmux, socket: socket, output: workspace.runner.directory.appendingPathComponent("tmux.out"))
        func tmuxRun(_ arguments: [String]) throws -> String { try client.run(arguments) }
        _ = try tmuxRun(["new-session", "-d", "-x", "100", "-y", "20", command])
        defer { _ = try? tmuxRun(["kill-server"]) }
        func waitFor(_ seconds: Double, _ condition: () throws -> Bool) rethrows -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if try condition() { return true }
                Thread.sleep(forTimeInterval: 0.1)
            }
            return try condition()
        }
        var screen = ""
        let shown = try waitFor(20) {
            screen = try tmuxRun(["capture-pane", "-p"])
            return screen.contains("KEY  NAME") && screen.contains("Tie 1 & Co.")
        }
        try #require(shown, "the first screen did not appear: \(screen)")
        // less holds the rest: bowties has not finished, and no status yet.
        #expect(!FileManager.default.fileExists(atPath: statusFile.path), "\(screen)")
        _ = try tmuxRun(["send-keys", "q"])
        let ended = waitFor(20) { FileManager.default.fileExists(atPath: statusFile.path) }
        screen = try tmuxRun(["capture-pane", "-p"])
        try #require(ended, "bowties did not end after q: \(screen)")
        Thread.sleep(forTimeInterval: 0.2)
        let status = String(decoding: try Data(contentsOf: statusFile), as: UTF8.self)
        #expect(status == "0\n", "exit status \(status)")
        let errors = String(decoding: try Data(contentsOf: errorFile), as: UTF8.self)
        #expect(errors.isEmpty, "\(errors)")
        let after = try workspace.snapshot()
        #expect(after.isByteIdentical(to: before), "\(after.byteDifference(from: before))")
    }

    @Test(
        "photo --output - on a terminal is refused with a hint; piped it writes the bytes",
        .enabled(if: script != nil, "util-linux script is not installed"))
    func photoToTerminal() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let refused = try Self.inTerminal(bowties, ["photo", "R", "--output", "-"])
        #expect(refused.contains("--output FILE"), "\(refused)")
        #expect(!refused.contains("PNG"), "\(refused)")
        let report = try Self.inTerminal(bowties, ["report"])
        #expect(report.contains("--output FILE") && !report.contains("<!DOCTYPE"), "\(report)")
        let piped = try bowties.run("photo", "R", "--output", "-")
        #expect(piped.status == 0 && piped.stdoutData.count == 16_698, "\(piped.status)")
    }

    @Test(
        "the import's progress line never exceeds the terminal's width and is erased at the end",
        .enabled(if: script != nil, "util-linux script is not installed"))
    func progressLine() throws {
        let bowties = try BowTiesRunner()
        let plist = bowties.directory.appendingPathComponent("many.plist")
        let generator = Process()
        generator.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        generator.arguments = [
            "python3", BowTiesRunner.packageURL.appendingPathComponent("bench/gen.py").path, "30000", plist.path,
            "--no-images",
        ]
        generator.standardOutput = FileHandle.nullDevice
        try generator.run()
        generator.waitUntilExit()
        try #require(generator.terminationStatus == 0)
        let output = try Self.inTerminal(bowties, ["import", plist.path], columns: 40)
        #expect(output.contains("added 30000") || output.contains("added 30,000"), "\(output)")
        let draws = output.components(separatedBy: "\r\u{1B}[2K").dropFirst()
        // Every draw holds a line (after the last erasure comes the summary);
        // none is wider than 39 cells.
        let lines = draws.dropLast().map { $0.prefix { $0 != "\r" && $0 != "\n" } }.filter { !$0.isEmpty }
        #expect(!lines.isEmpty, "no progress line was drawn (the import took under 1.5 s?): \(output)")
        for line in lines {
            #expect(line.count <= 39, "\(line.count) columns: \(line)")
        }
        // The last thing before the summary is an erasure.
        let beforeSummary = try #require(output.range(of: "Imported many.plist"))
        #expect(output[..<beforeSummary.lowerBound].hasSuffix("\r\u{1B}[2K"), "\(output)")
    }

    @Test(
        "the progress line follows a resize: cut to the new width from the next draw on",
        .enabled(if: script != nil, "util-linux script is not installed"))
    func progressLineFollowsResize() throws {
        let bowties = try BowTiesRunner()
        let plist = bowties.directory.appendingPathComponent("many.plist")
        let generator = Process()
        generator.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        generator.arguments = [
            "python3", BowTiesRunner.packageURL.appendingPathComponent("bench/gen.py").path, "100000", plist.path,
            "--no-images",
        ]
        generator.standardOutput = FileHandle.nullDevice
        try generator.run()
        generator.waitUntilExit()
        try #require(generator.terminationStatus == 0)
        // 80 columns, then 30 after 3 s: the first draw comes at 1.5 s.
        let (output, status) = try Self.runInTerminal(
            bowties, ["import", plist.path], columns: 80, resize: (columns: 30, after: 3))
        #expect(status == 0, "\(output)")
        let draws = output.components(separatedBy: "\r\u{1B}[2K").dropFirst()
        let lines = draws.dropLast().map { $0.prefix { $0 != "\r" && $0 != "\n" } }.filter { !$0.isEmpty }
        // Wide draws first (the text is longer than 30 columns), then,
        // from the first draw after the resize to the last, narrow ones.
        let wide = try #require(
            lines.firstIndex { $0.count > 29 }, "no draw before the resize (the import took under 3 s?): \(output)")
        let narrow = try #require(
            lines[wide...].firstIndex { $0.count <= 29 },
            "no draw fits 30 columns: the resize was not followed, or the import ended first: \(output)")
        for line in lines[..<narrow] {
            #expect(line.count <= 79, "\(line.count) columns at 80: \(line)")
        }
        for line in lines[narrow...] {
            #expect(line.count <= 29, "\(line.count) columns after the resize to 30: \(line)")
        }
        let beforeSummary = try #require(output.range(of: "Imported many.plist"))
        #expect(output[..<beforeSummary.lowerBound].hasSuffix("\r\u{1B}[2K"), "\(output)")
    }

    @Test("show and tags escape controls and bidi overrides; --json keeps the exact text")
    func escaping() throws {
        let bowties = try BowTiesRunner()
        let name = "Red\u{1B}[31m\nTie\u{202E}X\u{07}"
        let added = try bowties.run("add", "--name", name, "--key", "Q", "--tag", "a\u{202E}b")
        try #require(added.status == 0, "\(added)")
        let show = try bowties.run("show", "Q")
        #expect(show.stdoutLines.first == #"Red\e[31m\nTie\u{202E}X\x07 (Q)"#, "\(show)")
        #expect(show.stdout.contains(#"Tags: a\u{202E}b"#), "\(show)")
        #expect(!show.stdout.contains("\u{1B}"), "\(show)")
        let json = try #require(try bowties.run("show", "Q", "--json").json() as? [String: Any])
        #expect(json["name"] as? String == name)
        let tags = try bowties.run("tags")
        #expect(tags.stdoutLines.contains(#"a\u{202E}b     1"#), "\(tags)")
    }

    @Test("tables pad by display width: wide characters take two cells, combining marks none")
    func displayWidth() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        // 蝶ネクタイ: 5 wide characters, 10 cells; Cre\u{0302}pe: 5 cells; 🎀: 2 cells.
        for tag in ["蝶ネクタイ", "Cre\u{0302}pe", "🎀", "plain"] {
            try #require(try bowties.run("tag", "R", tag).status == 0)
        }
        let tags = try bowties.run("tags")
        let lines = tags.stdoutLines
        #expect(lines.contains("TAG         TIES"), "\(tags)")
        #expect(lines.contains("蝶ネクタイ     1"), "\(tags)")
        #expect(lines.contains("Cre\u{0302}pe          1"), "\(tags)")
        #expect(lines.contains("🎀             1"), "\(tags)")
        #expect(lines.contains("plain          1"), "\(tags)")
    }

    @Test("ratings show at most two decimals; --json keeps the value")
    func ratingDecimals() throws {
        let bowties = try BowTiesRunner()
        try #require(try bowties.run("add", "--name", "Third", "--key", "T", "--rating", "3.333333").status == 0)
        #expect(try bowties.run("show", "T").stdout.contains("Rating: 3.33/5"))
        let json = try #require(try bowties.run("show", "T", "--json").json() as? [String: Any])
        #expect(json["rating"] as? Double == 3.333333)
    }
}
