import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file written under a temporary name in its final directory, flushed to
/// disk and renamed into place, so readers see the old file or the whole new
/// one, never a part.
///
/// ```swift
/// let file = try AtomicFile(destination: url)
/// try file.write(bytes)
/// try file.commit()      // or let it go: deinit removes the temporary file
/// ```
///
/// Not `Sendable`: one writer, one thread.
final class AtomicFile {
    let destination: URL
    let temporaryURL: URL
    private var descriptor: Int32
    private var buffer: [UInt8] = []
    private var committed = false
    private static let bufferCapacity = 1 << 16

    /// Creates the temporary file beside `destination`.
    /// - Throws: ``CatalogError`` `.cannotCreateOutput` (also when
    ///   `destination` is a folder: the rename could only fail, after all
    ///   the writing), `.permissionDenied` when this user may not create
    ///   files in its folder.
    init(destination: URL, permissions: mode_t = 0o644) throws {
        self.destination = destination
        let directory = destination.deletingLastPathComponent()
        var info = stat()
        if stat(destination.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            throw CatalogError(
                .cannotCreateOutput, "cannot write \(destination.path): it is a folder",
                hint: "Name a file, e.g. \(destination.appendingPathComponent("ties.csv").path).")
        }
        let name = ".\(destination.lastPathComponent).tmp-\(UUID().uuidString.prefix(8))"
        temporaryURL = directory.appendingPathComponent(name)
        descriptor = open(temporaryURL.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, permissions)
        guard descriptor >= 0 else {
            let reason = errno
            if reason == EACCES || reason == EPERM {
                throw CatalogError(
                    .permissionDenied,
                    "cannot create \(destination.path): the folder \(directory.path) is not writable by this user "
                        + "(\(StoreLocation.userName))",
                    hint: "Write it to a folder you can write.")
            }
            throw CatalogError(
                .cannotCreateOutput,
                "cannot create \(destination.path): \(String(cString: strerror(reason)))")
        }
        buffer.reserveCapacity(Self.bufferCapacity)
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
        if !committed { unlink(temporaryURL.path) }
    }

    /// Appends bytes (buffered).
    func write<Bytes: Collection>(_ bytes: Bytes) throws where Bytes.Element == UInt8 {
        if buffer.count + bytes.count > Self.bufferCapacity {
            try flushBuffer()
        }
        if bytes.count >= Self.bufferCapacity {
            // Large chunks (an export's 64 KiB) go straight from the
            // caller's memory, without a copy into an array first.
            let written: Void? = try bytes.withContiguousStorageIfAvailable {
                try writeAll(UnsafeRawBufferPointer($0))
            }
            if written == nil { try writeAll(Array(bytes)) }
        } else {
            buffer.append(contentsOf: bytes)
        }
    }

    /// Appends UTF-8 text.
    func write(_ text: String) throws {
        try write(Array(text.utf8))
    }

    /// Flushes, syncs, renames into place and syncs the directory.
    func commit() throws {
        try flushBuffer()
        guard fsync(descriptor) == 0 else { throw failure("cannot flush") }
        close(descriptor)
        descriptor = -1
        guard rename(temporaryURL.path, destination.path) == 0 else { throw failure("cannot rename into place") }
        committed = true
        syncDirectory(destination.deletingLastPathComponent())
    }

    private func flushBuffer() throws {
        guard !buffer.isEmpty else { return }
        try writeAll(buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    private func writeAll(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try writeAll($0) }
    }

    private func writeAll(_ raw: UnsafeRawBufferPointer) throws {
        guard let base = raw.baseAddress else { return }
        var offset = 0
        while offset < raw.count {
            let written = Glibc.write(descriptor, base + offset, raw.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw failure("cannot write")
            }
            offset += written
        }
    }

    private func failure(_ what: String) -> CatalogError {
        CatalogError(.cannotCreateOutput, "\(what) \(destination.path): \(String(cString: strerror(errno)))")
    }
}

/// Makes a rename or unlink in `directory` durable.
func syncDirectory(_ directory: URL) {
    let descriptor = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard descriptor >= 0 else { return }
    fsync(descriptor)
    close(descriptor)
}
