import Foundation
import Testing

/// The same commands on an SQLite catalog and on a PostgreSQL one, from
/// the same input: standard output, standard error and status must be the
/// same, byte for byte (less the catalog's name where a command prints it).
@Suite("PostgreSQL prints what SQLite prints")
struct PostgreSQLParityTests {
    /// Two catalogs: the runner's SQLite file and a database of `server`.
    struct Pair {
        let bowties: BowTiesRunner
        let server: PostgreSQLServer
        let address: String

        /// Runs `arguments` on both; returns (sqlite, postgresql).
        func run(_ arguments: [String]) throws -> (BowTiesResult, BowTiesResult) {
            let sqlite = try bowties.run(arguments: arguments)
            var environment = server.clientEnvironment
            environment["BOWTIES_STORE"] = address
            let postgresql = try bowties.run(arguments: arguments, environment: environment)
            return (sqlite, postgresql)
        }

        /// Runs `arguments` on both and expects the same output (the
        /// report's "made … on" time aside, which is each run's own).
        func expectSame(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
            let (sqlite, postgresql) = try run(arguments)
            func timeless(_ text: String) -> String {
                text.replacing(/made by bowties on [0-9: -]+ UTC/, with: "made by bowties on TIME")
            }
            #expect(sqlite.status == postgresql.status, "\(sqlite)\n\(postgresql)", sourceLocation: sourceLocation)
            #expect(
                timeless(sqlite.stdout) == timeless(postgresql.stdout), "\(sqlite)\n\(postgresql)",
                sourceLocation: sourceLocation)
            #expect(sqlite.stderr == postgresql.stderr, "\(sqlite)\n\(postgresql)", sourceLocation: sourceLocation)
        }
    }

    /// The SQLite catalog keeps every photo inline, as a PostgreSQL one
    /// does, so that `show` and exports say the same of each.
    static func pair() throws -> Pair {
        let server = try PostgreSQLServer()
        let bowties = try BowTiesRunner()
        let inline = try bowties.run("config", "--photo-threshold", "1000000000")
        try #require(inline.status == 0, "\(inline)")
        return Pair(bowties: bowties, server: server, address: try server.createDatabase())
    }

    @Test("import of the sample data (XML plist), then list, show, count and the query language, export")
    func readingCommands() throws {
        let pair = try Self.pair()
        defer { pair.server.stop() }
        let (sqlite, postgresql) = try pair.run(["import", BowTiesRunner.sampleDataURL.path])
        #expect(sqlite.status == 0 && postgresql.status == 0, "\(sqlite)\n\(postgresql)")
        #expect(postgresql.stdout.hasPrefix("Imported SampleData.plist into \(pair.address): added 7, updated 0, unchanged 0.\n"))
        for form: [String] in [
            ["list"], ["list", "--sort", "name"], ["list", "--sort", "rating", "--reverse"], ["show", "R"], ["show", "r"],
            ["show", "R", "--json"], ["count"], ["count", "rating:4.."], ["count", "name::^(Classic|Violet)"],
            ["count", "name::(?i)^classic"], ["list", "red"], ["list", "tag:silk"], ["list", "name::Bow"], ["count", "nosuch"], ["show", "nosuch"],
            ["export", "--format", "jsonl"], ["export", "--format", "csv"], ["list", "--format", "json"],
            ["report", "--output", "-"], ["report", "--output", "-", "rating:4.."],
        ] {
            try pair.expectSame(form)
        }
    }

    @Test("wear, history, rate, favorite, tag (ASCII case folding only), set, delete change both alike; JSON Lines import")
    func writingCommands() throws {
        let pair = try Self.pair()
        defer { pair.server.stop() }
        let lines = pair.bowties.directory.appendingPathComponent("ties.jsonl")
        let made = try pair.bowties.run("import", BowTiesRunner.sampleDataURL.path)
        try #require(made.status == 0, "\(made)")
        let exported = try pair.bowties.run("export", "--format", "jsonl", "--output", lines.path)
        try #require(exported.status == 0, "\(exported)")
        try? FileManager.default.removeItem(at: pair.bowties.storeURL)
        try #require(try pair.bowties.run("config", "--photo-threshold", "1000000000").status == 0)
        let (sqlite, postgresql) = try pair.run(["import", lines.path])
        #expect(sqlite.status == 0 && postgresql.status == 0, "\(sqlite)\n\(postgresql)")
        for form: [String] in [
            ["wear", "R", "--on", "2026-11-20"], ["wear", "R", "--on", "2026-11-21", "--note", "a wedding"],
            ["history", "R"], ["rate", "R", "4"], ["favorite", "R"], ["show", "R"], ["list", "--favorites"],
            ["list", "--sort", "timesWorn"], ["export", "--format", "jsonl"], ["count", "timesWorn:2.."],
            ["tag", "R", "silk"], ["tag", "B", "Silk"], ["tag", "Y", "été"], ["tag", "V", "Été"], ["tags"],
            ["list", "tag:SILK"], ["untag", "R", "silk"], ["set", "Y", "rating=2"], ["delete", "G", "--yes"],
            ["unwear", "R"], ["show", "R"], ["export", "--format", "csv"], ["count"],
        ] {
            try pair.expectSame(form)
        }
    }

    @Test("undo, redo and log after wear, rate, tag, delete, an import and an import --update print the same on both")
    func undoCommands() throws {
        let pair = try Self.pair()
        defer { pair.server.stop() }
        // The sample data with every rating raised: an import --update
        // that changes rows the undo then puts back.
        let updated = pair.bowties.directory.appendingPathComponent("updated.plist")
        let sample = try String(contentsOf: BowTiesRunner.sampleDataURL, encoding: .utf8)
        try sample.replacing(/<key>rating<\/key>\s*<real>[0-9.]+<\/real>/, with: "<key>rating</key><real>5</real>")
            .write(to: updated, atomically: true, encoding: .utf8)
        let (sqlite, postgresql) = try pair.run(["import", BowTiesRunner.sampleDataURL.path])
        #expect(sqlite.status == 0 && postgresql.status == 0, "\(sqlite)\n\(postgresql)")
        for form: [String] in [
            ["wear", "R", "--on", "2026-11-20", "--note", "a wedding"], ["rate", "R", "4"], ["tag", "R", "silk"],
            ["tag", "R", "silk"], ["tag", "B", "Silk"], ["delete", "G", "--yes"], ["log"], ["undo"], ["show", "G"],
            ["undo"], ["undo"], ["list", "tag:silk"], ["log"], ["redo"], ["tags"], ["undo", "2"], ["show", "R"],
            ["undo"], ["undo"], ["undo"], ["undo"], ["log", "--json"], ["count"], ["redo"], ["count"],
            ["export", "--format", "jsonl"], ["history", "R"], ["undo", "99"], ["log"],
            ["import", updated.path, "--update"], ["show", "R"], ["undo"], ["show", "R"], ["redo"], ["log"],
        ] {
            let (sqlite, postgresql) = try pair.run(form)
            // `log` shows each action's time to the minute: each run's own;
            // `import` names the catalog it went into.
            func timeless(_ text: String) -> String {
                text.replacing(/[0-9]{4}-[0-9]{2}-[0-9]{2}[ T][0-9:.]+Z?/, with: "TIME")
                    .replacingOccurrences(of: pair.bowties.storeURL.path, with: "CATALOG")
                    .replacingOccurrences(of: pair.address, with: "CATALOG")
            }
            let which = form.joined(separator: " ")
            #expect(sqlite.status == postgresql.status, "\(which)\n\(sqlite)\n\(postgresql)")
            #expect(timeless(sqlite.stdout) == timeless(postgresql.stdout), "\(which)\n\(sqlite)\n\(postgresql)")
            #expect(sqlite.stderr == postgresql.stderr, "\(which)\n\(sqlite)\n\(postgresql)")
        }
    }

    @Test("config: the undo limit as on SQLite; every photo in the database, no threshold (69 to set one); no password")
    func config() throws {
        let pair = try Self.pair()
        defer { pair.server.stop() }
        let (sqlite, postgresql) = try pair.run(["import", BowTiesRunner.sampleDataURL.path])
        #expect(sqlite.status == 0 && postgresql.status == 0, "\(sqlite)\n\(postgresql)")
        var environment = pair.server.clientEnvironment
        environment["BOWTIES_STORE"] = pair.address
        func timeless(_ text: String) -> String { text.replacing(/[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]+/, with: "TIME") }
        for form: [String] in [
            ["wear", "R", "--on", "2026-11-20"], ["rate", "R", "4"], ["tag", "R", "silk"], ["config", "--undo-limit", "2"],
            ["log"], ["undo"], ["undo"], ["undo"], ["config", "--undo-limit", "0"], ["wear", "B"], ["undo"], ["log"],
        ] {
            let (sqlite, postgresql) = try pair.run(form)
            let which = form.joined(separator: " ")
            #expect(sqlite.status == postgresql.status, "\(which)\n\(sqlite)\n\(postgresql)")
            #expect(sqlite.stderr == postgresql.stderr, "\(which)\n\(sqlite)\n\(postgresql)")
            if form.first != "config" {
                #expect(timeless(sqlite.stdout) == timeless(postgresql.stdout), "\(which)\n\(sqlite)\n\(postgresql)")
            }
        }
        let shown = try pair.bowties.run(arguments: ["config"], environment: environment)
        #expect(
            shown.stdout == """
                Catalog: \(pair.address)
                Bow ties: 7
                Photo files: none (every photo is in the catalog)
                Photo threshold: none (every photo is in the catalog)
                Undo history: off

                """, "\(shown)")
        #expect(shown.status == 0 && shown.stderr.isEmpty, "\(shown)")
        let limited = try pair.bowties.run(arguments: ["config", "--undo-limit", "3", "--json"], environment: environment)
        let settings = try #require(
            try JSONSerialization.jsonObject(with: Data(limited.stdout.utf8)) as? [String: Any], "\(limited)")
        #expect(settings["store"] as? String == pair.address)
        #expect(settings["photoFolder"] is NSNull && settings["photoThreshold"] is NSNull, "\(limited)")
        #expect(settings["undoLimit"] as? Int == 3 && settings["bowTies"] as? Int == 7, "\(limited)")
        let threshold = try pair.bowties.run(arguments: ["config", "--photo-threshold", "5"], environment: environment)
        #expect(threshold.status == 69, "\(threshold)")
        #expect(
            threshold.stderr == """
                bowties: error: the catalog at \(pair.address) keeps every photo in its database: it has no photo threshold
                hint: Photos go to files only beside a catalog file (--store PATH).

                """, "\(threshold)")
        #expect(threshold.stdout.isEmpty, "\(threshold)")
        // A password in the address is shown masked.
        let owner = "://\(PostgreSQLServer.owner)"
        var withSecret = environment
        withSecret["BOWTIES_STORE"] = pair.address.replacingOccurrences(
            of: owner + "@", with: owner + ":\(PostgreSQLServer.ownerPassword)@")
        let masked = try pair.bowties.run(arguments: ["config"], environment: withSecret)
        #expect(masked.status == 0, "\(masked)")
        #expect(
            masked.stdout.hasPrefix(
                "Catalog: " + pair.address.replacingOccurrences(of: owner + "@", with: owner + ":***@") + "\n"),
            "\(masked)")
        #expect(!masked.stdout.contains(PostgreSQLServer.ownerPassword), "\(masked)")
    }

    @Test("check and check --repair: what SQLite's say of a sound catalog; a damaged photo re-hashed from the database")
    func check() throws {
        let pair = try Self.pair()
        defer { pair.server.stop() }
        let (sqlite, postgresql) = try pair.run(["import", BowTiesRunner.sampleDataURL.path])
        #expect(sqlite.status == 0 && postgresql.status == 0, "\(sqlite)\n\(postgresql)")
        for form: [String] in [["check"], ["check", "--repair"], ["check", "--json"]] {
            let (sqlite, postgresql) = try pair.run(form)
            let which = form.joined(separator: " ")
            let fromFile = sqlite.stdout.replacingOccurrences(of: pair.bowties.storeURL.path, with: "CATALOG")
            let fromServer = postgresql.stdout.replacingOccurrences(of: pair.address, with: "CATALOG")
            #expect(sqlite.status == postgresql.status, "\(which)\n\(sqlite)\n\(postgresql)")
            #expect(fromFile == fromServer, "\(which)\n\(sqlite)\n\(postgresql)")
            #expect(sqlite.stderr == postgresql.stderr, "\(which)\n\(sqlite)\n\(postgresql)")
        }
        // Scribble over a photo's bytes in the database.
        let database = try #require(pair.address.split(separator: "/").last.map(String.init))
        _ = try pair.server.sql(
            """
            UPDATE blob SET data = convert_to('scribbled over', 'UTF8') \
            WHERE sha256 = (SELECT "photoData_sha256" FROM bowtie WHERE "searchKey" = 'B')
            """, database: database)
        var environment = pair.server.clientEnvironment
        environment["BOWTIES_STORE"] = pair.address
        let found = try pair.bowties.run(arguments: ["check"], environment: environment)
        #expect(found.status == 65, "\(found)")
        #expect(found.stdout.contains("is damaged: its bytes have SHA-256 "), "\(found)")
        #expect(found.stdout.contains("record: B \"Midnight Blue Silk\" (id "), "\(found)")
        #expect(
            found.stderr == """
                bowties: error: the catalog at \(pair.address) has 1 problem
                hint: `bowties check --repair` can repair 1 of them; see `bowties check --help`.

                """, "\(found)")
        let repair = try pair.bowties.run(arguments: ["check", "--repair"], environment: environment)
        #expect(repair.status == 0, "\(repair)")
        #expect(repair.stdoutLines.contains("Repaired 1 problem."), "\(repair)")
        #expect(repair.stdoutLines.contains("A new check finds no problems."), "\(repair)")
        #expect(
            try pair.bowties.run(arguments: ["show", "B"], environment: environment).stdoutLines.contains("Photo: none"))
        let undo = try pair.bowties.run(arguments: ["undo"], environment: environment)
        #expect(undo.status == 0 && undo.stdout.hasPrefix("Undid \"Repair the catalog\""), "\(undo)")
        let again = try pair.bowties.run(arguments: ["check"], environment: environment)
        #expect(again.status == 65 && again.stdout.contains("is damaged"), "\(again)")
    }
}
