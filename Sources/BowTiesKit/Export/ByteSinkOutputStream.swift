import Foundation

/// An `OutputStream` that gathers bytes and hands them to a sink in large
/// chunks.
///
/// CSV.swift's writer pushes one byte per `write` call; on a plain file
/// stream that would be one system call per byte.
/// Not `Sendable`: one writer, one thread.
final class ByteSinkOutputStream: OutputStream {
    private let sink: ([UInt8]) throws -> Void
    private var buffer: [UInt8] = []
    private var status: Stream.Status = .notOpen
    private static let chunkSize = 1 << 16
    /// The first error the sink threw; the stream reports failure from then on.
    private(set) var sinkError: Error?

    init(sink: @escaping ([UInt8]) throws -> Void) {
        self.sink = sink
        super.init(toMemory: ())
        buffer.reserveCapacity(Self.chunkSize)
    }

    /// Required by `OutputStream`; such a stream discards what it is given.
    required convenience init(toMemory: ()) {
        self.init(sink: { _ in })
    }

    override func open() { status = .open }
    override func close() { status = .closed }
    override var streamStatus: Stream.Status { status }
    override var hasSpaceAvailable: Bool { sinkError == nil }

    override func write(_ bytes: UnsafePointer<UInt8>, maxLength length: Int) -> Int {
        guard sinkError == nil else { return -1 }
        buffer.append(contentsOf: UnsafeBufferPointer(start: bytes, count: length))
        if buffer.count >= Self.chunkSize {
            flushBuffer()
        }
        return sinkError == nil ? length : -1
    }

    /// Writes what is buffered to the sink.
    /// - Throws: The sink's error, if it ever threw.
    func flush() throws {
        flushBuffer()
        if let sinkError { throw sinkError }
    }

    private func flushBuffer() {
        guard !buffer.isEmpty, sinkError == nil else { return }
        do {
            try sink(buffer)
        } catch {
            sinkError = error
        }
        buffer.removeAll(keepingCapacity: true)
    }
}
