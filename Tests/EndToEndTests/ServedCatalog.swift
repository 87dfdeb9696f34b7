import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `bowties serve --port 0` on a workspace's catalog, started for one test
/// and stopped (SIGTERM) when the value goes away; requests to it go
/// through curl, as a script's would, with any header the test wants
/// (a foreign `Host`, a cross-site `Origin`).
///
/// ```swift
/// let server = try ServedCatalog(workspace)
/// let answer = try server.request("POST", "/api/ties/R/wear", json: "{}")
/// #expect(answer.status == 200)
/// ```
final class ServedCatalog {
    let workspace: CatalogWorkspace
    let process: SpawnedProcess
    /// The address printed at start (with its `?token=` when it has one).
    let startURL: String
    /// `http://127.0.0.1:PORT`.
    let origin: String
    let port: Int

    /// One HTTP answer.
    struct Answer: CustomStringConvertible {
        var status: Int
        /// Header names in lower case.
        var headers: [String: String]
        var body: String

        func json() throws -> Any { try JSONSerialization.jsonObject(with: Data(body.utf8), options: [.fragmentsAllowed]) }
        var errorCode: String? { ((try? json()) as? [String: Any]).flatMap { $0["error"] as? [String: Any] }?["code"] as? String }
        var errorMessage: String? {
            ((try? json()) as? [String: Any]).flatMap { $0["error"] as? [String: Any] }?["message"] as? String
        }
        var description: String { "HTTP \(status) \(headers) \(body.prefix(600))" }
    }

    /// Starts the server and waits (at most 20 s) for its start-up line.
    /// - Parameter environment: Variables to set (or, with nil, remove)
    ///   on top of the workspace's (a PostgreSQL catalog's
    ///   `BOWTIES_STORE` and `PGPASSWORD`).
    init(_ workspace: CatalogWorkspace, _ extra: [String] = [], environment: [String: String?] = [:]) throws {
        self.workspace = workspace
        var variables = workspace.environment
        for (name, value) in environment { variables[name] = value }
        process = try SpawnedProcess.start(
            try BowTiesRunner.executableURL(), ["serve", "--port", "0"] + extra, environment: variables,
            outputs: workspace.runner.directory)
        let deadline = Date().addingTimeInterval(20)
        var line: String?
        while Date() < deadline {
            if let found = process.stdout.split(separator: "\n").first, process.stdout.contains("\n") {
                line = String(found)
                break
            }
            if !process.isRunning { break }
            usleep(20_000)
        }
        let started = try #require(line, "the server did not start: \(process.describe("bowties serve"))")
        let url = try #require(started.split(separator: " ").last.map(String.init), "\(started)")
        startURL = url
        let afterScheme = url.dropFirst("http://".count)
        let hostPort = afterScheme.prefix { $0 != "/" }
        port = try #require(Int(hostPort.split(separator: ":").last ?? ""), "\(started)")
        origin = "http://127.0.0.1:\(port)"
    }

    deinit {
        if process.isRunning {
            process.send(SIGTERM)
            _ = process.wait(timeout: 10)
        }
    }

    /// Sends one request with curl (HTTP/1.1) and reads the whole answer.
    /// - Parameters:
    ///   - json: A body, sent as `Content-Type: application/json` unless
    ///     `headers` names another type.
    ///   - headers: `Name: value` lines (`Host: evil.example`).
    func request(
        _ method: String = "GET", _ path: String, json: String? = nil, headers: [String] = [], cookies: String? = nil,
        timeout: Double = 10
    ) throws -> Answer {
        var arguments = ["-s", "-i", "--http1.1", "-X", method, "--max-time", String(timeout)]
        var headers = headers
        if json != nil, !headers.contains(where: { $0.lowercased().hasPrefix("content-type:") }) {
            headers.append("Content-Type: application/json")
        }
        for header in headers { arguments += ["-H", header] }
        if let cookies { arguments += ["-b", cookies] }
        let bodyURL = workspace.outputDirectory.appendingPathComponent("body-\(UUID().uuidString)")
        if let json {
            try Data(json.utf8).write(to: bodyURL)
            arguments += ["--data-binary", "@" + bodyURL.path]
        }
        defer { try? FileManager.default.removeItem(at: bodyURL) }
        arguments.append(path.hasPrefix("http") ? path : origin + path)
        let output = try Self.curl(arguments)
        return try Self.parse(output)
    }

    static func curl(_ arguments: [String]) throws -> String {
        try standardOutput(of: "/usr/bin/curl", arguments)
    }

    static func parse(_ output: String) throws -> Answer {
        let parts = output.components(separatedBy: "\r\n\r\n")
        let head = try #require(parts.first, "no answer")
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst()
        let status = Int(statusLine.split(separator: " ").dropFirst().first ?? "") ?? 0
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[name] = headers[name].map { $0 + ", " + value } ?? value
        }
        return Answer(status: status, headers: headers, body: parts.dropFirst().joined(separator: "\r\n\r\n"))
    }
}

extension ServedCatalog {
    /// Runs 8 clients of the API and one of the command line at once, each
    /// wearing tie R `wears` times (each stops at its first failure and
    /// says which), and expects every one to succeed.
    func wearConcurrently(_ wears: Int, environment: [String: String]) throws {
        let binary = try BowTiesRunner.executableURL()
        var processes: [Process] = []
        for worker in 0..<9 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            let wear =
                worker < 8
                ? #"curl -sf -X POST -H 'Content-Type: application/json' -d '{}' "$1" >/dev/null"#
                : #""$2" wear R >/dev/null"#
            process.arguments = [
                "-c",
                "i=0; while [ $i -lt \(wears) ]; do \(wear) || { echo \"worker $3: wear $i failed\" >&2; exit 1; }; i=$((i+1)); done",
                "sh", origin + "/api/ties/R/wear", binary.path, String(worker),
            ]
            process.environment = environment
            process.standardInput = FileHandle.nullDevice
            try process.run()
            processes.append(process)
        }
        for process in processes {
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
        }
    }
}
