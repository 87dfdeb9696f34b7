import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The process that holds a store's write lock, as the kernel reports it.
///
/// SQLite's unix VFS takes POSIX advisory locks. In WAL mode the writer
/// holds an exclusive lock on byte 120 of `<store>-shm` (`WAL_WRITE_LOCK`)
/// for the whole write transaction, whatever program it is: `fcntl`'s
/// `F_GETLK` names its pid, and `/proc` says what it runs. Nothing has to
/// be written anywhere for this, so a crashed writer can never be named:
/// its locks died with it.
public struct WriteLockHolder: Sendable, CustomStringConvertible {
    /// The byte of the `-shm` file SQLite locks while a write transaction
    /// is open (`WALINDEX_LOCK_OFFSET` + `WAL_WRITE_LOCK`).
    static let walWriteLockOffset = 120

    public var pid: Int32
    /// The program's name (`/proc/PID/comm`), when readable.
    public var program: String?
    /// The program's arguments after its name, when readable.
    public var arguments: [String]

    /// The holder of the write lock of the store at `storeURL`, or nil
    /// when no other process holds it (or the kernel cannot say).
    static func find(forStoreAt storeURL: URL) -> WriteLockHolder? {
        guard let descriptor = descriptor(forSHM: storeURL.path + "-shm") else { return nil }
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = off_t(walWriteLockOffset)
        lock.l_len = 1
        guard fcntl(descriptor, F_GETLK, &lock) == 0, lock.l_type != Int16(F_UNLCK), lock.l_pid > 0 else {
            return nil
        }
        return WriteLockHolder(pid: lock.l_pid)
    }

    /// The descriptors opened on `-shm` files, by path. They are never
    /// closed: closing any descriptor of a file drops every POSIX lock this
    /// process holds on it, SQLite's own included (its reader and
    /// "dead man" locks on `-shm`), and SQLite would then read pages a
    /// checkpoint may be overwriting. One descriptor per file is kept, and
    /// replaced (not closed) when the file at the path is a new one.
    private static let descriptors = Mutex<[String: Int32]>([:])

    private static func descriptor(forSHM path: String) -> Int32? {
        descriptors.withLock { descriptors in
            var current = stat()
            guard stat(path, &current) == 0 else { return nil }
            if let known = descriptors[path] {
                var opened = stat()
                if fstat(known, &opened) == 0 && opened.st_dev == current.st_dev && opened.st_ino == current.st_ino {
                    return known
                }
            }
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return nil }
            descriptors[path] = descriptor
            return descriptor
        }
    }

    public init(pid: Int32) {
        self.pid = pid
        program = Self.read("/proc/\(pid)/comm").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        let commandLine = Self.read("/proc/\(pid)/cmdline")?.split(separator: "\0").map(String.init) ?? []
        arguments = Array(commandLine.dropFirst())
    }

    /// `sqlite3 (pid 1234) holds its write lock`. What a program's
    /// arguments mean is for its own command line to say
    /// (``WaitPolicy/describeHolder``).
    public var description: String { "\(program ?? "a process") (pid \(pid)) holds its write lock" }

    private static func read(_ path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path), !data.isEmpty else { return nil }
        return String(decoding: data.prefix(4096), as: UTF8.self)
    }
}
