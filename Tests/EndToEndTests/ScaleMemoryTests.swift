import Foundation
import Testing

/// Memory that does not follow the size of the catalog, checked on two
/// sizes small enough for the suite: `bench/run --records 10M` measures
/// the same steps at ten million records (issue 21).
///
/// Each command is measured by its child's `VmHWM` (``MeasuredProcess``)
/// at two sizes, both past the point where what SQLite bounds is full:
/// the 4 MiB page cache an import and an undo take, and the sorter of the
/// undo's report, which keeps up to the cache's size in memory before it
/// spills to a file (the undo's peak grows until about 250,000 ties).
/// Minutes in a debug build: skip it with the other long suites
/// (`--skip "StressTests|CrashTests|ScaleMemoryTests"`) while you work.
@Suite("memory flat with the size of the catalog")
struct ScaleMemoryTests {
    /// `count` generated ties as JSON Lines, keys `P0`, `P1`, ...
    private static func ties(_ count: Int) -> String {
        var text = ""
        text.reserveCapacity(count * 120)
        for index in 0..<count {
            let id = String(format: "%08lX-0000-4000-8000-%012lX", index, index)
            text += "{\"id\": \"\(id)\", \"name\": \"Tie \(index)\", \"searchKey\": \"P\(index)\", \"rating\": 3}\n"
        }
        return text
    }

    /// Imports `count` ties into a new store, then undoes the import;
    /// returns the undo's run.
    private static func undoOfImport(_ count: Int, _ bowties: BowTiesRunner) throws -> MeasuredProcess {
        let file = try bowties.write(ties(count), to: "ties-\(count).jsonl")
        let store = bowties.directory.appendingPathComponent("\(count)/catalog.sqlite").path
        let imported = try bowties.run("import", file.path, "--store", store)
        try #require(imported.status == 0, "\(imported)")
        let undo = try MeasuredProcess.run(
            try BowTiesRunner.executableURL(), ["undo", "--store", store], environment: bowties.environment,
            in: bowties.directory, timeout: 600)
        try #require(undo.status == 0, "exit \(undo.status): \(undo.stderr.prefix(2_000))")
        let thousands = "\(count / 1000),\(String(count % 1000 + 1000).dropFirst())"  // below 1,000,000
        #expect(undo.stdout.hasSuffix(": removed \(thousands) bow ties.\n"), "\(undo.stdout)")
        let left = try bowties.run("count", "--store", store)
        #expect(left.stdout == "0\n", "\(left)")
        return undo
    }

    /// Before, the undo deleted the import's rows with one `DELETE` of
    /// their range, and SQLite first collected every rowid in memory (24
    /// bytes a row, as the tables have triggers and foreign keys): 36 MiB
    /// for 300,000 ties, 52 MiB for a million and 273 MiB for ten million
    /// (release build). Now it deletes 4,096 rows at a time: 33 MiB for a
    /// million.
    @Test("the undo of a large import takes no more memory than the undo of a small one")
    func undoOfAnImportKeepsMemoryFlat() throws {
        let bowties = try BowTiesRunner()
        let small = try Self.undoOfImport(250_000, bowties)
        let large = try Self.undoOfImport(750_000, bowties)
        #expect(
            large.peakMemoryMiB - small.peakMemoryMiB <= 3,
            "undo of 750,000: \(large.peakMemoryMiB) MiB, of 250,000: \(small.peakMemoryMiB) MiB")
    }
}
