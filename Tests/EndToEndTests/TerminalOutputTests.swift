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
    static func inTerminal(
        _ bowties: BowTiesRunner, _ arguments: [String], environment: [String: String?] = [:], columns: Int = 100
    ) throws -> String {
        func quoted(_ word: String) -> String { "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let command =
            "stty cols \(columns) rows 50; exec "
            + ([try BowTiesRunner.executableURL().path] + arguments).map(quoted).joined(separator: " ")
        var variables = bowties.environment
        variables["NO_COLOR"] = nil
        variables["TERM"] = "xterm-256color"
        variables["COLORTERM"] = nil
        variables["PAGER"] = nil
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
        return String(decoding: try Data(contentsOf: output), as: UTF8.self).replacingOccurrences(
            of: "\r\n", with: "\n")
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
