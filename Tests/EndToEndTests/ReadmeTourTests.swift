import Foundation
import Testing

// The README's examples are real output, and stay so: the `console`
// blocks of "A tour" and "Undo" are run, command by command, with the
// built binary in a scratch catalog, and what each prints is compared
// with the text under it (issue 20, item 17).
//
// How the README is read:
// - A line `$ bowties …` is a command, run by `/bin/sh -c` (so `| head
//   -2` and a `# comment` work), with `bowties` on `PATH`,
//   `BOWTIES_STORE=/tmp/ties/catalog.sqlite` and `NO_COLOR=1` as the tour
//   says; `/tmp/ties` in a command is the test's own folder. The lines
//   under it, up to the next command, are its standard output and error
//   together, as a terminal shows them (CRLF as a line end).
// - `bowties edit` runs `$VISUAL`: a script that sets `rating: 4.5`, as
//   a person would, so the edit is saved.
// - What changes from run to run is masked on both sides: dates and
//   times (`2026-11-23 14:02`), ids (UUIDs), "12 years ago", and the
//   test's folder, written back as `/tmp/ties`.
// - "A tour" starts from no catalog; "Undo" from a catalog of its own
//   with the sample data just imported, as its `log` shows.

/// When a behaviour the README's tour shows changes, this fails with a
/// diff of that command's output (`-` the README, `+` the binary; dates,
/// ids and ages masked): change the README with the behaviour.
@Suite("README examples")
struct ReadmeTourTests {
    /// One `$ command` of a console block and the output printed under it.
    struct Example {
        var command: String
        var expected: [String]
        /// The README's line number of the command, for the message.
        var line: Int
    }

    /// The `console` blocks of the section headed `## title`, as examples.
    static func examples(inSection title: String) throws -> [Example] {
        let readme = try String(
            contentsOf: BowTiesRunner.packageURL.appendingPathComponent("README.md"), encoding: .utf8)
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let start = try #require(lines.firstIndex(of: "## " + title), "README has no section \"\(title)\"")
        let end = lines[(start + 1)...].firstIndex { $0.hasPrefix("## ") } ?? lines.endIndex
        var examples: [Example] = []
        var inConsole = false
        for index in start..<end {
            let line = lines[index]
            if line.hasPrefix("```") {
                inConsole = !inConsole && line == "```console"
                continue
            }
            guard inConsole else { continue }
            if line.hasPrefix("$ ") {
                examples.append(Example(command: String(line.dropFirst(2)), expected: [], line: index + 1))
            } else if !examples.isEmpty {
                examples[examples.count - 1].expected.append(line)
            }
        }
        return examples
    }

    /// A folder with the catalog's place and an editor script in it, and
    /// the shell that runs the README's commands there.
    final class Tour {
        let runner: BowTiesRunner
        let folder: URL
        let environment: [String: String]

        init() throws {
            runner = try BowTiesRunner()
            folder = runner.directory.appendingPathComponent("ties", isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let editor = try runner.write(
                "#!/bin/sh\nsed -i 's/^rating: 4$/rating: 4.5/' \"$1\"\n", to: "set-rating.sh")
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: editor.path)
            var environment = runner.environment
            let binaryFolder = try BowTiesRunner.executableURL().deletingLastPathComponent().path
            environment["PATH"] = binaryFolder + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
            environment["BOWTIES_STORE"] = folder.appendingPathComponent("catalog.sqlite").path
            environment["BOWTIES_SAMPLE_DATA"] = BowTiesRunner.sampleDataURL.path
            environment["VISUAL"] = editor.path
            environment["EDITOR"] = nil
            environment["PAGER"] = nil
            self.environment = environment
        }

        /// Runs `command` as the README writes it; standard output and
        /// error together, the test's folder written as `/tmp/ties`.
        func run(_ command: String) throws -> [String] {
            let outputURL = runner.directory.appendingPathComponent("output-\(UUID().uuidString)")
            try Data().write(to: outputURL)
            let output = try FileHandle(forWritingTo: outputURL)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", command.replacingOccurrences(of: "/tmp/ties", with: folder.path)]
            process.environment = environment
            process.currentDirectoryURL = folder
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = output
            process.standardError = output
            try process.run()
            process.waitUntilExit()
            try output.close()
            // CRLF (CSV's line end) is one Character to Swift: split needs \n.
            let text = String(decoding: try Data(contentsOf: outputURL), as: UTF8.self)
                .replacingOccurrences(of: "\r\n", with: "\n")
                .replacingOccurrences(of: folder.path, with: "/tmp/ties")
            return text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        }
    }

    /// `lines` with what changes from run to run masked, trailing spaces
    /// and trailing blank lines removed.
    static func masked(_ lines: [String]) -> [String] {
        let masks: [(pattern: String, replacement: String)] = [
            (#"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}"#, "<id>"),
            (#"\d{4}-\d{2}-\d{2}( \d{2}:\d{2}(:\d{2})?)?"#, "<date>"),
            (#"\d+ (year|month|week|day|hour|minute|second)s? ago"#, "<some time> ago"),
        ]
        var result = lines.map { line in
            var line = line
            for (pattern, replacement) in masks {
                line = line.replacingOccurrences(of: pattern, with: replacement, options: .regularExpression)
            }
            while line.last == " " { line.removeLast() }
            return line
        }
        while result.last == "" { result.removeLast() }
        return result
    }

    /// The lines of `expected` and `actual` as a unified diff without
    /// headers: ` ` both, `-` only the README, `+` only the binary.
    static func diff(_ expected: [String], _ actual: [String]) -> String {
        // Longest common subsequence: outputs are a few dozen lines.
        var common = [[Int]](
            repeating: [Int](repeating: 0, count: actual.count + 1), count: expected.count + 1)
        for i in stride(from: expected.count - 1, through: 0, by: -1) {
            for j in stride(from: actual.count - 1, through: 0, by: -1) {
                common[i][j] =
                    expected[i] == actual[j] ? common[i + 1][j + 1] + 1 : max(common[i + 1][j], common[i][j + 1])
            }
        }
        var lines: [String] = []
        var (i, j) = (0, 0)
        while i < expected.count || j < actual.count {
            if i < expected.count, j < actual.count, expected[i] == actual[j] {
                lines.append("  " + expected[i])
                i += 1
                j += 1
            } else if i < expected.count, j == actual.count || common[i + 1][j] >= common[i][j + 1] {
                lines.append("- " + expected[i])
                i += 1
            } else {
                lines.append("+ " + actual[j])
                j += 1
            }
        }
        return lines.joined(separator: "\n")
    }

    /// Runs `examples` in `tour` and records one issue per command whose
    /// output differs from the README's.
    static func check(_ examples: [Example], in tour: Tour, section: String) throws {
        for example in examples {
            let expected = masked(example.expected)
            let actual = masked(try tour.run(example.command))
            guard expected != actual else { continue }
            // The diff alone: the two arrays in full would hide it.
            Issue.record(
                """
                README.md:\(example.line) (\(section)): the output of `\(example.command)` differs \
                (- README, + bowties; dates, ids and ages masked):
                \(diff(expected, actual))
                """)
        }
    }

    @Test("the tour's commands print what the README shows")
    func tour() throws {
        let examples = try Self.examples(inSection: "A tour")
        #expect(examples.count >= 25, "the tour has \(examples.count) commands: is it still read right?")
        try Self.check(examples, in: Tour(), section: "A tour")
    }

    @Test("the Undo section's commands print what the README shows, after an import of the sample data")
    func undo() throws {
        let examples = try Self.examples(inSection: "Undo")
        #expect(examples.count >= 4, "the Undo section has \(examples.count) commands")
        let tour = try Tour()
        let imported = try tour.run("bowties import")
        try #require(imported.first?.hasPrefix("Imported SampleData.plist") == true, "\(imported)")
        try Self.check(examples, in: tour, section: "Undo")
    }

    @Test("the diff in a failure message shows the README's line and the binary's")
    func diffShowsBothSides() {
        let text = Self.diff(["Catalog: x", "Bow ties: 7"], ["Catalog: x", "Bow ties: 7", "Undo history: 100"])
        #expect(text == "  Catalog: x\n  Bow ties: 7\n+ Undo history: 100", "\(text)")
        let changed = Self.diff(["a", "b", "c"], ["a", "B", "c"])
        #expect(changed == "  a\n- b\n+ B\n  c", "\(changed)")
        #expect(Self.masked(["Id: B77AF80E-55E7-4111-B05C-A5641DE4D6B3  "]) == ["Id: <id>"])
        #expect(
            Self.masked(["Last worn: 2014-06-19 18:15:24 UTC (12 years ago)", ""]) == [
                "Last worn: <date> UTC (<some time> ago)"
            ])
    }
}
