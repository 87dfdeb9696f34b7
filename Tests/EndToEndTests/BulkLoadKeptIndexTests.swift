import Foundation
import Testing

/// A first import drops most lookup indexes and builds them after the last
/// record, but keeps the photo's, whose keys are few
/// (`SecondaryIndex.staysDuringBulkLoad`), and fills it as rows go in
/// (bench/README.md, "Import, session 13"). The catalog must end the same
/// either way: the indexes the declaration asks for, a clean `check`, the
/// photo's index answering whether a photo is still used, and pages in
/// rating order that hold every tie, as in a catalog whose indexes were
/// there all along.
@Suite("A bulk load's kept indexes")
struct BulkLoadKeptIndexTests {
    @Test("a first import fills the photo's index as it goes, builds the others after: check is clean, and they answer as always")
    func keptIndexesAreComplete() throws {
        // The bulk load: the sample data (photos, ratings) into a new catalog.
        let bulk = try CatalogWorkspace()
        try bulk.importSampleData()

        // The same ties where every index is there throughout: a tie
        // first, then the sample data, then that tie deleted.
        let stocked = try CatalogWorkspace()
        let other = try stocked.writeInput(
            #"{"id":"0A1B2C3D-0000-4000-8000-0000000000FF","name":"Other","searchKey":"Z","rating":3}"# + "\n",
            to: "other.jsonl")
        try #require(try stocked.run("import", other.path).status == 0)
        let imported = try stocked.run("import", BowTiesRunner.sampleDataURL.path)
        try #require(imported.status == 0, "\(imported)")
        let deleted = try stocked.run("delete", "Z", "--yes")
        try #require(deleted.status == 0, "\(deleted)")

        for workspace in [bulk, stocked] {
            let check = try workspace.run("check")
            #expect(check.status == 0 && check.stdout.contains("No problems found."), "\(check)")
        }
        func indexes(_ workspace: CatalogWorkspace) throws -> [String] {
            try SQLiteLibrary().dump(workspace.storeURL.path).filter {
                $0.hasPrefix("sqlite_master: ") && $0.contains("INDEX ")
            }
        }
        let kept = try indexes(bulk)
        #expect(kept == (try indexes(stocked)))
        #expect(kept.contains { $0.contains("CREATE INDEX bowtie_rating ON ") }, "\(kept)")
        #expect(kept.contains { $0.contains("CREATE INDEX bowtie_photoData_sha256 ON ") }, "\(kept)")

        // A page in rating order reads the rating's index: every tie, in
        // the same order.
        let byRating = try bulk.run("list", "--sort", "rating", "--reverse")
        #expect(byRating.status == 0, "\(byRating)")
        #expect(byRating.stdout == (try stocked.run("list", "--sort", "rating", "--reverse")).stdout)
        #expect(try bulk.run("count", "rating:3..").stdout == (try stocked.run("count", "rating:3..")).stdout)
        // A photo's last user goes, the photo goes (its index answers
        // "does any tie still use it?").
        let photos = try bulk.run("delete", "R", "--yes")
        #expect(photos.status == 0, "\(photos)")
        let after = try bulk.run("check")
        #expect(after.status == 0 && after.stdout.contains("No problems found."), "\(after)")
    }
}
