import Foundation
import PropertyList
import Testing

@testable import BowTiesKit

@Suite("Import of property lists")
struct ImportTests {
    @Test func sampleDataImportsEveryFieldAndBothPhotoPaths() throws {
        let directory = try TemporaryDirectory()
        let catalog = try Catalog.temporary(in: directory)
        let report = try catalog.importPropertyList(at: Fixtures.samplePlist)
        #expect(report.added == 7 && report.updated == 0 && report.unchanged == 0)
        #expect(report.warnings.isEmpty)
        #expect(report.photos == 7)
        #expect(try catalog.bowTies().compactMap(\.searchKey) == ["R", "O", "Y", "G", "B", "I", "V"])

        let red = try catalog.bowTie(matching: "R")
        #expect(red.id == UUID(uuidString: "B77AF80E-55E7-4111-B05C-A5641DE4D6B3"))
        #expect(red.rating == 3.5)
        #expect(red.timesWorn == 12)
        #expect(red.lastWorn.map(ISO8601.string(from:)) == "2014-06-19T18:15:24Z")
        #expect(red.url?.absoluteString == "https://en.wikipedia.org/wiki/Bow_tie")
        #expect(red.tintColor?.hexString == "#C81E2D")
        #expect(red.photo?.storage == .inline)
        #expect(try catalog.photoData(for: red) == Fixtures.sampleImage("red.png"))
        #expect(try catalog.bowTie(matching: "G").name == "Green & Gold Paisley")
        #expect(try catalog.bowTie(matching: "O").rating == 4)
        #expect(try catalog.bowTie(matching: "B").isFavorite)

        // "blue" (no extension) and "violet.png" are above the threshold.
        let blue = try catalog.bowTie(matching: "B")
        #expect(blue.photo?.storage == .external)
        #expect(try catalog.photoData(for: blue) == Fixtures.sampleImage("blue.png"))
        #expect(catalog.externalFiles.count == 2)
    }

    @Test func reimportingLeavesWornAndRatedTiesUntouched() throws {
        let directory = try TemporaryDirectory()
        let catalog = try Catalog.temporary(in: directory)
        try catalog.importPropertyList(at: Fixtures.samplePlist)
        try catalog.wear("R")
        try catalog.rate("O", 1)
        let again = try catalog.importPropertyList(at: Fixtures.samplePlist)
        #expect(again.added == 0 && again.updated == 0 && again.unchanged == 7)
        #expect(try catalog.bowTie(matching: "R").timesWorn == 13)
        #expect(try catalog.bowTie(matching: "O").rating == 1)

        // The file's counts are R's baseline, as they were: its recorded
        // wear stays and R is unchanged.
        let updated = try catalog.importPropertyList(at: Fixtures.samplePlist, options: ImportOptions(update: true))
        #expect(updated.added == 0 && updated.updated == 1 && updated.unchanged == 6)
        #expect(try catalog.bowTie(matching: "R").timesWorn == 13)
        #expect(try catalog.bowTie(matching: "O").rating == 4)
        #expect(catalog.externalFiles.count == 2)
    }

    @Test func dryRunWritesNothing() throws {
        let directory = try TemporaryDirectory()
        let catalog = try Catalog.temporary(in: directory)
        let report = try catalog.importPropertyList(at: Fixtures.samplePlist, options: ImportOptions(dryRun: true))
        #expect(report.dryRun && report.added == 7)
        #expect(try catalog.count() == 0)
        #expect(catalog.externalFiles.isEmpty)
    }

    /// Seven records, the fifth with a rating of 7, two with large photos.
    @Test func aBadRecordInTheMiddleImportsNothing() throws {
        let directory = try TemporaryDirectory()
        let large = Fixtures.photo(bytes: Catalog.defaultExternalStorageThreshold * 2)
        try FileManager.default.createDirectory(at: directory.path("in/Images"), withIntermediateDirectories: true)
        try large.write(to: directory.path("in/Images/big.png"))
        let records = (1...7).map { index in
            Fixtures.record(
                key: "K\(index)", name: "Tie \(index)",
                rating: index == 5 ? "<real>7</real>" : "<real>2.5</real>",
                extra: ["<key>imageName</key>", "<string>big</string>"])
        }
        let file = try directory.write(Fixtures.plist(records), to: "in/ties.plist")
        let catalog = try Catalog(url: directory.path("store/catalog.sqlite"))
        do {
            try catalog.importPropertyList(at: file)
            Issue.record("the import succeeded")
        } catch let error as ImportError {
            #expect(error.recordNumber == 5)
            #expect(error.validation?.code == .numberTooLarge)
            #expect(error.description.contains("rating is too large."))
            // Line of the fifth record's <real>7</real>.
            let line = try #require(
                Fixtures.plist(records).components(separatedBy: "\n").firstIndex { $0.contains("<real>7</real>") })
            #expect(error.location?.line == line + 1)
            #expect(error.description.hasPrefix("ties.plist:\(line + 1):"))
        }
        #expect(try catalog.count() == 0)
        #expect(catalog.externalFiles.isEmpty)
        #expect(directory.allFiles().filter { $0.hasPrefix("store/") && !$0.hasPrefix("store/catalog.sqlite") } == [])
    }

    @Test func wrongTypesAreLocatedAndNamed() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write(
            Fixtures.plist([Fixtures.record(key: "R", name: "Red", rating: "<string>high</string>")]), to: "t.plist")
        let catalog = try Catalog.temporary(in: directory)
        do {
            try catalog.importPropertyList(at: file)
            Issue.record("a string rating was accepted")
        } catch let error as ImportError {
            #expect(error.field == "rating")
            #expect(error.message == "expected <real> or <integer>, found <string>")
            #expect(error.location?.file == "t.plist")
            #expect(error.location?.line == 13)
        }
    }

    @Test func missingImageWarnsAndImportsWithoutPhoto() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write(
            Fixtures.plist([
                Fixtures.record(key: "R", name: "Red", extra: ["<key>imageName</key>", "<string>nowhere.png</string>"])
            ]), to: "t.plist")
        let catalog = try Catalog.temporary(in: directory)
        let report = try catalog.importPropertyList(at: file)
        #expect(report.added == 1)
        #expect(report.warnings.count == 1)
        #expect(report.warnings.first?.message.contains("nowhere.png") == true)
        #expect(try catalog.bowTie(matching: "R").photo == nil)
    }

    @Test(arguments: ["/etc/passwd", "../secret.png", "sub/../../secret.png", "link.png", "folder", "folder/pic.png"])
    func refusedImageNamesAbortTheImport(name: String) throws {
        let directory = try TemporaryDirectory()
        try directory.write("secret", to: "secret.png")
        try FileManager.default.createDirectory(
            at: directory.path("in/Images/folder"), withIntermediateDirectories: true)
        // Exists: a name with a "/" is refused as a name, not for its target.
        try directory.write("picture", to: "in/Images/folder/pic.png")
        try FileManager.default.createSymbolicLink(
            atPath: directory.path("in/Images/link.png").path, withDestinationPath: directory.path("secret.png").path)
        let file = try directory.write(
            Fixtures.plist([
                Fixtures.record(key: "A", name: "Fine"),
                Fixtures.record(key: "R", name: "Red", extra: ["<key>imageName</key>", "<string>\(name)</string>"]),
            ]), to: "in/t.plist")
        let catalog = try Catalog(url: directory.path("store.sqlite"))
        do {
            try catalog.importPropertyList(at: file)
            Issue.record("image name \(name) was accepted")
        } catch let error as ImportError {
            #expect(error.field == "imageName")
            #expect(error.recordNumber == 2)
        }
        #expect(try catalog.count() == 0)
    }

    @Test func recordsWithoutIdGetStableDerivedIds() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write(
            Fixtures.plist([
                Fixtures.record(key: "R", name: "Red", id: nil),
                Fixtures.record(key: "G", name: "Green", id: nil),
            ]), to: "old.plist")
        let catalog = try Catalog.temporary(in: directory)
        #expect(try catalog.importPropertyList(at: file).added == 2)
        let id = try catalog.bowTie(matching: "R").id
        let again = try catalog.importPropertyList(at: file)
        #expect(again.added == 0 && again.unchanged == 2)
        #expect(try catalog.bowTie(matching: "R").id == id)
        #expect(id.uuidString.dropFirst(14).first == "8")
        #expect(id != (try catalog.bowTie(matching: "G").id))
    }

    @Test func duplicatesWithinTheFileOrAgainstTheStoreAreRefused() throws {
        let directory = try TemporaryDirectory()
        let id = UUID().uuidString
        let catalog = try Catalog.temporary(in: directory)
        let sameID = try directory.write(
            Fixtures.plist([Fixtures.record(key: "A", name: "A", id: id), Fixtures.record(key: "B", name: "B", id: id)]
            ),
            to: "ids.plist")
        let sameKey = try directory.write(
            Fixtures.plist([Fixtures.record(key: "A", name: "A"), Fixtures.record(key: "A", name: "B")]),
            to: "keys.plist")
        for file in [sameID, sameKey] {
            do {
                try catalog.importPropertyList(at: file)
                Issue.record("\(file.lastPathComponent) was accepted")
            } catch let error as ImportError {
                #expect(error.message.contains("more than once in this file"))
                #expect(error.recordNumber == 2)
            }
        }
        #expect(try catalog.count() == 0)
        try catalog.save(BowTie(name: "Stored", searchKey: "A"))
        do {
            try catalog.importPropertyList(
                at: directory.write(Fixtures.plist([Fixtures.record(key: "A", name: "New")]), to: "c.plist"))
            Issue.record("a search key already in the catalog was accepted")
        } catch let error as ImportError {
            #expect(error.message.contains("already used in the catalog"))
        }
    }

    @Test func unknownKeysAreReportedOnce() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write(
            Fixtures.plist([
                Fixtures.record(key: "A", name: "A", extra: ["<key>fabric</key>", "<string>silk</string>"]),
                Fixtures.record(key: "B", name: "B", extra: ["<key>fabric</key>", "<string>wool</string>"]),
            ]), to: "t.plist")
        let report = try Catalog.temporary(in: directory).importPropertyList(at: file)
        #expect(report.warnings.map(\.message) == ["unknown key \"fabric\" ignored"])
    }

    @Test func externalEntitiesAreRefusedAndNothingLeaks() throws {
        let directory = try TemporaryDirectory()
        let secret = try directory.write("TOP-SECRET-\(UUID().uuidString)", to: "secret.txt")
        let file = try directory.write(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist [ <!ENTITY xxe SYSTEM "file://\(secret.path)"> ]>
            <plist version="1.0"><array><dict>
            <key>name</key><string>&xxe;</string><key>searchKey</key><string>X</string>
            </dict></array></plist>
            """, to: "xxe.plist")
        let catalog = try Catalog.temporary(in: directory)
        do {
            try catalog.importPropertyList(at: file)
            Issue.record("an external entity was accepted")
        } catch let error as PropertyListError {
            #expect(error.kind == .forbiddenDeclaration)
            #expect(!error.description.contains("TOP-SECRET"))
        }
        #expect(try catalog.count() == 0)
    }
}

/// Records that share photos, the bulk-load path and its fallbacks.
@Suite("Import of shared photos and existing records")
struct SharedPhotoImportTests {
    /// 60 records naming 3 images, one of them above the threshold.
    private func writeSharedPhotoFile(in directory: TemporaryDirectory, seed: UInt8 = 1) throws -> URL {
        let images = directory.path("Images")
        try FileManager.default.createDirectory(at: images, withIntermediateDirectories: true)
        try Fixtures.photo(bytes: 2_000, seed: seed).write(to: images.appendingPathComponent("a.png"))
        try Fixtures.photo(bytes: 3_000, seed: seed).write(to: images.appendingPathComponent("b.png"))
        try Fixtures.photo(bytes: 200_000, seed: seed).write(to: images.appendingPathComponent("c.png"))
        let records = (0..<60).map { index in
            Fixtures.record(
                key: "K\(index)", name: "Tie \(index)", id: Self.id(index),
                extra: ["<key>imageName</key>\n\t\t<string>\(["a", "b", "c"][index % 3])</string>"])
        }
        return try directory.write(Fixtures.plist(records), to: "ties.plist")
    }

    private static func id(_ index: Int) -> String {
        String(format: "00000000-0000-4000-8000-%012d", index)
    }

    @Test func sharedPhotosAreStoredOnceAndCountedOnce() throws {
        let directory = try TemporaryDirectory()
        let catalog = try Catalog.temporary(in: directory)
        let report = try catalog.importPropertyList(at: writeSharedPhotoFile(in: directory))
        #expect(report.added == 60 && report.photos == 60 && report.distinctPhotos == 3)
        #expect(report.photoFilesWritten == 1)
        #expect(try catalog.storedBlobCount() == 3)
        #expect(catalog.externalFiles.count == 1)
        // The lookup-only indexes dropped for the bulk load are back.
        let indexes = try catalog.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'bowtie'")
        }
        #expect(indexes.contains("bowtie_searchKey_nocase") && indexes.contains("bowtie_photoData_sha256"))
        #expect(try catalog.bowTie(matching: "k59").name == "Tie 59")
    }

    @Test func aHashMetBeforeItsPhotoIsFoundOnceTheFileBringsIt() throws {
        let directory = try TemporaryDirectory()
        let catalog = try Catalog.temporary(in: directory)
        let images = directory.path("Images")
        try FileManager.default.createDirectory(at: images, withIntermediateDirectories: true)
        // The bytes come inline: a file in the images folder would be
        // found by its content for the first record already.
        let bytes = Fixtures.photo(bytes: 2_000)
        let byHash = "<key>photo</key>\n\t\t<dict><key>sha256</key><string>\(bytes.sha256Hex)</string></dict>"
        let records = [
            Fixtures.record(key: "K0", name: "Tie 0", id: Self.id(0), extra: [byHash]),
            Fixtures.record(
                key: "K1", name: "Tie 1", id: Self.id(1),
                extra: ["<key>photo</key>\n\t\t<data>\(bytes.base64EncodedString())</data>"]),
            Fixtures.record(key: "K2", name: "Tie 2", id: Self.id(2), extra: [byHash]),
        ]
        let report = try catalog.importPropertyList(at: directory.write(Fixtures.plist(records), to: "ties.plist"))
        // The first record's hash was not in the catalog yet; the third's
        // was, once the second record had brought the photo.
        #expect(report.added == 3 && report.photos == 2)
        #expect(report.warnings.count == 1)
        #expect(try catalog.bowTie(matching: "K0").photo == nil)
        #expect(try catalog.bowTie(matching: "K2").photo?.sha256 == bytes.sha256Hex)
    }

    @Test func aHashTheCatalogLacksIsFoundInTheImagesFolderByNameOrContent() throws {
        let directory = try TemporaryDirectory()
        let catalog = try Catalog.temporary(in: directory)
        let images = directory.path("Images")
        try FileManager.default.createDirectory(at: images, withIntermediateDirectories: true)
        let small = Fixtures.photo(bytes: 2_000)
        let large = Fixtures.photo(bytes: 200_000)
        // One under any name (the images a catalog was made from), one
        // named by its hash (a catalog's photo folder).
        try small.write(to: images.appendingPathComponent("red.png"))
        try large.write(to: images.appendingPathComponent(large.sha256Hex))
        func byHash(_ data: Data) -> String {
            "<key>photo</key>\n\t\t<dict><key>sha256</key><string>\(data.sha256Hex)</string></dict>"
        }
        let records = [
            Fixtures.record(key: "K0", name: "Tie 0", id: Self.id(0), extra: [byHash(small)]),
            Fixtures.record(key: "K1", name: "Tie 1", id: Self.id(1), extra: [byHash(large)]),
            Fixtures.record(key: "K2", name: "Tie 2", id: Self.id(2), extra: [byHash(small)]),
        ]
        let report = try catalog.importPropertyList(at: directory.write(Fixtures.plist(records), to: "ties.plist"))
        #expect(report.added == 3 && report.photos == 3 && report.distinctPhotos == 2)
        #expect(report.warnings.isEmpty)
        #expect(report.photoFilesWritten == 1)
        #expect(try catalog.bowTie(matching: "K0").photo?.sha256 == small.sha256Hex)
        #expect(try catalog.bowTie(matching: "K1").photo?.sha256 == large.sha256Hex)
        #expect(catalog.externalFiles.count == 1)
    }

    @Test func wearsOfNewRecordsLogNoImagesAndUndoRemovesThem() throws {
        let directory = try TemporaryDirectory()
        let catalog = try Catalog.temporary(in: directory)
        let wears = """
            <key>wears</key>
            \t\t<array>
            \t\t\t<dict><key>date</key><date>2014-06-21T20:00:00Z</date></dict>
            \t\t\t<dict><key>date</key><date>2015-01-02T20:00:00Z</date></dict>
            \t\t</array>
            """
        let records = (0..<4).map { Fixtures.record(key: "K\($0)", name: "Tie \($0)", id: Self.id($0), extra: [wears]) }
        let report = try catalog.importPropertyList(at: directory.write(Fixtures.plist(records), to: "ties.plist"))
        #expect(report.added == 4)
        let tie = try catalog.bowTie(matching: "K3")
        #expect(tie.timesWorn == 2)
        #expect(tie.lastWorn == ISO8601.date(from: "2015-01-02T20:00:00Z"))
        // The import is logged as ranges of rows: no image of each update
        // the wears' triggers made to the records it added.
        let operations = try catalog.read { db in
            try String.fetchAll(db, sql: "SELECT DISTINCT operation FROM undo_change")
        }
        #expect(operations == ["range"])
        _ = try catalog.undo()
        #expect(try catalog.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM wear") } == 0)
        #expect(try catalog.count(matching: .all(of: BowTieModel.entity)) == 0)
    }

    @Test func photosOfUnchangedRecordsLeaveNoBlobBehind() throws {
        let directory = try TemporaryDirectory()
        let catalog = try Catalog.temporary(in: directory)
        // No undo history: photos the update replaced go at once.
        try catalog.setUndoLimit(0)
        try catalog.importPropertyList(at: writeSharedPhotoFile(in: directory, seed: 1))
        // Same records, other photo bytes: without --update nothing changes,
        // and the new bytes must not stay in the store.
        let again = try catalog.importPropertyList(at: writeSharedPhotoFile(in: directory, seed: 2))
        #expect(again.unchanged == 60 && again.added == 0 && again.photos == 0)
        // The new c.png is over the threshold: its file was never written.
        #expect(again.photoFilesWritten == 0)
        #expect(try catalog.storedBlobCount() == 3)
        #expect(catalog.externalFiles.count == 1)

        let updated = try catalog.importPropertyList(
            at: writeSharedPhotoFile(in: directory, seed: 2), options: ImportOptions(update: true))
        #expect(updated.updated == 60 && updated.distinctPhotos == 3)
        #expect(try catalog.storedBlobCount() == 3)
        #expect(catalog.externalFiles.count == 1)
    }

    @Test func aDuplicateInTheFileIsCaughtAfterTheFastPath() throws {
        let directory = try TemporaryDirectory()
        let catalog = try Catalog.temporary(in: directory)
        let records = [
            Fixtures.record(key: "A", name: "First", id: Self.id(1)),
            Fixtures.record(key: "B", name: "Second", id: Self.id(2)),
            Fixtures.record(key: "A", name: "Third", id: Self.id(3)),
        ]
        let file = try directory.write(Fixtures.plist(records), to: "dup.plist")
        do {
            try catalog.importPropertyList(at: file)
            Issue.record("a duplicate search key was imported")
        } catch let error as ImportError {
            #expect(error.recordNumber == 3 && error.field == "searchKey")
            #expect(error.message.contains("appears more than once in this file"))
        }
        #expect(try catalog.count() == 0)
    }
}

@Suite("Reading photos")
struct ImageReadTests {
    @Test func aFileSwappedForAFIFOOrALinkIsRefusedWithoutBlocking() throws {
        let directory = try TemporaryDirectory()
        let fifo = directory.path("swapped.png").path
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(throws: ImageRefusal.self) { try ImageResolver.read(fifo) }

        let target = try directory.write("secret", to: "secret.txt")
        let link = directory.path("link.png").path
        #expect(symlink(target.path, link) == 0)
        #expect(throws: ImageRefusal.self) { try ImageResolver.read(link) }

        let photo = Fixtures.photo(bytes: 5_000)
        try photo.write(to: directory.path("ok.png"))
        #expect(try ImageResolver.read(directory.path("ok.png").path) == photo)
    }
}

@Suite("Import of a root dictionary")
struct RootDictionaryImportTests {
    @Test func somethingAfterARootDictIsRefusedAndNothingIsWritten() throws {
        let directory = try TemporaryDirectory()
        let catalog = try Catalog.temporary(in: directory)
        let record = Fixtures.record(key: "D", name: "Alone")
        let good = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0">
            \(record)
            </plist>

            """
        #expect(try catalog.importPropertyList(at: directory.write(good, to: "one.plist")).added == 1)

        let extra = good.replacingOccurrences(of: "</plist>", with: "<string>extra</string>\n</plist>")
            .replacingOccurrences(of: "<string>D</string>", with: "<string>E</string>")
            .replacingOccurrences(of: "<string>Alone</string>", with: "<string>Other</string>")
        let file = try directory.write(extra, to: "extra.plist")
        do {
            try catalog.importPropertyList(at: file)
            Issue.record("content after the root <dict> was accepted")
        } catch let error as PropertyListError {
            #expect(error.message.contains("expected </plist> after the root object"))
        }
        #expect(try catalog.count() == 1)
    }
}
