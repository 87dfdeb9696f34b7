import Foundation

/// A file the targets write each input to, to read it as `bowties import`
/// reads a file: in `/dev/shm` when there is one, removed at exit.
///
/// Written with `open`/`write`: Foundation's `Data.write(to:)` calls
/// `fsync`, which made a target wait for the disk (see fuzz/README.md).
public struct ScratchFile: Sendable {
    public let url: URL

    /// A file named after the process and `tag`.
    public init(tag: String) {
        let folder =
            FileManager.default.fileExists(atPath: "/dev/shm")
            ? "/dev/shm" : FileManager.default.temporaryDirectory.path
        url = URL(fileURLWithPath: folder).appendingPathComponent("bowties-fuzz-\(tag)-\(getpid())")
        let path = url.path
        Self.paths.append(path)
    }

    // nonisolated(unsafe): a target runs one input at a time, on one
    // thread; the list only grows as the targets make their files.
    nonisolated(unsafe) private static var paths: [String] = {
        atexit {
            for path in ScratchFile.paths { unlink(path) }
        }
        return []
    }()

    /// Replaces the file's contents with `bytes`.
    /// - Returns: false when the file cannot be written.
    @discardableResult
    public func write(_ bytes: some Collection<UInt8>) -> Bool {
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return Array(bytes).withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Foundation.write(descriptor, buffer.baseAddress?.advanced(by: offset), buffer.count - offset)
                guard written > 0 else { return false }
                offset += written
            }
            return true
        }
    }

    /// Opens the file for reading; the caller closes the descriptor.
    public func openForReading() -> Int32 {
        open(url.path, O_RDONLY | O_CLOEXEC)
    }
}
