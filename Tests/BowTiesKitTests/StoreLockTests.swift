import Foundation
import Testing

@testable import BowTiesKit

@Suite("Store lock: creating and removing new stores")
struct StoreLockTests {
    @Test func aStoreInUseIsNeverRemoved() throws {
        let directory = try TemporaryDirectory()
        let url = directory.path("new/catalog.sqlite")
        do {
            let catalog = try Catalog(url: url)
            withExtendedLifetime(catalog) {
                #expect(FileManager.default.fileExists(atPath: url.path + "-lock"))
                #expect(!Catalog.removeStoreIfUnused(at: url), "removed a store that is open")
                #expect(FileManager.default.fileExists(atPath: url.path))
            }
        }
        #expect(Catalog.removeStoreIfUnused(at: url))
        #expect(directory.allFiles().isEmpty, "\(directory.allFiles())")
    }

    @Test func aStoreThatHoldsSomethingIsNeverRemoved() throws {
        let directory = try TemporaryDirectory()
        let url = directory.path("catalog.sqlite")
        try Catalog(url: url).save(BowTie(name: "Red", searchKey: "R"))
        #expect(!Catalog.removeStoreIfUnused(at: url))
        #expect(try Catalog(url: url, mode: .mustExist).count() == 1)
    }

    @Test func aStoreWithoutLockFileIsNotOneWeCreated() throws {
        let directory = try TemporaryDirectory()
        let url = directory.path("catalog.sqlite")
        _ = try Catalog(url: url)
        try FileManager.default.removeItem(atPath: url.path + "-lock")
        #expect(!Catalog.removeStoreIfUnused(at: url))
    }

    @Test func openingAFileThatIsNotAStoreLeavesNoLockFile() throws {
        let directory = try TemporaryDirectory()
        let text = try directory.write(String(repeating: "not a database\n", count: 100), to: "notes.txt")
        #expect(throws: CatalogError.self) { try Catalog(url: text, mode: .mustExist) }
        #expect(directory.allFiles() == ["notes.txt"])
    }

    @Test func openersWaitWhileAStoreIsRemovedThenStartAgain() throws {
        let directory = try TemporaryDirectory()
        let url = directory.path("new/catalog.sqlite")
        do { _ = try Catalog(url: url) }
        // Play the failed command: hold the exclusive lock, as the removal
        // does, while another opener arrives.
        var removal = StoreLock.exclusiveIfFree(forStoreAt: url)
        try #require(removal != nil)
        let opened = DispatchSemaphore(value: 0)
        let result = ResultBox()
        Thread.detachNewThread {
            do {
                let catalog = try Catalog(url: url)
                try catalog.save(BowTie(name: "Red", searchKey: "R"))
                result.set(nil)
            } catch {
                result.set(error)
            }
            opened.signal()
        }
        Thread.sleep(forTimeInterval: 0.3)
        #expect(opened.wait(timeout: .now()) == .timedOut, "the opener did not wait for the removal")
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
        removal?.removeFile()
        try FileManager.default.removeItem(at: url.deletingLastPathComponent())
        removal = nil  // the opener wakes up on a lock file that is gone
        opened.wait()
        #expect(result.error == nil, "\(String(describing: result.error))")
        #expect(try Catalog(url: url, mode: .mustExist).count() == 1)
    }
}

/// The outcome of work on another thread. `@unchecked Sendable`: the lock
/// guards the one field.
private final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Error?

    func set(_ error: Error?) {
        lock.withLock { stored = error }
    }

    var error: Error? {
        lock.withLock { stored }
    }
}
