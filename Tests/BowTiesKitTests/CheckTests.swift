import Foundation
import GRDB
import Synchronization
import Testing

@testable import BowTiesKit

@Suite("Store check and repair")
struct CheckTests {
    /// A catalog with three ties: R with an inline photo, B with an
    /// external one, N with none.
    static func catalog(in directory: TemporaryDirectory) throws -> Catalog {
        let catalog = try Catalog.temporary(in: directory)
        try catalog.save(BowTie(name: "Red", searchKey: "R"), photo: .set(Fixtures.photo(bytes: 1_000, seed: 1)))
        try catalog.save(BowTie(name: "Blue", searchKey: "B"), photo: .set(Fixtures.photo(bytes: 200_000, seed: 2)))
        try catalog.save(BowTie(name: "None", searchKey: "N"))
        return catalog
    }

    static func externalFile(of key: String, _ catalog: Catalog) throws -> URL {
        try #require(catalog.photoFileURL(for: catalog.bowTie(matching: key)))
    }

    /// Changes the store behind the catalog's back, as a damaged disk or
    /// another tool would, with foreign keys off.
    static func tamper(_ catalog: Catalog, _ sql: String, arguments: StatementArguments = []) throws {
        try catalog.database.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            try db.execute(sql: sql, arguments: arguments)
            try db.execute(sql: "PRAGMA foreign_keys = ON")
        }
    }

    @Test func aHealthyCatalogHasNoProblems() throws {
        let directory = try TemporaryDirectory()
        let report = try Self.catalog(in: directory).check()
        #expect(report.isHealthy, "\(report.problems)")
        #expect(report.bowTieCount == 3)
        #expect(report.photoCount == 2)
        #expect(report.photoFolderEntries == 1)
    }

    @Test func unusedFilesAreFoundAndRemoved() throws {
        let directory = try TemporaryDirectory()
        let catalog = try Self.catalog(in: directory)
        let folder = try #require(catalog.externalPhotoDirectory)
        let temporary = folder.appendingPathComponent(".\(String(repeating: "ab", count: 32)).tmp-1A2B3C4D")
        let complete = folder.appendingPathComponent(Fixtures.photo(bytes: 300_000, seed: 9).sha256Hex)
        try Data("half a photo".utf8).write(to: temporary)
        try Fixtures.photo(bytes: 300_000, seed: 9).write(to: complete)

        let report = try catalog.check()
        #expect(report.problems.map(\.kind) == [.orphanFile, .orphanFile])
        #expect(report.problems.map(\.file) == [temporary, complete])
        #expect(report.problems[0].message.contains("a temporary file left by an interrupted write"))
        #expect(report.problems.allSatisfy { $0.repair == .removeFile($0.file ?? folder) })

        let repair = try catalog.repair { found in #expect(found.problems.count == 2) }
        #expect(repair.repaired.count == 2)
        #expect(repair.after.isHealthy, "\(repair.after.problems)")
        #expect(!FileManager.default.fileExists(atPath: temporary.path))
        #expect(!FileManager.default.fileExists(atPath: complete.path))
        #expect(catalog.externalFiles.count == 1)
    }

    @Test func missingAndDamagedPhotoFilesNameTheirRecordsAndAreCleared() throws {
        let directory = try TemporaryDirectory()
        let catalog = try Self.catalog(in: directory)
        try catalog.save(
            BowTie(name: "Blue too", searchKey: "B2"), photo: .set(Fixtures.photo(bytes: 200_000, seed: 2)))
        let file = try Self.externalFile(of: "B", catalog)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
        try Data("not the photo".utf8).write(to: file)

        let damaged = try catalog.check()
        #expect(damaged.problems.map(\.kind) == [.damagedPhotoFile])
        #expect(damaged.problems.first?.records.map(\.searchKey) == ["B", "B2"])
        #expect(damaged.problems.first?.recordCount == 2)

        try FileManager.default.removeItem(at: file)
        let missing = try catalog.check()
        #expect(missing.problems.map(\.kind) == [.missingPhotoFile])
        #expect(missing.problems.first?.description.contains("B \"Blue\" (id ") == true)

        let repair = try catalog.repair { _ in }
        #expect(repair.after.isHealthy, "\(repair.after.problems)")
        #expect(try catalog.count() == 4, "a repair never deletes a record")
        #expect(try catalog.bowTie(matching: "B").photo == nil)
        #expect(try catalog.bowTie(matching: "B2").photo == nil)
        #expect(try catalog.bowTie(matching: "R").photo != nil)
        // The missing photo stays while the repair can be undone.
        #expect(try catalog.storedBlobCount() == 2)
        #expect(repair.undoAction?.title == "Repair the catalog")
        try catalog.setUndoLimit(0)
        #expect(try catalog.storedBlobCount() == 1)
        #expect(try catalog.check().isHealthy)
    }

    @Test func damagedInlinePhotosWrongSizesAndUnusedPhotos() throws {
        let directory = try TemporaryDirectory()
        let catalog = try Self.catalog(in: directory)
        let red = try #require(try catalog.bowTie(matching: "R").photo)
        let blue = try #require(try catalog.bowTie(matching: "B").photo)
        try Self.tamper(catalog, "UPDATE blob SET data = x'00' WHERE sha256 = '\(red.sha256)'")
        try Self.tamper(catalog, "UPDATE blob SET byteCount = 5 WHERE sha256 = '\(blue.sha256)'")
        let unused = Fixtures.photo(bytes: 10, seed: 3)
        try Self.tamper(
            catalog, "INSERT INTO blob (sha256, byteCount, external, data) VALUES (?, ?, 0, ?)",
            arguments: [unused.sha256Hex, unused.count, unused])

        let report = try catalog.check()
        #expect(
            report.problems.map(\.kind) == [.damagedInlinePhoto, .orphanPhoto, .photoSizeMismatch], "\(report.problems)"
        )
        let repair = try catalog.repair { _ in }
        #expect(repair.after.isHealthy, "\(repair.after.problems)")
        #expect(try catalog.bowTie(matching: "R").photo == nil)
        #expect(try catalog.bowTie(matching: "B").photo?.byteCount == 200_000)
        #expect(try catalog.photoData(for: catalog.bowTie(matching: "B"))?.count == 200_000)
    }

    @Test func aRecordReferringToAPhotoTheCatalogLacks() throws {
        let directory = try TemporaryDirectory()
        let catalog = try Self.catalog(in: directory)
        try Self.tamper(catalog, "UPDATE bowtie SET photoData_sha256 = 'feed' WHERE searchKey = 'N'")
        let report = try catalog.check()
        #expect(report.problems.map(\.kind) == [.danglingPhoto], "\(report.problems)")
        #expect(report.problems.first?.records.map(\.searchKey) == ["N"])
        #expect(try catalog.repair { _ in }.after.isHealthy)
    }

    @Test func invalidRecordsAreReportedAndLeftAlone() throws {
        let directory = try TemporaryDirectory()
        let catalog = try Self.catalog(in: directory)
        try Self.tamper(catalog, "UPDATE bowtie SET rating = 7, url = 'not a url' WHERE searchKey = 'R'")
        let report = try catalog.check()
        #expect(report.problems.map(\.kind) == [.invalidRecord])
        let problem = try #require(report.problems.first)
        #expect(problem.records.map(\.searchKey) == ["R"])
        #expect(problem.message.contains("rating is too large."), "\(problem)")
        #expect(problem.message.contains("url is not a valid URI."), "\(problem)")
        #expect(problem.repair == nil && problem.advice != nil)

        let repair = try catalog.repair { _ in }
        #expect(repair.repaired.isEmpty)
        #expect(repair.after.problems.map(\.kind) == [.invalidRecord])
        #expect(try catalog.count() == 3)
    }

    @Test func aStoreWithoutSchemaGetsItFromTheRepair() throws {
        let directory = try TemporaryDirectory()
        let url = directory.path("catalog.sqlite")
        try DatabaseQueue(path: url.path).close()  // an empty SQLite file
        let catalog = try Catalog(url: url, mode: .repair)
        let report = try catalog.check()
        #expect(report.problems.map(\.kind) == [.migrationsPending])
        let repair = try catalog.repair { _ in }
        #expect(repair.after.isHealthy, "\(repair.after.problems)")
    }

    @Test func aStoreFromANewerVersionIsReportedNotTouched() throws {
        let directory = try TemporaryDirectory()
        let url = try Self.catalog(in: directory).url
        try DatabaseQueue(path: url.path).write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v9: the future')")
        }
        #expect(throws: CatalogError.self) { try Catalog(url: url, mode: .mustExist) }
        let catalog = try Catalog(url: url, mode: .repair)
        let report = try catalog.check()
        #expect(report.problems.map(\.kind) == [.newerSchema])
        #expect(report.problems.first?.message.contains("v9: the future") == true)
        #expect(try catalog.repair { _ in }.repaired.isEmpty)
    }

    @Test func aSchemaThatDiffersFromTheDeclarationIsReportedNotTouched() throws {
        let directory = try TemporaryDirectory()
        let catalog = try Self.catalog(in: directory)
        try Self.tamper(catalog, "DROP INDEX bowtie_photoData_sha256")
        let report = try catalog.check()
        #expect(report.problems.map(\.kind) == [.schemaMismatch])
        #expect(
            report.problems.first?.message
                == "bowtie.bowtie_photoData_sha256 (index): declared as `INDEX bowtie_photoData_sha256(photoData_sha256)`, "
                + "missing from the store")
        #expect(report.problems.first?.repair == nil && report.problems.first?.advice != nil)
        #expect(try catalog.repair { _ in }.repaired.isEmpty)
    }

    @Test func aFileBeingWrittenDuringTheCheckIsNotReported() throws {
        let directory = try TemporaryDirectory()
        let catalog = try Self.catalog(in: directory)
        let checker = try Catalog(url: catalog.url, mode: .inspect)
        let written = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let failure = Mutex<String?>(nil)
        // A writer stores a new photo file and keeps its transaction open
        // for a moment: the check's snapshot sees a file no row refers to,
        // and must wait for the commit before calling it unused. Both
        // semaphores are signalled on every path, and both waits are
        // bounded: a writer that fails, before or after storing the file,
        // fails the test instead of hanging it.
        Thread.detachNewThread {
            defer { finished.signal() }
            do {
                _ = try catalog.write { db, changes in
                    let photo = try catalog.storePhoto(
                        Fixtures.photo(bytes: 300_000, seed: 7), threshold: 100, db, changes, writeFiles: true)
                    written.signal()
                    Thread.sleep(forTimeInterval: 0.5)
                    return try catalog.save(
                        BowTie(name: "Green", searchKey: "G"), photo: .store(photo), replacing: nil, db, changes)
                }
            } catch {
                failure.withLock { $0 = "the writer failed: \(error)" }
                written.signal()  // in case it failed before storing the file
            }
        }
        try #require(written.wait(timeout: .now() + 60) == .success, "the writer never stored its photo")
        try #require(failure.withLock { $0 } == nil, "\(failure.withLock { $0 } ?? "")")
        let report = try checker.check()
        try #require(finished.wait(timeout: .now() + 60) == .success, "the writer never finished")
        #expect(failure.withLock { $0 } == nil, "\(failure.withLock { $0 } ?? "")")
        #expect(report.problems.isEmpty, "\(report.problems)")
        #expect(try catalog.bowTie(matching: "G").photo?.storage == .external)
    }
}
