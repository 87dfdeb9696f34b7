import Foundation
import Testing

/// What one run of the `bowties` binary produced.
struct BowTiesResult: CustomStringConvertible {
    var arguments: [String]
    var status: Int32
    var stdoutData: Data
    var stderrData: Data
    /// The signal that killed it (then ``status`` is the signal's number,
    /// as `Process` reports it); nil when it exited.
    var signal: Int32? = nil

    var stdout: String { String(decoding: stdoutData, as: UTF8.self) }
    var stderr: String { String(decoding: stderrData, as: UTF8.self) }
    var stdoutLines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }

    /// Parses standard output as JSON (`--json`).
    func json() throws -> Any {
        try JSONSerialization.jsonObject(with: stdoutData)
    }

    /// Shown by `#expect` when a check fails: the whole exchange.
    var description: String {
        "bowties \(arguments.joined(separator: " ")) -> \(signal.map { "killed by signal \($0)" } ?? "exit \(status)")\n--- stdout\n\(stdout)--- stderr\n\(stderr)"
    }
}

/// Runs the built `bowties` binary against a store of its own, in a
/// temporary folder that goes away with the runner.
///
/// ```swift
/// let bowties = try BowTiesRunner()
/// try bowties.importSampleData()
/// let result = try bowties.run("show", "R")
/// #expect(result.status == 0)
/// ```
///
/// The child gets `BOWTIES_STORE` (the runner's store), `NO_COLOR=1` and
/// `XDG_DATA_HOME` inside the folder, so no test touches a real catalog.
/// Standard output and error go to files, not pipes: a child that writes a
/// lot can never block on a full pipe.
///
/// Not `Sendable`: one test, one runner.
final class BowTiesRunner {
    /// The temporary folder: the store, fixtures and outputs live here.
    let directory: URL
    /// `catalog.sqlite` in ``directory``.
    let storeURL: URL
    /// `.catalog_SUPPORT/_EXTERNAL_DATA` beside the store.
    var externalDataURL: URL {
        directory.appendingPathComponent(".catalog_SUPPORT/_EXTERNAL_DATA", isDirectory: true)
    }

    /// A program and its arguments that run the binary instead of running
    /// it directly: `setpriv ... --` to run as another user, `/bin/sh -c
    /// 'ulimit ...; exec "$0" "$@"'` for a limit. The binary's path and
    /// the arguments follow. Empty: the binary runs directly.
    var launcher: [String] = []
    /// The binary to run, when not the one SwiftPM built (a copy).
    var executable: URL?

    init() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("bowties-e2e-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        storeURL = directory.appendingPathComponent("catalog.sqlite")
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    /// The environment of every child: this process's, minus anything that
    /// could point at another store, plus the runner's store.
    var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["BOWTIES_SAMPLE_DATA"] = nil
        environment["BOWTIES_STORE"] = storeURL.path
        environment["XDG_DATA_HOME"] = directory.appendingPathComponent("xdg").path
        environment["NO_COLOR"] = "1"
        return environment
    }

    /// Runs `bowties` with `arguments` and waits for it.
    ///
    /// - Parameter environment: Variables to set (or, with nil, remove)
    ///   on top of ``environment``.
    @discardableResult
    func run(_ arguments: String..., environment overrides: [String: String?] = [:]) throws -> BowTiesResult {
        try run(arguments: arguments, environment: overrides)
    }

    /// - Parameter input: A file to give as standard input (default: none).
    @discardableResult
    func run(arguments: [String], environment overrides: [String: String?] = [:], input: URL? = nil) throws
        -> BowTiesResult
    {
        let id = UUID().uuidString
        let stdoutURL = directory.appendingPathComponent(".stdout-\(id)")
        let stderrURL = directory.appendingPathComponent(".stderr-\(id)")
        defer {
            try? FileManager.default.removeItem(at: stdoutURL)
            try? FileManager.default.removeItem(at: stderrURL)
        }
        try Data().write(to: stdoutURL)
        try Data().write(to: stderrURL)
        let stdoutHandle = try FileHandle(forWritingTo: stdoutURL)
        let stderrHandle = try FileHandle(forWritingTo: stderrURL)

        var environment = self.environment
        for (name, value) in overrides { environment[name] = value }
        let process = Process()
        if let program = launcher.first {
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = launcher.dropFirst() + [try executable ?? Self.executableURL()].map(\.path) + arguments
        } else {
            process.executableURL = try executable ?? Self.executableURL()
            process.arguments = arguments
        }
        process.environment = environment
        process.currentDirectoryURL = directory
        let inputHandle = try input.map { try FileHandle(forReadingFrom: $0) }
        defer { try? inputHandle?.close() }
        process.standardInput = inputHandle ?? FileHandle.nullDevice
        process.standardOutput = stdoutHandle
        process.standardError = stderrHandle
        try process.run()
        process.waitUntilExit()
        try stdoutHandle.close()
        try stderrHandle.close()

        return BowTiesResult(
            arguments: arguments, status: process.terminationStatus,
            stdoutData: try Data(contentsOf: stdoutURL), stderrData: try Data(contentsOf: stderrURL),
            signal: process.terminationReason == .uncaughtSignal ? process.terminationStatus : nil)
    }

    /// Imports `SampleData/SampleData.plist` and checks that it worked.
    func importSampleData() throws {
        let result = try run("import", Self.sampleDataURL.path)
        try #require(result.status == 0, "\(result)")
    }

    /// Writes `text` to a file in ``directory``.
    @discardableResult
    func write(_ text: String, to name: String) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url
    }

    /// Regular files under `.catalog_SUPPORT` (external photos and any
    /// temporary file left behind), by name.
    func supportFiles() -> [String] {
        let support = directory.appendingPathComponent(".catalog_SUPPORT")
        guard let enumerator = FileManager.default.enumerator(atPath: support.path) else { return [] }
        var files: [String] = []
        while let path = enumerator.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(
                atPath: support.appendingPathComponent(path).path, isDirectory: &isDirectory),
                !isDirectory.boolValue
            {
                files.append((path as NSString).lastPathComponent)
            }
        }
        return files.sorted()
    }

    // MARK: - Locations

    /// The package folder: `Tests/EndToEndTests/` is two levels below it.
    static let packageURL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let sampleDataURL = packageURL.appendingPathComponent("SampleData/SampleData.plist")
    static let sampleImagesURL = packageURL.appendingPathComponent("SampleData/Images", isDirectory: true)

    /// The `bowties` binary that SwiftPM built with the tests.
    ///
    /// As swift-argument-parser's example tests do: on Linux the test
    /// bundle runs from the products folder, so `Bundle.main.bundleURL`
    /// is that folder (`.build/debug` or a `--scratch-path` one). Failing
    /// that, the package's `.build/debug/bowties`.
    ///
    /// `$BOWTIES_BIN`, when set, names another binary to test instead (a
    /// release build, or one built from another branch), as for
    /// `.ci/e2e.sh`.
    static func executableURL() throws -> URL {
        if let path = ProcessInfo.processInfo.environment["BOWTIES_BIN"], !path.isEmpty {
            return URL(fileURLWithPath: path, relativeTo: packageURL).standardizedFileURL
        }
        let candidates = [
            Bundle.main.bundleURL.appendingPathComponent("bowties"),
            packageURL.appendingPathComponent(".build/debug/bowties"),
        ]
        for candidate in candidates where FileManager.default.isExecutableFile(atPath: candidate.path) {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue
            {
                return candidate
            }
        }
        throw LocatingError(candidates: candidates.map(\.path))
    }

    struct LocatingError: Error, CustomStringConvertible {
        var candidates: [String]
        var description: String {
            "the bowties binary was not found (tried \(candidates.joined(separator: ", "))); run `swift build` first"
        }
    }
}

/// Today's date in UTC, `YYYY-MM-DD`, as `show` and `list` print it.
func todayUTC(_ date: Date = Date()) -> String {
    let formatter = ISO8601DateFormatter()
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.formatOptions = [.withFullDate]
    return formatter.string(from: date)
}
