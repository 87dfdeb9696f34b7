import Foundation
import Testing

/// Least privilege on a shared catalog: three roles, made in each test
/// with the README's own GRANT statements (``Roles``). The owner of the
/// database makes and upgrades the tables (`bowties migrate`, or its
/// first write); an everyday role, with SELECT, INSERT, UPDATE and DELETE
/// (and USAGE on the sequences), runs every everyday command and can
/// neither make nor change the tables; a read-only role lists, shows and
/// exports. Passwords reach bowties through `PGPASSWORD` or a `.pgpass`
/// file only, and never appear in what it prints.
@Suite("PostgreSQL roles: owner, everyday, read-only")
struct PostgreSQLRoleTests {
    /// The three roles of the README's "Roles on PostgreSQL", their
    /// passwords, and the database `shop` the owner owns.
    struct Roles {
        let server: PostgreSQLServer
        let bowties: BowTiesRunner
        static let owner = "shop_owner"
        static let everyday = "shop_clerk"
        static let reader = "shop_reader"
        let passwords: [String: String] = Dictionary(
            uniqueKeysWithValues: [owner, everyday, reader].map { ($0, "\($0)-pw-\(UInt32.random(in: 100_000...999_999))") })
        /// The owner's password is in this `.pgpass` file (mode 0600),
        /// the others in `PGPASSWORD`.
        let passFile: URL

        init() throws {
            server = try PostgreSQLServer()
            bowties = try BowTiesRunner()
            passFile = bowties.directory.appendingPathComponent("pgpass")
            for role in [Self.owner, Self.everyday, Self.reader] {
                try server.sql("CREATE ROLE \(role) LOGIN PASSWORD '\(passwords[role] ?? "")'")
            }
            try server.sql("CREATE DATABASE shop OWNER \(Self.owner)")
            try Data("127.0.0.1:\(server.port):shop:\(Self.owner):\(passwords[Self.owner] ?? "")\n".utf8).write(to: passFile)
            chmod(passFile.path, 0o600)
        }

        /// The README's statements, as the owner runs them in `psql`
        /// connected to the database, before `bowties migrate`.
        static let grantsBeforeMigrate = """
            REVOKE ALL ON DATABASE shop FROM PUBLIC;
            GRANT CONNECT, TEMPORARY ON DATABASE shop TO shop_clerk;
            GRANT CONNECT ON DATABASE shop TO shop_reader;
            ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO shop_clerk;
            ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE ON SEQUENCES TO shop_clerk;
            ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO shop_reader;
            """

        /// The README's statements for tables that exist already (a
        /// catalog migrated before the default privileges were set).
        static let grantsAfterMigrate = """
            GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO shop_clerk;
            GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO shop_clerk;
            GRANT SELECT ON ALL TABLES IN SCHEMA public TO shop_reader;
            """

        func address(_ role: String) -> String { server.address(database: "shop", user: role) }

        /// What a client of `role` runs with: its address in
        /// `BOWTIES_STORE`, its password in `PGPASSWORD` (the owner's in
        /// the `.pgpass` file).
        func environment(_ role: String) -> [String: String?] {
            var environment = server.clientEnvironment
            environment["BOWTIES_STORE"] = address(role)
            environment["PGPASSWORD"] = role == Self.owner ? nil : passwords[role]
            environment["PGPASSFILE"] = passFile.path
            return environment
        }

        /// Runs bowties as `role`, and checks that no password is in
        /// what it printed.
        func run(_ role: String, _ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws
            -> BowTiesResult
        {
            let result = try bowties.run(arguments: arguments, environment: environment(role))
            for secret in passwords.values + [PostgreSQLServer.ownerPassword] {
                #expect(
                    !result.stdout.contains(secret) && !result.stderr.contains(secret),
                    "a password in the output of \(arguments)", sourceLocation: sourceLocation)
            }
            return result
        }

        /// The tables of the database's `public` schema.
        func tables() throws -> [String] {
            try server.sql(
                "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1", database: "shop"
            ).split(separator: "\n").map(String.init)
        }

        /// `sql` as `role` through psql (the socket; the server trusts it),
        /// for what bowties does not do: status and output.
        func psql(_ role: String, _ sql: String) throws -> (status: Int32, output: String) {
            try PostgreSQLServer.run([
                server.binDirectory.appendingPathComponent("psql").path, "-X", "-q", "-A", "-t", "-v",
                "ON_ERROR_STOP=1", "-h", server.directory.path, "-p", String(server.port), "-U", role, "-d", "shop",
                "-c", sql,
            ])
        }
    }

    @Test("before the owner migrates: the everyday role's import and migrate are refused (77), nothing is created")
    func everydayCannotCreate() throws {
        let roles = try Roles()
        defer { roles.server.stop() }
        try roles.server.sql(Roles.grantsBeforeMigrate, database: "shop", user: Roles.owner)
        for arguments in [["import", BowTiesRunner.sampleDataURL.path], ["migrate"]] {
            let refused = try roles.run(Roles.everyday, arguments)
            #expect(refused.status == 77, "\(refused)")
            #expect(refused.stdout.isEmpty, "\(refused)")
            #expect(
                refused.stderr
                    == "bowties: error: only the owner of the database at \(roles.address(Roles.everyday)) "
                    + "(role \"shop_owner\") can create the catalog's schema (the database holds no catalog yet); "
                    + "this is role \"shop_clerk\"; nothing was changed\n"
                    + "hint: The owner runs `bowties migrate --store ADDRESS` once (as shop_owner); then every role "
                    + "granted SELECT, INSERT, UPDATE and DELETE on its tables can write.\n",
                "\(refused)")
            #expect(try roles.tables() == [], "nothing created")
        }
        // Commands that change ties, and readers, find no catalog.
        for (role, arguments) in [(Roles.everyday, ["wear", "R"]), (Roles.reader, ["list"])] {
            let none = try roles.run(role, arguments)
            #expect(none.status == 66, "\(none)")
            #expect(
                none.stderr == "bowties: error: no catalog in the database at \(roles.address(role))\n"
                    + "hint: The database's owner creates it: `bowties migrate --store ADDRESS`, or a first `bowties import`.\n",
                "\(none)")
        }
        #expect(try roles.tables() == [], "nothing created")
    }

    @Test("the owner migrates (once: then nothing to do); the everyday role runs every everyday command, as on SQLite")
    func ownerMigratesEverydayWrites() throws {
        let roles = try Roles()
        defer { roles.server.stop() }
        try roles.server.sql(Roles.grantsBeforeMigrate, database: "shop", user: Roles.owner)
        let migrated = try roles.run(Roles.owner, ["migrate"])
        #expect(migrated.status == 0 && migrated.stderr.isEmpty, "\(migrated)")
        #expect(
            migrated.stdout == "Created the catalog's tables at \(roles.address(Roles.owner)) (schema v3).\n", "\(migrated)")
        let again = try roles.run(Roles.owner, ["migrate", "--json"])
        #expect(again.status == 0, "\(again)")
        let report = try #require(try again.json() as? [String: Any], "\(again)")
        #expect(report["before"] as? Int == 3 && report["after"] as? Int == 3, "\(again)")
        #expect((report["applied"] as? [Any])?.isEmpty == true, "\(again)")
        #expect(report["store"] as? String == roles.address(Roles.owner), "\(again)")
        // Nothing to do needs no owner: the everyday role hears the same.
        let clerk = try roles.run(Roles.everyday, ["migrate"])
        #expect(
            clerk.status == 0
                && clerk.stdout == "The catalog at \(roles.address(Roles.everyday)) is up to date (schema v3): nothing to do.\n",
            "\(clerk)")
        let tables = try roles.tables()
        #expect(tables.contains("bowtie") && tables.contains("undo_action"), "\(tables)")
        // Every table is the owner's.
        let owners = try roles.server.sql(
            "SELECT DISTINCT tableowner FROM pg_tables WHERE schemaname = 'public'", database: "shop")
        #expect(owners == "shop_owner\n", "\(owners)")

        // The everyday role's commands print what the same commands print
        // on an SQLite catalog (the catalog's name aside).
        let photo = BowTiesRunner.sampleImagesURL.appendingPathComponent("red.png").path
        let editor = try roles.bowties.write("#!/bin/sh\nsed -i 's/^rating: .*/rating: 1/' \"$1\"\n", to: "editor.sh")
        chmod(editor.path, 0o755)
        try #require(try roles.bowties.run("config", "--photo-threshold", "1000000000").status == 0)
        let updated = try roles.bowties.write(
            "{\"id\": \"0E92A684-9DEA-4E63-889C-6E195150DF6F\", \"name\": \"Orange Sherbet\", \"searchKey\": \"O\", \"rating\": 5}\n",
            to: "update.jsonl")
        for form: [String] in [
            ["import", BowTiesRunner.sampleDataURL.path], ["import", "--dry-run", updated.path],
            ["import", "--update", updated.path], ["wear", "R", "--on", "2026-11-20", "--note", "a wedding"],
            ["wear", "R", "--on", "2026-11-21"], ["unwear", "R"], ["history", "R"], ["rate", "R", "4"],
            ["favorite", "R"], ["tag", "R", "silk"], ["tag", "B", "Silk"], ["untag", "B", "silk"], ["tags"],
            ["set", "Y", "rating=2"], ["add", "--name", "Paisley", "--key", "P", "--rating", "3"],
            ["photo", "P", "--set", photo], ["edit", "Y"], ["delete", "G", "--yes"], ["log"], ["undo"], ["redo"],
            ["undo"], ["config", "--undo-limit", "50"], ["check"], ["check", "--repair"],
            ["show", "R"], ["show", "Y"], ["list"], ["count"], ["export", "--format", "jsonl"],
        ] {
            let sqlite = try roles.bowties.run(arguments: form, environment: ["EDITOR": editor.path, "VISUAL": nil])
            var environment = roles.environment(Roles.everyday)
            environment["EDITOR"] = editor.path
            environment["VISUAL"] = nil
            let postgresql = try roles.bowties.run(arguments: form, environment: environment)
            for secret in roles.passwords.values {
                #expect(!postgresql.stdout.contains(secret) && !postgresql.stderr.contains(secret), "\(form)")
            }
            // Dates, the new tie's id, the catalog's name, and where photos
            // are (SQLite's folder, PostgreSQL's rows; `config` says so) are
            // each run's own.
            func named(_ text: String) -> String {
                text.replacingOccurrences(of: roles.bowties.storeURL.path, with: "CATALOG")
                    .replacingOccurrences(of: roles.address(Roles.everyday), with: "CATALOG")
                    .replacing(/[0-9]{4}-[0-9]{2}-[0-9]{2}[ T][0-9:.]+Z?/, with: "TIME")
                    .replacing(/[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}/, with: "ID")
                    .replacing(/\n7 photos saved[^\n]*/, with: "")
            }
            let which = form.joined(separator: " ")
            #expect(postgresql.status == 0, "\(which): \(postgresql)")
            #expect(sqlite.status == postgresql.status, "\(which)\n\(sqlite)\n\(postgresql)")
            #expect(
                form.first == "config" || named(sqlite.stdout) == named(postgresql.stdout), "\(which)\n\(sqlite)\n\(postgresql)")
            #expect(named(sqlite.stderr) == named(postgresql.stderr), "\(which)\n\(sqlite)\n\(postgresql)")
        }

        // It cannot make or change the tables, nor grant itself more.
        for statement in [
            "CREATE TABLE extra (x integer)", "ALTER TABLE bowtie ADD COLUMN extra integer", "DROP TABLE tag",
            "CREATE INDEX extra ON bowtie (rating)", "DROP TRIGGER bowtie_undo ON bowtie",
            "CREATE FUNCTION extra() RETURNS integer LANGUAGE sql AS 'SELECT 1'",
        ] {
            let refused = try roles.psql(Roles.everyday, statement)
            #expect(refused.status != 0, "\(statement): \(refused.output)")
            #expect(
                refused.output.contains("permission denied") || refused.output.contains("must be owner"),
                "\(statement): \(refused.output)")
        }
        #expect(try roles.tables() == tables, "the tables are as the owner made them")
        // A grant of what it does not hold (it may grant nothing) is a
        // no-op with the server's warning.
        let grant = try roles.psql(Roles.everyday, "GRANT ALL ON bowtie TO shop_reader")
        #expect(grant.output.contains("no privileges were granted"), "\(grant.output)")
        let privileges = try roles.server.sql(
            "SELECT privilege_type FROM information_schema.role_table_grants "
                + "WHERE grantee = 'shop_reader' AND table_name = 'bowtie' ORDER BY 1",
            database: "shop")
        #expect(privileges == "SELECT\n", "\(privileges)")
    }

    @Test("the read-only role lists, shows and exports; its writes are refused (77) naming the privilege, nothing changed")
    func readerReads() throws {
        let roles = try Roles()
        defer { roles.server.stop() }
        // A catalog migrated before any grant: the grants for tables that exist.
        let made = try roles.run(Roles.owner, ["import", BowTiesRunner.sampleDataURL.path])
        #expect(made.status == 0, "\(made)")
        try roles.server.sql(
            Roles.grantsBeforeMigrate + "\n" + Roles.grantsAfterMigrate, database: "shop", user: Roles.owner)
        // SQLite with every photo inline, as a database keeps them.
        try #require(try roles.bowties.run("config", "--photo-threshold", "1000000000").status == 0)
        try roles.bowties.importSampleData()
        for form: [String] in [["list"], ["show", "R"], ["export", "--format", "jsonl"], ["count", "rating:4.."]] {
            let sqlite = try roles.bowties.run(arguments: form)
            let reader = try roles.run(Roles.reader, form)
            #expect(reader.status == 0 && reader.stdout == sqlite.stdout && reader.stderr.isEmpty, "\(form)\n\(reader)")
        }
        for form: [String] in [["history", "R"], ["log"], ["tags"], ["check"], ["report", "--output", "-"], ["config"]] {
            let reader = try roles.run(Roles.reader, form)
            #expect(reader.status == 0 && reader.stderr.isEmpty, "\(form)\n\(reader)")
        }
        let before = try roles.run(Roles.reader, ["export", "--format", "jsonl"])
        for form: [String] in [
            ["wear", "R"], ["rate", "R", "1"], ["tag", "R", "silk"], ["delete", "R", "--yes"],
            ["import", BowTiesRunner.sampleDataURL.path],
        ] {
            let refused = try roles.run(Roles.reader, form)
            #expect(refused.status == 77, "\(form): \(refused)")
            #expect(
                refused.stderr.hasPrefix(
                    "bowties: error: cannot use the catalog at \(roles.address(Roles.reader)): permission denied for table "),
                "\(form): \(refused)")
            #expect(refused.stderr.contains("; nothing was changed\nhint: Ask the database's owner to GRANT"), "\(refused)")
        }
        // Its migrate has nothing to do; the catalog is as it was.
        let migrate = try roles.run(Roles.reader, ["migrate"])
        #expect(migrate.status == 0 && migrate.stdout.hasSuffix("is up to date (schema v3): nothing to do.\n"), "\(migrate)")
        let after = try roles.run(Roles.reader, ["export", "--format", "jsonl"])
        #expect(after.stdout == before.stdout, "nothing changed")
    }
}
