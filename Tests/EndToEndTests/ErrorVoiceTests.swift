import Foundation
import Testing

/// Every error in one voice: `bowties: error: …`, a `hint:`, exit 64 for
/// the command line, whether bowties or ArgumentParser found the mistake
/// (issue 20, items 8, 9 and 10).
@Suite("one error voice")
struct ErrorVoiceTests {
    /// Runs `arguments` on the sample catalog and checks that it fails
    /// with `message` as bowties' first line, a hint, nothing of
    /// ArgumentParser's own layout, and the catalog unchanged.
    private func expectUsageError(
        _ workspace: CatalogWorkspace, _ arguments: [String], _ message: String, hint: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let before = try workspace.snapshot()
        let result = try workspace.run(arguments: arguments)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(result.status == 64, "\(result)", sourceLocation: sourceLocation)
        #expect(lines.first == "bowties: error: " + message, "\(result)", sourceLocation: sourceLocation)
        #expect(lines.dropFirst().first?.hasPrefix("hint: ") == true, "\(result)", sourceLocation: sourceLocation)
        if let hint {
            #expect(result.stderr.contains(hint), "\(result)", sourceLocation: sourceLocation)
        }
        for foreign in ["Error: ", "Usage: ", "Help: "] {
            #expect(!result.stderr.contains(foreign), "\(result)", sourceLocation: sourceLocation)
        }
        #expect(result.stdout.isEmpty, "\(result)", sourceLocation: sourceLocation)
        let after = try workspace.snapshot()
        #expect(
            after.isByteIdentical(to: before), "\(after.byteDifference(from: before))", sourceLocation: sourceLocation)
    }

    @Test("ArgumentParser's errors are said as bowties says its own, with the command's help as hint")
    func argumentErrors() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        try expectUsageError(
            workspace, ["show"], "missing expected argument '<key>'", hint: "`bowties show --help`")
        try expectUsageError(
            workspace, ["wear", "R", "--on"], "missing value for '--on <date>'", hint: "`bowties wear --help`")
        try expectUsageError(
            workspace, ["photo", "R", "--output", "x.png", "--remove"], "choose one of --output, --set and --remove.",
            hint: "`bowties photo --help`")
        try expectUsageError(
            workspace, ["list", "--color", "sometimes"], "--color takes auto, always or never, not 'sometimes'.")
        try expectUsageError(workspace, ["rate", "R", "4", "5"], "unexpected argument '5'")
        try expectUsageError(
            workspace, ["list", "--format", "bogus"],
            "the value 'bogus' is invalid for '--format <format>': use table, csv, tsv, json, jsonl, plist.")
    }

    @Test("a negative number after an option reaches the option's rule, not \"Missing value\"")
    func negativeOptionValues() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        try expectUsageError(workspace, ["config", "--undo-limit", "-1"], "--undo-limit must be 0 or more.")
        try expectUsageError(workspace, ["log", "--limit", "-3"], "--limit must be 1 or more.")
        try expectUsageError(workspace, ["--json", "log", "--limit", "-3"], "--limit must be 1 or more.")
        // The rule that was already reached stays reached.
        let rated = try workspace.run("rate", "R", "-1")
        #expect(rated.status == 65 && rated.stderr.contains("rating is too small."), "\(rated)")
    }

    @Test("a value that starts with - is the value when it cannot be an option; else the hint says how")
    func dashValues() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let minus = try workspace.run("add", "--name", "-minus", "--key", "M1")
        #expect(minus.status == 0 && minus.stdout.hasPrefix("Added -minus (M1): "), "\(minus)")
        let short = try workspace.run("add", "--key", "M2", "--name", "-m")
        #expect(short.status == 0 && short.stdout.hasPrefix("Added -m (M2): "), "\(short)")
        let note = try workspace.run("wear", "R", "--note", "-ish")
        #expect(note.status == 0, "\(note)")
        let history = try workspace.run("history", "R")
        #expect(history.stdout.contains("-ish"), "\(history)")
        // `--x` and `-h` are options (or look like one): said how to give them.
        try expectUsageError(
            workspace, ["add", "--name", "--x", "--key", "M3"], "missing value for '--name <name>'",
            hint: "A value that starts with '-' goes after '=': --name=--x.")
        try expectUsageError(
            workspace, ["add", "--name", "-h", "--key", "M3"], "missing value for '--name <name>'",
            hint: "--name=-h")
        let attached = try workspace.run("add", "--name=--x", "--key", "M3")
        #expect(attached.status == 0 && attached.stdout.hasPrefix("Added --x (M3): "), "\(attached)")
    }

    @Test("a tag with a comma is refused in words, with its code")
    func tagPatternInWords() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let before = try workspace.snapshot()
        let result = try workspace.run("tag", "R", "a,b")
        #expect(result.status == 65, "\(result)")
        #expect(
            result.stderr.hasPrefix("bowties: error: a tag cannot contain a comma or a control character."), "\(result)"
        )
        #expect(result.stderr.contains("NSValidationStringPatternMatchingError 1680"), "\(result)")
        #expect(!result.stderr.contains("does not match the pattern"), "\(result)")
        let control = try workspace.run("tag", "R", "bell\u{07}")
        #expect(control.status == 65 && control.stderr.contains("cannot contain a comma or a control character"))
        let after = try workspace.snapshot()
        #expect(after.isByteIdentical(to: before), "\(after.byteDifference(from: before))")
    }

    @Test("an unknown option gets the option it begins, a synonym, or a near name; never a far one")
    func optionSuggestions() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        try expectUsageError(workspace, ["list", "--fav"], "unknown option '--fav'. Did you mean '--favorites'?")
        try expectUsageError(workspace, ["delete", "Y", "--force"], "unknown option '--force'. Did you mean '--yes'?")
        try expectUsageError(workspace, ["list", "--sotr", "name"], "unknown option '--sotr'. Did you mean '--sort'?")
        try expectUsageError(
            workspace, ["list", "--colour", "never"], "unknown option '--colour'. Did you mean '--color'?")
        // Nothing near: no suggestion rather than a wrong one.
        try expectUsageError(workspace, ["show", "R", "--verbose"], "unknown option '--verbose'")
    }

    @Test("set with an unknown field suggests the attribute, exit 64 as a query's typo")
    func setFieldSuggestion() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        try expectUsageError(
            workspace, ["set", "R", "ratting=3"], "unknown field \"ratting\"; did you mean \"rating\"?",
            hint: "rating")
        try expectUsageError(
            workspace, ["set", "R", "--unset", "ulr"], "unknown field \"ulr\"; did you mean \"url\"?")
        try expectUsageError(workspace, ["set", "R", "fabric=silk"], "unknown field \"fabric\"")
    }
}
