import Foundation

/// Reads a binary property list (`bplist00`, Apple's default format) into
/// the same ``PropertyListItem`` values as the XML ``PropertyListReader``.
///
/// A binary property list is random access: its trailer, at the end of the
/// file, says where every object is. The reader reads the file with
/// `pread` through a cache of 1 MiB (``ByteRegion``), so memory stays flat
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

    /// An array or dictionary being built, with the references still to
    /// read.
    private struct OpenContainer {
        var container: BinaryObjectTable.Container
        var position = 0
        var items: [PropertyListItem] = []
        var entries: [PropertyListDictionary.Entry] = []
        var pendingKey: (key: String, location: SourceLocation)?
        /// Key to entry index, built once a dictionary is large enough
        /// for hashing to beat a linear scan.
        var keyIndex: [String: Int]?
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
        let region: ByteRegion
        do throws(OpenFile.Failure) {
            // Read through a bounded page cache: memory stays flat however
            // large the file, and a file cut short meanwhile is an error,
            // not a crash (as it would be if it were mapped).
            region = ByteRegion(file: try OpenFile(path: url.path), displayName: name)
        } catch {
            switch error {
            case .notFound(let reason):
                throw PropertyListError(.fileNotFound, "cannot open file: \(reason)", file: name)
            case .unreadable(let reason):
                throw PropertyListError(.unreadable, "cannot read file: \(reason)", file: name)
            }
        }
        try self.init(region: region, displayName: name)
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

    private init(region: ByteRegion, displayName: String) throws(PropertyListError) {
        var table = try BinaryObjectTable(region: region, file: displayName)
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
            let item = try decode(object: table.topObject, enclosingDepth: 0, path: [])
            state = .finished
            return item
        case .streaming(let container, let position):
            guard position < container.count else {
                state = .finished
                return nil
            }
            let reference = try table.reference(at: container.references + position * table.objectRefSize)
            // The root array's elements are announced with it.
            let item = try decode(
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
            return try decode(object: table.topObject, enclosingDepth: 0, path: [])
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

    // MARK: - Decoding

    /// Decodes object `index` and everything it contains.
    ///
    /// Iterative rather than recursive: containers nest on an explicit
    /// stack, so no file can exhaust the call stack.
    ///
    /// - Parameters:
    ///   - enclosingDepth: how many containers enclose the object.
    ///   - path: the offsets of those containers, for cycles.
    ///   - announced: whether the object was counted by its container
    ///     already (else it counts as a root).
    private func decode(
        object index: Int, enclosingDepth: Int, path: Set<Int>, announced: Bool = false
    ) throws(PropertyListError) -> PropertyListItem {
        var stack: [OpenContainer] = []
        var onPath = path
        var index = index
        if !announced {
            try table.announceRoot(at: try table.offset(ofObject: index))
        }

        nextObject: while true {
            let offset = try table.offset(ofObject: index)
            let location = table.location(offset)
            var completed: PropertyListItem?
            switch try table.region.byte(offset) >> 4 {
            case 0xA, 0xC, 0xD:
                if onPath.contains(offset) {
                    throw table.malformed(
                        "object \(index) at byte \(offset) contains itself (a cycle)", at: offset)
                }
                if enclosingDepth + stack.count + 1 > Self.maximumDepth {
                    throw PropertyListError(
                        .tooDeeplyNested, PropertyListReader.tooDeeplyNestedMessage, at: location)
                }
                let container = try table.container(at: offset)
                if container.count == 0 {
                    let value: PropertyListValue =
                        container.isDictionary ? .dictionary(PropertyListDictionary()) : .array([])
                    completed = PropertyListItem(value, at: location)
                } else {
                    var open = OpenContainer(container: container)
                    // The count is checked against the file's bytes and
                    // counted against the value budget: reserving is safe.
                    if container.isDictionary {
                        open.entries.reserveCapacity(container.count)
                    } else {
                        open.items.reserveCapacity(container.count)
                    }
                    onPath.insert(offset)
                    stack.append(open)
                }
            default:
                completed = PropertyListItem(try table.scalar(at: offset), at: location)
            }

            // Hand finished values to their container, and find the next
            // object to decode.
            while true {
                if let item = completed {
                    guard let top = stack.indices.last else { return item }
                    if let pending = stack[top].pendingKey {
                        stack[top].entries.append(
                            PropertyListDictionary.Entry(key: pending.key, keyLocation: pending.location, item: item))
                        let position = stack[top].entries.count - 1
                        stack[top].keyIndex?[pending.key] = position
                        stack[top].pendingKey = nil
                    } else {
                        stack[top].items.append(item)
                    }
                    completed = nil
                }
                guard let top = stack.indices.last else { continue nextObject }
                let container = stack[top].container
                let position = stack[top].position
                if position == container.count {
                    let finished = stack.removeLast()
                    onPath.remove(container.offset)
                    let value: PropertyListValue =
                        container.isDictionary
                        ? .dictionary(PropertyListDictionary(entries: finished.entries)) : .array(finished.items)
                    completed = PropertyListItem(value, at: table.location(container.offset))
                    continue
                }
                stack[top].position += 1
                let size = table.objectRefSize
                if container.isDictionary {
                    let keySlot = container.references + position * size
                    let keyOffset = try table.offset(ofObject: try table.reference(at: keySlot))
                    let key = try table.key(at: keyOffset)
                    if let first = DuplicateKeys.entry(forKey: key, in: stack[top].entries, index: &stack[top].keyIndex)
                    {
                        throw PropertyListError(
                            .duplicateKey,
                            "duplicate key \"\(key)\" in the <dict> at byte \(container.offset) "
                                + "(first at byte \(first.keyLocation.byteOffset ?? 0))",
                            at: table.location(keySlot))
                    }
                    stack[top].pendingKey = (key, table.location(keyOffset))
                    index = try table.reference(at: container.references + (container.count + position) * size)
                } else {
                    index = try table.reference(at: container.references + position * size)
                }
                continue nextObject
            }
        }
    }
}

@available(*, unavailable, message: "a reader belongs to one thread: create one per task")
extension BinaryPropertyListReader: Sendable {}
