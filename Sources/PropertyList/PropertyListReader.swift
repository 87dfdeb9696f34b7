import Foundation

/// Reads an XML property list as a stream: a root array one element at a
/// time, any other root at once.
///
/// The reader is built on libxml2's `xmlTextReader` and keeps only the
/// element being read in memory, so a property list of a million records
/// costs no more memory than one record:
///
/// ```swift
/// let reader = try PropertyListReader(contentsOf: url)
/// guard reader.rootIsArray else { ... }
/// while let record = try reader.next() {
///     // record.value, record.location
/// }
/// ```
///
/// Smaller documents can be read whole with ``read(contentsOf:displayName:)``.
///
/// The reader is safe on untrusted input: it refuses binary property lists
/// with a clear message, refuses documents that declare or reference
/// entities (no XXE, no billion laughs: see
/// ``PropertyListError/Kind/forbiddenDeclaration``), never fetches the DTD
/// named by the standard `DOCTYPE` line, and limits nesting to
/// ``maximumDepth``. Every value and every error carries the line and
/// column it comes from.
///
/// A reader is not `Sendable`: it owns a libxml2 reader, which belongs to
/// one thread. Create one reader per document and use it where it was
/// created.
public final class PropertyListReader {
    /// How deeply arrays and dictionaries may nest: 512, Apple's limit.
    public static let maximumDepth = 512

    /// Whether the root object is an `<array>`, whose elements ``next()``
    /// returns one at a time. Known as soon as the reader is created.
    public private(set) var rootIsArray = false

    /// Where the root object's start tag is.
    public private(set) var rootLocation: SourceLocation

    private let xml: XMLTextReader
    private var state = State.finished
    /// The text of the scalar being read, reused from value to value.
    private var scratch: [UInt8] = []
    /// Sizes of the last containers finished at each depth; see
    /// `noteSize(_:atDepth:)`.
    private var capacityHints: [Int] = []

    private enum State {
        /// A root that is not an array, not read yet.
        case rootPending(ElementName, isEmpty: Bool)
        /// Inside the root `<array>`, between elements.
        case streamingArray
        /// The root was `<array/>`: only the document's end remains.
        case emptyArrayRoot
        /// The root was returned; the document's end is not checked yet.
        case awaitingEnd
        case finished
        case failed(PropertyListError)
    }

    /// What the grammar sees once whitespace, comments and processing
    /// instructions are skipped.
    private enum Event {
        case start(ElementName, isEmpty: Bool)
        case end(ElementName)
        /// Text that is not whitespace.
        case text
        case endOfDocument
    }

    /// An `<array>` or `<dict>` whose end tag is still to come.
    private struct OpenContainer {
        var isDictionary: Bool
        var location: SourceLocation
        var items: [PropertyListItem] = []
        var entries: [PropertyListDictionary.Entry] = []
        /// The `<key>` read and waiting for its value.
        var pendingKey: (key: String, location: SourceLocation)?
        /// Key to entry index, built once a dictionary is large enough
        /// for hashing to beat a linear scan.
        var keyIndex: [String: Int]?
    }

    /// How many bytes of the prolog are examined before libxml2 sees the
    /// document (a binary header, an internal DTD subset).
    private static let prologScanLength = 64 * 1024

    // MARK: - Opening

    /// Opens the property list at `url` and reads up to its root object's
    /// start tag.
    ///
    /// - Parameters:
    ///   - url: a file URL.
    ///   - displayName: the name used in locations and messages; defaults
    ///     to the URL's last path component.
    /// - Throws: ``PropertyListError`` when the file is missing
    ///   (``PropertyListError/Kind/fileNotFound``) or unreadable, is a
    ///   binary property list, or its beginning is not a property list.
    public convenience init(contentsOf url: URL, displayName: String? = nil) throws {
        let name = displayName ?? url.lastPathComponent
        guard url.isFileURL else {
            throw PropertyListError(.unreadable, "not a file URL: \(url)", file: name)
        }
        let path = url.path
        let file: OpenFile
        let prefix: [UInt8]
        do {
            file = try OpenFile(path: path)
            prefix = try file.prefix(Self.prologScanLength)
        } catch {
            switch error {
            case .notFound(let reason):
                throw PropertyListError(.fileNotFound, "cannot open file: \(reason)", file: name)
            case .unreadable(let reason):
                throw PropertyListError(.unreadable, "cannot read file: \(reason)", file: name)
            }
        }
        let rootPosition = try Self.examine(prefix, displayName: name)
        let xml = try XMLTextReader(
            file: file, path: path, displayName: name, rootPosition: rootPosition)
        try self.init(xml: xml)
    }

    /// Reads a property list held in memory (tests, small inputs); the
    /// reader keeps its own copy of `data`.
    ///
    /// - Parameters:
    ///   - data: the document's bytes.
    ///   - displayName: the name used in locations and messages.
    /// - Throws: ``PropertyListError`` when `data` is a binary property
    ///   list or its beginning is not a property list.
    public convenience init(data: Data, displayName: String) throws {
        let prefix = [UInt8](data.prefix(Self.prologScanLength))
        let rootPosition = try Self.examine(prefix, displayName: displayName)
        let xml = try XMLTextReader(
            copying: data, displayName: displayName, rootPosition: rootPosition)
        try self.init(xml: xml)
    }

    /// Reads through `<plist>` to the root object's start tag.
    private init(xml: XMLTextReader) throws(PropertyListError) {
        self.xml = xml
        rootLocation = SourceLocation(file: xml.displayName, line: 1, column: 1)

        let first = try nextEvent()
        guard case .start(.plist, let plistIsEmpty) = first else {
            throw unexpected("expected <plist>, found \(describe(first))")
        }
        if plistIsEmpty {
            throw unexpected("<plist/> is empty: \(Self.expectedObject)")
        }
        let root = try nextEvent()
        guard case .start(let name, let isEmpty) = root, name.isObject else {
            throw unexpected("\(Self.expectedObject), found \(describe(root))")
        }
        rootLocation = xml.location
        if name == .array {
            rootIsArray = true
            state = isEmpty ? .emptyArrayRoot : .streamingArray
        } else {
            state = .rootPending(name, isEmpty: isEmpty)
        }
    }

    /// Refuses binary property lists and internal DTD subsets from the
    /// document's first bytes, before libxml2 parses anything.
    ///
    /// - Returns: where the root element starts, when the scan found it.
    private static func examine(
        _ prefix: [UInt8], displayName: String
    ) throws(PropertyListError) -> (line: Int, column: Int)? {
        if prefix.starts(with: "bplist".utf8) {
            let header = String(decoding: prefix.prefix(8), as: UTF8.self)
            throw PropertyListError(
                .binaryPropertyList,
                "binary property lists are not supported yet (found \"\(header)\" header); "
                    + "convert with: plutil -convert xml1 \(displayName)",
                file: displayName)
        }
        if prefix.allSatisfy(ScalarDecoder.isWhitespace) {
            throw PropertyListError(
                .malformedXML,
                "malformed XML: " + (prefix.isEmpty ? "the file is empty" : "the file holds only whitespace"),
                file: displayName)
        }
        let verdict = prefix.withUnsafeBytes { PrologScanner.scan($0) }
        switch verdict {
        case .internalSubset(let line, let column):
            throw PropertyListError(
                .forbiddenDeclaration, internalSubsetMessage,
                at: SourceLocation(file: displayName, line: line, column: column))
        case .rootElement(let line, let column):
            return (line, column)
        case .undetermined:
            return nil
        }
    }

    // MARK: - Reading

    /// Bytes of the document libxml2 has consumed so far, for progress
    /// reporting (slightly ahead of the last value returned).
    public var bytesConsumed: Int {
        xml.bytesConsumed
    }

    /// Returns the next value: for an array root, its next element; for
    /// any other root, the root itself. Then `nil`, once the reader has
    /// checked that the document ends properly (`</array>`, `</plist>` and
    /// nothing after but whitespace, comments and processing
    /// instructions).
    ///
    /// Only the value returned is built in memory.
    ///
    /// libxml2 parses a chunk of input ahead of the values returned, so a
    /// document that is not well-formed XML may fail a few values before
    /// the place its error points at.
    ///
    /// - Returns: the next value with its location, or `nil` at the end.
    /// - Throws: ``PropertyListError`` at the first problem; every later
    ///   call throws the same error.
    public func next() throws -> PropertyListItem? {
        do {
            return try advance()
        } catch {
            state = .failed(error)
            throw error
        }
    }

    private func advance() throws(PropertyListError) -> PropertyListItem? {
        switch state {
        case .rootPending(let name, let isEmpty):
            let item = try readObject(name, isEmpty: isEmpty, at: rootLocation, enclosingDepth: 0)
            state = .awaitingEnd
            return item
        case .streamingArray:
            let event = try nextEvent()
            switch event {
            case .start(let name, let isEmpty):
                return try readObject(name, isEmpty: isEmpty, at: xml.location, enclosingDepth: 1)
            case .end:
                try finishDocument()
                return nil
            case .text, .endOfDocument:
                throw unexpected(
                    "expected a property-list object or </array>, found \(describe(event))")
            }
        case .emptyArrayRoot, .awaitingEnd:
            try finishDocument()
            return nil
        case .finished:
            return nil
        case .failed(let error):
            throw error
        }
    }

    /// Reads the whole property list at `url` (array roots included, so
    /// memory grows with the document).
    ///
    /// - Parameters:
    ///   - url: a file URL.
    ///   - displayName: the name used in locations and messages; defaults
    ///     to the URL's last path component.
    /// - Returns: the root object.
    /// - Throws: ``PropertyListError``.
    public static func read(contentsOf url: URL, displayName: String? = nil) throws -> PropertyListItem {
        try PropertyListReader(contentsOf: url, displayName: displayName).readAll()
    }

    /// Reads a whole property list held in memory.
    ///
    /// - Parameters:
    ///   - data: the document's bytes.
    ///   - displayName: the name used in locations and messages.
    /// - Returns: the root object.
    /// - Throws: ``PropertyListError``.
    public static func read(data: Data, displayName: String) throws -> PropertyListItem {
        try PropertyListReader(data: data, displayName: displayName).readAll()
    }

    private func readAll() throws -> PropertyListItem {
        if rootIsArray {
            var items: [PropertyListItem] = []
            while let item = try next() {
                items.append(item)
            }
            return PropertyListItem(.array(items), at: rootLocation)
        }
        guard let root = try next() else {
            // Unreachable: a reader that is not an array root returns its
            // root once.
            throw unexpected("the document has no root object")
        }
        _ = try next()
        return root
    }

    // MARK: - Grammar

    /// Reads one object whose start tag the reader is on, through its end
    /// tag.
    ///
    /// Iterative rather than recursive: containers nest on an explicit
    /// stack, so no document can exhaust the call stack.
    ///
    /// - Parameters:
    ///   - enclosingDepth: how many containers enclose the object.
    private func readObject(
        _ firstName: ElementName, isEmpty firstIsEmpty: Bool, at firstLocation: SourceLocation,
        enclosingDepth: Int
    ) throws(PropertyListError) -> PropertyListItem {
        var stack: [OpenContainer] = []
        var name = firstName
        var isEmpty = firstIsEmpty
        var location = firstLocation

        nextObject: while true {
            // The reader is on the start tag of `name`.
            var completed: PropertyListItem?
            switch name {
            case .array, .dict:
                if enclosingDepth + stack.count + 1 > Self.maximumDepth {
                    throw PropertyListError(.tooDeeplyNested, Self.tooDeeplyNestedMessage, at: location)
                }
                if isEmpty {
                    let value: PropertyListValue =
                        name == .array ? .array([]) : .dictionary(PropertyListDictionary())
                    completed = PropertyListItem(value, at: location)
                } else {
                    var container = OpenContainer(isDictionary: name == .dict, location: location)
                    // Records in one file tend to have the same shape: size
                    // a container like the last one at its depth, so it is
                    // allocated once instead of growing 1, 2, 4, 8, 16.
                    if stack.count < capacityHints.count {
                        if container.isDictionary {
                            container.entries.reserveCapacity(capacityHints[stack.count])
                        } else {
                            container.items.reserveCapacity(min(capacityHints[stack.count], 1024))
                        }
                    }
                    stack.append(container)
                }
            case .string, .data, .date, .integer, .real, .true, .false:
                completed = PropertyListItem(try readScalar(name, isEmpty: isEmpty), at: location)
            case .plist, .key, .other:
                throw unexpected("\(Self.expectedObject), found \(describeStart(isEmpty: isEmpty))")
            }

            // Hand finished values to their container, and read on until
            // the next object's start tag.
            while true {
                if let item = completed {
                    guard let top = stack.indices.last else { return item }
                    if let pending = stack[top].pendingKey {
                        stack[top].entries.append(
                            PropertyListDictionary.Entry(
                                key: pending.key, keyLocation: pending.location, item: item))
                        let position = stack[top].entries.count - 1
                        stack[top].keyIndex?[pending.key] = position
                        stack[top].pendingKey = nil
                    } else {
                        stack[top].items.append(item)
                    }
                    completed = nil
                }
                guard let top = stack.indices.last else { continue nextObject }

                let event = try nextEvent()
                if !stack[top].isDictionary {
                    switch event {
                    case .start(let next, let nextIsEmpty):
                        (name, isEmpty, location) = (next, nextIsEmpty, xml.location)
                        continue nextObject
                    case .end:
                        let array = stack.removeLast()
                        noteSize(array.items.count, atDepth: stack.count)
                        completed = PropertyListItem(.array(array.items), at: array.location)
                    case .text, .endOfDocument:
                        throw unexpected(
                            "expected a property-list object or </array>, found \(describe(event))")
                    }
                } else if let pending = stack[top].pendingKey {
                    guard case .start(let next, let nextIsEmpty) = event, next != .key else {
                        throw unexpected(
                            "expected a property-list object for key \"\(pending.key)\", "
                                + "found \(describe(event))")
                    }
                    (name, isEmpty, location) = (next, nextIsEmpty, xml.location)
                    continue nextObject
                } else {
                    switch event {
                    case .start(.key, let keyIsEmpty):
                        let keyLocation = xml.location
                        let key = try readString(.key, isEmpty: keyIsEmpty)
                        if let first = DuplicateKeys.entry(
                            forKey: key, in: stack[top].entries, index: &stack[top].keyIndex)
                        {
                            throw PropertyListError(
                                .duplicateKey,
                                "duplicate key \"\(key)\" in <dict> (first at line \(first.keyLocation.line))",
                                at: keyLocation)
                        }
                        stack[top].pendingKey = (key, keyLocation)
                    case .end:
                        let dictionary = stack.removeLast()
                        noteSize(dictionary.entries.count, atDepth: stack.count)
                        completed = PropertyListItem(
                            .dictionary(PropertyListDictionary(entries: dictionary.entries)),
                            at: dictionary.location)
                    case .start, .text, .endOfDocument:
                        throw unexpected("expected <key> or </dict>, found \(describe(event))")
                    }
                }
            }
        }
    }

    /// Remembers a finished container's size as the hint for the next
    /// container opened at the same depth (the first few depths only).
    private func noteSize(_ count: Int, atDepth depth: Int) {
        guard depth < 8 else { return }
        while capacityHints.count <= depth { capacityHints.append(0) }
        capacityHints[depth] = count
    }

    /// Reads a scalar whose start tag the reader is on, through its end
    /// tag.
    private func readScalar(_ name: ElementName, isEmpty: Bool) throws(PropertyListError) -> PropertyListValue {
        let location = xml.location
        switch name {
        case .string:
            return .string(try readString(.string, isEmpty: isEmpty))
        case .true, .false:
            try readText(name, isEmpty: isEmpty)
            guard scratch.allSatisfy(ScalarDecoder.isWhitespace) else {
                throw PropertyListError(
                    .invalidValue, "<\(name.name ?? "")/> must be empty, found \(Self.quoted(scratch))",
                    at: location)
            }
            return .bool(name == .true)
        case .integer:
            try readText(name, isEmpty: isEmpty)
            guard let value = ScalarDecoder.integer(scratch) else {
                throw invalidValue("invalid <integer> \(Self.quoted(scratch))", at: location)
            }
            return .integer(value)
        case .real:
            try readText(name, isEmpty: isEmpty)
            guard let value = ScalarDecoder.real(scratch) else {
                throw invalidValue("invalid <real> \(Self.quoted(scratch))", at: location)
            }
            return .real(value)
        case .date:
            try readText(name, isEmpty: isEmpty)
            guard let value = ScalarDecoder.date(scratch) else {
                throw invalidValue(
                    "<date> must be YYYY-MM-DDTHH:MM:SSZ, found \(Self.quoted(scratch))", at: location)
            }
            return .date(value)
        case .data:
            try readText(name, isEmpty: isEmpty)
            guard let value = ScalarDecoder.base64(scratch) else {
                throw invalidValue("invalid Base64 in <data>: \(Self.quoted(scratch))", at: location)
            }
            return .data(value)
        case .plist, .array, .dict, .key, .other:
            throw unexpected("\(Self.expectedObject), found \(describeStart(isEmpty: isEmpty))")
        }
    }

    /// Reads the text of a `<string>` or `<key>` through its end tag.
    ///
    /// The usual single text node becomes a `String` straight from
    /// libxml2's bytes, without going through ``scratch``.
    private func readString(_ name: ElementName, isEmpty: Bool) throws(PropertyListError) -> String {
        guard !isEmpty else { return "" }
        var string = ""
        while let node = try xml.read() {
            switch node {
            case .text:
                if string.isEmpty {
                    string = String(decoding: xml.text, as: UTF8.self)
                } else {
                    string += String(decoding: xml.text, as: UTF8.self)
                }
            case .endElement:
                return string
            case .comment, .processingInstruction, .documentType, .other:
                continue
            case .startElement(_, let childIsEmpty):
                throw unexpected(
                    "expected text or </\(name.name ?? "")>, found \(describeStart(isEmpty: childIsEmpty))")
            case .entityReference:
                throw entityReferenceError()
            }
        }
        throw unexpected("expected </\(name.name ?? "")>, found end of document")
    }

    /// Reads a scalar's text into ``scratch`` through its end tag.
    private func readText(_ name: ElementName, isEmpty: Bool) throws(PropertyListError) {
        scratch.removeAll(keepingCapacity: true)
        guard !isEmpty else { return }
        while let node = try xml.read() {
            switch node {
            case .text:
                scratch.append(contentsOf: xml.text)
            case .endElement:
                return
            case .comment, .processingInstruction, .documentType, .other:
                continue
            case .startElement(_, let childIsEmpty):
                let expected = name == .true || name == .false ? "" : "text or "
                throw unexpected(
                    "expected \(expected)</\(name.name ?? "")>, found \(describeStart(isEmpty: childIsEmpty))")
            case .entityReference:
                throw entityReferenceError()
            }
        }
        throw unexpected("expected </\(name.name ?? "")>, found end of document")
    }

    /// Checks what follows the root object: `</plist>`, then the end.
    private func finishDocument() throws(PropertyListError) {
        let event = try nextEvent()
        guard case .end(.plist) = event else {
            throw unexpected("expected </plist> after the root object, found \(describe(event))")
        }
        let after = try nextEvent()
        guard case .endOfDocument = after else {
            throw unexpected("expected the end of the document after </plist>, found \(describe(after))")
        }
        state = .finished
    }

    /// The next element boundary or non-whitespace text, skipping
    /// whitespace, comments and processing instructions, and refusing
    /// entities.
    private func nextEvent() throws(PropertyListError) -> Event {
        while let node = try xml.read() {
            switch node {
            case .startElement(let name, let isEmpty):
                return .start(name, isEmpty: isEmpty)
            case .endElement(let name):
                return .end(name)
            case .text:
                if !xml.textIsWhitespace {
                    return .text
                }
            case .comment, .processingInstruction, .other:
                continue
            case .documentType(let hasInternalSubset):
                // Only reached when the prolog scan could not see the DTD
                // (a very long prolog, UTF-16); libxml2 does not say where
                // the DTD is, so the error has no location.
                if hasInternalSubset {
                    throw PropertyListError(
                        .forbiddenDeclaration, Self.internalSubsetMessage, file: xml.displayName)
                }
            case .entityReference:
                throw entityReferenceError()
            }
        }
        return .endOfDocument
    }

    // MARK: - Messages

    static let internalSubsetMessage =
        "documents with an internal DTD subset are refused "
        + "(entity declarations could read local files or expand without bound)"

    static let tooDeeplyNestedMessage = "nesting deeper than \(maximumDepth) levels"

    static func undeclaredEntityMessage(_ name: String) -> String {
        "entity reference &\(name); is refused "
            + "(only &lt; &gt; &amp; &apos; &quot; and numeric character references are allowed)"
    }

    private static let expectedObject =
        "expected a property-list object (<dict>, <array>, <string>, ...)"

    private func unexpected(_ message: String) -> PropertyListError {
        PropertyListError(.unexpectedElement, message, at: xml.location)
    }

    private func invalidValue(_ message: String, at location: SourceLocation) -> PropertyListError {
        PropertyListError(.invalidValue, message, at: location)
    }

    private func entityReferenceError() -> PropertyListError {
        PropertyListError(.forbiddenDeclaration, Self.undeclaredEntityMessage(xml.currentName), at: xml.location)
    }

    /// How an event reads in "found ..." (call before the next read: the
    /// name comes from the current node).
    private func describe(_ event: Event) -> String {
        switch event {
        case .start(_, let isEmpty): describeStart(isEmpty: isEmpty)
        case .end: "</\(xml.currentName)>"
        case .text: "text \(Self.quoted(Array(Self.trimmed(xml.text))))"
        case .endOfDocument: "the end of the document"
        }
    }

    private func describeStart(isEmpty: Bool) -> String {
        isEmpty ? "<\(xml.currentName)/>" : "<\(xml.currentName)>"
    }

    /// `text` without its leading and trailing XML whitespace.
    private static func trimmed(_ text: UnsafeBufferPointer<UInt8>) -> Slice<UnsafeBufferPointer<UInt8>> {
        let start = text.firstIndex { !ScalarDecoder.isWhitespace($0) } ?? text.endIndex
        let end = text.lastIndex { !ScalarDecoder.isWhitespace($0) }.map { $0 + 1 } ?? start
        return text[start..<end]
    }

    /// Text quoted for a message: at most 40 characters, line breaks and
    /// tabs made visible.
    static func quoted(_ bytes: [UInt8]) -> String {
        var text = String(decoding: bytes, as: UTF8.self)
        if text.count > 40 {
            text = String(text.prefix(40)) + "..."
        }
        text = text.replacingOccurrences(of: "\\", with: "\\\\")
            .replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
            .replacingOccurrences(of: "\r", with: "\\r")
            .replacingOccurrences(of: "\t", with: "\\t")
        return "\"\(text)\""
    }
}

@available(*, unavailable, message: "a reader belongs to one thread: create one per task")
extension PropertyListReader: Sendable {}
