import Foundation
import Testing

/// Schema v3 on PostgreSQL: a tie's photo is checked once per statement
/// (triggers over transition tables) where v1–v2 had a foreign key
/// checked row by row. What a user sees must not change: a tie naming a
/// photo the catalog does not hold is refused with the words and status of
/// the key, and a catalog an earlier bowties made (v2, `Fixtures/
/// PostgreSQL/v2-sample.sql`) reads as it is and is upgraded once, by its
/// owner's first write.
@Suite("PostgreSQL: the photo's reference")
struct PostgreSQLPhotoReferenceTests {
    /// The error v2's foreign key gave (bowties 1acaf80 on a v2 catalog:
    /// delete a tie, remove its photo's row behind bowties' back, undo).
    static func refusal(_ address: String) -> String {
        """
        bowties: error: catalog error at \(address): insert or update on table "bowtie" violates foreign key \
        constraint "bowtie_photoData_sha256_fkey"

        """
    }

    /// Runs psql on `database` over the server's socket; its status and
    /// output (errors included).
    static func psql(_ server: PostgreSQLServer, _ database: String, _ arguments: [String]) throws -> (
        status: Int32, output: String
    ) {
        try PostgreSQLServer.run(
            [
                server.binDirectory.appendingPathComponent("psql").path, "-X", "-q", "-A", "-t",
                "-v", "ON_ERROR_STOP=1", "-h", server.directory.path, "-p", String(server.port),
                "-U", PostgreSQLServer.owner, "-d", database,
            ] + arguments)
    }

    /// Deletes B (its photo stays for the undo history), removes that
    /// photo's row as another client may, and undoes the delete: the tie
    /// would come back naming a photo that is gone.
    static func undoNamingAMissingPhoto(
        _ bowties: BowTiesRunner, _ server: PostgreSQLServer, _ address: String, _ database: String
    ) throws -> BowTiesResult {
        let environment = server.clientEnvironment
        let deleted = try bowties.run(arguments: ["delete", "B", "--yes", "--store", address], environment: environment)
        #expect(deleted.status == 0, "\(deleted)")
        let removed = try psql(
            server, database,
            ["-c", #"DELETE FROM blob WHERE sha256 NOT IN (SELECT "photoData_sha256" FROM bowtie WHERE "photoData_sha256" IS NOT NULL)"#])
        #expect(removed.status == 0, "\(removed.output)")
        return try bowties.run(arguments: ["undo", "--store", address], environment: environment)
    }

    @Test("a tie naming a photo the catalog does not hold: refused as the foreign key refused it (74), nothing changed")
    func missingPhotoRefused() throws {
        let server = try PostgreSQLServer()
        defer { server.stop() }
        let bowties = try BowTiesRunner()
        let address = try server.createDatabase()
        let database = "catalog1"
        let imported = try bowties.run(
            arguments: ["import", BowTiesRunner.sampleDataURL.path, "--store", address], environment: server.clientEnvironment)
        #expect(imported.status == 0, "\(imported)")
        let undo = try Self.undoNamingAMissingPhoto(bowties, server, address, database)
        #expect(undo.status == 74, "\(undo)")
        #expect(undo.stderr == Self.refusal(address), "\(undo)")
        #expect(undo.stdout.isEmpty, "\(undo)")
        let show = try bowties.run(arguments: ["show", "B", "--store", address], environment: server.clientEnvironment)
        #expect(show.status != 0 && show.stderr.contains("no bow tie"), "\(show)")
        let count = try bowties.run(arguments: ["count", "--store", address], environment: server.clientEnvironment)
        #expect(count.stdout == "6\n", "\(count)")

        // Other clients meet the key's words and SQLSTATE too, both ways.
        let named = try Self.psql(
            server, database, ["-c", #"UPDATE bowtie SET "photoData_sha256" = 'nope' WHERE "searchKey" = 'R'"#])
        #expect(named.status != 0, "\(named.output)")
        #expect(
            named.output.contains(
                """
                ERROR:  insert or update on table "bowtie" violates foreign key constraint "bowtie_photoData_sha256_fkey"
                DETAIL:  Key (photoData_sha256)=(nope) is not present in table "blob".
                """), "\(named.output)")
        let taken = try Self.psql(
            server, database,
            ["-c", #"DELETE FROM blob WHERE sha256 = (SELECT "photoData_sha256" FROM bowtie WHERE "searchKey" = 'R')"#])
        #expect(taken.status != 0, "\(taken.output)")
        #expect(
            taken.output.contains(
                #"ERROR:  update or delete on table "blob" violates foreign key constraint "bowtie_photoData_sha256_fkey" on table "bowtie""#
            ), "\(taken.output)")
        let state = try Self.psql(server, database, ["-c", #"\set VERBOSITY verbose"#, "-c", "DELETE FROM blob"])
        #expect(state.output.contains("ERROR:  23503:"), "\(state.output)")
        // A COPY of ties (as the import sends them) is judged once for the
        // statement, and refused whole.
        let copied = try Self.psql(
            server, database,
            [
                "-c",
                #"CREATE TEMP TABLE t AS SELECT * FROM bowtie LIMIT 0; INSERT INTO t (id, name, "photoData_sha256") VALUES ('A-1', 'a', (SELECT min("photoData_sha256") FROM bowtie)), ('A-2', 'b', 'gone'); INSERT INTO bowtie (id, name, "photoData_sha256") SELECT id, name, "photoData_sha256" FROM t"#,
            ])
        #expect(copied.status != 0 && copied.output.contains("Key (photoData_sha256)=(gone)"), "\(copied.output)")
        #expect(try server.sql("SELECT count(*) FROM bowtie", database: database) == "6\n")

        // check compares the triggers with the declaration: one set aside
        // is a difference.
        try server.sql(#"ALTER TABLE bowtie DISABLE TRIGGER "bowtie_photoData_sha256_insert""#, database: database)
        let check = try bowties.run(arguments: ["check", "--store", address], environment: server.clientEnvironment)
        #expect(check.status != 0, "\(check)")
        #expect(check.stdout.contains("bowtie_photoData_sha256_insert"), "\(check)")
    }

    @Test("under concurrent writers: a photo's delete waits for a tie being written, and the later of the two is refused")
    func concurrentWriters() throws {
        let server = try PostgreSQLServer()
        defer { server.stop() }
        let bowties = try BowTiesRunner()
        let address = try server.createDatabase()
        let database = "catalog1"
        let made = try bowties.run(arguments: ["migrate", "--store", address], environment: server.clientEnvironment)
        #expect(made.status == 0, "\(made)")
        try server.sql(
            #"INSERT INTO blob (sha256, "byteCount", external, data) VALUES ('X1', 1, false, '\x00'), ('X2', 1, false, '\x00')"#,
            database: database)
        /// Runs `first` (a transaction that holds its change for a second)
        /// in the background and `second` meanwhile; the second's output.
        func race(_ first: String, _ second: String) throws -> (status: Int32, output: String) {
            let holder = Process()
            holder.executableURL = server.binDirectory.appendingPathComponent("psql")
            holder.arguments = [
                "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", server.directory.path, "-p", String(server.port),
                "-U", PostgreSQLServer.owner, "-d", database, "-c", "BEGIN", "-c", first, "-c", "SELECT pg_sleep(1.5)",
                "-c", "COMMIT",
            ]
            holder.standardOutput = FileHandle.nullDevice
            holder.standardError = FileHandle.nullDevice
            try holder.run()
            defer { holder.waitUntilExit() }
            usleep(500_000)
            return try Self.psql(server, database, ["-c", second])
        }
        // A tie written first: the photo's delete waits for its commit,
        // then sees it, and is refused.
        let delete = try race(
            #"INSERT INTO bowtie (id, name, "photoData_sha256") VALUES ('C-1', 'one', 'X1')"#,
            "DELETE FROM blob WHERE sha256 = 'X1'")
        #expect(delete.status != 0 && delete.output.contains(#"update or delete on table "blob""#), "\(delete.output)")
        // A photo deleted first: the tie's lock waits for that commit, then
        // finds the photo gone, and the tie is refused.
        let insert = try race(
            "DELETE FROM blob WHERE sha256 = 'X2'",
            #"INSERT INTO bowtie (id, name, "photoData_sha256") VALUES ('C-2', 'two', 'X2')"#)
        #expect(insert.status != 0 && insert.output.contains("Key (photoData_sha256)=(X2) is not present"), "\(insert.output)")
        #expect(try server.sql(#"SELECT id || ' ' || "photoData_sha256" FROM bowtie"#, database: database) == "C-1 X1\n")
        #expect(try server.sql("SELECT string_agg(sha256, ',') FROM blob", database: database) == "X1\n")
    }

    @Test("a v2 catalog reads as it is; its owner's first write upgrades it to v3, once; then a missing photo is refused")
    func olderCatalogUpgrades() throws {
        let server = try PostgreSQLServer()
        defer { server.stop() }
        let bowties = try BowTiesRunner()
        let address = try server.createDatabase()
        let database = "catalog1"
        let dump = try #require(
            Bundle.module.url(forResource: "v2-sample", withExtension: "sql", subdirectory: "Fixtures/PostgreSQL"))
        let restored = try Self.psql(server, database, ["-f", dump.path])
        #expect(restored.status == 0, "\(restored.output)")
        let environment = server.clientEnvironment
        func migrations() throws -> String {
            try server.sql(#"SELECT string_agg(left(identifier, 2), ',' ORDER BY identifier) FROM bowties_migration"#, database: database)
        }
        #expect(try migrations() == "v1,v2\n")

        // Reads: the v2 schema as it is.
        let list = try bowties.run(arguments: ["list", "--store", address], environment: environment)
        #expect(list.status == 0, "\(list)")
        #expect(
            list.stdout == """
                KEY  NAME                       RATING  WORN  LAST WORN   FAV  COLOUR
                R    Classic Red Bow Tie           3.5    13  2026-11-20       #C81E2D
                O    Orange Sherbet                  4     3  2014-05-03       #F08214
                Y    Yellow Submarine Self-Tie     0.5     0  2013-11-28       #F5CD28
                G    Green & Gold Paisley         2.25     7  2014-06-02       #289646
                B    Midnight Blue Silk           4.75    21  2014-06-21  *    #1E5AC8
                I    Indigo Crêpe                 3.75     1  2014-02-14       #4B0082
                V    Violet Velvet                1.25     5  2014-04-01       #8C3CD2

                7 bow ties, 1 favourite

                """, "\(list)")
        for read in [["show", "R"], ["tags"], ["export", "--format", "jsonl"], ["log"]] {
            let result = try bowties.run(arguments: read + ["--store", address], environment: environment)
            #expect(result.status == 0 && result.stderr.isEmpty, "\(result)")
        }
        #expect(try migrations() == "v1,v2\n")
        #expect(
            try server.sql("SELECT count(*) FROM pg_constraint WHERE conname = 'bowtie_photoData_sha256_fkey'", database: database)
                == "1\n")

        // The owner's first write upgrades it, in the write's transaction.
        let wear = try bowties.run(arguments: ["wear", "R", "--on", "2026-11-21", "--store", address], environment: environment)
        #expect(wear.status == 0, "\(wear)")
        #expect(wear.stdout == "Wore Classic Red Bow Tie (R) on 2026-11-21: 14 times so far.\n", "\(wear)")
        #expect(try migrations() == "v1,v2,v3\n")
        #expect(
            try server.sql("SELECT count(*) FROM pg_constraint WHERE conname = 'bowtie_photoData_sha256_fkey'", database: database)
                == "0\n")
        let check = try bowties.run(arguments: ["check", "--store", address], environment: environment)
        #expect(check.status == 0, "\(check)")
        // Once: the next write finds it current.
        let again = try bowties.run(arguments: ["wear", "R", "--on", "2026-11-22", "--store", address], environment: environment)
        #expect(again.status == 0, "\(again)")
        #expect(try migrations() == "v1,v2,v3\n")

        let undo = try Self.undoNamingAMissingPhoto(bowties, server, address, database)
        #expect(undo.status == 74, "\(undo)")
        #expect(undo.stderr == Self.refusal(address), "\(undo)")
    }
}
