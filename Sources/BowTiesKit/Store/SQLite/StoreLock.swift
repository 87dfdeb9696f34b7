import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// An advisory lock (`flock`) on `<store>-lock`, the file beside a store
/// that says who is using it.
///
/// Every open ``Catalog`` holds a shared lock on it, taken before the store
/// is opened and kept until the catalog is gone. A command that created a
/// new store and then failed removes the store only if it can take the
/// exclusive lock at once (``removeStoreIfUnused(at:)``): so a store another
/// process has opened, or is opening, is never removed, and while a store
/// is being removed nobody opens it (they wait, then start again on
/// whatever is there).
///
/// SQLite's own locks cannot do this: SQLite locks the database file, which
/// the removal unlinks, and a process that opened the path just before the
/// unlink would go on writing to a file no longer in the folder.
///
/// ```
/// catalog.sqlite        the store
/// catalog.sqlite-lock   this lock (empty; stays while the store exists)
/// ```
///
/// The lock file is removed only together with its store, by a holder of
/// the exclusive lock. Whoever then wakes up holding a lock on the removed
/// file notices (its inode is no longer the one at the path) and starts
/// again. Locks belong to the open file description, so two catalogs in one
/// process hold two shared locks, as two processes would.
///
/// Immutable, so `Sendable`; the descriptor is closed (and the lock
/// released) when the value goes away.
final class StoreLock: Sendable {
    /// The lock file's path for the store at `storeURL`.
    static func url(forStoreAt storeURL: URL) -> URL {
        URL(fileURLWithPath: storeURL.fileSystemPath + "-lock")
    }

    private let descriptor: Int32
    /// The lock file's path.
    let url: URL
    /// True when taking this lock created the lock file.
    let createdFile: Bool

    private init(descriptor: Int32, url: URL, createdFile: Bool) {
        self.descriptor = descriptor
        self.url = url
        self.createdFile = createdFile
    }

    deinit {
        close(descriptor)
    }

    /// Takes a shared lock for the store at `storeURL`. Waits (up to
    /// `timeout`, or for as long as it takes when nil) only while another
    /// process removes the store.
    ///
    /// - Parameters:
    ///   - create: Whether to create the lock file when it is missing.
    ///     Commands that only read pass false: they write nothing, not even
    ///     this empty file. Without a lock file there is no removal to
    ///     guard against (every command that creates a store creates it
    ///     first).
    ///   - createFolder: Whether to create the store's folder when it is
    ///     missing (a failed command may remove it while we wait).
    /// - Returns: nil when there is no lock to take: the folder is
    ///   read-only (nothing can create or remove a store there), it is
    ///   missing and `createFolder` is false (so is the store), or the lock
    ///   file is missing and `create` is false.
    /// - Throws: ``CatalogError`` `.storeBusy` after `timeout`, `.storeIO`,
    ///   `.cannotCreateOutput` when the folder cannot be created.
    static func shared(
        forStoreAt storeURL: URL, timeout: TimeInterval?, create: Bool = true, createFolder: Bool
    ) throws -> StoreLock? {
        let url = url(forStoreAt: storeURL)
        let deadline = timeout.map { Date().addingTimeInterval($0) } ?? .distantFuture
        while true {
            var created = create
            var descriptor = create ? open(url.fileSystemPath, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644) : -1
            if !create || (descriptor < 0 && errno == EEXIST) {
                created = false
                descriptor = open(url.fileSystemPath, O_RDONLY | O_CLOEXEC)
            }
            if descriptor < 0 {
                let error = errno
                if [EACCES, EROFS, EPERM].contains(error) { return nil }
                guard error == ENOENT else {
                    throw CatalogError(.storeIO, "cannot open \(url.path): \(String(cString: strerror(error)))")
                }
                if !create { return nil }
                // The folder is gone, or the file went between the opens.
                if !FileManager.default.fileExists(atPath: storeURL.fileSystemFolder) {
                    guard createFolder else { return nil }
                    try Catalog.createFolder(forStoreAt: storeURL)
                }
                try checkDeadline(deadline)
                continue
            }
            let lock = StoreLock(descriptor: descriptor, url: url, createdFile: created)
            try lock.wait(for: LOCK_SH, until: deadline)
            if lock.isStillAtItsPath { return lock }
            // The store was removed while we waited: start again.
        }
    }

    /// Takes the exclusive lock without waiting, on an existing lock file.
    ///
    /// - Returns: nil when the lock file does not exist (a store this
    ///   version of bowties never opened) or someone holds a lock on it.
    static func exclusiveIfFree(forStoreAt storeURL: URL) -> StoreLock? {
        let url = url(forStoreAt: storeURL)
        let descriptor = open(url.fileSystemPath, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        let lock = StoreLock(descriptor: descriptor, url: url, createdFile: false)
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0, lock.isStillAtItsPath else { return nil }
        return lock
    }

    /// Removes the lock file if this lock created it and no one else has
    /// it open: for a command that opened nothing after all (no store, or
    /// not a bowties store), so that it leaves no file behind.
    ///
    /// Converting a shared lock to an exclusive one is not atomic, so the
    /// shared lock may be lost on the way; that is fine, since the caller is
    /// giving the lock up.
    func removeFileIfCreatedAndUnused() {
        guard createdFile, flock(descriptor, LOCK_EX | LOCK_NB) == 0, isStillAtItsPath else { return }
        unlink(url.fileSystemPath)
    }

    /// Unlinks the lock file. Only for the holder of the exclusive lock,
    /// after it removed the store.
    func removeFile() {
        unlink(url.fileSystemPath)
    }

    /// Waits for `operation` (`LOCK_SH` or `LOCK_EX`), polling so that the
    /// wait can end at `deadline` as SQLite's busy timeout does.
    private func wait(for operation: Int32, until deadline: Date) throws {
        var pause: useconds_t = 1_000
        while flock(descriptor, operation | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                throw CatalogError(.storeIO, "cannot lock \(url.path): \(String(cString: strerror(errno)))")
            }
            try Self.checkDeadline(deadline)
            usleep(pause)
            pause = min(pause * 2, 20_000)
        }
    }

    private static func checkDeadline(_ deadline: Date) throws {
        guard Date() < deadline else {
            throw CatalogError(
                .storeBusy,
                "the catalog is busy: another process is removing it",
                hint: "Try again when the other bowties command has finished, or wait longer with --wait SECONDS.")
        }
    }

    /// False when the file was unlinked (or replaced) after it was opened.
    private var isStillAtItsPath: Bool {
        var opened = stat()
        var current = stat()
        guard fstat(descriptor, &opened) == 0, stat(url.fileSystemPath, &current) == 0 else { return false }
        return opened.st_dev == current.st_dev && opened.st_ino == current.st_ino
    }
}
