import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The bytes of a binary property list: a read-only memory map of the
/// file, or a copy of bytes held in memory; unmapped or freed in `deinit`.
///
/// A map costs no heap, and its pages are only resident while read:
/// ``releaseResidentPages()`` gives them back (they are read again from
/// the page cache if needed), so reading a 300 MB file a record at a time
/// keeps the process small. (A file truncated by another process while it
/// is mapped would end the process with SIGBUS: the import reads files
/// it was given, not files being written.)
final class ByteRegion {
    let bytes: UnsafeBufferPointer<UInt8>
    private let isMapped: Bool

    /// Maps `size` bytes of the open file `descriptor` (which may be
    /// closed afterwards).
    init?(mapping descriptor: Int32, size: Int) {
        guard size > 0, let address = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0),
            address != MAP_FAILED
        else { return nil }
        _ = madvise(address, size, MADV_SEQUENTIAL)
        bytes = UnsafeBufferPointer(start: address.assumingMemoryBound(to: UInt8.self), count: size)
        isMapped = true
    }

    /// Copies `source`.
    init(copying source: some Collection<UInt8>) {
        let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: source.count)
        _ = buffer.initialize(from: source)
        bytes = UnsafeBufferPointer(buffer)
        isMapped = false
    }

    deinit {
        if isMapped {
            if let base = bytes.baseAddress { munmap(UnsafeMutableRawPointer(mutating: base), bytes.count) }
        } else {
            bytes.deallocate()
        }
    }

    /// Drops the mapped pages from the process's resident memory; the
    /// next read of a page maps it again from the page cache.
    func releaseResidentPages() {
        guard isMapped, let base = bytes.baseAddress else { return }
        _ = madvise(UnsafeMutableRawPointer(mutating: base), bytes.count, MADV_DONTNEED)
    }
}
