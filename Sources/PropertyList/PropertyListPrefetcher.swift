import Foundation

/// Reads the elements of a root array on a background thread, a bounded
/// number ahead of the consumer, so that parsing and whatever the consumer
/// does with each element (decoding, storing) run on two cores.
///
/// ```swift
/// let prefetcher = PropertyListPrefetcher(try PropertyListReader(contentsOf: url))
/// while let record = try prefetcher.next() {
///     // same items, same order, same errors as `reader.next()`
/// }
/// ```
///
/// Memory stays flat: at most `batchSize * maximumBatches` elements wait
/// between the two threads. Elements arrive in document order; an error
/// arrives after every element read before it, exactly where the plain
/// reader would have thrown it.
///
/// The reader is handed over: from `init` on, only the prefetcher's thread
/// uses it (libxml2 readers may change threads, not be shared). The
/// thread stops when the document ends, when ``cancel()`` is called, or
/// when the prefetcher is released.
public final class PropertyListPrefetcher {
    private let channel: Channel
    private var batch: [PropertyListItem] = []
    private var position = 0
    private var finished = false

    /// Starts reading `reader`'s remaining elements on a new thread.
    ///
    /// - Parameters:
    ///   - batchSize: elements handed over at a time (fewer hand-overs,
    ///     less locking).
    ///   - maximumBatches: batches that may wait before the reader pauses.
    public convenience init(_ reader: PropertyListReader, batchSize: Int = 64, maximumBatches: Int = 8) {
        self.init(reading: reader, batchSize: batchSize, maximumBatches: maximumBatches)
    }

    /// Starts reading a binary property list's remaining elements on a
    /// new thread, as for an XML one. ``bytesConsumed`` stays 0: a binary
    /// property list is read in the order its objects are referenced, not
    /// front to back.
    public convenience init(_ reader: BinaryPropertyListReader, batchSize: Int = 64, maximumBatches: Int = 8) {
        self.init(reading: reader, batchSize: batchSize, maximumBatches: maximumBatches)
    }

    private init(reading reader: any StreamingReader, batchSize: Int, maximumBatches: Int) {
        channel = Channel(capacity: max(maximumBatches, 1))
        let handOver = HandOver(reader: reader)
        let channel = channel
        let batchSize = max(batchSize, 1)
        let thread = Thread {
            let end = Self.produce(handOver.take(), into: channel, batchSize: batchSize)
            // The reader is released by now (it was only the call's): a
            // consumer waiting in `cancel()` finds it and its file closed.
            channel.finish(throwing: end.error, bytesConsumed: end.bytesConsumed)
        }
        thread.name = "PropertyListPrefetcher"
        thread.start()
    }

    /// Stops the reading thread and waits for it to end.
    deinit {
        cancel()
    }

    /// The next element, in document order, or `nil` after the last.
    /// - Throws: the reader's ``PropertyListError``, once every element
    ///   read before it has been returned.
    public func next() throws -> PropertyListItem? {
        while position == batch.count {
            guard !finished else { return nil }
            switch try channel.take() {
            case .some(let next):
                batch = next
                position = 0
            case .none:
                finished = true
            }
        }
        defer { position += 1 }
        return batch[position]
    }

    /// Bytes of the document the reader has consumed so far (a little
    /// ahead of the elements returned), for progress displays.
    public var bytesConsumed: Int {
        channel.bytesConsumed
    }

    /// Stops reading: the thread ends at its next hand-over. Waits for it,
    /// so the reader and its file are closed when this returns.
    public func cancel() {
        channel.cancel()
    }

    /// The reading thread's loop: returns how it ended (the reader's
    /// error, or nil at the end of the document or when cancelled) and
    /// the bytes consumed, for the caller to hand over once the reader is
    /// released.
    private static func produce(_ reader: any StreamingReader, into channel: Channel, batchSize: Int)
        -> (error: (any Error)?, bytesConsumed: Int)
    {
        if let xml = reader as? PropertyListReader {
            // libxml2 drives the parse, when it can.
            do {
                if try xml.produceRecords(batchSize: batchSize, { channel.put($0, bytesConsumed: $1) }) {
                    return (nil, xml.bytesConsumed)
                }
            } catch {
                return (error, xml.bytesConsumed)
            }
        }
        var batch: [PropertyListItem] = []
        batch.reserveCapacity(batchSize)
        do {
            while let item = try reader.next() {
                batch.append(item)
                if batch.count == batchSize {
                    guard channel.put(batch, bytesConsumed: reader.bytesConsumed) else { break }
                    batch.removeAll(keepingCapacity: true)
                }
            }
            if !batch.isEmpty { _ = channel.put(batch, bytesConsumed: reader.bytesConsumed) }
            return (nil, reader.bytesConsumed)
        } catch {
            if !batch.isEmpty { _ = channel.put(batch, bytesConsumed: reader.bytesConsumed) }
            return (error, reader.bytesConsumed)
        }
    }
}

@available(*, unavailable, message: "one consumer: the prefetcher's state is not locked")
extension PropertyListPrefetcher: Sendable {}

/// A reader whose elements the prefetcher can read ahead.
private protocol StreamingReader: AnyObject {
    func next() throws -> PropertyListItem?
    var bytesConsumed: Int { get }
}

extension PropertyListReader: StreamingReader {}

extension BinaryPropertyListReader: StreamingReader {
    var bytesConsumed: Int { 0 }
}

/// Moves the reader to the prefetcher's thread.
///
/// `@unchecked Sendable`: the reader is taken once, by that thread, and
/// the creating thread keeps no reference to it.
private final class HandOver: @unchecked Sendable {
    private var reader: (any StreamingReader)?

    init(reader: any StreamingReader) {
        self.reader = reader
    }

    func take() -> any StreamingReader {
        defer { reader = nil }
        guard let reader else { preconditionFailure("the reader was handed over twice") }
        return reader
    }
}

/// A bounded queue of batches between one producer and one consumer.
///
/// `@unchecked Sendable`: every stored property is read and written only
/// while `condition` is locked.
private final class Channel: @unchecked Sendable {
    private let condition = NSCondition()
    private let capacity: Int
    private var batches: [[PropertyListItem]] = []
    private var done = false
    private var failure: (any Error)?
    private var cancelled = false
    private var producerEnded = false
    private var consumed = 0

    init(capacity: Int) {
        self.capacity = capacity
    }

    var bytesConsumed: Int {
        condition.lock()
        defer { condition.unlock() }
        return consumed
    }

    /// Waits for room, then queues `batch`.
    /// - Returns: false when the consumer cancelled (stop producing).
    func put(_ batch: [PropertyListItem], bytesConsumed: Int) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while batches.count >= capacity && !cancelled {
            condition.wait()
        }
        guard !cancelled else { return false }
        batches.append(batch)
        consumed = bytesConsumed
        condition.broadcast()
        return true
    }

    /// The producer's last word: the end of the document, or an error.
    func finish(throwing error: (any Error)?, bytesConsumed: Int) {
        condition.lock()
        defer { condition.unlock() }
        done = true
        failure = error
        producerEnded = true
        consumed = bytesConsumed
        condition.broadcast()
    }

    /// The next batch, `nil` at the end.
    /// - Throws: the producer's error, after its last batch.
    func take() throws -> [PropertyListItem]? {
        condition.lock()
        defer { condition.unlock() }
        while batches.isEmpty && !done {
            condition.wait()
        }
        if !batches.isEmpty {
            condition.broadcast()
            return batches.removeFirst()
        }
        if let failure { throw failure }
        return nil
    }

    /// Tells the producer to stop and waits until it has.
    func cancel() {
        condition.lock()
        defer { condition.unlock() }
        cancelled = true
        batches.removeAll()
        condition.broadcast()
        while !producerEnded {
            condition.wait()
        }
    }
}
