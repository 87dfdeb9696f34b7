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
    /// 1 MiB in all, for the regions of one file.
    static let pageCount = 16

    /// How many pages this region caches.
    let pageCount: Int

    /// The size of the bytes: for a file, its size when it was opened.
    /// Offsets are checked against it before they are read.
    let count: Int
    /// The document's name, for errors.
    let file: String

    /// The open file, or nil for bytes held in memory.
    private let source: OpenFile?
    /// The page read last: its first offset and its bytes (for bytes in
    /// memory, all of them).
    private var window = Window(start: 0, bytes: UnsafeBufferPointer(start: nil, count: 0))
    /// The cached pages.
    private var pages = Pages()
    /// The copy of bytes held in memory, freed in `deinit`.
    private let memory: UnsafeMutableBufferPointer<UInt8>?

    /// Reads `file` (its descriptor and size) through a cache of
    /// `pageCount` pages; the region keeps it open.
    init(file opened: OpenFile, displayName: String, pageCount: Int = ByteRegion.pageCount) {
        self.pageCount = max(1, pageCount)
        source = opened
        count = opened.size
        file = displayName
        memory = nil
        // The kernel reads ahead more on a file read mostly forward.
        _ = posix_fadvise(opened.descriptor, 0, 0, Int32(POSIX_FADV_SEQUENTIAL))
    }

    /// Copies `bytes`.
    init(copying bytes: some Collection<UInt8>, displayName: String) {
        let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: bytes.count)
        _ = buffer.initialize(from: bytes)
        memory = buffer
        pageCount = 0
        source = nil
        count = buffer.count
        file = displayName
        window = Window(start: 0, bytes: UnsafeBufferPointer(buffer))
    }

    deinit {
        memory?.deallocate()
        for buffer in pages.buffers { buffer.deallocate() }
    }

    // MARK: - Reading

    /// The byte at `offset`, which the caller has checked is below
    /// ``count``.
    ///
    /// - Throws: ``PropertyListError`` when the file has been cut short
    ///   or cannot be read.
    @inline(__always)
    func byte(_ offset: Int) throws(PropertyListError) -> UInt8 {
        let window = self.window
        let index = offset &- window.start
        if UInt(bitPattern: index) < UInt(bitPattern: window.bytes.count) {
            return window.bytes[index]
        }
        try load(pageAt: offset)
        return self.window.bytes[offset - self.window.start]
    }

    /// A big-endian unsigned integer of `size` (1 to 8) bytes at
    /// `offset`, which the caller has checked lie below ``count``.
    @inline(__always)
    func readUInt(at offset: Int, size: Int) throws(PropertyListError) -> UInt64 {
        var value: UInt64 = 0
        let window = self.window
        let index = offset &- window.start
        if UInt(bitPattern: index) < UInt(bitPattern: window.bytes.count),
            window.bytes.count - index >= size
        {
            for position in index..<(index + size) {
                value = value << 8 | UInt64(window.bytes[position])
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
        let window = self.window
        let index = range.lowerBound - window.start
        if window.bytes.count - index >= range.count {
            return try body(UnsafeBufferPointer(rebasing: window.bytes[index..<(index + range.count)]))
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
        if let bytes = pages.use(start) {
            window = Window(start: start, bytes: bytes)
            return
        }
        // Forget the page first: if the read fails, nothing stale stays.
        window = Window(start: 0, bytes: UnsafeBufferPointer(start: nil, count: 0))
        let (slot, buffer) = pages.free(pageCount: pageCount, pageSize: Self.pageSize)
        let page = UnsafeMutableBufferPointer(rebasing: buffer[..<min(Self.pageSize, count - start)])
        try read(into: page, from: start)
        pages.fill(slot, start: start)
        window = Window(start: start, bytes: UnsafeBufferPointer(page))
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

extension ByteRegion {
    /// A page's first offset and its bytes.
    private struct Window {
        var start: Int
        var bytes: UnsafeBufferPointer<UInt8>
    }

    /// The cached pages, in one value so that a page change is one access
    /// to the region's state, not one per array (each access to a class's
    /// stored property is checked at run time: the checks cost more than
    /// the lookup when a record's reads switch pages a few times).
    private struct Pages {
        /// Page `i` holds the bytes from `starts[i]` (-1 while it is being
        /// read) and was last used at `uses[i]`.
        var starts: [Int] = []
        var buffers: [UnsafeMutableBufferPointer<UInt8>] = []
        var uses: [Int] = []
        var clock = 0

        /// The bytes of the page at `start` if it is cached, marked used.
        mutating func use(_ start: Int) -> UnsafeBufferPointer<UInt8>? {
            clock += 1
            guard let slot = starts.firstIndex(of: start) else { return nil }
            uses[slot] = clock
            return UnsafeBufferPointer(buffers[slot])
        }

        /// A slot to read a page into: a new one while fewer than
        /// `pageCount` are taken, else the least recently used, forgotten.
        mutating func free(pageCount: Int, pageSize: Int) -> (Int, UnsafeMutableBufferPointer<UInt8>) {
            let slot: Int
            if buffers.count < pageCount {
                buffers.append(.allocate(capacity: pageSize))
                starts.append(-1)
                uses.append(0)
                slot = buffers.count - 1
            } else {
                slot = uses.indices.min { uses[$0] < uses[$1] } ?? 0
            }
            starts[slot] = -1
            return (slot, buffers[slot])
        }

        /// Records that `slot` now holds the page at `start`.
        mutating func fill(_ slot: Int, start: Int) {
            starts[slot] = start
            uses[slot] = clock
        }
    }
}
