import Foundation
import Testing

/// Help that helps: suggestions for slips, the rule's own message for a
/// negative value, completions and the manual.
@Suite("bowties help, suggestions and completions")
struct HelpCommandTests {
    @Test(
        "an unknown command or help NAME exits 64 and suggests the nearest command",
        arguments: [
            (["lsit"], "unknown command 'lsit'. Did you mean 'list'?"),
            (["shwo", "R"], "unknown command 'shwo'. Did you mean 'show'?"),
            (["--json", "raet", "R", "4"], "unknown command 'raet'. Did you mean 'rate'?"),
            (["xyzzy"], "unknown command 'xyzzy'. Run 'bowties --help'"),
            (["help", "lsit"], "no command named 'lsit'. Did you mean 'list'?"),
            (["help", "nosuch"], "no command named 'nosuch'. Run 'bowties --help'"),
            (["--stor", "x", "list"], "unknown option '--stor'. Did you mean '--store'?"),
        ])
    func unknownNames(arguments: [String], message: String) throws {
        let bowties = try BowTiesRunner()
        let result = try bowties.run(arguments: arguments)
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.hasPrefix("bowties: error: \(message)"), "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
    }

    @Test("help NAME for a command that exists prints its help, exit 0")
    func helpForCommand() throws {
        let result = try BowTiesRunner().run("help", "report")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("OVERVIEW: Write an HTML page about the catalog"), "\(result)")
    }

    @Test("an unknown option after the command suggests the nearest option")
    func unknownOption() throws {
        let result = try BowTiesRunner().run("list", "--sotr", "key")
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.contains("Did you mean '--sort'?"), "\(result)")
    }

    @Test(
        "a negative value reaches the rule that refuses it, not 'Missing value'",
        arguments: [
            (["rate", "R", "-1"], 65, "rating is too small."),
            (["add", "--name", "N", "--key", "N", "--rating", "-0.5"], 65, "rating is too small."),
            (["list", "--wait", "-1"], 64, "--wait takes a number of seconds, 0 or more."),
            (["config", "--photo-threshold", "-5"], 64, "--photo-threshold must be 0 or more bytes."),
            (["report", "--cards", "-2", "--output", "r.html"], 64, "--cards takes a number of cards, 0 or more."),
        ])
    func negativeNumbers(arguments: [String], status: Int32, message: String) throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let result = try bowties.run(arguments: arguments)
        #expect(result.status == status, "\(result)")
        #expect(result.stderr.contains(message), "\(result)")
        #expect(!result.stderr.contains("Missing value"), "\(result)")
    }

    @Test("an unknown plist key close to an attribute warns with the attribute's name")
    func unknownKeySuggestion() throws {
        let bowties = try BowTiesRunner()
        let plist = try bowties.write(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><array><dict>
            <key>name</key><string>Slip</string><key>searchKey</key><string>S</string>
            <key>Rating</key><real>4</real><key>timesworn</key><integer>2</integer>
            <key>fabric</key><string>silk</string>
            </dict></array></plist>
            """, to: "Slip.plist")
        let result = try bowties.run("import", plist.path)
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.contains(#"unknown key "Rating" ignored (did you mean "rating"?)"#), "\(result)")
        #expect(result.stderr.contains(#"unknown key "timesworn" ignored (did you mean "timesWorn"?)"#), "\(result)")
        #expect(result.stderr.contains(#"unknown key "fabric" ignored"#), "\(result)")
        #expect(!result.stderr.contains(#""fabric" ignored (did you mean"#), "\(result)")
    }

    @Test("completion scripts for bash, zsh and fish name every command", arguments: ["bash", "zsh", "fish"])
    func completionScripts(shell: String) throws {
        let result = try BowTiesRunner().run("--generate-completion-script", shell)
        #expect(result.status == 0, "\(result)")
        for command in ["import", "list", "show", "report", "wear"] {
            #expect(result.stdout.contains(command), "\(command) missing from the \(shell) script")
        }
        #expect(result.stdout.contains("---completion"), "no custom completion in the \(shell) script")
    }

    @Test("completing a key offers the catalog's search keys; a query, fields and tags")
    func customCompletion() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        try #require(try bowties.run("tag", "R", "formal").status == 0)
        // What the bash script runs at a Tab after `bowties show `.
        let keys = try bowties.run("---completion", "show", "--", "positional@0", "2", "0", "bowties", "show", "")
        #expect(keys.status == 0, "\(keys)")
        #expect(keys.stdoutLines.filter { !$0.isEmpty } == ["B", "G", "I", "O", "R", "V", "Y"], "\(keys)")
        let terms = try bowties.run("---completion", "list", "--", "positional@0", "2", "3", "bowties", "list", "rat")
        #expect(terms.stdoutLines.contains("rating:"), "\(terms)")
        let tags = try bowties.run("---completion", "list", "--", "positional@0", "2", "4", "bowties", "list", "tag:")
        #expect(tags.stdoutLines.contains("tag:formal"), "\(tags)")
        // No catalog: nothing to offer, and no error.
        let none = try bowties.run(
            "---completion", "show", "--", "positional@0", "2", "0", "bowties", "show", "",
            environment: ["BOWTIES_STORE": bowties.directory.appendingPathComponent("none.sqlite").path])
        #expect(none.status == 0 && none.stderr.isEmpty, "\(none)")
        #expect(!FileManager.default.fileExists(atPath: bowties.directory.appendingPathComponent("none.sqlite").path))
    }
}
