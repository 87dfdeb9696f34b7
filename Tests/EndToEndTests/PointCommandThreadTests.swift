import Foundation
import Testing

/// The commands scripts run in loops do their work on the main thread and
/// start no other: not for GRDB's queue, and not at their close, where
/// freeing a `DatabaseQueue` made libdispatch start a worker thread just
/// before the process ended (bench/README.md, "Point commands, session
/// 9"). `strace -f` writes down every `clone` and `clone3` the process
/// and its children make.
@Suite("Point commands start no thread")
struct PointCommandThreadTests {
    /// The `clone`/`clone3` calls strace saw while `form` ran, and the
    /// command's own result.
    static func threads(_ bowties: BowTiesRunner, _ form: [String], environment: [String: String?] = [:]) throws
        -> (result: BowTiesResult, clones: [String])
    {
        let trace = bowties.directory.appendingPathComponent("trace-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: trace) }
        bowties.launcher = ["/usr/bin/strace", "-f", "-qq", "-e", "trace=clone,clone3", "-o", trace.path, "--"]
        defer { bowties.launcher = [] }
        let result = try bowties.run(arguments: form, environment: environment)
        let lines = try String(contentsOf: trace, encoding: .utf8).split(separator: "\n").map(String.init)
        return (result, lines.filter { $0.contains("clone") })
    }

    @Test("show, count, history, the completion of keys, wear, rate and favorite start no thread, and work")
    func noThread() throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/strace"), "strace is not installed (.ci/run installs it)")
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let forms: [(form: [String], output: String)] = [
            (["show", "R"], "Classic Red Bow Tie"),
            (["count", "searchKey:=R"], "1"),
            (["history", "R"], "times worn"),
            // The call bash's script makes at `bowties show R<Tab>`.
            (["---completion", "show", "--", "positional@0", "2", "1", "bowties", "show", "R"], "R"),
            (["wear", "R", "--on", "2026-11-20"], "Classic Red Bow Tie"),
            (["rate", "R", "4"], "Classic Red Bow Tie"),
            (["favorite", "R", "--off"], "Classic Red Bow Tie"),
        ]
        for (form, output) in forms {
            let (result, clones) = try Self.threads(
                bowties, form, environment: ["SAP_SHELL": "bash", "SAP_SHELL_VERSION": "5.2"])
            #expect(result.status == 0 && result.stderr.isEmpty, "\(form): \(result)")
            #expect(result.stdout.contains(output), "\(form): \(result)")
            #expect(clones.isEmpty, "\(form) started threads: \(clones)")
        }
        // What the wear, rating and mark wrote is there for the next command.
        let shown = try bowties.run("show", "R")
        #expect(shown.stdout.contains("Rating: 4/5") && shown.stdout.contains("Favourite: no"), "\(shown)")
        #expect(try bowties.run("history", "R").stdout.contains("2026-11-20"))
    }
}
