import Foundation

/// The property-list grammar, driven by the events of libxml2's push
/// parser (``XMLPushParser``): it builds values as their tags arrive, with
/// no tree node per element, and queues the finished records.
///
/// The root `<array>`'s elements are queued one by one as each ends, any
/// other root once; ``PropertyListReader`` hands them out. The first
/// problem stops the grammar and is kept in ``failure``: records queued
/// before it are still returned, then the error is thrown, so an error
/// always comes after every record before it in the document.
///
/// Every message and location is the one the reader gave when it pulled
/// nodes from `xmlTextReader`: the tests of `PropertyListTests` hold them.
///
/// A struct, kept by the parser behind a pointer: as a class, or as a
/// property of one, every access to its arrays paid Swift's dynamic
/// exclusivity check (a fifth of the parsing thread's instructions).
///
/// Not thread-safe: one grammar, one parser, one thread.
struct PropertyListGrammar {
    /// How deeply arrays and dictionaries may nest.
    static let maximumDepth = PropertyListReader.maximumDepth

    let fileName: SourceLocation.FileName
    /// Where the parser is: asked only when a message needs it (an end
    /// tag's place), never for every element.
    unowned(unsafe) var positions: (any TagPositions)?

    /// Whether the root object's start tag has been seen.
    private(set) var rootSeen = false
    private(set) var rootIsArray = false
    private(set) var rootLocation: SourceLocation
    /// Whether `</plist>` and the end of the document have been checked.
    private(set) var isComplete = false
    /// The first problem; once set, every later event is ignored.
    private(set) var failure: PropertyListError?

    /// Finished records, oldest first from `queueHead`.
    private var queue: [PropertyListItem] = []
    /// How far into the document (in bytes of UTF-8) each queued record
    /// ends, for progress.
    private var queueEnds: [Int] = []
    private var queueHead = 0

    private var mode = Mode.prolog
    private var stack: [OpenContainer] = []
    /// The text of the scalar or key being read, reused from value to value.
    private var scratch: [UInt8] = []
    /// Sizes of the last containers finished at each depth; see
    /// `noteSize(_:atDepth:)`.
    private var capacityHints: [Int] = []
    /// The non-whitespace text of the current run between tags, where
    /// only elements are allowed (for the message that refuses it).
    private var looseText: [UInt8] = []
    private var runHasText = false
    /// Keys made into strings, by their bytes; see ``internedKey()``.
    private var keyCache = [InternedKey](repeating: InternedKey(), count: Self.keyCacheSlots)
    private static let keyCacheSlots = 64

    /// A key of at most 16 bytes, its bytes packed into two words, and
    /// the string made of them.
    private struct InternedKey {
        var low: UInt64 = 0
        var high: UInt64 = 0
        var length = -1
        var key = ""
    }

    private enum Mode {
        /// Before `<plist>`.
        case prolog
        /// After `<plist>`: the root object comes next.
        case root
        /// Inside the container on top of the stack.
        case container
        /// Inside a scalar's element, collecting its text.
        case scalar(ElementName, SourceLocation)
        /// Inside a `<key>`, collecting its text.
        case key(SourceLocation)
        /// The root was read: `</plist>` comes next.
        case afterRoot
        /// After `</plist>`: only the end of the document may follow.
        case afterPlist
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

    init(fileName: SourceLocation.FileName) {
        self.fileName = fileName
        rootLocation = SourceLocation(fileName: fileName, line: 1, column: 1)
    }

    // MARK: - The queue

    /// Whether a finished record waits in the queue.
    var hasRecord: Bool { queueHead < queue.count }

    /// How many records are queued.
    var queuedCount: Int { queue.count - queueHead }

    /// Takes the oldest finished record, with where it ends.
    mutating func takeRecord() -> (item: PropertyListItem, end: Int)? {
        guard queueHead < queue.count else { return nil }
        let record = (queue[queueHead], queueEnds[queueHead])
        queueHead += 1
        if queueHead == queue.count {
            queue.removeAll(keepingCapacity: true)
            queueEnds.removeAll(keepingCapacity: true)
            queueHead = 0
        }
        return record
    }

    // MARK: - Events

    /// Stops the grammar at `error`, unless it has stopped already.
    mutating func fail(_ error: PropertyListError) {
        if failure == nil {
            failure = error
        }
    }

    /// A start tag: `name`, written `qualifiedName` (for messages), at
    /// `location`; `isEmpty` for `<name/>`, which has no end event.
    ///
    /// - Parameters:
    ///   - end: how far into the document the tag ends, for progress.
    mutating func start(
        _ name: ElementName, qualifiedName: () -> String, isEmpty: Bool, at location: SourceLocation,
        end: Int
    ) {
        switch mode {
        case .container:
            let top = stack.count - 1
            if stack[top].isDictionary {
                if let pending = stack[top].pendingKey {
                    guard name != .key else {
                        return unexpected(
                            "expected a property-list object for key \"\(pending.key)\", found "
                                + Self.startTag(qualifiedName(), isEmpty: isEmpty), at: location)
                    }
                    openObject(name, qualifiedName: qualifiedName, isEmpty: isEmpty, at: location, end: end)
                } else if name == .key {
                    if isEmpty {
                        finishKey("", at: location)
                    } else {
                        scratch.removeAll(keepingCapacity: true)
                        mode = .key(location)
                    }
                } else {
                    unexpected(
                        "expected <key> or </dict>, found " + Self.startTag(qualifiedName(), isEmpty: isEmpty),
                        at: location)
                }
            } else {
                openObject(name, qualifiedName: qualifiedName, isEmpty: isEmpty, at: location, end: end)
            }
        case .scalar(let scalar, _):
            let expected = scalar == .true || scalar == .false ? "" : "text or "
            unexpected(
                "expected \(expected)</\(scalar.name ?? "")>, found "
                    + Self.startTag(qualifiedName(), isEmpty: isEmpty), at: location)
        case .key:
            unexpected(
                "expected text or </key>, found " + Self.startTag(qualifiedName(), isEmpty: isEmpty), at: location)
        case .prolog:
            guard name == .plist else {
                return unexpected(
                    "expected <plist>, found " + Self.startTag(qualifiedName(), isEmpty: isEmpty), at: location)
            }
            guard !isEmpty else {
                return unexpected("<plist/> is empty: \(Self.expectedObject)", at: location)
            }
            mode = .root
        case .root:
            guard name.isObject else {
                return unexpected(
                    "\(Self.expectedObject), found " + Self.startTag(qualifiedName(), isEmpty: isEmpty), at: location)
            }
            rootSeen = true
            rootLocation = location
            rootIsArray = name == .array
            openObject(name, qualifiedName: qualifiedName, isEmpty: isEmpty, at: location, end: end)
        case .afterRoot:
            unexpected(
                "expected </plist> after the root object, found "
                    + Self.startTag(qualifiedName(), isEmpty: isEmpty), at: location)
        case .afterPlist:
            unexpected(
                "expected the end of the document after </plist>, found "
                    + Self.startTag(qualifiedName(), isEmpty: isEmpty), at: location)
        }
    }

    /// An end tag (never sent for `<name/>`).
    ///
    /// - Parameters:
    ///   - end: how far into the document the tag ends, for progress.
    mutating func end(_ name: ElementName, qualifiedName: () -> String, end: Int) {
        switch mode {
        case .container:
            let top = stack.count - 1
            if let pending = stack[top].pendingKey {
                return unexpected(
                    "expected a property-list object for key \"\(pending.key)\", found </\(qualifiedName())>",
                    at: endTagLocation())
            }
            let container = stack.removeLast()
            let depth = stack.count - (rootIsArray ? 1 : 0)
            if container.isDictionary {
                noteSize(container.entries.count, atDepth: depth)
                complete(
                    PropertyListItem(
                        .dictionary(PropertyListDictionary(entries: container.entries)), at: container.location),
                    end: end)
            } else if stack.isEmpty && rootIsArray {
                // The root array's elements were queued one by one.
                mode = .afterRoot
            } else {
                noteSize(container.items.count, atDepth: depth)
                complete(PropertyListItem(.array(container.items), at: container.location), end: end)
            }
        case .scalar(let scalar, let location):
            guard let value = decodeScalar(scalar, at: location) else { return }
            complete(PropertyListItem(value, at: location), end: end)
        case .key(let location):
            finishKey(internedKey(), at: location)
        case .root:
            unexpected("\(Self.expectedObject), found </\(qualifiedName())>", at: endTagLocation())
        case .afterRoot:
            guard name == .plist else {
                return unexpected(
                    "expected </plist> after the root object, found </\(qualifiedName())>", at: endTagLocation())
            }
            mode = .afterPlist
        case .prolog:
            unexpected("expected <plist>, found </\(qualifiedName())>", at: endTagLocation())
        case .afterPlist:
            unexpected(
                "expected the end of the document after </plist>, found </\(qualifiedName())>",
                at: endTagLocation())
        }
    }

    /// A piece of character data (text, CDATA, a character or predefined
    /// entity reference): a run may come in several pieces.
    mutating func text(_ bytes: UnsafeBufferPointer<UInt8>) {
        switch mode {
        case .scalar, .key:
            scratch.append(contentsOf: bytes)
        default:
            if runHasText {
                looseText.append(contentsOf: bytes)
                return
            }
            // The indentation between tags, most of the text a document
            // has: nothing to keep.
            for byte in bytes where !ScalarDecoder.isWhitespace(byte) {
                runHasText = true
                looseText.removeAll(keepingCapacity: true)
                looseText.append(contentsOf: bytes)
                return
            }
        }
    }

    /// The end of a run of character data that started at `location`:
    /// where only elements are allowed, text that is not whitespace is
    /// refused.
    mutating func endOfText(startedAt location: SourceLocation) {
        guard runHasText else { return }
        runHasText = false
        let found = "text " + Self.quoted(Array(Self.trimmed(looseText)))
        switch mode {
        case .scalar, .key:
            return
        case .prolog:
            unexpected("expected <plist>, found \(found)", at: location)
        case .root:
            unexpected("\(Self.expectedObject), found \(found)", at: location)
        case .container:
            let top = stack.count - 1
            if !stack[top].isDictionary {
                unexpected("expected a property-list object or </array>, found \(found)", at: location)
            } else if let pending = stack[top].pendingKey {
                unexpected("expected a property-list object for key \"\(pending.key)\", found \(found)", at: location)
            } else {
                unexpected("expected <key> or </dict>, found \(found)", at: location)
            }
        case .afterRoot:
            unexpected("expected </plist> after the root object, found \(found)", at: location)
        case .afterPlist:
            unexpected("expected the end of the document after </plist>, found \(found)", at: location)
        }
    }

    /// `&name;` for an entity that is not one of the five predefined ones.
    mutating func entityReference(_ name: String, at location: SourceLocation) {
        fail(
            PropertyListError(
                .forbiddenDeclaration, PropertyListReader.undeclaredEntityMessage(name), at: location))
    }

    /// The parser reached the end of a well-formed document.
    mutating func endOfDocument(at location: SourceLocation) {
        guard failure == nil else { return }
        switch mode {
        case .afterPlist:
            isComplete = true
        case .prolog:
            unexpected("expected <plist>, found the end of the document", at: location)
        case .root:
            unexpected("\(Self.expectedObject), found the end of the document", at: location)
        case .afterRoot:
            unexpected("expected </plist> after the root object, found the end of the document", at: location)
        case .container, .scalar, .key:
            unexpected("expected an end tag, found the end of the document", at: location)
        }
    }

    // MARK: - Building values

    /// Starts reading the object whose start tag is at `location`.
    private mutating func openObject(
        _ name: ElementName, qualifiedName: () -> String, isEmpty: Bool, at location: SourceLocation, end: Int
    ) {
        switch name {
        case .array, .dict:
            if stack.count + 1 > Self.maximumDepth {
                return fail(PropertyListError(.tooDeeplyNested, Self.tooDeeplyNestedMessage, at: location))
            }
            if isEmpty {
                let value: PropertyListValue =
                    name == .array ? .array([]) : .dictionary(PropertyListDictionary())
                if stack.isEmpty && name == .array {
                    // An empty root array: no record at all.
                    mode = .afterRoot
                } else {
                    complete(PropertyListItem(value, at: location), end: end)
                }
                return
            }
            var container = OpenContainer(isDictionary: name == .dict, location: location)
            // Records in one file tend to have the same shape: size a
            // container like the last one at its depth, so it is allocated
            // once instead of growing 1, 2, 4, 8, 16. (Not the root array,
            // which is never built.)
            let depth = stack.count - (rootIsArray ? 1 : 0)
            if depth >= 0 && depth < capacityHints.count && !(stack.isEmpty && rootIsArray) {
                if container.isDictionary {
                    container.entries.reserveCapacity(capacityHints[depth])
                } else {
                    container.items.reserveCapacity(min(capacityHints[depth], 1024))
                }
            }
            stack.append(container)
            mode = .container
        case .string, .data, .date, .integer, .real, .true, .false:
            scratch.removeAll(keepingCapacity: true)
            if isEmpty {
                guard let value = decodeScalar(name, at: location) else { return }
                complete(PropertyListItem(value, at: location), end: end)
            } else {
                mode = .scalar(name, location)
            }
        case .plist, .key, .other:
            unexpected(
                "\(Self.expectedObject), found " + Self.startTag(qualifiedName(), isEmpty: isEmpty), at: location)
        }
    }

    /// Hands a finished value to its container, or queues it as a record.
    private mutating func complete(_ item: consuming PropertyListItem, end: Int) {
        guard let top = stack.indices.last else {
            // The root, when it is not an array.
            queue.append(item)
            queueEnds.append(end)
            mode = .afterRoot
            return
        }
        mode = .container
        if top == 0 && rootIsArray {
            queue.append(item)
            queueEnds.append(end)
        } else if stack[top].pendingKey != nil {
            // Moved out, not copied: no reference count for the key.
            var taken: (key: String, location: SourceLocation)?
            swap(&taken, &stack[top].pendingKey)
            guard let pending = taken else { return }
            let position = stack[top].entries.count
            stack[top].keyIndex?[pending.key] = position
            stack[top].entries.append(
                PropertyListDictionary.Entry(key: pending.key, keyLocation: pending.location, item: item))
        } else {
            stack[top].items.append(item)
        }
    }

    /// A `<key>` was read: it waits for its value, unless its dictionary
    /// has it already.
    private mutating func finishKey(_ key: String, at location: SourceLocation) {
        mode = .container
        let top = stack.count - 1
        if let first = DuplicateKeys.entry(forKey: key, in: stack[top].entries, index: &stack[top].keyIndex) {
            return fail(
                PropertyListError(
                    .duplicateKey,
                    "duplicate key \"\(key)\" in <dict> (first at line \(first.keyLocation.line))",
                    at: location))
        }
        stack[top].pendingKey = (key, location)
    }

    /// The key whose text is in ``scratch``, as a string.
    ///
    /// The records of a file repeat the same few keys, and making a
    /// `String` of each (checking its UTF-8) cost the parsing thread
    /// about 150 instructions a key: a key of up to 16 bytes is looked up
    /// instead, by its bytes packed into two words, in a direct-mapped
    /// table of the keys seen last (64 slots, a few kilobytes whatever the
    /// file). The same bytes always give the same string, so a key is
    /// exactly what `String(decoding:as:)` would make of it.
    private mutating func internedKey() -> String {
        let count = scratch.count
        guard count <= 16 else { return String(decoding: scratch, as: UTF8.self) }
        var low: UInt64 = 0
        var high: UInt64 = 0
        scratch.withUnsafeBufferPointer { bytes in
            for index in 0..<min(count, 8) {
                low |= UInt64(bytes[index]) << UInt64(8 * index)
            }
            for index in min(count, 8)..<count {
                high |= UInt64(bytes[index]) << UInt64(8 * (index - 8))
            }
        }
        let mixed = (low &* 0x9E37_79B9_7F4A_7C15) ^ (high &* 0xC2B2_AE3D_27D4_EB4F) ^ UInt64(count)
        let slot = Int(truncatingIfNeeded: mixed >> 58)
        if keyCache[slot].length == count && keyCache[slot].low == low && keyCache[slot].high == high {
            return keyCache[slot].key
        }
        let key = String(decoding: scratch, as: UTF8.self)
        keyCache[slot] = InternedKey(low: low, high: high, length: count, key: key)
        return key
    }

    /// The value of a scalar whose text is in ``scratch``; `nil` after
    /// failing.
    private mutating func decodeScalar(_ name: ElementName, at location: SourceLocation) -> PropertyListValue? {
        switch name {
        case .string:
            return .string(String(decoding: scratch, as: UTF8.self))
        case .true, .false:
            guard scratch.allSatisfy(ScalarDecoder.isWhitespace) else {
                fail(
                    PropertyListError(
                        .invalidValue, "<\(name.name ?? "")/> must be empty, found \(Self.quoted(scratch))",
                        at: location))
                return nil
            }
            return .bool(name == .true)
        case .integer:
            guard let value = ScalarDecoder.integer(scratch) else {
                fail(invalidValue("invalid <integer> \(Self.quoted(scratch))", at: location))
                return nil
            }
            return .integer(value)
        case .real:
            guard let value = ScalarDecoder.real(scratch) else {
                fail(invalidValue("invalid <real> \(Self.quoted(scratch))", at: location))
                return nil
            }
            return .real(value)
        case .date:
            guard let value = ScalarDecoder.date(scratch) else {
                fail(invalidValue("<date> must be YYYY-MM-DDTHH:MM:SSZ, found \(Self.quoted(scratch))", at: location))
                return nil
            }
            return .date(value)
        case .data:
            guard let value = ScalarDecoder.base64(scratch) else {
                fail(invalidValue("invalid Base64 in <data>: \(Self.quoted(scratch))", at: location))
                return nil
            }
            return .data(value)
        case .plist, .array, .dict, .key, .other:
            return nil
        }
    }

    /// Remembers a finished container's size as the hint for the next
    /// container opened at the same depth (the first few depths only).
    private mutating func noteSize(_ count: Int, atDepth depth: Int) {
        guard depth >= 0 && depth < 8 else { return }
        while capacityHints.count <= depth { capacityHints.append(0) }
        capacityHints[depth] = count
    }

    // MARK: - Messages

    static let expectedObject = "expected a property-list object (<dict>, <array>, <string>, ...)"

    static let tooDeeplyNestedMessage = PropertyListReader.tooDeeplyNestedMessage

    private mutating func unexpected(_ message: String, at location: SourceLocation) {
        fail(PropertyListError(.unexpectedElement, message, at: location))
    }

    private func invalidValue(_ message: String, at location: SourceLocation) -> PropertyListError {
        PropertyListError(.invalidValue, message, at: location)
    }

    /// Where the end tag being reported starts.
    private func endTagLocation() -> SourceLocation {
        positions?.tagStart() ?? SourceLocation(fileName: fileName, line: 1, column: 1)
    }

    private static func startTag(_ name: String, isEmpty: Bool) -> String {
        isEmpty ? "<\(name)/>" : "<\(name)>"
    }

    /// `text` without its leading and trailing XML whitespace.
    private static func trimmed(_ text: [UInt8]) -> ArraySlice<UInt8> {
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

/// What the grammar may ask the parser in the middle of an event.
protocol TagPositions: AnyObject {
    /// Where the tag the parser has just read starts.
    func tagStart() -> SourceLocation
}

@available(*, unavailable, message: "a grammar belongs to one thread")
extension PropertyListGrammar: Sendable {}
