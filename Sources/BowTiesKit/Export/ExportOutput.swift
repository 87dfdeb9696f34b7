import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Where streamed output goes: standard output, or a file written
/// atomically (it appears whole or not at all, on ``commit()``).
///
/// Writes go straight to the descriptor in the chunks callers hand over
/// (``ExportBuffer`` hands 64 KiB at a time). A reader that closes the pipe
/// (`bowties list | head -1`) ends the writing with ``CatalogError``
/// `.outputClosed`; the process must ignore `SIGPIPE` for the write to
/// fail with `EPIPE` rather than kill it (the command does, for the
/// commands that stream).
///
/// Not `Sendable`: one writer, one thread.
public final class ExportOutput {
    private let file: AtomicFile?

    /// Standard output.
    public init() {
        file = nil
    }

    /// A file, created beside `url` under a temporary name.
    /// - Throws: ``CatalogError`` `.cannotCreateOutput`.
    public init(file url: URL) throws {
        file = try AtomicFile(destination: url)
    }

    /// The output for `destination`.
    convenience init(_ destination: ExportDestination) throws {
        switch destination {
        case .standardOutput: self.init()
        case .file(let url): try self.init(file: url)
        }
    }

    /// Writes `bytes` whole.
    /// - Throws: ``CatalogError`` `.outputClosed` when the reader went
    ///   away, `.cannotCreateOutput` for any other failure.
    func write(_ bytes: UnsafeRawBufferPointer) throws {
        if let file {
            try file.write(bytes.bindMemory(to: UInt8.self))
            return
        }
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(1, base + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                if errno == EPIPE { throw CatalogError(.outputClosed, "standard output was closed") }
                throw CatalogError(
                    .cannotCreateOutput, "cannot write to standard output: \(String(cString: strerror(errno)))")
            }
            offset += written
        }
    }

    /// Writes `text` (UTF-8) whole.
    public func write(_ text: String) throws {
        var text = text
        try text.withUTF8 { try write(UnsafeRawBufferPointer($0)) }
    }

    /// Puts a file in place (standard output: nothing to do).
    public func commit() throws {
        try file?.commit()
    }
}
