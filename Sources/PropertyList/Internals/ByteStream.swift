#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file descriptor read in 64 KiB chunks, a byte at a time, counting
/// lines and columns: what the JSON and CSV readers stand on.
///
/// Memory is the chunk, whatever the file's size, and the descriptor may
/// be a pipe (standard input): nothing is ever read twice.
///
/// Not `Sendable`: one reader owns it.
final class ByteStream {
    static let chunkSize = 64 * 1024

    /// The file's name, as locations show it.
    let file: String
    /// ``file`` for the location of every value.
    private let fileName: SourceLocation.FileName
    private let descriptor: Int32
    /// Kept so that a file opened by the stream stays open while it reads.
    private let owner: OpenFile?
    private let buffer: UnsafeMutablePointer<UInt8>
    private var position = 0
    private var count = 0
    private var atEnd = false
    /// Bytes handed out before the current chunk.
    private var consumedBeforeChunk = 0

    /// 1-based line of the next byte.
    private(set) var line = 1
    /// Whether the last byte was a CR, so that the LF of a CRLF does not
    /// count a second line.
    private var afterCarriageReturn = false
    /// 1-based column of the next byte, in characters (UTF-8 continuation
    /// bytes do not count).
    private(set) var column = 1

    /// Reads `descriptor` (not closed by the stream), starting with the
    /// bytes `prefix`, which the caller has already read from it (to tell
    /// its format).
    init(descriptor: Int32, file: String, prefix: [UInt8] = [], owner: OpenFile? = nil) {
        self.descriptor = descriptor
        self.file = file
        fileName = SourceLocation.FileName(file)
        self.owner = owner
        let capacity = max(Self.chunkSize, prefix.count)
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        prefix.withUnsafeBufferPointer { bytes in
            if let base = bytes.baseAddress { buffer.update(from: base, count: bytes.count) }
        }
        self.buffer = buffer
        count = prefix.count
        chunkCapacity = capacity
    }

    private let chunkCapacity: Int

    /// Reads `bytes` from memory and nothing else (a cell of a CSV file
    /// that holds JSON), counting lines and columns from `location`.
    convenience init(bytes: [UInt8], at location: SourceLocation) {
        self.init(descriptor: -1, file: location.file, prefix: bytes)
        atEnd = true
        line = location.line
        column = location.column
    }

    deinit {
        buffer.deallocate()
    }

    /// Opens the regular file at `path`.
    convenience init(path: String, file: String) throws(PropertyListError) {
        do {
            let opened = try OpenFile(path: path)
            self.init(descriptor: opened.descriptor, file: file, owner: opened)
        } catch {
            switch error {
            case .notFound(let reason):
                throw PropertyListError(.fileNotFound, "cannot open file: \(reason)", file: file)
            case .unreadable(let reason):
                throw PropertyListError(.unreadable, "cannot read file: \(reason)", file: file)
            }
        }
    }

    /// Bytes consumed so far.
    var offset: Int { consumedBeforeChunk + position }

    /// Where the next byte is.
    var location: SourceLocation { SourceLocation(fileName: fileName, line: line, column: column) }

    /// The next byte without consuming it; nil at the end of the input.
    @inline(__always)
    func peek() throws(PropertyListError) -> UInt8? {
        if position < count { return buffer[position] }
        return try refill() ? buffer[position] : nil
    }

    /// Consumes the byte ``peek()`` returned.
    ///
    /// A line ends with LF, CRLF or a lone CR (as old Mac files end
    /// them): with a CR alone a file would be one long line 1, and every
    /// location in it wrong.
    @inline(__always)
    func advance() {
        let byte = buffer[position]
        position += 1
        if byte == 0x0A {
            if !afterCarriageReturn { line += 1 }
            column = 1
            afterCarriageReturn = false
        } else if byte == 0x0D {
            line += 1
            column = 1
            afterCarriageReturn = true
        } else {
            afterCarriageReturn = false
            if byte & 0xC0 != 0x80 { column += 1 }
        }
    }

    /// Skips a UTF-8 byte-order mark at the start of the input, and
    /// refuses the input when it starts like UTF-16 or UTF-32 (a byte-order
    /// mark, or a NUL byte), which the text readers do not read.
    ///
    /// - Throws: ``PropertyListError/Kind/malformedText`` at line 1,
    ///   column 1.
    func skipByteOrderMark() throws(PropertyListError) {
        let start = location
        switch try peek() {
        case 0xEF?:
            for expected: UInt8 in [0xEF, 0xBB, 0xBF] where try next() != expected {
                throw PropertyListError(.malformedText, "invalid UTF-8 at the start of the file", at: start)
            }
        case let first? where first == 0xFE || first == 0xFF || first == 0x00:
            let hex = String(first, radix: 16, uppercase: true)
            let what =
                first == 0x00
                ? "a NUL byte, as UTF-16 and UTF-32 files do"
                : "byte 0x\(hex), a UTF-16 or UTF-32 byte-order mark"
            throw PropertyListError(
                .malformedText,
                "the file starts with \(what): only UTF-8 is read (convert it, e.g. with iconv -t UTF-8)",
                at: start)
        default:
            break
        }
    }

    /// The next byte, consumed; nil at the end.
    @inline(__always)
    func next() throws(PropertyListError) -> UInt8? {
        guard let byte = try peek() else { return nil }
        advance()
        return byte
    }

    private func refill() throws(PropertyListError) -> Bool {
        if atEnd { return false }
        consumedBeforeChunk += count
        position = 0
        count = 0
        while true {
            let result = read(descriptor, buffer, chunkCapacity)
            if result < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN {
                    // A FIFO opened without a writer yet: wait for one.
                    var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                    _ = poll(&poller, 1, -1)
                    continue
                }
                throw PropertyListError(.unreadable, "cannot read file: \(String(cString: strerror(errno)))", file: file)
            }
            if result == 0 {
                atEnd = true
                return false
            }
            count = result
            return true
        }
    }
}
