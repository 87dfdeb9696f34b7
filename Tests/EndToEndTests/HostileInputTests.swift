import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Hostile inputs to `bowties import`, each with the outcome
/// `Fixtures/Hostile/manifest.json` documents: the exit status, a located
/// message with its code, the store's rows and files unchanged, no secret
/// leaked, and the child's peak memory under a bound.
@Suite("Hostile inputs to import")
struct HostileInputTests {
    @Test(
        "A hostile input gets its documented outcome and changes nothing else",
        arguments: try HostileCorpus.cases())
    func hostileInput(_ hostile: HostileCase) throws {
        let workspace = try HostileWorkspace()
        try workspace.importSampleData()
        let input = try workspace.materialise(hostile)
        let before = try StoreSnapshot(storeURL: workspace.storeURL)

        let started = Date()
        let run = try workspace.importMeasured(input, arguments: hostile.arguments ?? [])
        let seconds = Date().timeIntervalSince(started)
        let exchange = Self.describe(run, hostile)
        Self.report(hostile, run, seconds: seconds)

        #expect(!run.timedOut, "the import hung and was killed\n\(exchange)")
        #expect(run.signal == nil, "the import died of signal \(run.signal ?? 0)\n\(exchange)")
        #expect(run.status == hostile.status, "\(exchange)")
        checkOutput(run, hostile, exchange)

        let limit = hostile.memoryLimitMiB ?? 100
        #expect(run.peakMemoryKiB > 0, "the child's memory was never sampled\n\(exchange)")
        #expect(
            run.peakMemoryMiB < limit,
            "peak RSS \(String(format: "%.1f", run.peakMemoryMiB)) MiB, bound \(limit) MiB\n\(exchange)")

        // Compared first, so that a failure prints the difference rather
        // than both snapshots whole.
        let after = try StoreSnapshot(storeURL: workspace.storeURL)
        let sameFiles = after.files == before.files
        let sameRows = after.rows == before.rows
        #expect(sameFiles, "files beside the store changed:\n\(after.difference(from: before))")
        if hostile.storeChanges == true {
            #expect(!sameRows, "an accepted input left the store as it was\n\(exchange)")
        } else {
            #expect(sameRows, "the store changed:\n\(after.difference(from: before))")
        }

        var outputs = [run.stdout, run.stderr]
        for check in hostile.after ?? [] {
            let result = try workspace.runner.run(arguments: check.arguments + ["--store", workspace.storeURL.path])
            outputs += [result.stdout, result.stderr]
            #expect(result.status == check.status ?? 0, "\(result)")
            for fragment in check.stdout ?? [] {
                #expect(result.stdout.contains(fragment), "stdout lacks \(fragment)\n\(result)")
            }
            for fragment in check.stderr ?? [] {
                #expect(result.stderr.contains(fragment), "stderr lacks \(fragment)\n\(result)")
            }
        }
        try checkSecretStaysPut(workspace, outputs: outputs)
    }

    @Test("The manifest names every committed fixture once, and every case once")
    func manifestCoversTheFixtures() throws {
        let manifest = try HostileCorpus.manifest()
        let names = manifest.cases.map(\.name)
        #expect(Set(names).count == names.count, "duplicate case names")

        let fixtures = try FileManager.default.contentsOfDirectory(atPath: try HostileCorpus.folderURL().path)
            .filter { name in
                name != "manifest.json" && [".plist", ".json", ".jsonl", ".csv", ".tsv", ".sqlite"].contains(where: name.hasSuffix)
            }
        let used = manifest.cases.compactMap(\.fixture)
        #expect(Set(fixtures) == Set(used), "fixtures without a case or cases without a fixture")
        for hostile in manifest.cases {
            let inputs = [hostile.fixture != nil, hostile.records != nil, hostile.generate != nil]
            #expect(inputs.filter { $0 }.count == 1, "\(hostile.name): give exactly one of fixture, records, generate")
            #expect(hostile.status == 0 || hostile.code != nil, "\(hostile.name): an error needs its code")
            if let code = hostile.code {
                #expect(CodeCheck.matches(code, stderr: "") != nil, "\(hostile.name): unknown code \(code)")
            }
        }
    }

    // MARK: - Checks

    /// Standard output and error: located, coded, bounded, and nothing but
    /// bowties' own lines (libxml2 must never print).
    private func checkOutput(_ run: MeasuredProcess, _ hostile: HostileCase, _ exchange: String) {
        let stderr = run.stderr
        let lines = stderr.split(separator: "\n").map(String.init)
        if hostile.status == 0 {
            for line in lines {
                #expect(line.hasPrefix("bowties: warning: "), "unexpected standard error line \(line)\n\(exchange)")
            }
        } else {
            #expect(run.stdout.isEmpty, "\(exchange)")
            let prefix = "bowties: error: " + (hostile.location ?? "")
            #expect(stderr.hasPrefix(prefix), "expected the error to start with \(prefix)\n\(exchange)")
            for line in lines.dropFirst() {
                #expect(
                    line.hasPrefix("  - ") || line.hasPrefix("hint: "),
                    "unexpected standard error line \(line.prefix(200))\n\(exchange)")
            }
        }
        if let record = hostile.record {
            let expected = record + (hostile.field.map { ", \($0): " } ?? ": ")
            #expect(stderr.contains(expected), "expected \(expected)\n\(exchange)")
        } else if let field = hostile.field {
            #expect(stderr.contains(field), "expected the field \(field)\n\(exchange)")
        }
        if let code = hostile.code {
            #expect(CodeCheck.matches(code, stderr: stderr) == true, "expected code \(code)\n\(exchange)")
        }
        for fragment in hostile.message ?? [] {
            #expect(stderr.contains(fragment), "standard error lacks \(fragment)\n\(exchange)")
        }
        for fragment in hostile.stdout ?? [] {
            #expect(run.stdout.contains(fragment), "standard output lacks \(fragment)\n\(exchange)")
        }
        let maximum = hostile.maxStderrBytes ?? 4096
        #expect(run.stderrData.count <= maximum, "\(run.stderrData.count) bytes on standard error\n\(exchange)")
    }

    /// The secret that hostile entities, XIncludes and symbolic links aim
    /// at appears in no output and in no file beside the store.
    private func checkSecretStaysPut(_ workspace: HostileWorkspace, outputs: [String]) throws {
        for output in outputs {
            #expect(!output.contains(workspace.secret), "the secret leaked into the output")
        }
        let folder = workspace.storeURL.deletingLastPathComponent()
        let secret = Data(workspace.secret.utf8)
        let enumerator = FileManager.default.enumerator(atPath: folder.path)
        while let path = enumerator?.nextObject() as? String {
            guard let bytes = try? Data(contentsOf: folder.appendingPathComponent(path)) else { continue }
            #expect(bytes.range(of: secret) == nil, "the secret is in \(path)")
        }
    }

    /// The exchange, shortened, for failure messages.
    private static func describe(_ run: MeasuredProcess, _ hostile: HostileCase) -> String {
        func shortened(_ text: String) -> String {
            text.count > 2_000 ? String(text.prefix(2_000)) + "... (\(text.utf8.count) bytes)" : text
        }
        return """
            case \(hostile.name): exit \(run.status), peak RSS \(String(format: "%.1f", run.peakMemoryMiB)) MiB
            --- stdout
            \(shortened(run.stdout))--- stderr
            \(shortened(run.stderr))
            """
    }

    /// With `BOWTIES_HOSTILE_REPORT=FILE`, appends one line per case to
    /// FILE: name, exit status, peak RSS in MiB, `ru_maxrss` in MiB (an
    /// upper bound, see ``MeasuredProcess``), seconds. How the figures in a
    /// review are measured; nothing is written otherwise.
    private static func report(_ hostile: HostileCase, _ run: MeasuredProcess, seconds: TimeInterval) {
        guard let path = ProcessInfo.processInfo.environment["BOWTIES_HOSTILE_REPORT"] else { return }
        // O_APPEND: cases run in parallel, and each short line lands whole.
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        let line =
            "\(hostile.name)\t\(run.status)\t\(String(format: "%.1f", run.peakMemoryMiB))\t"
            + "\(String(format: "%.1f", Double(run.rusageMaxRSSKiB) / 1024))\t\(String(format: "%.2f", seconds))\n"
        _ = line.withCString { write(descriptor, $0, strlen($0)) }
    }
}
