import Foundation
import Testing

/// A first import builds its indexes after the last record, with a worker
/// thread for SQLite's sorter (`SecondaryIndex.bulkBuildThreads`). Below
/// about 30,000 records every index's keys fit in the builds' 2 MB and are
/// sorted in memory on the importing thread; above, the sorter writes
/// batches out and merges them, and the worker does part of that. What a
/// user sees must be the same on both sides of that line: the ties, a
/// clean `check`, and a repeated id reported at its record, word for word
/// as a small file reports it.
@Suite("A bulk load's index builds when the sort spills")
struct BulkLoadSortTests {
    /// Past the builds' in-memory sort: the id index alone takes about
    /// 60 bytes a key in the sorter, two batches of 2 MB and more.
    static let count = 80_000

    /// `count` ties as JSON Lines; with `repeating`, the last record has
    /// the id of record `repeating`.
    static func jsonLines(repeating: Int? = nil) -> String {
        var text = ""
        text.reserveCapacity(count * 110)
        for number in 1...count {
            let idNumber = number == count ? (repeating ?? number) : number
            let id = "0A1B2C3D-0000-4000-8000-\(String(format: "%012d", idNumber))"
            text += #"{"id":"\#(id)","name":"Tie \#(number)","searchKey":"K\#(number)","rating":\#(number % 6)}"#
            text += "\n"
        }
        return text
    }

    @Test("a first import whose index keys outgrow the sorter's memory stores every tie, and check finds nothing")
    func spilledBuildsAreComplete() throws {
        let workspace = try CatalogWorkspace()
        let file = try workspace.writeInput(Self.jsonLines(), to: "many.jsonl")
        let imported = try workspace.run("import", file.path)
        #expect(imported.status == 0, "\(imported)")
        #expect(imported.stdout.contains("added \(Self.count), updated 0, unchanged 0"), "\(imported)")
        #expect(try workspace.run("count").stdout == "\(Self.count)\n")
        // The indexes answer: by key, by rating.
        #expect(try workspace.run("count", "searchKey:=K40000").stdout == "1\n")
        #expect(try workspace.run("count", "rating:5").stdout == "\(Self.count / 6)\n")
        let check = try workspace.run("check")
        #expect(check.status == 0 && check.stdout.contains("No problems found."), "\(check)")
    }

    @Test("a repeated id found by a spilled build is reported at its record, as in a small file")
    func repeatedIDAfterSpill() throws {
        let workspace = try CatalogWorkspace()
        let file = try workspace.writeInput(Self.jsonLines(repeating: 17), to: "many.jsonl")
        let result = try workspace.run("import", file.path)
        #expect(result.status == 65, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        #expect(
            result.stderr.hasPrefix(
                "bowties: error: many.jsonl:\(Self.count):1: record \(Self.count) (K\(Self.count) \"Tie \(Self.count)\"), id: the id 0A1B2C3D-0000-4000-8000-000000000017 appears more than once in this file\n"
            ), "\(result)")
        #expect(!FileManager.default.fileExists(atPath: workspace.storeURL.path))
    }
}
