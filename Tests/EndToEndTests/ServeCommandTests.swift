import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `bowties serve`: the server on the built binaries, on loopback and a
/// random free port, spoken to as a browser or a script would (curl).
@Suite("bowties serve", .serialized)
struct ServeCommandTests {
    static func sampleWorkspace() throws -> CatalogWorkspace {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        return workspace
    }

    @Test("starts on a free port, prints one line with its address, serves the page and the ties")
    func startsAndServes() throws {
        let workspace = try Self.sampleWorkspace()
        let server = try ServedCatalog(workspace)
        #expect(server.process.stdout == "bowties: serving \(workspace.storeURL.path) at http://127.0.0.1:\(server.port)/\n")
        let page = try server.request("GET", "/")
        #expect(page.status == 200, "\(page)")
        #expect(page.headers["content-type"] == "text/html; charset=utf-8", "\(page)")
        #expect(page.body.contains("<script src=\"/app.js\" defer></script>"), "\(page)")
        #expect(page.headers["content-security-policy"]?.contains("script-src 'self'") == true, "\(page)")
        #expect(page.headers["content-security-policy"]?.contains("unsafe-inline") == false, "\(page)")
        let script = try server.request("GET", "/app.js")
        #expect(script.status == 200 && !script.body.contains("innerHTML"), "\(script.status)")

        let list = try server.request("GET", "/api/ties?sort=key&limit=3&offset=1")
        #expect(list.status == 200, "\(list)")
        let page1 = try #require(try list.json() as? [String: Any], "\(list)")
        let ties = try #require(page1["ties"] as? [[String: Any]], "\(list)")
        #expect(ties.map { $0["key"] as? String } == ["G", "I", "O"], "\(list)")
        #expect(page1["total"] as? Int == 7 && page1["ratingMax"] as? Double == 5, "\(list)")

        let query = try server.request("GET", "/api/ties?q=rating:4..%20sort:searchKey")
        let selected = try #require((try query.json() as? [String: Any])?["ties"] as? [[String: Any]], "\(query)")
        let cli = try workspace.run("list", "rating:4..", "sort:searchKey", "--json")
        let cliTies = try #require(try cli.json() as? [[String: Any]], "\(cli)")
        #expect(selected.map { $0["searchKey"] as? String } == cliTies.map { $0["searchKey"] as? String }, "\(query)")

        let photo = try server.request("GET", "/api/ties/R/photo")
        #expect(photo.status == 200 && photo.headers["content-type"] == "image/png", "\(photo.status) \(photo.headers)")
    }

    @Test("a wear through the API counts once, the CLI sees it, undo names it and reverts it")
    func wearAndUndo() throws {
        let workspace = try Self.sampleWorkspace()
        let server = try ServedCatalog(workspace)
        let wear = try server.request("POST", "/api/ties/R/wear", json: "{}")
        #expect(wear.status == 200, "\(wear)")
        #expect((try wear.json() as? [String: Any])?["timesWorn"] as? Int == 13, "\(wear)")
        #expect(try workspace.timesWorn("R") == 13)

        let state = try server.request("GET", "/api/undo")
        let cliLog = try workspace.run("log")
        let title = try #require((try state.json() as? [String: Any])?["undo"] as? String, "\(state)")
        #expect(title.hasPrefix("Wear ") && title.contains("Classic Red Bow Tie"), "\(state)")
        #expect(cliLog.stdout.contains(title), "\(cliLog)")

        let undo = try server.request("POST", "/api/undo", json: "{}")
        #expect(undo.status == 200, "\(undo)")
        #expect((try undo.json() as? [String: Any])?["action"] as? String == title, "\(undo)")
        #expect(try workspace.timesWorn("R") == 12)
        let redo = try server.request("POST", "/api/redo", json: "{}")
        #expect((try redo.json() as? [String: Any])?["action"] as? String == title, "\(redo)")
        #expect(try workspace.timesWorn("R") == 13)

        let favorite = try server.request("POST", "/api/ties/R/favorite", json: #"{"favorite": true}"#)
        #expect((try favorite.json() as? [String: Any])?["isFavorite"] as? Bool == true, "\(favorite)")
        let tags = try server.request("POST", "/api/ties/R/tags", json: #"{"add": ["silk"]}"#)
        #expect((try tags.json() as? [String: Any])?["tags"] as? [String] == ["silk"], "\(tags)")
        let rate = try server.request("POST", "/api/ties/R/rate", json: #"{"rating": 4}"#)
        #expect((try rate.json() as? [String: Any])?["rating"] as? Double == 4, "\(rate)")
        let history = try server.request("GET", "/api/ties/R/history")
        #expect(((try history.json() as? [String: Any])?["wears"] as? [Any])?.count == 1, "\(history)")
    }

    @Test("errors are JSON with the CLI's words and exit status")
    func errorsAsTheCLISaysThem() throws {
        let workspace = try Self.sampleWorkspace()
        let server = try ServedCatalog(workspace)
        let rate = try server.request("POST", "/api/ties/R/rate", json: #"{"rating": 6}"#)
        let cliRate = try workspace.run("rate", "R", "6")
        #expect(rate.status == 422, "\(rate)")
        #expect(rate.errorCode == "validation", "\(rate)")
        let error = try #require((try rate.json() as? [String: Any])?["error"] as? [String: Any], "\(rate)")
        #expect(error["exitStatus"] as? Int == Int(cliRate.status) && error["field"] as? String == "rating", "\(rate)")
        #expect(cliRate.stderr.hasPrefix("bowties: error: " + (rate.errorMessage ?? "?")), "\(rate) \(cliRate)")
        #expect(rate.errorMessage?.hasPrefix("rating is too large.") == true, "\(rate)")

        let missing = try server.request("POST", "/api/ties/Q/wear", json: "{}")
        let cliMissing = try workspace.run("wear", "Q")
        #expect(missing.status == 404 && missing.errorCode == "noSuchRecord", "\(missing)")
        #expect(cliMissing.stderr.hasPrefix("bowties: error: " + (missing.errorMessage ?? "?")), "\(missing) \(cliMissing)")

        let query = try server.request("GET", "/api/ties?q=rating:x..y")
        #expect(query.status == 400 && query.errorCode == "query", "\(query)")
        let limit = try server.request("GET", "/api/ties?limit=100000")
        #expect(limit.status == 400 && limit.errorMessage == "limit takes a whole number from 1 to 500", "\(limit)")
        #expect(try workspace.timesWorn("R") == 12)
    }

    @Test("a foreign Host, a cross-site POST, a form POST and a large body are refused")
    func refusesWhatIsNotTheOwnPage() throws {
        let workspace = try Self.sampleWorkspace()
        let server = try ServedCatalog(workspace)
        let rebound = try server.request("GET", "/api/ties", headers: ["Host: evil.example:\(server.port)"])
        #expect(rebound.status == 403 && rebound.errorCode == "foreignHost", "\(rebound)")
        let crossSite = try server.request(
            "POST", "/api/ties/R/wear", json: "{}",
            headers: ["Origin: http://evil.example", "Sec-Fetch-Site: cross-site"])
        #expect(crossSite.status == 403 && crossSite.errorCode == "crossSite", "\(crossSite)")
        let foreignOrigin = try server.request("POST", "/api/ties/R/wear", json: "{}", headers: ["Origin: http://evil.example"])
        #expect(foreignOrigin.status == 403, "\(foreignOrigin)")
        let form = try server.request(
            "POST", "/api/ties/R/wear", json: "note=x", headers: ["Content-Type: application/x-www-form-urlencoded"])
        #expect(form.status == 415 && form.errorCode == "notJSON", "\(form)")
        let large = try server.request(
            "POST", "/api/ties/R/wear", json: #"{"note": ""# + String(repeating: "x", count: 20_000) + #""}"#)
        #expect(large.status == 413, "\(large)")
        let sameOrigin = try server.request(
            "POST", "/api/ties/R/wear", json: "{}", headers: ["Origin: \(server.origin)", "Sec-Fetch-Site: same-origin"])
        #expect(sameOrigin.status == 200, "\(sameOrigin)")
        #expect(try workspace.timesWorn("R") == 13)
    }

    @Test("8 API clients and the CLI wearing one tie at once: every wear is counted")
    func concurrentWears() throws {
        let workspace = try Self.sampleWorkspace()
        let server = try ServedCatalog(workspace)
        try server.wearConcurrently(10, environment: workspace.environment)
        #expect(try workspace.timesWorn("R") == 12 + 90)
    }

    @Test("--read-only shows the catalog and refuses every change with 403")
    func readOnly() throws {
        let workspace = try Self.sampleWorkspace()
        let server = try ServedCatalog(workspace, ["--read-only"])
        #expect(try server.request("GET", "/api/ties/R").status == 200)
        for path in ["/api/ties/R/wear", "/api/ties/R/favorite", "/api/undo"] {
            let answer = try server.request("POST", path, json: "{}")
            #expect(answer.status == 403 && answer.errorCode == "readOnly", "\(path): \(answer)")
        }
        #expect(try workspace.timesWorn("R") == 12)
    }

    @Test("beyond loopback the address carries a token, traded once for a strict cookie and a redirect without it")
    func tokenBeyondLoopback() throws {
        let workspace = try Self.sampleWorkspace()
        let server = try ServedCatalog(workspace, ["--host", "0.0.0.0"])
        // No message below shows the token: a secret stays out of test output.
        let token = try #require(server.startURL.split(separator: "=").last.map(String.init), "no token")
        #expect(server.startURL.contains("/?token=") && token.count == 64, "the address has no 64-digit token")
        let without = try server.request("GET", "/api/ties")
        #expect(without.status == 401 && without.errorCode == "tokenRequired", "\(without)")
        let wrong = try server.request("GET", "/api/ties?token=" + String(repeating: "0", count: 64))
        #expect(wrong.status == 401, "\(wrong.status)")
        let with = try server.request("GET", "/?token=" + token)
        #expect(with.status == 303 && with.headers["location"] == "/", "\(with.status)")
        let cookie = with.headers["set-cookie"] ?? ""
        #expect(cookie == "bowties_token=\(token); Path=/; HttpOnly; SameSite=Strict", "not the strict cookie")
        let withCookie = try server.request("GET", "/api/ties", cookies: "bowties_token=\(token)")
        #expect(withCookie.status == 200, "\(withCookie.status)")
        #expect(!server.process.stderr.contains(token))
    }

    @Test("a change by the CLI reaches an open event stream within a second; the CLI never waits; checkpoints complete")
    func liveAndNeverBlocking() throws {
        let workspace = try Self.sampleWorkspace()
        let server = try ServedCatalog(workspace)
        // A page's event stream, open throughout.
        let events = try SpawnedProcess.start(
            URL(fileURLWithPath: "/usr/bin/curl"), ["-s", "-N", "--max-time", "8", server.origin + "/api/events"],
            environment: [:], outputs: workspace.outputDirectory)
        usleep(500_000)
        let started = Date()
        let wear = try workspace.run("wear", "R")
        let wearTime = Date().timeIntervalSince(started)
        #expect(wear.status == 0 && wearTime < 2, "\(wear) in \(wearTime) s")
        var seen: TimeInterval?
        while Date().timeIntervalSince(started) < 3 {
            if events.stdout.contains("event: changed") {
                seen = Date().timeIntervalSince(started)
                break
            }
            usleep(20_000)
        }
        let delay = try #require(seen, "no change event: \(events.stdout)")
        #expect(delay < 1.0, "the change showed after \(delay) s")
        // The poller holds no snapshot: a full checkpoint empties the WAL.
        let connection = try SQLiteConnection(path: workspace.storeURL.path)
        try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        let walSize = (try FileManager.default.attributesOfItem(atPath: workspace.walURL.path)[.size] as? Int) ?? -1
        #expect(walSize == 0, "the WAL holds \(walSize) bytes after a checkpoint")
        events.send(SIGTERM)
        _ = events.wait(timeout: 15)
    }

    @Test("SIGTERM and SIGINT stop it gracefully, with an event stream open", arguments: [SIGTERM, SIGINT])
    func gracefulStop(signal: Int32) throws {
        let workspace = try Self.sampleWorkspace()
        let server = try ServedCatalog(workspace)
        let events = try SpawnedProcess.start(
            URL(fileURLWithPath: "/usr/bin/curl"), ["-s", "-N", "--max-time", "30", server.origin + "/api/events"],
            environment: [:], outputs: workspace.outputDirectory)
        usleep(500_000)
        let started = Date()
        server.process.send(signal)
        let exit = server.process.wait(timeout: 10)
        #expect(exit.status == 0 && exit.signal == nil, "\(exit) \(server.process.stderr)")
        #expect(Date().timeIntervalSince(started) < 5)
        let curl = events.wait(timeout: 10)
        #expect(curl.status == 0, "the event stream did not end cleanly: \(curl)")
        #expect(events.stdout.hasPrefix("retry: 1000"), "\(events.stdout)")
    }

    @Test("without bowties-serve beside it, serve exits 69 and says what is missing")
    func helperMissing() throws {
        let workspace = try Self.sampleWorkspace()
        let lonely = workspace.outputDirectory.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: lonely, withIntermediateDirectories: true)
        let copy = lonely.appendingPathComponent("bowties")
        try FileManager.default.copyItem(at: try BowTiesRunner.executableURL(), to: copy)
        workspace.runner.executable = copy
        let result = try workspace.run("serve", "--port", "0")
        #expect(result.status == 69, "\(result)")
        #expect(
            result.stderr == "bowties: error: bowties serve needs \(lonely.path)/bowties-serve, which is missing\n"
                + "hint: Install both executables together (scripts/install does), or build them with `swift build`.\n",
            "\(result)")
        #expect(result.stdout.isEmpty)
    }

    @Test("bad --port is a usage error")
    func badPort() throws {
        let bowties = try BowTiesRunner()
        let result = try bowties.run("serve", "--port", "70000")
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.hasPrefix("bowties: error: --port takes a number from 0 to 65535"), "\(result)")
    }

    @Test("the everyday bowties binary links no SwiftNIO or Hummingbird")
    func noServerInBowties() throws {
        let binary = try BowTiesRunner.executableURL()
        let output = try ServedCatalog.standardOutput(of: "/usr/bin/nm", [binary.path])
        #expect(output.count > 1000, "nm printed nothing")
        #expect(!output.contains("7NIOCore") && !output.contains("11Hummingbird"), "bowties contains SwiftNIO symbols")
    }
}

extension ServedCatalog {
    /// Runs a program and returns its standard output.
    static func standardOutput(of program: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
