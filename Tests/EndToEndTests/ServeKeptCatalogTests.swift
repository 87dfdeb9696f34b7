import Foundation
import Testing

/// `bowties serve` keeps a few read-only catalogs between requests
/// (`CatalogAccess.swift`'s `ReadPool`) instead of opening one for each.
/// What a user sees must not change: each request reads what a catalog
/// opened for it would read, even when the file under the path changed
/// in a way SQLite does not notice on an open connection.
@Suite("bowties serve: read catalogs kept between requests", .serialized)
struct ServeKeptCatalogTests {
    @Test("a catalog removed and imported again at the same path is the one the next request reads")
    func newFileAtTheSamePath() throws {
        let workspace = try ServeCommandTests.sampleWorkspace()
        let server = try ServedCatalog(workspace)
        // Several reads, so that the server keeps a catalog of the first file.
        for _ in 1...3 {
            let show = try server.request("GET", "/api/ties/R")
            #expect((try show.json() as? [String: Any])?["timesWorn"] as? Int == 12, "\(show)")
        }

        // The first file goes (as `rm` would remove it), a new store takes
        // its path, and the command line wears R there three times.
        for url in [workspace.storeURL, workspace.walURL, workspace.shmURL, workspace.lockURL] {
            try? FileManager.default.removeItem(at: url)
        }
        try FileManager.default.removeItem(at: workspace.storeFolder.appendingPathComponent(".catalog_SUPPORT"))
        try workspace.importSampleData()
        for _ in 1...3 { #expect(try workspace.run("wear", "R").status == 0) }

        let show = try server.request("GET", "/api/ties/R")
        #expect(show.status == 200, "\(show)")
        #expect((try show.json() as? [String: Any])?["timesWorn"] as? Int == 15, "\(show)")
        let list = try server.request("GET", "/api/ties?q=R")
        let ties = try #require((try list.json() as? [String: Any])?["ties"] as? [[String: Any]], "\(list)")
        #expect(ties.first { $0["key"] as? String == "R" }?["timesWorn"] as? Int == 15, "\(list)")
        #expect(try workspace.timesWorn("R") == 15)
    }

    @Test("a store a newer release upgraded meanwhile is refused at the next request, in the CLI's words")
    func newerSchemaMeanwhile() throws {
        let workspace = try ServeCommandTests.sampleWorkspace()
        let server = try ServedCatalog(workspace)
        for _ in 1...3 {
            let list = try server.request("GET", "/api/ties?limit=2")
            #expect(list.status == 200, "\(list)")
        }

        try SQLiteLibrary().execute(
            "INSERT INTO grdb_migrations (identifier) VALUES ('v99: from a newer bowties')", in: workspace.storeURL.path)

        let cli = try workspace.run("list")
        #expect(cli.status == 74, "\(cli)")
        for path in ["/api/ties?limit=2", "/api/ties/R"] {
            let answer = try server.request("GET", path)
            #expect(answer.status == 500, "\(answer)")
            let error = try #require((try answer.json() as? [String: Any])?["error"] as? [String: Any], "\(answer)")
            #expect(error["exitStatus"] as? Int == 74, "\(answer)")
            let message = try #require(answer.errorMessage, "\(answer)")
            #expect(message.contains("was written by a newer version of bowties"), "\(answer)")
            #expect(cli.stderr.hasPrefix("bowties: error: " + message), "\(answer) \(cli)")
        }
    }
}
