import Foundation
import Testing

/// docs/openapi.yaml against the server's router: every route documented,
/// every documented route served.
@Suite("bowties serve: API document")
struct ServeAPIDocumentTests {
    /// `GET /api/ties/{key}` lines of the document's `paths:`, read by
    /// indentation (two spaces a path, four its methods).
    static func documentedRoutes() throws -> Set<String> {
        let url = BowTiesRunner.packageURL.appendingPathComponent("docs/openapi.yaml")
        let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        var routes: Set<String> = []
        var inPaths = false
        var path: String?
        for line in lines {
            if !line.hasPrefix(" ") && !line.isEmpty { inPaths = line == "paths:" }
            guard inPaths else { continue }
            if line.hasPrefix("  /") && line.hasSuffix(":") && !line.hasPrefix("   ") {
                path = String(line.dropFirst(2).dropLast())
            } else if line.hasPrefix("    ") && !line.hasPrefix("     "), let path {
                let method = line.dropFirst(4).prefix { $0 != ":" }
                if ["get", "post", "put", "patch", "delete"].contains(method) {
                    routes.insert("\(method.uppercased()) \(path)")
                }
            }
        }
        return routes
    }

    @Test("docs/openapi.yaml names exactly the router's routes")
    func documentMatchesRouter() throws {
        let helper = try BowTiesRunner.executableURL().deletingLastPathComponent().appendingPathComponent("bowties-serve")
        let output = try ServedCatalog.standardOutput(of: helper.path, ["--list-routes"])
        let served = Set(
            output.split(separator: "\n").map { line in
                // `:key` in the router is `{key}` in OpenAPI.
                line.split(separator: "/", omittingEmptySubsequences: false).map {
                    $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0)
                }.joined(separator: "/")
            })
        #expect(served.count > 10, "\(output)")
        let documented = try Self.documentedRoutes()
        #expect(served.subtracting(documented).isEmpty, "served but not documented: \(served.subtracting(documented).sorted())")
        #expect(documented.subtracting(served).isEmpty, "documented but not served: \(documented.subtracting(served).sorted())")
    }
}
