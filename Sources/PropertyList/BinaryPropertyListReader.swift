import Foundation

/// Reads a binary property list (`bplist00`, Apple's default format) into
/// the same ``PropertyListItem`` values as the XML ``PropertyListReader``.
///
/// A binary property list is random access: its trailer, at the end of the
/// file, says where every object is. The reader reads the file with
/// `pread` through caches of 1 MiB in all (``ByteRegion``), so memory stays flat
/// whatever the file's size, and a file cut short by another process
/// while it is read is a located error rather than a crash, and builds
/// values only when asked: a root array one element at a time with
/// ``next()``, as the XML reader streams, or the whole root with
/// ``readRoot()``.
///
/// ```swift
/// let reader = try BinaryPropertyListReader(contentsOf: url)
/// guard reader.rootIsArray else { ... }
/// while let record = try reader.next() {
///     // record.value, record.location ("Ties.plist: byte 1234")
/// }
/// ```
///
/// Values are located by byte offset (``SourceLocation/byteOffset``): the
/// offset of the object's marker byte, and for a dictionary key the offset
/// of the key's string object.
///
/// What the format holds and the XML reader cannot, it refuses with
/// ``PropertyListError/Kind/invalidValue``: null objects (marker `0x00`;
/// a property list has no null), UIDs (NSKeyedArchiver archives, not
/// property lists), 128-bit integers outside `Int64`, and dates outside
/// the years 0000 to 9999. Sets become arrays. Strings keep control
/// characters that XML could not hold.
///
/// The reader is safe on untrusted input. It refuses, with
/// ``PropertyListError/Kind/malformedBinary`` and the byte offset of the
/// problem: a file shorter than header and trailer, a bad header, a
/// trailer that lies (offset table outside the file, offset or reference
/// size not 1 to 8, more objects than the table has room for, a root
/// beyond the objects), offsets outside the objects, references beyond
/// the objects, counts larger than the bytes that remain, unknown markers,
/// cycles (an object inside itself), and files that expand to far more
/// values than they hold references (shared containers referenced from
/// many places). It refuses nesting deeper than ``maximumDepth``
/// (``PropertyListError/Kind/tooDeeplyNested``), non-string keys and
/// repeated keys, as the XML reader does. Decoding is iterative, so no
/// file can exhaust the call stack.
///
/// A reader is not `Sendable`, like the XML reader: create one per
/// document and use it where it was created.
public final class BinaryPropertyListReader {
    /// How deeply arrays and dictionaries may nest: the XML reader's limit.
    public static let maximumDepth = PropertyListReader.maximumDepth

    /// Whether the root object is an array (or a set), whose elements
    /// ``next()`` returns one at a time.
    public let rootIsArray: Bool

    /// Where the root object is.
    public let rootLocation: SourceLocation

    /// The file's name, as locations show it.
    public var displayName: String { table.file }

    private var table: BinaryObjectTable
    private var state: State

    private enum State {
        case rootPending
        /// Inside the root array: `position` of the container's elements
        /// is next.
        case streaming(BinaryObjectTable.Container, position: Int)
        case finished
        case failed(PropertyListError)
    }

    // MARK: - Opening

    /// Reads the binary property list at `url` and checks its trailer.
    ///
    /// - Parameters:
    ///   - url: a file URL.
    ///   - displayName: the name used in locations and messages; defaults
    ///     to the URL's last path component.
    /// - Throws: ``PropertyListError`` when the file is missing
    ///   (``PropertyListError/Kind/fileNotFound``) or unreadable, or its
    ///   header or trailer is not that of a binary property list.
    public convenience init(contentsOf url: URL, displayName: String? = nil) throws(PropertyListError) {
        let name = displayName ?? url.lastPathComponent
        guard url.isFileURL else {
            throw PropertyListError(.unreadable, "not a file URL: \(url)", file: name)
        }
        let file: OpenFile
        do throws(OpenFile.Failure) {
            file = try OpenFile(path: url.path)
        } catch {
            switch error {
            case .notFound(let reason):
                throw PropertyListError(.fileNotFound, "cannot open file: \(reason)", file: name)
            case .unreadable(let reason):
                throw PropertyListError(.unreadable, "cannot read file: \(reason)", file: name)
            }
        }
        // Read through bounded page caches: memory stays flat however
        // large the file, and a file cut short meanwhile is an error, not
        // a crash (as it would be if it were mapped). The offset table
        // has pages of its own.
        try self.init(
            region: ByteRegion(file: file, displayName: name, pageCount: ByteRegion.pageCount - 4),
            offsetRegion: ByteRegion(file: file, displayName: name, pageCount: 4), displayName: name)
    }

    /// Reads a binary property list held in memory and checks its trailer.
    ///
    /// - Parameters:
    ///   - data: the document's bytes.
    ///   - displayName: the name used in locations and messages.
    /// - Throws: ``PropertyListError`` when the header or trailer is not
    ///   that of a binary property list.
    public convenience init(data: Data, displayName: String) throws(PropertyListError) {
        try self.init(region: ByteRegion(copying: data, displayName: displayName), displayName: displayName)
    }

    private init(region: ByteRegion, offsetRegion: ByteRegion? = nil, displayName: String) throws(PropertyListError) {
        var table = try BinaryObjectTable(region: region, offsetRegion: offsetRegion, file: displayName)
        let offset = try table.offset(ofObject: table.topObject)
        rootLocation = table.location(offset)
        let marker = try region.byte(offset) >> 4
        if marker == 0xA || marker == 0xC {
            try table.announceRoot(at: offset)
            let container = try table.container(at: offset)
            rootIsArray = true
            state = .streaming(container, position: 0)
        } else {
            rootIsArray = false
            state = .rootPending
        }
        self.table = table
    }

    // MARK: - Reading

    /// Returns the next value: for an array root, its next element; for
    /// any other root, the root itself. Then `nil`.
    ///
    /// Only the value returned is built in memory.
    ///
    /// - Returns: the next value with its location, or `nil` at the end.
    /// - Throws: ``PropertyListError`` at the first problem; every later
    ///   call throws the same error.
    public func next() throws(PropertyListError) -> PropertyListItem? {
        do {
            return try advance()
        } catch {
            state = .failed(error)
            throw error
        }
    }

    private func advance() throws(PropertyListError) -> PropertyListItem? {
        switch state {
        case .rootPending:
            let root = table.topObject
            let item = try table.decode(object: root, enclosingDepth: 0, path: [])
            state = .finished
            return item
        case .streaming(let container, let position):
            guard position < container.count else {
                state = .finished
                return nil
            }
            let reference = try table.reference(at: container.references + position * table.objectRefSize)
            // The root array's elements are announced with it.
            let item = try table.decode(
                object: reference, enclosingDepth: 1, path: [container.offset], announced: true)
            state = .streaming(container, position: position + 1)
            return item
        case .finished:
            return nil
        case .failed(let error):
            throw error
        }
    }

    /// Reads the whole root object, whatever ``next()`` has returned so
    /// far: memory grows with the document.
    ///
    /// - Returns: the root object.
    /// - Throws: ``PropertyListError``.
    public func readRoot() throws(PropertyListError) -> PropertyListItem {
        if case .failed(let error) = state {
            throw error
        }
        do {
            let root = table.topObject
            return try table.decode(object: root, enclosingDepth: 0, path: [])
        } catch {
            state = .failed(error)
            throw error
        }
    }

    /// Reads the whole binary property list at `url`.
    ///
    /// - Parameters:
    ///   - url: a file URL.
    ///   - displayName: the name used in locations and messages; defaults
    ///     to the URL's last path component.
    /// - Returns: the root object.
    /// - Throws: ``PropertyListError``.
    public static func read(
        contentsOf url: URL, displayName: String? = nil
    ) throws(PropertyListError) -> PropertyListItem {
        try BinaryPropertyListReader(contentsOf: url, displayName: displayName).readRoot()
    }

    /// Reads a whole binary property list held in memory.
    ///
    /// - Parameters:
    ///   - data: the document's bytes.
    ///   - displayName: the name used in locations and messages.
    /// - Returns: the root object.
    /// - Throws: ``PropertyListError``.
    public static func read(data: Data, displayName: String) throws(PropertyListError) -> PropertyListItem {
        try BinaryPropertyListReader(data: data, displayName: displayName).readRoot()
    }
}

@available(*, unavailable, message: "a reader belongs to one thread: create one per task")
extension BinaryPropertyListReader: Sendable {}
