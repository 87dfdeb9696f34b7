import Foundation
import Testing

/// `bowties edit`, with `$VISUAL` set to small shell scripts that edit
/// the file as a person would.
@Suite("bowties edit")
struct EditCommandTests {
    /// Writes an executable shell script to the runner's folder. The
    /// script gets the file to edit as `$1`; it copies what it was shown
    /// to `shown-N.txt` (N counts the runs, from 1), notes the path in
    /// `paths.txt`, then runs `body` for run N.
    private func editor(_ bowties: BowTiesRunner, runs: [String]) throws -> String {
        var cases = ""
        for (index, body) in runs.enumerated() {
            cases += "  \(index + 1)) \(body) ;;\n"
        }
        let script = try bowties.write(
            """
            #!/bin/sh
            cd "$(dirname "$0")"
            n=$(( $(cat runs.txt 2>/dev/null || echo 0) + 1 ))
            echo "$n" > runs.txt
            cp "$1" "shown-$n.txt"
            echo "$1" >> paths.txt
            case "$n" in
            \(cases)  *) exit 3 ;;
            esac

            """, to: "editor-\(UUID().uuidString).sh")
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        return script.path
    }

    private func runs(_ bowties: BowTiesRunner) -> Int {
        (try? String(contentsOf: bowties.directory.appendingPathComponent("runs.txt"), encoding: .utf8))
            .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 0
    }

    private func shown(_ bowties: BowTiesRunner, _ run: Int) throws -> String {
        try String(contentsOf: bowties.directory.appendingPathComponent("shown-\(run).txt"), encoding: .utf8)
    }

    /// The temporary files the editor was given are gone.
    private func expectTemporaryFilesRemoved(_ bowties: BowTiesRunner) throws {
        let paths = try String(contentsOf: bowties.directory.appendingPathComponent("paths.txt"), encoding: .utf8)
        for path in paths.split(separator: "\n") {
            #expect(!FileManager.default.fileExists(atPath: String(path)), "\(path)")
            #expect(!FileManager.default.fileExists(atPath: (String(path) as NSString).deletingLastPathComponent))
        }
    }

    /// Runs `bowties edit` with its standard streams on a pseudo-terminal
    /// (util-linux `script`), typing `input` (the answers to its
    /// questions); returns what the terminal showed and the exit status.
    private func editInTerminal(_ bowties: BowTiesRunner, _ key: String, visual: String, input: String) throws
        -> (output: String, status: Int32)
    {
        func quoted(_ word: String) -> String { "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let command =
            [try BowTiesRunner.executableURL().path, "edit", key].map(quoted).joined(separator: " ")
            + "; echo \"exit status $?\""
        var variables = bowties.environment
        variables["VISUAL"] = visual
        // A refused text is kept in the temporary folder: the runner's.
        variables["TMPDIR"] = bowties.directory.path
        let answers = try bowties.write(input, to: "answers-\(UUID().uuidString).txt")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(TerminalOutputTests.script))
        process.arguments = ["-qec", command, "/dev/null"]
        process.environment = variables
        process.currentDirectoryURL = bowties.directory
        let output = bowties.directory.appendingPathComponent("terminal-\(UUID().uuidString)")
        try Data().write(to: output)
        let handle = try FileHandle(forWritingTo: output)
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = try FileHandle(forReadingFrom: answers)
        try process.run()
        process.waitUntilExit()
        try handle.close()
        let text = String(decoding: try Data(contentsOf: output), as: UTF8.self)
            .replacingOccurrences(of: "\r\n", with: "\n")
        let last = text.split(separator: "\n").last { $0.hasPrefix("exit status ") }
        let status = last.flatMap { Int32($0.dropFirst("exit status ".count)) } ?? -1
        return (text, status)
    }

    private func show(_ bowties: BowTiesRunner, _ key: String) throws -> [String: Any] {
        let result = try bowties.run("show", key, "--json")
        return try #require(try result.json() as? [String: Any], "\(result)")
    }

    @Test("the text has a line per editable field of the declaration, comments on top")
    func text() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        try #require(try bowties.run("tag", "R", "formal", "red").status == 0)
        let visual = try editor(bowties, runs: ["true"])
        let result = try bowties.run("edit", "R", environment: ["VISUAL": visual])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "No change.\n", "\(result)")
        let text = try shown(bowties, 1)
        #expect(text.hasPrefix("# Editing R \"Classic Red Bow Tie\""), "\(text)")
        let fields = text.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(
            fields == [
                "name: Classic Red Bow Tie", "searchKey: R", "rating: 3.5", "isFavorite: false",
                "url: https://en.wikipedia.org/wiki/Bow_tie", "tintColor: #C81E2D", "tags: formal, red",
            ], "\(text)")
        try expectTemporaryFilesRemoved(bowties)
    }

    @Test("a saved change is validated and applied; derived counts and the photo stay")
    func change() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        #expect(try bowties.run("wear", "R").status == 0)
        let before = try show(bowties, "R")
        let visual = try editor(
            bowties,
            runs: [
                #"sed -i -e 's/^rating: .*/rating: 4.75/' -e 's/^url: .*/url:/' -e 's/^tags:.*/tags: Formal, silk/' -e 's/^name: .*/name: Crimson/' "$1""#
            ])
        let result = try bowties.run("edit", "R", environment: ["VISUAL": visual])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "Edited Crimson (R).\n", "\(result)")
        let after = try show(bowties, "R")
        #expect(after["rating"] as? Double == 4.75)
        #expect(after["name"] as? String == "Crimson")
        #expect(after["url"] is NSNull || after["url"] == nil, "\(after)")
        #expect(after["tags"] as? [String] == ["Formal", "silk"])
        #expect(after["timesWorn"] as? Int == 13)
        #expect(after["lastWorn"] as? String == before["lastWorn"] as? String)
        #expect(
            (after["photo"] as? [String: Any])?["sha256"] as? String
                == (before["photo"] as? [String: Any])?["sha256"] as? String)
        #expect(after["tintColor"] as? String == "#C81E2D")
        try expectTemporaryFilesRemoved(bowties)
    }

    @Test(
        "on a terminal, an error asks, then reopens the text with the error on top; the fixed text is applied",
        .enabled(if: TerminalOutputTests.script != nil, "util-linux script is not installed"))
    func errorThenFix() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let visual = try editor(
            bowties,
            runs: [
                #"sed -i 's/^rating: .*/rating: 7/' "$1""#,
                #"sed -i 's/^rating: .*/rating: 5/' "$1""#,
            ])
        let result = try editInTerminal(bowties, "R", visual: visual, input: "y\n")
        #expect(result.status == 0, "\(result.output)")
        #expect(
            result.output.contains(
                "The edit was refused: rating is too large. (NSValidationNumberTooLargeError 1610; record R \"Classic Red Bow Tie\"; rating = 7)\nEdit again? [Y/n] "
            ), "\(result.output)")
        #expect(result.output.contains("Edited Classic Red Bow Tie (R).\n"), "\(result.output)")
        #expect(runs(bowties) == 2)
        let second = try shown(bowties, 2)
        #expect(
            second.hasPrefix(
                "# ERROR: rating is too large. (NSValidationNumberTooLargeError 1610; record R \"Classic Red Bow Tie\"; rating = 7)\n"
            ), "\(second)")
        // What the user typed is kept, error and all.
        #expect(second.contains("\nrating: 7\n"), "\(second)")
        #expect(try show(bowties, "R")["rating"] as? Double == 5)
        try expectTemporaryFilesRemoved(bowties)
    }

    @Test(
        "quitting without saving after an error abandons the edit: nothing changes, exit 0",
        .enabled(if: TerminalOutputTests.script != nil, "util-linux script is not installed"))
    func errorThenQuit() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let visual = try editor(bowties, runs: [#"sed -i 's/^searchKey: .*/searchKey: O/' "$1""#, "true"])
        let result = try editInTerminal(bowties, "R", visual: visual, input: "\n")
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.hasSuffix("No change.\nexit status 0\n"), "\(result.output)")
        let second = try shown(bowties, 2)
        #expect(
            second.hasPrefix("# ERROR: the search key \"O\" is already used by \"Orange Sherbet\""), "\(second)")
        #expect(try show(bowties, "R")["searchKey"] as? String == "R")
        try expectTemporaryFilesRemoved(bowties)
    }

    @Test(
        "a malformed line is named by its number and reopened",
        .enabled(if: TerminalOutputTests.script != nil, "util-linux script is not installed"))
    func malformedLine() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let visual = try editor(bowties, runs: [#"echo 'colour: blue' >> "$1""#, "true"])
        let result = try editInTerminal(bowties, "R", visual: visual, input: "yes\n")
        #expect(result.status == 0, "\(result.output)")
        let second = try shown(bowties, 2)
        #expect(second.hasPrefix("# ERROR: line "), "\(second)")
        #expect(second.contains("unknown field \"colour\""), "\(second)")
    }

    @Test("a refused edit without a terminal to ask: the error, exit 65, the edited text kept in a file it names")
    func refusedWithoutTerminal() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        // An editor that makes the same mistake every time: before, bowties
        // reopened it for ever, at 100 % of a core.
        bowties.launcher = ["/usr/bin/timeout", "20"]
        let script = try bowties.write("#!/bin/sh\necho 'colour: red' >> \"$1\"\n", to: "append.sh")
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        let before = try bowties.run("export", "--format", "json")
        let result = try bowties.run("edit", "R", environment: ["VISUAL": nil, "EDITOR": script.path])
        #expect(result.status == 65, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(
            lines.first
                == "bowties: error: the edit was refused: line 22: unknown field \"colour\"; "
                + "the fields are name, searchKey, rating, isFavorite, url, tintColor, tags", "\(result)")
        let hint = try #require(lines.dropFirst().first, "\(result)")
        let prefix = "hint: Nothing was changed; your edited text is saved in "
        #expect(hint.hasPrefix(prefix), "\(result)")
        let path = String(hint.dropFirst(prefix.count).prefix { $0 != "," })
        #expect(hint.hasSuffix(", to copy from when you run `bowties edit R` again."), "\(result)")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let kept = try String(contentsOfFile: path, encoding: .utf8)
        #expect(kept.hasPrefix("# ERROR: line 22: unknown field \"colour\""), "\(kept)")
        #expect(kept.hasSuffix("colour: red\n"), "\(kept)")
        // Only the user may read it, as the file the editor had.
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(try bowties.run("export", "--format", "json").stdout == before.stdout)
        #expect(!(try bowties.run("log").stdout.contains("Edit")))
    }

    @Test(
        "on a terminal, a refused edit asks first; no stops with the error and keeps the text",
        .enabled(if: TerminalOutputTests.script != nil, "util-linux script is not installed"))
    func refusedThenDeclined() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let visual = try editor(bowties, runs: [#"echo 'colour: red' >> "$1""#, #"echo 'colour: red' >> "$1""#])
        let result = try editInTerminal(bowties, "R", visual: visual, input: "n\n")
        #expect(result.status == 65, "\(result.output)")
        #expect(runs(bowties) == 1, "\(result.output)")
        #expect(result.output.contains("Edit again? [Y/n] "), "\(result.output)")
        #expect(result.output.contains("bowties: error: the edit was refused: line 22: "), "\(result.output)")
        #expect(result.output.contains("hint: Nothing was changed; your edited text is saved in /"), "\(result.output)")
        #expect(try show(bowties, "R")["name"] as? String == "Classic Red Bow Tie")
        try expectTemporaryFilesRemoved(bowties)
    }

    @Test("an emptied text changes nothing")
    func emptied() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let visual = try editor(bowties, runs: [#": > "$1""#])
        let result = try bowties.run("edit", "R", environment: ["VISUAL": visual])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "No change: the text was empty.\n", "\(result)")
        #expect(try show(bowties, "R")["name"] as? String == "Classic Red Bow Tie")
        try expectTemporaryFilesRemoved(bowties)
    }

    @Test("an editor that fails changes nothing and exits 69; the file is removed")
    func editorFails() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let visual = try editor(bowties, runs: [#"sed -i 's/^rating: .*/rating: 1/' "$1"; exit 2"#])
        let result = try bowties.run("edit", "R", environment: ["VISUAL": visual])
        #expect(result.status == 69, "\(result)")
        #expect(result.stderr.contains("exited with status 2; nothing was changed"), "\(result)")
        #expect(try show(bowties, "R")["rating"] as? Double == 3.5)
        try expectTemporaryFilesRemoved(bowties)
    }

    @Test("SIGTERM while the editor runs: it goes on to the editor, the file is removed, exit 143")
    func terminated() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        // The editor's parent is bowties, or a shell whose parent is.
        let visual = try editor(
            bowties,
            runs: [
                #"sed -i 's/^rating: .*/rating: 1/' "$1"; p=$PPID; [ "$(cat /proc/$p/comm)" = bowties ] || p=$(cut -d' ' -f4 /proc/$p/stat); kill -TERM "$p"; sleep 1"#
            ])
        let result = try bowties.run("edit", "R", environment: ["VISUAL": visual])
        #expect(result.status == 143, "\(result)")
        #expect(result.stderr.contains("signal 15"), "\(result)")
        #expect(try show(bowties, "R")["rating"] as? Double == 3.5)
        try expectTemporaryFilesRemoved(bowties)
    }

    @Test("$EDITOR is used when $VISUAL is not set")
    func editorVariable() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let script = try editor(bowties, runs: [#"sed -i 's/^isFavorite: .*/isFavorite: yes/' "$1""#])
        let result = try bowties.run("edit", "R", environment: ["VISUAL": nil, "EDITOR": "/bin/sh " + script])
        #expect(result.status == 0, "\(result)")
        #expect(try show(bowties, "R")["isFavorite"] as? Bool == true)
    }

    @Test("an unknown key exits 1 without opening the editor")
    func unknownKey() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let visual = try editor(bowties, runs: ["true"])
        let result = try bowties.run("edit", "NOPE", environment: ["VISUAL": visual])
        #expect(result.status == 1, "\(result)")
        #expect(runs(bowties) == 0)
    }

    @Test("--help explains the format")
    func help() throws {
        let result = try BowTiesRunner().run("edit", "--help")
        #expect(result.status == 0, "\(result)")
        let text = result.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(text.hasPrefix("OVERVIEW: Change a bow tie's fields in your text editor."), "\(result)")
        #expect(text.contains("$VISUAL, else $EDITOR, else vi"), "\(result)")
    }
}
