import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `bowties serve` on a catalog in a PostgreSQL database: a server of its
/// own for each test (``PostgreSQLServer``, loopback, a free port), the
/// address in `$BOWTIES_STORE` or `--store`, the password never where
/// `ps` shows it.
@Suite("bowties serve on PostgreSQL", .serialized)
struct ServePostgreSQLTests {
    /// A database with the sample catalog, and the environment that
    /// reaches it (`BOWTIES_STORE`, `PGPASSWORD`).
    static func sampleDatabase(_ database: PostgreSQLServer, _ workspace: CatalogWorkspace) throws
        -> (address: String, environment: [String: String?])
    {
        let address = try database.createDatabase()
        var environment = database.clientEnvironment
        environment["BOWTIES_STORE"] = address
        let imported = try workspace.run(
            arguments: ["import", BowTiesRunner.sampleDataURL.path], environment: environment)
        try #require(imported.status == 0, "\(imported)")
        return (address, environment)
    }

    /// `timesWorn` of `key` as `bowties show --json` reads it.
    static func timesWorn(_ key: String, _ workspace: CatalogWorkspace, _ environment: [String: String?]) throws
        -> Int?
    {
        let show = try workspace.run(arguments: ["show", key, "--json"], environment: environment)
        return (try? show.json() as? [String: Any])?["timesWorn"] as? Int
    }

    /// An open page's event stream (curl -N), for `seconds` at most.
    static func openEvents(_ server: ServedCatalog, seconds: Int = 10) throws -> SpawnedProcess {
        let events = try SpawnedProcess.start(
            URL(fileURLWithPath: "/usr/bin/curl"),
            ["-s", "-N", "--max-time", String(seconds), server.origin + "/api/events"],
            environment: [:], outputs: server.workspace.outputDirectory)
        // Connected once the stream's first line arrived.
        let deadline = Date().addingTimeInterval(5)
        while !events.stdout.contains("retry:") && Date() < deadline { usleep(20_000) }
        return events
    }

    /// How many `event: changed` the stream carried so far.
    static func changes(_ events: SpawnedProcess) -> Int {
        events.stdout.components(separatedBy: "event: changed").count - 1
    }

    /// Waits until the stream carried more than `count` changes, for
    /// `seconds` at most.
    /// - Returns: The seconds it took, or nil.
    static func nextChange(_ events: SpawnedProcess, after count: Int, within seconds: TimeInterval) -> TimeInterval? {
        let started = Date()
        while Date().timeIntervalSince(started) < seconds {
            if changes(events) > count { return Date().timeIntervalSince(started) }
            usleep(10_000)
        }
        return nil
    }

    @Test(
        "serves a PostgreSQL catalog: the page, a wear through the API, a CLI wear live on an open stream; no password in ps"
    )
    func servesAPostgreSQLCatalog() throws {
        let database = try PostgreSQLServer()
        defer { database.stop() }
        let workspace = try CatalogWorkspace()
        let (address, environment) = try Self.sampleDatabase(database, workspace)
        // The password in the address, as a user might give it: the
        // server's own command line must not show it.
        let secret = PostgreSQLServer.ownerPassword
        let withPassword = address.replacingOccurrences(
            of: "//\(PostgreSQLServer.owner)@", with: "//\(PostgreSQLServer.owner):\(secret)@")
        var serverEnvironment = environment
        serverEnvironment["PGPASSWORD"] = nil
        serverEnvironment["BOWTIES_STORE"] = nil
        let server = try ServedCatalog(workspace, ["--store", withPassword], environment: serverEnvironment)
        let masked = withPassword.replacingOccurrences(of: secret, with: "***")
        #expect(
            server.process.stdout == "bowties: serving \(masked) at http://127.0.0.1:\(server.port)/\n",
            "the start-up line is not the masked address")
        let shown = try ServedCatalog.standardOutput(
            of: "/bin/ps", ["-o", "args=", "-p", String(server.process.pid)])
        #expect(
            shown.hasPrefix("bowties-serve"), "ps shows \(shown.replacingOccurrences(of: secret, with: "<password>"))")
        #expect(!shown.contains(secret), "ps shows the password")
        #expect(!shown.contains("postgresql://"), "ps shows the address")

        let page = try server.request("GET", "/")
        #expect(page.status == 200 && page.body.contains("<script src=\"/app.js\" defer></script>"), "\(page)")
        let list = try server.request("GET", "/api/ties?sort=key&limit=3")
        let ties = try #require((try list.json() as? [String: Any])?["ties"] as? [[String: Any]], "\(list)")
        #expect(ties.map { $0["key"] as? String } == ["B", "G", "I"], "\(list)")
        let photo = try server.request("GET", "/api/ties/R/photo")
        #expect(photo.status == 200 && photo.headers["content-type"] == "image/png", "\(photo.status)")

        let wear = try server.request("POST", "/api/ties/R/wear", json: "{}")
        #expect(wear.status == 200, "\(wear)")
        #expect((try wear.json() as? [String: Any])?["timesWorn"] as? Int == 13, "\(wear)")
        #expect(try Self.timesWorn("R", workspace, environment) == 13)

        let events = try Self.openEvents(server)
        let before = Self.changes(events)
        let cli = try workspace.run(arguments: ["wear", "R"], environment: environment)
        #expect(cli.status == 0, "\(cli)")
        let delay = Self.nextChange(events, after: before, within: 3)
        #expect(delay != nil && delay! < 1.0, "the CLI's wear showed after \(delay.map { "\($0) s" } ?? "never")")
        let answer = try server.request("GET", "/api/ties/R")
        #expect((try answer.json() as? [String: Any])?["timesWorn"] as? Int == 14, "\(answer)")
        #expect(!server.process.stdout.contains(secret) && !server.process.stderr.contains(secret))
        events.send(SIGTERM)
        _ = events.wait(timeout: 10)
    }

    @Test(
        "only the catalog's own commits wake a page, whoever makes them; the waiting server sends the database nothing")
    func notifiedByTheStoresTriggers() throws {
        let database = try PostgreSQLServer()
        defer { database.stop() }
        let workspace = try CatalogWorkspace()
        let (_, environment) = try Self.sampleDatabase(database, workspace)
        let server = try ServedCatalog(workspace, environment: environment)
        let events = try Self.openEvents(server, seconds: 20)
        let name = "catalog1"

        // Unrelated writes: a table of another application in the same
        // database, another database on the server, a change rolled back.
        try database.sql("CREATE TABLE elsewhere (x integer)", database: name)
        try database.sql("INSERT INTO elsewhere VALUES (1)", database: name)
        try database.sql("CREATE TABLE elsewhere (x integer)")
        try database.sql("INSERT INTO elsewhere VALUES (1)")
        try database.sql(
            "BEGIN; UPDATE bowtie SET rating = 1 WHERE \"searchKey\" = 'R'; ROLLBACK", database: name)
        #expect(
            Self.nextChange(events, after: 0, within: 1.5) == nil, "an unrelated write woke the page: \(events.stdout)")

        // While nothing changes, the watcher's one connection sends no
        // statement: the last it sent is its LISTEN, and it stays so.
        let activity = """
            SELECT query_start || ' ' || state || ' ' || query FROM pg_stat_activity \
            WHERE datname = '\(name)' AND backend_type = 'client backend' AND pid <> pg_backend_pid() ORDER BY pid
            """
        let before = try database.sql(activity)
        #expect(before.hasSuffix("idle LISTEN \"bowties_changed\"\n"), "the server's connections: \(before)")
        usleep(1_500_000)
        #expect(try database.sql(activity) == before, "the waiting server sent the database a statement")

        // A change by psql, through the store's own triggers.
        try database.sql("UPDATE bowtie SET rating = 4 WHERE \"searchKey\" = 'R'", database: name)
        let delay = Self.nextChange(events, after: 0, within: 3)
        #expect(delay != nil && delay! < 1.0, "psql's change showed after \(delay.map { "\($0) s" } ?? "never")")
        let answer = try server.request("GET", "/api/ties/R")
        #expect((try answer.json() as? [String: Any])?["rating"] as? Double == 4, "\(answer)")
        // A wear through the API: one commit, one event (its statements
        // are folded into one notification).
        let seen = Self.changes(events)
        #expect(try server.request("POST", "/api/ties/R/wear", json: "{}").status == 200)
        #expect(Self.nextChange(events, after: seen, within: 2) != nil, "the API's wear did not reach the stream")
        usleep(600_000)
        #expect(Self.changes(events) == seen + 1, "one wear, \(Self.changes(events) - seen) events")
        events.send(SIGTERM)
        _ = events.wait(timeout: 10)
    }

    @Test(
        "on PostgreSQL, every order walked forward and back by keyset is `bowties list`'s order (NULL sorts last there)"
    )
    func keysetPagingOnPostgreSQL() throws {
        let database = try PostgreSQLServer()
        defer { database.stop() }
        let workspace = try CatalogWorkspace()
        let (_, environment) = try Self.sampleDatabase(database, workspace)
        try ServePagingTests.importPagingTies(workspace, environment: environment)
        let server = try ServedCatalog(workspace, environment: environment)
        try ServePagingTests.walkEveryOrder(server, environment: environment)
    }

    @Test("8 API clients and the CLI wearing one tie at once on PostgreSQL: every wear is counted")
    func concurrentWearsOnPostgreSQL() throws {
        let database = try PostgreSQLServer()
        defer { database.stop() }
        let workspace = try CatalogWorkspace()
        let (_, environment) = try Self.sampleDatabase(database, workspace)
        let server = try ServedCatalog(workspace, environment: environment)
        var variables = workspace.environment
        for (name, value) in environment { variables[name] = value }
        try server.wearConcurrently(5, environment: variables)
        #expect(try Self.timesWorn("R", workspace, environment) == 12 + 45)
    }
}
