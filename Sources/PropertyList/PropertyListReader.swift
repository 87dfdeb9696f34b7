import Foundation

/// Reads an XML property list as a stream: a root array one element at a
/// time, any other root at once.
///
/// The reader is built on libxml2's SAX2 push parser: it reads the file
/// in chunks of 64 KiB and builds each value as its tags go by, without a
/// tree node per element, so a property list of a million records costs
/// no more memory than a chunk and its records:
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
/// A reader is not `Sendable`: it owns a libxml2 parser, which belongs to
/// one thread at a time. Create one reader per document and use it where
/// it was created (or hand it over whole, as ``PropertyListPrefetcher``
/// does).
public final class PropertyListReader {
    /// How deeply arrays and dictionaries may nest: 512, Apple's limit.
    public static let maximumDepth = 512

    /// Loads libxml2 now, if no reader has yet, and prepares it.
    ///
    /// libxml2 (with the ICU, liblzma and zlib it brings) is loaded by the
    /// first call of one of its functions (CLibraryLoader), so that only
    /// what parses XML pays for it. When it cannot be loaded, that call
    /// ends the process: `bowties: error: cannot load libxml2.so.2, …` on
    /// standard error, status 69. A command that writes calls this before
    /// it opens anything, so that the process never ends half-way.
    public static func loadXMLParser() {
        XMLPushParser.prepareLibrary()
    }

    /// Whether the root object is an `<array>`, whose elements ``next()``
    /// returns one at a time. Known as soon as the reader is created.
    public var rootIsArray: Bool { grammar.pointee.rootIsArray }

    /// Where the root object's start tag is.
    public var rootLocation: SourceLocation { grammar.pointee.rootLocation }

    private let parser: XMLPushParser
    /// The parser's grammar (the parser owns it).
    private let grammar: UnsafeMutablePointer<PropertyListGrammar>
    /// How far the records returned so far reach into the document.
    private var consumed = 0
    private var failed: PropertyListError?

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
        let file: OpenFile
        let prefix: [UInt8]
        do {
            file = try OpenFile(path: url.path)
            prefix = try file.prefix(Self.prologScanLength)
        } catch {
            switch error {
            case .notFound(let reason):
                throw PropertyListError(.fileNotFound, "cannot open file: \(reason)", file: name)
            case .unreadable(let reason):
                throw PropertyListError(.unreadable, "cannot read file: \(reason)", file: name)
            }
        }
        try Self.examine(prefix, displayName: name)
        try self.init(parser: XMLPushParser(file: file, displayName: name))
    }

    /// Reads a property list held in memory (tests, small inputs).
    ///
    /// - Parameters:
    ///   - data: the document's bytes.
    ///   - displayName: the name used in locations and messages.
    /// - Throws: ``PropertyListError`` when `data` is a binary property
    ///   list or its beginning is not a property list.
    public convenience init(data: Data, displayName: String) throws {
        let prefix = [UInt8](data.prefix(Self.prologScanLength))
        try Self.examine(prefix, displayName: displayName)
        try self.init(parser: XMLPushParser(data: data, displayName: displayName))
    }

    /// Reads a property list held in memory, `chunkSize` bytes at a time:
    /// for the fuzz target that checks that chunk boundaries change
    /// nothing.
    @_spi(Fuzzing)
    public convenience init(data: Data, displayName: String, chunkSize: Int) throws {
        let prefix = [UInt8](data.prefix(Self.prologScanLength))
        try Self.examine(prefix, displayName: displayName)
        try self.init(parser: XMLPushParser(data: data, displayName: displayName, chunkSize: chunkSize))
    }

    /// Parses through `<plist>` to the root object's start tag.
    private init(parser: XMLPushParser) throws(PropertyListError) {
        self.parser = parser
        grammar = parser.grammar
        while !grammar.pointee.rootSeen {
            if let failure = grammar.pointee.failure {
                throw failure
            }
            if parser.isFinished {
                // Unreachable: the grammar fails at the end of a document
                // without a root.
                throw PropertyListError(
                    .unexpectedElement, "the document has no root object", file: parser.displayName)
            }
            try parser.feed()
        }
    }

    /// Refuses binary property lists and internal DTD subsets from the
    /// document's first bytes, before libxml2 parses anything.
    private static func examine(_ prefix: [UInt8], displayName: String) throws(PropertyListError) {
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
        if case .internalSubset(let line, let column) = verdict {
            throw PropertyListError(
                .forbiddenDeclaration, internalSubsetMessage,
                at: SourceLocation(file: displayName, line: line, column: column))
        }
    }

    // MARK: - Reading

    /// Bytes of the document read so far, for progress reporting: as far
    /// as the last value returned reaches, and the whole document once
    /// ``next()`` has returned `nil`.
    public var bytesConsumed: Int {
        consumed
    }

    /// Returns the next value: for an array root, its next element; for
    /// any other root, the root itself. Then `nil`, once the reader has
    /// checked that the document ends properly (`</array>`, `</plist>` and
    /// nothing after but whitespace, comments and processing
    /// instructions).
    ///
    /// Only the values of the chunk being parsed are built in memory. An
    /// error is thrown after every value that comes before it in the
    /// document.
    ///
    /// - Returns: the next value with its location, or `nil` at the end.
    /// - Throws: ``PropertyListError`` at the first problem; every later
    ///   call throws the same error.
    public func next() throws -> PropertyListItem? {
        if let failed {
            throw failed
        }
        do throws(PropertyListError) {
            while true {
                if let (item, end) = grammar.pointee.takeRecord() {
                    consumed = max(consumed, end)
                    return item
                }
                if let failure = grammar.pointee.failure {
                    throw failure
                }
                if grammar.pointee.isComplete {
                    consumed = parser.bytesFed
                    return nil
                }
                if parser.isFinished {
                    // Unreachable: a finished parser leaves the grammar
                    // complete or failed.
                    throw PropertyListError(
                        .malformedXML, "malformed XML: libxml2 stopped reading", file: parser.displayName)
                }
                try parser.feed()
            }
        } catch {
            failed = error
            throw error
        }
    }

    /// Reads every record of an array root, from the document's start, on
    /// the calling thread, and hands them over in batches of up to
    /// `batchSize`: for ``PropertyListPrefetcher``, whose thread does
    /// nothing else. libxml2 drives the parse (`xmlParseDocument`), which
    /// costs less than feeding it chunks; the records, their locations and
    /// the errors are those ``next()`` gives.
    ///
    /// - Parameters:
    ///   - put: takes a batch and how far into the document its last
    ///     record reaches; returns false to stop reading.
    /// - Returns: false, having read nothing, when the reader has returned
    ///   records already or the document is not UTF-8 (read it with
    ///   ``next()``); else true, after the last batch.
    /// - Throws: the first ``PropertyListError``, after every record
    ///   before it has been handed over.
    func produceRecords(
        batchSize: Int, _ put: ([PropertyListItem], Int) -> Bool
    ) throws(PropertyListError) -> Bool {
        guard consumed == 0, failed == nil, rootIsArray else { return false }
        var batch: [PropertyListItem] = []
        batch.reserveCapacity(batchSize)
        var reach = 0
        var stopped = false
        /// Moves the queued records into batches, handing each full one
        /// over; false once `put` refuses one.
        func take(_ grammar: UnsafeMutablePointer<PropertyListGrammar>) -> Bool {
            while let (item, end) = grammar.pointee.takeRecord() {
                batch.append(item)
                reach = max(reach, end)
                if batch.count == batchSize {
                    guard put(batch, reach) else {
                        stopped = true
                        return false
                    }
                    batch.removeAll(keepingCapacity: true)
                }
            }
            return true
        }
        // The driven parser keeps `take` only while it parses: it is
        // released inside the block, before `take`'s variables are used.
        let outcome = try withoutActuallyEscaping(take) { take throws(PropertyListError) -> Outcome? in
            guard let driven = try parser.drivenTwin(deliver: take) else { return nil }
            try driven.parseDocument()
            if stopped || !take(driven.grammar) { return .stopped }
            return .ended(
                failure: driven.grammar.pointee.failure, isComplete: driven.grammar.pointee.isComplete,
                bytesFed: driven.bytesFed)
        }
        guard let outcome else { return false }
        guard case .ended(let failure, let isComplete, let bytesFed) = outcome else { return true }
        if !batch.isEmpty {
            guard put(batch, reach) else { return true }
        }
        consumed = max(reach, bytesFed)
        if let failure {
            failed = failure
            throw failure
        }
        guard isComplete else {
            // Unreachable: a finished parser leaves the grammar complete or
            // failed.
            throw PropertyListError(.malformedXML, "malformed XML: libxml2 stopped reading", file: parser.displayName)
        }
        return true
    }

    /// How a driven parse ended.
    private enum Outcome {
        /// `put` refused a batch.
        case stopped
        case ended(failure: PropertyListError?, isComplete: Bool, bytesFed: Int)
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
            throw PropertyListError(.unexpectedElement, "the document has no root object", file: parser.displayName)
        }
        _ = try next()
        return root
    }

    // MARK: - Messages

    static let internalSubsetMessage =
        "documents with an internal DTD subset are refused "
        + "(entity declarations could read local files or expand without bound)"

    static let tooDeeplyNestedMessage = "nesting deeper than \(maximumDepth) levels"

    /// Text quoted for a message: at most 40 characters, line breaks and
    /// tabs made visible.
    static func quoted(_ bytes: [UInt8]) -> String {
        PropertyListGrammar.quoted(bytes)
    }

    static func undeclaredEntityMessage(_ name: String) -> String {
        "entity reference &\(name); is refused "
            + "(only &lt; &gt; &amp; &apos; &quot; and numeric character references are allowed)"
    }
}

@available(*, unavailable, message: "a reader belongs to one thread: create one per task")
extension PropertyListReader: Sendable {}
