import Foundation
import Testing

@testable import BowTiesKit

@Suite("Catalog store")
struct CatalogTests {
    @Test func lookupByKeyCaseIdAndIdPrefix() throws {
        let directory = try TemporaryDirectory()
        let catalog = try Catalog.temporary(in: directory)
        let red = try catalog.save(BowTie(name: "Red", searchKey: "R"))
        try catalog.save(BowTie(name: "Green", searchKey: "g"))
        #expect(try catalog.bowTie(matching: "R").id == red.id)
        #expect(try catalog.bowTie(matching: "r").id == red.id)
        #expect(try catalog.bowTie(matching: "G").name == "Green")
        #expect(try catalog.bowTie(matching: red.id.uuidString).id == red.id)
        #expect(try catalog.bowTie(matching: red.id.uuidString.lowercased()).id == red.id)
        #expect(try catalog.bowTie(matching: String(red.id.uuidString.prefix(8))).id == red.id)
        #expect(throws: CatalogError.self) { try catalog.bowTie(matching: "nope") }
    }

    @Test func caseInsensitiveMatchMustBeUnambiguous() throws {
        let directory = try TemporaryDirectory()
        let catalog = try Catalog.temporary(in: directory)
        try catalog.save(BowTie(name: "One", searchKey: "ab"))
        try catalog.save(BowTie(name: "Two", searchKey: "AB"))
        #expect(try catalog.bowTie(matching: "ab").name == "One")
        do {
            _ = try catalog.bowTie(matching: "Ab")
            Issue.record("an ambiguous key matched")
        } catch let error as CatalogError {
            #expect(error.kind == .ambiguousKey)
        }
    }

    @Test func searchKeysAreUnique() throws {
        let directory = try TemporaryDirectory()
        let catalog = try Catalog.temporary(in: directory)
        try catalog.save(BowTie(name: "Red", searchKey: "R"))
        do {
            try catalog.save(BowTie(name: "Other red", searchKey: "R"))
            Issue.record("a duplicate search key was saved")
        } catch let error as CatalogError {
            #expect(error.kind == .conflict)
        }
        #expect(try catalog.count() == 1)
    }

    @Test func wearRateAndFavorite() throws {
        let directory = try TemporaryDirectory()
        let catalog = try Catalog.temporary(in: directory)
        try catalog.save(BowTie(name: "Red", searchKey: "R", rating: 3.5, timesWorn: 4))
        let when = Date(timeIntervalSince1970: 1_700_000_000)
        let worn = try catalog.wear("R", at: when)
        #expect(worn.timesWorn == 5)
        #expect(worn.lastWorn == when)
        #expect(try catalog.bowTie(matching: "R").timesWorn == 5)
        #expect(try catalog.rate("R", 4.25).rating == 4.25)
        #expect(throws: ValidationError.self) { try catalog.rate("R", 6) }
        #expect(throws: ValidationError.self) { try catalog.rate("R", -1) }
        #expect(try catalog.bowTie(matching: "R").rating == 4.25)
        #expect(try catalog.setFavorite("R", true).isFavorite)
        #expect(try catalog.bowTie(matching: "R").isFavorite)
    }

    @Test func wearRefusesToOverflowInt32() throws {
        let directory = try TemporaryDirectory()
        let catalog = try Catalog.temporary(in: directory)
        try catalog.save(BowTie(name: "Red", searchKey: "R", timesWorn: .max))
        do {
            try catalog.wear("R")
            Issue.record("timesWorn overflowed")
        } catch let error as ValidationError {
            #expect(error.code == .numberTooLarge)
            #expect(error.message == "timesWorn is too large.")
        }
        #expect(try catalog.bowTie(matching: "R").timesWorn == .max)
    }

    @Test func concurrentWearsFromSeveralConnectionsAreAllCounted() async throws {
        let directory = try TemporaryDirectory()
        let url = try Catalog.temporary(in: directory).url
        try Catalog(url: url).save(BowTie(name: "Red", searchKey: "R"))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    // One connection per task, as separate processes would have.
                    let catalog = try Catalog(url: url, mode: .mustExist)
                    for _ in 0..<25 { try catalog.wear("R") }
                }
            }
            try await group.waitForAll()
        }
        #expect(try Catalog(url: url).bowTie(matching: "R").timesWorn == 100)
    }

    @Test func missingStoreForReadingSaysHowToCreateOne() throws {
        let directory = try TemporaryDirectory()
        do {
            _ = try Catalog(url: directory.path("none.sqlite"), mode: .mustExist)
            Issue.record("a missing store opened")
        } catch let error as CatalogError {
            #expect(error.kind == .storeNotFound)
            #expect(error.description.contains("bowties import"))
        }
        #expect(directory.allFiles().isEmpty)
    }

    @Test func foreignFilesAreNotStores() throws {
        let directory = try TemporaryDirectory()
        let text = try directory.write(String(repeating: "not a database\n", count: 100), to: "notes.txt")
        #expect(throws: CatalogError.self) { try Catalog(url: text, mode: .mustExist) }
        do {
            _ = try Catalog(url: text, mode: .mustExist)
        } catch let error as CatalogError {
            #expect(error.kind == .notAStore)
        }
    }

    @Test func exportedCSVHasAHeaderAndOneRowPerTie() throws {
        let directory = try TemporaryDirectory()
        let catalog = try Catalog.temporary(in: directory)
        try catalog.save(
            BowTie(
                name: "Red, \"bold\"", searchKey: "R", rating: 3.5, timesWorn: 2,
                lastWorn: Date(timeIntervalSince1970: 1_403_201_724), isFavorite: true,
                url: URL(string: "https://example.com/r"), tintColor: Color(red8: 200, green8: 30, blue8: 45)))
        let output = directory.path("out/ties.csv")
        try FileManager.default.createDirectory(
            at: output.deletingLastPathComponent(), withIntermediateDirectories: true)
        #expect(try catalog.exportCSV(to: .file(output)) == 1)
        let text = try String(contentsOf: output, encoding: .utf8)
        let lines = text.components(separatedBy: "\r\n")
        #expect(
            lines[0]
                == "id,name,searchKey,rating,timesWorn,lastWorn,isFavorite,url,tintColor,photoBytes,photoSHA256,tags,"
                + "timesWornBefore,lastWornBefore,wears")
        #expect(
            lines[1].hasSuffix(
                ",\"Red, \"\"bold\"\"\",R,3.5,2,2014-06-19T18:15:24Z,true,https://example.com/r,#C81E2D,,,,"
                    + "2,2014-06-19T18:15:24Z,[]"))
        #expect(lines.count == 3 && lines[2].isEmpty)
        // Written atomically: no temporary file is left beside it.
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: output.deletingLastPathComponent().path) == ["ties.csv"]
        )
    }

    @Test func exportToAMissingFolderFailsWithoutLeavingFiles() throws {
        let directory = try TemporaryDirectory()
        let catalog = try Catalog.temporary(in: directory)
        do {
            try catalog.exportCSV(to: .file(directory.path("missing/ties.csv")))
            Issue.record("export wrote into a missing folder")
        } catch let error as CatalogError {
            #expect(error.kind == .cannotCreateOutput)
        }
    }
}
