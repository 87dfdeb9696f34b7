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

    @Test("an error reopens the text with the error on top; the fixed text is applied")
    func errorThenFix() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let visual = try editor(
            bowties,
            runs: [
                #"sed -i 's/^rating: .*/rating: 7/' "$1""#,
                #"sed -i 's/^rating: .*/rating: 5/' "$1""#,
            ])
        let result = try bowties.run("edit", "R", environment: ["VISUAL": visual])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "Edited Classic Red Bow Tie (R).\n", "\(result)")
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

    @Test("quitting without saving after an error abandons the edit: nothing changes, exit 0")
    func errorThenQuit() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let visual = try editor(bowties, runs: [#"sed -i 's/^searchKey: .*/searchKey: O/' "$1""#, "true"])
        let result = try bowties.run("edit", "R", environment: ["VISUAL": visual])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "No change.\n", "\(result)")
        let second = try shown(bowties, 2)
        #expect(
            second.hasPrefix("# ERROR: the search key \"O\" is already used by \"Orange Sherbet\""), "\(second)")
        #expect(try show(bowties, "R")["searchKey"] as? String == "R")
        try expectTemporaryFilesRemoved(bowties)
    }

    @Test("a malformed line is named by its number and reopened")
    func malformedLine() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let visual = try editor(bowties, runs: [#"echo 'colour: blue' >> "$1""#, "true"])
        let result = try bowties.run("edit", "R", environment: ["VISUAL": visual])
        #expect(result.status == 0, "\(result)")
        let second = try shown(bowties, 2)
        #expect(second.hasPrefix("# ERROR: line "), "\(second)")
        #expect(second.contains("unknown field \"colour\""), "\(second)")
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
