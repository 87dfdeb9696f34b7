import Foundation
import Testing

/// `bowties import STORE.sqlite`: a Core Data store imported by its own
/// model, through the importer every other format goes through.
@Suite("bowties import of a Core Data store")
struct CoreDataImportTests {
    /// The BowTies app's store, made by `Fixtures/CoreData/bowties-app/make-store.py`.
    static let bowTiesApp = ("bowties-app", "BowTies.sqlite")

    func fixture() throws -> CoreDataFixture {
        try CoreDataFixture(Self.bowTiesApp.0, file: Self.bowTiesApp.1)
    }

    @Test(
        "The BowTie entity: UUIDs, Apple-epoch dates, archived colours, photos inline and external; the store untouched"
    )
    func importBowTies() throws {
        let fixture = try fixture()
        let before = try fixture.checksums()
        let result = try fixture.run("import", fixture.store.path)
        #expect(result.status == 0, "\(result)")
        #expect(
            result.stdout.contains(
                "Imported BowTies.sqlite into \(fixture.runner.storeURL.path): added 4, updated 0, unchanged 0."),
            "\(result)")
        #expect(result.stdout.contains("2 photos saved"), "\(result)")
        #expect(result.stderr.isEmpty, "\(result)")
        #expect(try fixture.checksums() == before, "the store was written to")

        let red = try #require(try fixture.run("show", "RS", "--json").json() as? [String: Any])
        #expect(red["id"] as? String == "800E9A6F-6C41-4A7D-8E8F-8E1B9D5A0C11")
        #expect(red["name"] as? String == "Red Stripes")
        #expect(red["rating"] as? Double == 4.5)
        #expect(red["isFavorite"] as? Bool == true)
        #expect(red["timesWorn"] as? Int == 4)
        #expect((red["lastWorn"] as? String)?.hasPrefix("2014-06-19T18:15:24") == true, "\(red)")
        #expect(red["tintColor"] as? String == "#CC1A33")
        #expect(red["url"] as? String == "https://example.com/ties/red")
        let orange = try #require(try fixture.run("show", "OP", "--json").json() as? [String: Any])
        #expect(orange["tintColor"] as? String == "#FF8000")
        #expect(orange["lastWorn"] as? String == "2012-01-01T00:00:00Z")
        // Before 2001: a negative number of seconds.
        let green = try #require(try fixture.run("show", "GS", "--json").json() as? [String: Any])
        #expect(green["lastWorn"] as? String == "2000-01-01T00:00:00Z")
        #expect(green["tintColor"] is NSNull)
        // The photos: the inline one and the one in _EXTERNAL_DATA.
        let photo = try fixture.run(
            "photo", "OP", "--output", fixture.runner.directory.appendingPathComponent("o.png").path)
        #expect(photo.status == 0, "\(photo)")
        let external = fixture.folder.appendingPathComponent(
            ".BowTies_SUPPORT/_EXTERNAL_DATA/A1B2C3D4-E5F6-4A7B-8C9D-0E1F2A3B4C5D")
        #expect(
            try Data(contentsOf: fixture.runner.directory.appendingPathComponent("o.png"))
                == Data(contentsOf: external))
    }

    @Test("--dry-run reports what would change and leaves the catalog byte-identical")
    func dryRun() throws {
        let fixture = try fixture()
        try fixture.runner.importSampleData()
        let before = try StoreSnapshot(storeURL: fixture.runner.storeURL)
        let result = try fixture.run("import", "--dry-run", fixture.store.path)
        #expect(result.status == 0, "\(result)")
        #expect(
            result.stdout.contains(
                "Dry run of BowTies.sqlite, nothing written: would have added 4, updated 0, unchanged 0."),
            "\(result)")
        let after = try StoreSnapshot(storeURL: fixture.runner.storeURL)
        #expect(after.checksums == before.checksums, "\(after.byteDifference(from: before))")
    }

    @Test("A second import leaves ties as they are; --update restores the store's values; undo takes them back")
    func updateAndUndo() throws {
        let fixture = try fixture()
        #expect(try fixture.run("import", fixture.store.path).status == 0)
        #expect(try fixture.run("rate", "RS", "1").status == 0)
        let again = try fixture.run("import", fixture.store.path)
        #expect(again.stdout.contains("added 0, updated 0, unchanged 4"), "\(again)")
        #expect(try fixture.run("show", "RS").stdoutLines.contains("Rating: 1/5"))

        let update = try fixture.run("import", "--update", fixture.store.path)
        #expect(update.status == 0, "\(update)")
        #expect(update.stdout.contains("added 0, updated 1, unchanged 3"), "\(update)")
        #expect(try fixture.run("show", "RS").stdoutLines.contains("Rating: 4.5/5"))

        let undo = try fixture.run("undo")
        #expect(undo.status == 0, "\(undo)")
        #expect(try fixture.run("show", "RS").stdoutLines.contains("Rating: 1/5"))
    }

    @Test("A photo whose _EXTERNAL_DATA file is missing: the usual warning, the tie imported without it")
    func missingExternalPhoto() throws {
        let fixture = try fixture()
        let name = "A1B2C3D4-E5F6-4A7B-8C9D-0E1F2A3B4C5D"
        let folder = fixture.folder.appendingPathComponent(".BowTies_SUPPORT/_EXTERNAL_DATA", isDirectory: true)
        try FileManager.default.removeItem(at: folder.appendingPathComponent(name))
        let result = try fixture.run("import", fixture.store.path)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("added 4, updated 0, unchanged 0"), "\(result)")
        #expect(result.stdout.contains("1 photo saved"), "\(result)")
        #expect(result.stderr.hasPrefix("bowties: warning: BowTies.sqlite: BowTie p2: "), "\(result)")
        #expect(result.stderr.contains(name) && result.stderr.contains("without a photo"), "\(result)")
        let strict = try CoreDataFixture(Self.bowTiesApp.0, file: Self.bowTiesApp.1)
        try FileManager.default.removeItem(
            at: strict.folder.appendingPathComponent(".BowTies_SUPPORT/_EXTERNAL_DATA/\(name)"))
        let refused = try strict.run("import", "--strict", strict.store.path)
        #expect(refused.status == 65, "\(refused)")
        #expect(!FileManager.default.fileExists(atPath: strict.runner.storeURL.path))
    }

    @Test("Undo of the whole import removes its ties")
    func undoImport() throws {
        let fixture = try fixture()
        #expect(try fixture.run("import", fixture.store.path).status == 0)
        let undo = try fixture.run("undo")
        #expect(undo.status == 0, "\(undo)")
        #expect(undo.stdout.contains("Import BowTies.sqlite"), "\(undo)")
        let list = try #require(try fixture.run("list", "--json").json() as? [Any])
        #expect(list.isEmpty)
    }

    @Test(
        "--entity and --map import another model's entity (SampleModel2's books, a sub-entity's too); unknown attributes warn"
    )
    func otherEntity() throws {
        let fixture = try CoreDataFixture(CoreDataFixture.sampleModel2.0, file: CoreDataFixture.sampleModel2.1)
        let before = try fixture.checksums()
        let result = try fixture.run(
            "import", fixture.store.path, "--entity", "Book", "--map", "title=name", "--map", "uniqueID=id",
            "--map", "publishedAt=lastWorn")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("added 52, updated 0, unchanged 0"), "\(result)")
        #expect(result.stderr.contains("pagesCount"), "\(result)")
        #expect(result.stderr.hasPrefix("bowties: warning: "), "\(result)")
        #expect(try fixture.checksums() == before)
    }

    @Test("--map naming an attribute the entity lacks, and --entity naming none, are errors that write nothing")
    func wrongNames() throws {
        let fixture = try fixture()
        let map = try fixture.run("import", fixture.store.path, "--map", "title=name")
        #expect(map.status == 65, "\(map)")
        #expect(map.stderr.contains("BowTie has no attribute \"title\""), "\(map)")
        let entity = try fixture.run("import", fixture.store.path, "--entity", "Hat")
        #expect(entity.status == 65, "\(entity)")
        #expect(entity.stderr.contains("no entity \"Hat\"; its entities: BowTie"), "\(entity)")
        #expect(!FileManager.default.fileExists(atPath: fixture.runner.storeURL.path))
    }

    @Test("A damaged colour archive: an error located at the object, and nothing changed")
    func damagedArchive() throws {
        let fixture = try fixture()
        try fixture.runner.importSampleData()
        try SQLiteLibrary().execute(
            "UPDATE ZBOWTIE SET ZTINTCOLOR = X'62706C6973743030FFFFFF' WHERE Z_PK = 3", in: fixture.store.path)
        let before = try StoreSnapshot(storeURL: fixture.runner.storeURL)
        let result = try fixture.run("import", fixture.store.path)
        #expect(result.status == 65, "\(result)")
        #expect(result.stderr.hasPrefix("bowties: error: BowTies.sqlite: BowTie p3: tintColor: "), "\(result)")
        let after = try StoreSnapshot(storeURL: fixture.runner.storeURL)
        #expect(after.checksums == before.checksums, "\(after.byteDifference(from: before))")
    }

    @Test("A truncated store: a located error, not a crash, and nothing changed")
    func truncatedStore() throws {
        let fixture = try fixture()
        try fixture.runner.importSampleData()
        let data = try Data(contentsOf: fixture.store)
        try data.prefix(6000).write(to: fixture.store)
        let before = try StoreSnapshot(storeURL: fixture.runner.storeURL)
        let result = try fixture.run("import", fixture.store.path)
        #expect(result.status == 65, "\(result)")
        #expect(result.stderr.hasPrefix("bowties: error: BowTies.sqlite: "), "\(result)")
        let after = try StoreSnapshot(storeURL: fixture.runner.storeURL)
        #expect(after.checksums == before.checksums, "\(after.byteDifference(from: before))")
    }

    @Test("An SQLite file that is not a Core Data store (a catalog) is still refused as before")
    func catalogIsNotAStore() throws {
        let fixture = try fixture()
        try fixture.runner.importSampleData()
        let copy = fixture.runner.directory.appendingPathComponent("other.sqlite")
        try FileManager.default.copyItem(at: fixture.runner.storeURL, to: copy)
        let result = try fixture.run("import", copy.path)
        #expect(result.status == 65, "\(result)")
        #expect(result.stderr.contains("an SQLite database (a bowties catalog is opened with --store)"), "\(result)")
    }
}
