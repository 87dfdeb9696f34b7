import Foundation
import Testing

@testable import BowTiesKit

@Suite("Photos: inline or external storage")
struct PhotoStorageTests {
    let threshold = Catalog.defaultExternalStorageThreshold

    @Test func smallPhotosStayInlineLargeOnesGoToFiles() throws {
        let directory = try TemporaryDirectory()
        let catalog = try Catalog.temporary(in: directory)
        let small = Fixtures.photo(bytes: threshold, seed: 1)
        let large = Fixtures.photo(bytes: threshold + 1, seed: 2)
        let inline = try catalog.save(BowTie(name: "Small", searchKey: "S"), photo: .set(small))
        let external = try catalog.save(BowTie(name: "Large", searchKey: "L"), photo: .set(large))
        #expect(inline.photo?.storage == .inline)
        #expect(external.photo?.storage == .external)
        #expect(catalog.externalFiles == [large.sha256Hex])
        #expect(try catalog.photoData(for: catalog.bowTie(matching: "S")) == small)
        #expect(try catalog.photoData(for: catalog.bowTie(matching: "L")) == large)
        let file = try #require(catalog.photoFileURL(for: external))
        #expect(file.deletingLastPathComponent().path.hasSuffix(".catalog_SUPPORT/_EXTERNAL_DATA"))
        #expect(try Data(contentsOf: file) == large)
    }

    @Test func thresholdIsSettablePerStore() throws {
        let directory = try TemporaryDirectory()
        let catalog = try Catalog.temporary(in: directory)
        try catalog.setExternalStorageThreshold(10)
        #expect(try catalog.externalStorageThreshold() == 10)
        let tie = try catalog.save(BowTie(name: "A", searchKey: "A"), photo: .set(Fixtures.photo(bytes: 11)))
        #expect(tie.photo?.storage == .external)
        let reopened = try Catalog(url: catalog.url, mode: .mustExist)
        #expect(try reopened.externalStorageThreshold() == 10)
    }

    @Test func identicalPhotosAreStoredOnce() throws {
        let directory = try TemporaryDirectory()
        let catalog = try Catalog.temporary(in: directory)
        // No undo history: a photo no tie uses goes at once.
        try catalog.setUndoLimit(0)
        let large = Fixtures.photo(bytes: threshold * 2)
        let small = Fixtures.photo(bytes: 1000)
        try catalog.save(BowTie(name: "A", searchKey: "A"), photo: .set(large))
        try catalog.save(BowTie(name: "B", searchKey: "B"), photo: .set(large))
        try catalog.save(BowTie(name: "C", searchKey: "C"), photo: .set(small))
        try catalog.save(BowTie(name: "D", searchKey: "D"), photo: .set(small))
        #expect(catalog.externalFiles.count == 1)
        #expect(try catalog.storedBlobCount() == 2)
        try catalog.delete("C")
        #expect(try catalog.photoData(for: catalog.bowTie(matching: "D")) == small)
        try catalog.delete("D")
        #expect(try catalog.storedBlobCount() == 1)
    }

    @Test func replacingOrDeletingRemovesFilesNothingUses() throws {
        let directory = try TemporaryDirectory()
        let catalog = try Catalog.temporary(in: directory)
        try catalog.setUndoLimit(0)
        let first = Fixtures.photo(bytes: threshold * 2, seed: 1)
        let second = Fixtures.photo(bytes: threshold * 2, seed: 2)
        try catalog.save(BowTie(name: "A", searchKey: "A"), photo: .set(first))
        try catalog.save(BowTie(name: "B", searchKey: "B"), photo: .set(first))

        // Shared: replacing A's photo keeps the file B still uses.
        try catalog.setPhoto("A", data: second)
        #expect(catalog.externalFiles == [first.sha256Hex, second.sha256Hex].sorted())
        // Deleting B removes the last reference to the first photo.
        try catalog.delete("B")
        #expect(catalog.externalFiles == [second.sha256Hex])
        // Removing A's photo removes its file.
        try catalog.setPhoto("A", data: nil)
        #expect(catalog.externalFiles.isEmpty)
        #expect(try catalog.bowTie(matching: "A").photo == nil)
    }

    @Test func aFailedSaveLeavesNoFileBehind() throws {
        let directory = try TemporaryDirectory()
        let catalog = try Catalog.temporary(in: directory)
        let large = Fixtures.photo(bytes: threshold * 3)
        #expect(throws: ValidationError.self) {
            try catalog.save(BowTie(name: "A", searchKey: "A", rating: 9), photo: .set(large))
        }
        #expect(catalog.externalFiles.isEmpty)
        #expect(try catalog.count() == 0)
        // A rejected change of an existing tie keeps its current file.
        try catalog.save(BowTie(name: "B", searchKey: "B"), photo: .set(large))
        var tie = try catalog.bowTie(matching: "B")
        tie.rating = -2
        #expect(throws: ValidationError.self) {
            try catalog.save(tie, photo: .set(Fixtures.photo(bytes: threshold * 2, seed: 9)))
        }
        #expect(catalog.externalFiles == [large.sha256Hex])
        #expect(try catalog.photoData(for: catalog.bowTie(matching: "B")) == large)
    }

    @Test func corruptedOrMissingFilesAreReported() throws {
        let directory = try TemporaryDirectory()
        let catalog = try Catalog.temporary(in: directory)
        let tie = try catalog.save(BowTie(name: "A", searchKey: "A"), photo: .set(Fixtures.photo(bytes: threshold * 2)))
        let file = try #require(catalog.photoFileURL(for: tie))
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
        try Data("tampered".utf8).write(to: file)
        do {
            _ = try catalog.photoData(for: tie)
            Issue.record("a corrupted photo was returned")
        } catch let error as CatalogError {
            #expect(error.kind == .photoUnavailable)
            #expect(
                error.message
                    == "the photo of A \"A\": damaged file \(file.path): truncated, 8 of \(threshold * 2) bytes")
            #expect(error.hint?.contains("`bowties check --repair`") == true)
        }
        try FileManager.default.removeItem(at: file)
        do {
            _ = try catalog.photoData(for: tie)
            Issue.record("a missing photo was returned")
        } catch let error as CatalogError {
            #expect(error.kind == .photoUnavailable)
            #expect(error.message == "the photo of A \"A\": missing file \(file.path)")
        }
    }

    @Test func readPhotoSaysWhatIsWrongInsteadOfThrowing() throws {
        let directory = try TemporaryDirectory()
        let catalog = try Catalog.temporary(in: directory)
        let large = Fixtures.photo(bytes: threshold * 2, seed: 3)
        let small = Fixtures.photo(bytes: 1_000, seed: 4)
        let external = try catalog.save(BowTie(name: "Large", searchKey: "L"), photo: .set(large))
        let inline = try catalog.save(BowTie(name: "Small", searchKey: "S"), photo: .set(small))
        #expect(try catalog.readPhoto(of: catalog.save(BowTie(name: "None", searchKey: "N"))) == nil)
        #expect(try catalog.readPhoto(of: external) == .success(large))
        #expect(try catalog.readPhoto(of: inline) == .success(small))

        let file = try #require(catalog.photoFileURL(for: external))
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
        var flipped = large
        flipped[100] ^= 1
        try flipped.write(to: file)
        #expect(
            try catalog.readPhoto(of: external)
                == .failure(PhotoProblem(.damagedFile, file: file, detail: "SHA-256 does not match")))
        try FileManager.default.removeItem(at: file)
        try FileManager.default.createDirectory(at: file, withIntermediateDirectories: false)
        #expect(
            try catalog.readPhoto(of: external)
                == .failure(PhotoProblem(.damagedFile, file: file, detail: "not a regular file")))
        try FileManager.default.removeItem(at: file)
        #expect(try catalog.readPhoto(of: external) == .failure(PhotoProblem(.missingFile, file: file)))

        try CheckTests.tamper(
            catalog, "UPDATE blob SET data = substr(data, 1, 10) WHERE sha256 = ?", arguments: [small.sha256Hex])
        let problem = PhotoProblem(.damagedInline, detail: "truncated, 10 of 1000 bytes")
        #expect(try catalog.readPhoto(of: inline) == .failure(problem))
        #expect(problem.description == "damaged photo inside the catalog: truncated, 10 of 1000 bytes")
        try CheckTests.tamper(catalog, "UPDATE blob SET data = NULL WHERE sha256 = ?", arguments: [small.sha256Hex])
        #expect(
            try catalog.readPhoto(of: inline)
                == .failure(PhotoProblem(.damagedInline, detail: "its bytes are missing")))
        // Everything else about both ties still reads.
        #expect(try catalog.bowTies().map(\.searchKey) == ["L", "S", "N"])
    }
}
