#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A regular file opened for reading; the descriptor is closed in
/// `deinit`.
///
/// The reader opens the file itself, rather than letting libxml2 open it,
/// so that it can tell a missing file from an unreadable one, look at the
/// first bytes (binary property list? internal DTD subset?) and hand
/// libxml2 the same descriptor: no second open, no transparent gzip
/// decompression.
final class OpenFile {
    /// Why the file could not be opened, with the system's wording.
    enum Failure: Error {
        case notFound(String)
        case unreadable(String)
    }

    let descriptor: Int32
    /// The file's size in bytes when it was opened.
    let size: Int

    /// Opens `path` for reading.
    ///
    /// - Throws: ``Failure/notFound(_:)`` when the path does not exist,
    ///   ``Failure/unreadable(_:)`` for a directory, a device, or a file
    ///   the process may not read.
    init(path: String) throws(Failure) {
        // O_NONBLOCK: opening a FIFO for reading otherwise waits, forever,
        // for a writer (`bowties import some.fifo` would hang before the
        // file type is checked). It changes nothing for the regular files
        // that pass the check below: their reads never block.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            let code = errno
            let reason = String(cString: strerror(code))
            if code == ENOENT || code == ENOTDIR {
                throw .notFound(reason)
            }
            throw .unreadable(reason)
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw .unreadable(reason)
        }
        switch status.st_mode & S_IFMT {
        case S_IFREG:
            break
        case S_IFDIR:
            close(descriptor)
            throw .unreadable("is a directory")
        default:
            close(descriptor)
            throw .unreadable("not a regular file")
        }
        self.descriptor = descriptor
        self.size = Int(status.st_size)
    }

    deinit {
        close(descriptor)
    }

    /// Up to `count` bytes from the start of the file, without moving the
    /// file offset libxml2 will read from.
    ///
    /// - Throws: ``Failure/unreadable(_:)`` when reading fails (`EISDIR`,
    ///   `EIO`...).
    func prefix(_ count: Int) throws(Failure) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let result = bytes.withUnsafeMutableBytes { buffer in
                pread(descriptor, buffer.baseAddress.map { $0 + filled }, count - filled, off_t(filled))
            }
            if result < 0 {
                if errno == EINTR { continue }
                throw .unreadable(String(cString: strerror(errno)))
            }
            if result == 0 { break }
            filled += result
        }
        bytes.removeSubrange(filled...)
        return bytes
    }
}
