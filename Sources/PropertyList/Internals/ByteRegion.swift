#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The bytes of a binary property list, read on demand: from a file with
/// `pread` through a small cache of pages, or from a copy in memory.
///
/// The file is not mapped. A mapped file that another process truncates
/// ends the reading process with SIGBUS at the next touch of a lost page,
/// and no Swift code can catch that. Here every byte comes from a `pread`
/// into a page the region owns, so a file cut short while it is read
/// gives a located error (``PropertyListError/Kind/malformedBinary``,
/// "the file was cut short while it was read") instead of a crash.
/// (A file changed in place while it is read may give values from
/// before and after the change, each read still checked against the
/// trailer: wrong values or an error, never a wild read.)
///
/// Memory is the cache (``pageCount`` pages of ``pageSize`` bytes),
/// whatever the file's size. A binary property list is read in a few
/// places at once (the root array's references, the offset table near the
/// end, the objects, the keys every record shares), each mostly forward,
/// so a handful of pages, replaced least recently used first, serve
/// nearly every read; the most recent page is checked first, inline.
///
/// Not `Sendable`: the reader that owns it reads it.
final class ByteRegion {
    /// 64 KiB: a `pread` per 64 KiB of objects costs nothing next to
    /// decoding them.
    static let pageSize = 64 * 1024
    /// 1 MiB in all.
    static let pageCount = 16

    /// The size of the bytes: for a file, its size when it was opened.
    /// Offsets are checked against it before they are read.
    let count: Int
    /// The document's name, for errors.
    let file: String

    /// The open file, or nil for bytes held in memory.
    private let source: OpenFile?
    /// The page read last: its first offset and its bytes (for bytes in
    /// memory, all of them).
    private var windowStart = 0
    private var window: UnsafeBufferPointer<UInt8>
    /// The cached pages, at most ``pageCount``; page `i` holds the bytes
    /// from `starts[i]`, and was last used at `uses[i]`.
    private var starts: [Int] = []
    private var buffers: [UnsafeMutableBufferPointer<UInt8>] = []
    private var uses: [Int] = []
    private var clock = 0
    /// The copy of bytes held in memory, freed in `deinit`.
    private let memory: UnsafeMutableBufferPointer<UInt8>?

    /// Reads `file` (its descriptor and size) through the page cache; the
    /// region keeps it open.
    init(file opened: OpenFile, displayName: String) {
        source = opened
        count = opened.size
        file = displayName
        window = UnsafeBufferPointer(start: nil, count: 0)
        memory = nil
        // The kernel reads ahead more on a file read mostly forward.
        _ = posix_fadvise(opened.descriptor, 0, 0, Int32(POSIX_FADV_SEQUENTIAL))
    }

    /// Copies `bytes`.
    init(copying bytes: some Collection<UInt8>, displayName: String) {
        let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: bytes.count)
        _ = buffer.initialize(from: bytes)
        memory = buffer
        source = nil
        count = buffer.count
        file = displayName
        window = UnsafeBufferPointer(buffer)
    }

    deinit {
        memory?.deallocate()
        for buffer in buffers { buffer.deallocate() }
    }

    // MARK: - Reading

    /// The byte at `offset`, which the caller has checked is below
    /// ``count``.
    ///
    /// - Throws: ``PropertyListError`` when the file has been cut short
    ///   or cannot be read.
    @inline(__always)
    func byte(_ offset: Int) throws(PropertyListError) -> UInt8 {
        let index = offset &- windowStart
        if UInt(bitPattern: index) < UInt(bitPattern: window.count) {
            return window[index]
        }
        try load(pageAt: offset)
        return window[offset - windowStart]
    }

    /// A big-endian unsigned integer of `size` (1 to 8) bytes at
    /// `offset`, which the caller has checked lie below ``count``.
    @inline(__always)
    func readUInt(at offset: Int, size: Int) throws(PropertyListError) -> UInt64 {
        var value: UInt64 = 0
        let index = offset &- windowStart
        if UInt(bitPattern: index) < UInt(bitPattern: window.count),
            window.count - index >= size
        {
            for position in index..<(index + size) {
                value = value << 8 | UInt64(window[position])
            }
            return value
        }
        for position in offset..<(offset + size) {
            value = value << 8 | UInt64(try byte(position))
        }
        return value
    }

    /// Calls `body` with the bytes of `range` (checked to lie below
    /// ``count``) in one buffer, valid only during the call: a slice of a
    /// page when the range lies in one, else a copy read for the call.
    func withBytes<Result>(
        in range: Range<Int>, _ body: (UnsafeBufferPointer<UInt8>) throws(PropertyListError) -> Result
    ) throws(PropertyListError) -> Result {
        if range.isEmpty { return try body(UnsafeBufferPointer(start: nil, count: 0)) }
        _ = try byte(range.lowerBound)
        let index = range.lowerBound - windowStart
        if window.count - index >= range.count {
            return try body(UnsafeBufferPointer(rebasing: window[index..<(index + range.count)]))
        }
        // Across pages: read it whole, without disturbing the cache (it
        // may be a large string or data read once).
        let copy = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: range.count)
        defer { copy.deallocate() }
        try read(into: copy, from: range.lowerBound)
        return try body(UnsafeBufferPointer(copy))
    }

    /// Makes the page holding `offset` the window, reading it if it is not
    /// cached (replacing the least recently used page when all are taken).
    private func load(pageAt offset: Int) throws(PropertyListError) {
        guard source != nil, offset >= 0, offset < count else {
            // The callers check offsets against the size first.
            throw PropertyListError(
                .malformedBinary, "internal error: byte \(offset) is outside the \(count) bytes",
                at: SourceLocation(file: file, byteOffset: max(0, min(offset, count))))
        }
        let start = offset - offset % Self.pageSize
        clock += 1
        if let slot = starts.firstIndex(of: start) {
            uses[slot] = clock
            windowStart = start
            window = UnsafeBufferPointer(buffers[slot])
            return
        }
        let length = min(Self.pageSize, count - start)
        let slot: Int
        if buffers.count < Self.pageCount {
            buffers.append(.allocate(capacity: Self.pageSize))
            starts.append(-1)
            uses.append(0)
            slot = buffers.count - 1
        } else {
            slot = uses.indices.min { uses[$0] < uses[$1] } ?? 0
        }
        // Forget the page first: if the read fails, nothing stale stays.
        starts[slot] = -1
        window = UnsafeBufferPointer(start: nil, count: 0)
        let page = UnsafeMutableBufferPointer(rebasing: buffers[slot][..<length])
        try read(into: page, from: start)
        starts[slot] = start
        uses[slot] = clock
        windowStart = start
        window = UnsafeBufferPointer(page)
    }

    /// Fills `buffer` with the file's bytes from `offset`.
    ///
    /// - Throws: ``PropertyListError`` located at the first byte missing
    ///   when the file now ends before them, or when reading fails.
    private func read(into buffer: UnsafeMutableBufferPointer<UInt8>, from offset: Int) throws(PropertyListError) {
        guard let source else {
            // Bytes in memory: a copy of what is there.
            guard let memory, offset + buffer.count <= memory.count, let base = buffer.baseAddress,
                let from = memory.baseAddress
            else { return }
            base.update(from: from + offset, count: buffer.count)
            return
        }
        var filled = 0
        while filled < buffer.count {
            let result = pread(
                source.descriptor, buffer.baseAddress.map { $0 + filled }, buffer.count - filled,
                off_t(offset + filled))
            if result < 0 {
                if errno == EINTR { continue }
                throw PropertyListError(
                    .unreadable, "cannot read file: \(String(cString: strerror(errno)))",
                    at: SourceLocation(file: file, byteOffset: offset + filled))
            }
            if result == 0 {
                var status = stat()
                let now = fstat(source.descriptor, &status) == 0 ? "\(status.st_size) bytes" : "fewer bytes"
                throw PropertyListError(
                    .malformedBinary,
                    "the file was cut short while it was read: it has \(now), "
                        + "\(count) when it was opened",
                    at: SourceLocation(file: file, byteOffset: offset + filled))
            }
            filled += result
        }
    }
}
