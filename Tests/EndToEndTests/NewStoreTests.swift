import Foundation
import Testing

/// Creating a store, and undoing the creation when the first import fails,
/// while other commands reach for the same new store.
@Suite("New stores")
struct NewStoreTests {
    /// The sample data with its fifth record's rating set to 7: valid XML,
    /// refused at record 5, after four ties were written.
    static func invalidSample(in bowties: BowTiesRunner) throws -> URL {
        let sample = try String(contentsOf: BowTiesRunner.sampleDataURL, encoding: .utf8)
        let invalid = sample.replacingOccurrences(of: "<real>4.75</real>", with: "<real>7</real>")
        try #require(invalid != sample)
        return try bowties.write(invalid, to: "Invalid.plist")
    }

    @Test("a failed first import leaves nothing behind: no store, no lock file, no folder")
    func failedFirstImportLeavesNothing() throws {
        let bowties = try BowTiesRunner()
        let file = try Self.invalidSample(in: bowties)
        let store = bowties.directory.appendingPathComponent("new/catalog.sqlite")
        let result = try bowties.run(
            "import", file.path, "--images", BowTiesRunner.sampleImagesURL.path, "--store", store.path)
        #expect(result.status == 65, "\(result)")
        #expect(!FileManager.default.fileExists(atPath: store.deletingLastPathComponent().path))
    }

    @Test("a failing first import racing a good one on a new store: the good one always succeeds")
    func failingImportRacingGoodOne() throws {
        let binary = try BowTiesRunner.executableURL()
        for round in 0..<30 {
            let bowties = try BowTiesRunner()
            let invalid = try Self.invalidSample(in: bowties)
            // The store's folder does not exist yet either: both create it.
            let store = bowties.directory.appendingPathComponent("new/catalog.sqlite")
            let runs = [
                ["import", invalid.path, "--images", BowTiesRunner.sampleImagesURL.path],
                ["import", BowTiesRunner.sampleDataURL.path],
            ]
            let processes = try runs.enumerated().map { index, arguments -> (Process, URL) in
                let process = Process()
                process.executableURL = binary
                process.arguments = arguments + ["--store", store.path]
                process.environment = bowties.environment
                process.standardInput = FileHandle.nullDevice
                process.standardOutput = FileHandle.nullDevice
                let errors = bowties.directory.appendingPathComponent("stderr-\(index)")
                try Data().write(to: errors)
                process.standardError = try FileHandle(forWritingTo: errors)
                try process.run()
                return (process, errors)
            }
            for (process, _) in processes { process.waitUntilExit() }
            let stderr = processes.map { (try? String(contentsOf: $0.1, encoding: .utf8)) ?? "" }
            #expect(processes[0].0.terminationStatus == 65, "round \(round): the bad import: \(stderr[0])")
            #expect(processes[1].0.terminationStatus == 0, "round \(round): the good import: \(stderr[1])")
            let list = try bowties.run("list", "--json", "--store", store.path)
            #expect(list.status == 0, "round \(round): \(list)")
            let ties = try? list.json() as? [Any]
            #expect(ties?.count == 7, "round \(round): \(list)")
            let check = try bowties.run("check", "--store", store.path)
            #expect(check.status == 0, "round \(round): \(check)")
        }
    }
}
