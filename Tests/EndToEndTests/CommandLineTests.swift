import Foundation
import Testing

/// What every command shares: help, usage errors, finding the store.
@Suite("bowties command line")
struct CommandLineTests {
    @Test(
        "--help of each subcommand exits 0 and says what it does",
        arguments: [
            ("import", "Import bow ties from a property list, JSON, CSV or Core Data store"),
            ("add", "Add a bow tie to the catalog."),
            ("edit", "Change a bow tie's fields in your text editor."),
            ("list", "List the bow ties in the catalog."),
            ("show", "Show every field of one bow tie."),
            ("wear", "Record that you wore a bow tie"),
            ("rate", "Rate a bow tie from 0 to 5"),
            ("favorite", "Mark a bow tie as a favourite"),
            ("photo", "Save, replace or remove a bow tie's photo"),
            ("delete", "Delete the ties a key or a query selects"), ("set", "Change attributes of the ties"),
            ("export", "Export the catalog as CSV"),
            ("report", "Write an HTML page about the catalog"),
            ("count", "Count the bow ties a query selects"),
            ("config", "Show where the catalog is and its settings"),
            ("migrate", "Create or upgrade the catalog's tables"),
            ("model", "Show the object model"),
        ])
    func subcommandHelp(command: String, purpose: String) throws {
        let bowties = try BowTiesRunner()
        let result = try bowties.run(command, "--help")
        #expect(result.status == 0, "\(result)")
        // The overview may wrap: compare without line breaks.
        let text = result.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(text.hasPrefix("OVERVIEW: \(purpose)"), "\(result)")
        #expect(text.contains("USAGE: bowties \(command)"), "\(result)")
        #expect(text.contains("--store <path>"), "\(result)")
        #expect(text.contains("--json"), "\(result)")
        #expect(!FileManager.default.fileExists(atPath: bowties.storeURL.path))
    }

    @Test("bowties --help lists every subcommand and the exit statuses")
    func rootHelp() throws {
        let bowties = try BowTiesRunner()
        let result = try bowties.run("--help")
        #expect(result.status == 0, "\(result)")
        for command in [
            "import", "add", "edit", "set", "list", "show", "wear", "rate", "favorite", "photo", "delete", "export", "count",
            "config",
        ] {
            // A command with an alias is listed as `favorite, favourite`.
            #expect(
                result.stdout.contains("\n  \(command) ") || result.stdout.contains("\n  \(command), "), "\(command)")
        }
        #expect(result.stdout.contains("\n  favorite, favourite "), "\(result)")
        #expect(result.stdout.contains("Exit status: 0 success, 1 no such record, 64 usage error"), "\(result)")
    }

    @Test("--version")
    func version() throws {
        let result = try BowTiesRunner().run("--version")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "0.1.0\n", "\(result)")
    }

    @Test(
        "usage errors exit 64",
        arguments: [
            ["frobnicate"],
            ["show"],
            ["rate", "R"],
            ["show", "R", "--no-such-option"],
            ["photo", "R", "--output", "a", "--set", "b"],
        ])
    func usageErrors(arguments: [String]) throws {
        let bowties = try BowTiesRunner()
        let result = try bowties.run(arguments: arguments)
        #expect(result.status == 64, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        // One voice, whether ArgumentParser or bowties found the mistake.
        #expect(result.stderr.hasPrefix("bowties: error: "), "\(result)")
        #expect(!result.stderr.contains("Error: "), "\(result)")
    }

    @Test(
        "reading a store that does not exist exits 66, with a hint to import",
        arguments: [["list"], ["show", "R"], ["wear", "R"], ["export"], ["config"]])
    func missingStore(arguments: [String]) throws {
        let bowties = try BowTiesRunner()
        let result = try bowties.run(arguments: arguments)
        #expect(result.status == 66, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        #expect(result.stderr.hasPrefix("bowties: error: no catalog at \(bowties.storeURL.path)\n"), "\(result)")
        #expect(result.stderr.contains("\nhint: Create one with `bowties import`"), "\(result)")
        // Reading never creates the store.
        #expect(!FileManager.default.fileExists(atPath: bowties.storeURL.path))
    }

    @Test("without --store or $BOWTIES_STORE the store is under $XDG_DATA_HOME")
    func defaultLocation() throws {
        let bowties = try BowTiesRunner()
        let result = try bowties.run("import", environment: ["BOWTIES_STORE": nil])
        #expect(result.status == 0, "\(result)")
        let expected = bowties.directory.appendingPathComponent("xdg/bowties/catalog.sqlite")
        #expect(result.stdout.contains("into \(expected.path):"), "\(result)")
        #expect(FileManager.default.fileExists(atPath: expected.path))
        #expect(!FileManager.default.fileExists(atPath: bowties.storeURL.path))
    }

    @Test("a file that is not a bowties store exits 74 and is left alone")
    func notAStore() throws {
        let bowties = try BowTiesRunner()
        let text = "just some notes, not a database\n"
        try bowties.write(text, to: "catalog.sqlite")
        let result = try bowties.run("list")
        #expect(result.status == 74, "\(result)")
        #expect(result.stderr.contains("is not a bowties catalog"), "\(result)")
        #expect(try String(contentsOf: bowties.storeURL, encoding: .utf8) == text)
    }

    @Test("--json errors still go to stderr, as text")
    func jsonErrors() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let result = try bowties.run("show", "Q", "--json")
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        #expect(result.stderr.hasPrefix("bowties: error: "), "\(result)")
    }
}
