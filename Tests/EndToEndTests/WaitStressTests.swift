import Foundation
import Testing

/// 4 processes wearing R 50 times each while a 400,000-record import runs:
/// every wear waits its turn and counts. Slow: the import alone takes
/// about 2.5 minutes in a debug build on 2 cores. Like ``StressTests``,
/// run it on its own (`swift test --filter WaitStressTests`).
@Suite("Stress: writers waiting for a long import")
struct WaitStressTests {
    static let records = 400_000
    static let workers = 4
    static let wearsPerWorker = 50

    @Test("4 processes × 50 wear R during a 400,000-record import: all succeed, exactly 200 wears")
    func wearsDuringALongImport() throws {
        let started = Date()
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let worn = try workspace.timesWorn("R")
        for (index, size) in [300_000, 400_000].enumerated() {
            try workspace.writePhoto("big\(index)", bytes: size, seed: UInt64(30 + index))
        }
        let file = workspace.inputDirectory.appendingPathComponent("Huge.plist")
        try GeneratedPlist.write(
            to: file, records: Self.records, keyPrefix: "H", seed: 9,
            photo: { $0 % 11 == 0 ? "big\($0 * 2 / Self.records)" : nil })
        let generated = Date()

        let importer = try SignalTests.startUnderWay(file, workspace)
        let importStarted = Date()
        let binary = try BowTiesRunner.executableURL()
        // Each worker stops at its first failure and says which.
        let script =
            #"i=0; while [ $i -lt "$2" ]; do "$0" wear R >/dev/null || { echo "worker $1: wear $i failed ($?)" >&2; exit 1; }; i=$((i+1)); done"#
        let wearers = try (0..<Self.workers).map { worker in
            try SpawnedProcess.start(
                URL(fileURLWithPath: "/bin/sh"),
                ["-c", script, binary.path, String(worker), String(Self.wearsPerWorker)],
                environment: workspace.environment, outputs: workspace.runner.directory)
        }
        let importExit = importer.wait(timeout: 600)
        let importDone = Date()
        for wearer in wearers {
            let exit = wearer.wait(timeout: 300)
            #expect(exit.status == 0, "\(wearer.describe("sh"))")
        }
        #expect(importExit.status == 0, "\(importer.describe())")
        #expect(try workspace.timesWorn("R") == worn + Self.workers * Self.wearsPerWorker)
        print(
            "wait stress: \(Self.records) records written in \(String(format: "%.1f", generated.timeIntervalSince(started))) s, "
                + "import ran \(String(format: "%.1f", importDone.timeIntervalSince(importStarted))) s after the wears started, "
                + "total \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
    }
}
