internal import CLibXML2
import Foundation

/// The one place where libxml2 is called: owns a SAX2 push parser
/// (`xmlCreatePushParserCtxt`), feeds it the document in fixed-size
/// chunks (`xmlParseChunk`), and turns its callbacks into the events of a
/// ``PropertyListGrammar``, each with its line and column.
///
/// No tree is built: where `xmlTextReader` made, linked and freed a node
/// per element and per run of text, the callbacks hand the bytes straight
/// to the grammar. Memory is one chunk of input, libxml2's buffer of a few
/// chunks, and the records of one chunk.
///
/// The parser is configured to be safe by construction, as the text
/// reader was: the options are `XML_PARSE_NONET` (never touch the
/// network), `XML_PARSE_COMPACT` and `XML_PARSE_BIG_LINES`; CDATA
/// arrives through a callback of its own, which ends its line breaks
/// as XML says and hands it on as text (``cdata(_:)``); without `NOENT`,
/// `DTDLOAD`, `DTDVALID` or `XINCLUDE` libxml2 loads no external DTD or
/// entity, and without `XML_PARSE_HUGE` its size limits stay on. The SAX
/// handler has no `getEntity`, `resolveEntity` or `externalSubset`
/// callback, so no entity is ever looked up or loaded, and every
/// declaration callback refuses the document. libxml2's 10,000,000-byte
/// limit on a text node, which its tree builder enforced, is enforced
/// here on each run of text.
///
/// libxml2 never prints: a structured error handler keeps its first
/// error, which becomes the grammar's failure.
///
/// Locations: in a callback, libxml2's cursor knows its line and column
/// exactly (no 65,535 cap, no parsing ahead). A start tag's callback comes
/// with the cursor on its `>`, an end tag's just after it: the tag starts
/// at the `<` before the cursor, which is still in libxml2's buffer. Text
/// starts where the event before it ended.
///
/// Not thread-safe: one parser, one thread.
final class XMLPushParser: TagPositions {
    /// How many bytes are read and handed to libxml2 at a time, unless a
    /// fuzz target asks for fewer.
    static let chunkSize = 64 * 1024

    /// libxml2's limit on a text node without `XML_PARSE_HUGE`
    /// (`XML_MAX_TEXT_LENGTH`).
    static let maximumTextLength = 10_000_000

    let displayName: String
    /// The grammar the callbacks drive, owned by the parser. Behind a
    /// pointer, as ``run`` is: class properties pay a dynamic exclusivity
    /// check on every access, and the callbacks touch them for every tag.
    let grammar: UnsafeMutablePointer<PropertyListGrammar>

    private var context: xmlParserCtxtPtr?
    private let fileName: SourceLocation.FileName
    /// The file read through its descriptor, or the document in memory.
    private let file: OpenFile?
    private let data: Data?
    /// Bytes handed to libxml2 so far.
    private(set) var bytesFed = 0
    /// Whether the last chunk, and the end, were handed to libxml2.
    private(set) var isFinished = false
    private let chunk: UnsafeMutableRawBufferPointer
    /// Bytes fed per `xmlParseChunk` after the first four.
    private let chunkLength: Int
    /// libxml2's first error, kept until `xmlParseChunk` returns.
    private var libraryError: LibraryError?

    private let run: UnsafeMutablePointer<RunState>

    /// For a parser that libxml2 drives (``parseDocument()``): called
    /// with the grammar once it holds ``deliveryBatch`` records, to take
    /// them; returns false to stop the parse. Nil for a push parser,
    /// whose caller takes records between chunks.
    private let deliver: ((UnsafeMutablePointer<PropertyListGrammar>) -> Bool)?
    /// How many records a driven parser queues before it hands them over.
    static let deliveryBatch = 64
    /// A driven parser's input: the bytes of `chunk` read last that
    /// libxml2 has not taken yet, and the error that ended reading.
    private var pending = 0..<0
    private var readFailure: PropertyListError?

    /// Where the events are, between callbacks.
    private struct RunState {
        /// Where the last event other than text ended: where a run of
        /// text that follows starts.
        var lastEndLine = 1
        var lastEndColumn = 1
        /// Whether a run of text is open, and where it started.
        var inText = false
        var textLine = 1
        var textColumn = 1
        var textLength = 0
        /// The start tag just read was `<name/>`: its end event is not one.
        var pendingEmptyEnd = false
        /// Where in libxml2's input the last piece of a CDATA section
        /// that ended with a carriage return ended, -1 if the last did
        /// not: a line feed that starts the section's next piece there
        /// completes that CR LF (``cdata(_:)``).
        var cdataCarriageReturnEnd = -1
    }

    /// The parts of an `xmlError` the reader reports, copied out of
    /// libxml2's memory.
    struct LibraryError {
        var code: Int32
        var message: String
        var line: Int
        /// libxml2's column (`int2`), 0 when unknown.
        var column: Int
        /// The error's first string argument (`str1`): the entity name for
        /// entity errors.
        var detail: String?
        /// The root element had ended: for `XML_ERR_DOCUMENT_END`, content
        /// after the document rather than a document cut short.
        var afterRoot = false
        /// The byte at libxml2's cursor when it reported the error, -1 if
        /// none (see `CLibXML2_unparsedByte`).
        var byte: Int32 = -1
    }

    /// Options for `xmlCtxtUseOptions`; see the type's documentation.
    private static let options = Int32(
        XML_PARSE_NONET.rawValue | XML_PARSE_COMPACT.rawValue | XML_PARSE_BIG_LINES.rawValue)

    /// Prepares libxml2 once per process, before the first parser:
    /// `xmlInitParser` (its lazy initialisation is not thread-safe), and
    /// its depth limit (256) raised to the reader's, `<plist>` plus
    /// ``PropertyListReader/maximumDepth`` containers
    /// (`CLibXML2_raiseParserMaxDepth`, i.e. `xmlParserMaxDepth`), and
    /// its generic error channel silenced (`CLibXML2_silenceGenericErrors`).
    private static let libraryPrepared: Void = {
        xmlInitParser()
        CLibXML2_raiseParserMaxDepth(UInt32(PropertyListReader.maximumDepth + 1))
        CLibXML2_silenceGenericErrors()
    }()

    /// Loads libxml2 (CLibraryLoader) and prepares it, if not yet done:
    /// see ``PropertyListReader/loadXMLParser()``.
    static func prepareLibrary() {
        _ = Self.libraryPrepared
    }

    /// Reads the regular file open as `file`, from its start.
    convenience init(file: OpenFile, displayName: String) throws(PropertyListError) {
        try self.init(file: file, data: nil, displayName: displayName, chunkSize: Self.chunkSize, deliver: nil)
    }

    /// A parser of the same document from its start that libxml2 drives
    /// itself (``parseDocument()``), calling `deliver` with the grammar
    /// whenever ``deliveryBatch`` records are queued; nil when the
    /// document is converted from another encoding than UTF-8, which is
    /// read in pushed chunks only.
    ///
    /// libxml2's pull loop (`xmlParseDocument` over a read callback) does
    /// not look ahead for the end of every tag, as its push loop must in
    /// case a chunk ends inside one: 18 % fewer of libxml2's instructions
    /// on the same document and callbacks (bench/README.md, "session
    /// 12"). The callbacks, the grammar, and so every value, location and
    /// error, are the same.
    func drivenTwin(
        deliver: @escaping (UnsafeMutablePointer<PropertyListGrammar>) -> Bool
    ) throws(PropertyListError) -> XMLPushParser? {
        guard let context, CLibXML2_cursor(context).converted == 0 else { return nil }
        return try XMLPushParser(
            file: file, data: data, displayName: displayName, chunkSize: chunkLength, deliver: deliver)
    }

    /// Reads `data` (kept, not copied: `Data` is a value), `chunkSize`
    /// bytes at a time.
    convenience init(data: Data, displayName: String, chunkSize: Int = XMLPushParser.chunkSize) throws(PropertyListError) {
        try self.init(
            file: nil, data: data, displayName: displayName, chunkSize: max(chunkSize, 1), deliver: nil)
    }

    private init(
        file: OpenFile?, data: Data?, displayName: String, chunkSize: Int,
        deliver: ((UnsafeMutablePointer<PropertyListGrammar>) -> Bool)?
    ) throws(PropertyListError) {
        _ = Self.libraryPrepared
        self.file = file
        self.data = data
        self.displayName = displayName
        fileName = SourceLocation.FileName(displayName)
        grammar = UnsafeMutablePointer.allocate(capacity: 1)
        grammar.initialize(to: PropertyListGrammar(fileName: fileName))
        run = UnsafeMutablePointer.allocate(capacity: 1)
        run.initialize(to: RunState())
        chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: max(chunkSize, 4), alignment: 16)
        chunkLength = chunkSize
        self.deliver = deliver

        var handler = xmlSAXHandler()
        Self.install(into: &handler)
        let context: xmlParserCtxtPtr?
        if deliver != nil {
            // libxml2 reads through `supply` (it detects the encoding from
            // the first bytes itself).
            context = xmlCreateIOParserCtxt(
                &handler, Unmanaged.passUnretained(self).toOpaque(),
                { input, buffer, length in
                    guard let input, let buffer else { return -1 }
                    return XMLPushParser.parser(input).supply(buffer, Int(length))
                }, nil, Unmanaged.passUnretained(self).toOpaque(), XML_CHAR_ENCODING_NONE)
        } else {
            // The first four bytes tell libxml2 the encoding (UTF-8, UTF-16
            // with or without a byte-order mark...), as `xmlTextReader` does.
            let first = try read(upTo: 4)
            context = xmlCreatePushParserCtxt(
                &handler, Unmanaged.passUnretained(self).toOpaque(),
                first.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(first.count), nil)
        }
        guard let context else {
            // `deinit` frees the chunk.
            throw PropertyListError(.unreadable, "libxml2 cannot read the document", file: displayName)
        }
        self.context = context
        _ = xmlCtxtUseOptions(context, Self.options)
        grammar.pointee.positions = self
    }

    /// Frees the C parser (`xmlFreeParserCtxt`) and the chunk; the file,
    /// if any, is closed when `file` is released.
    deinit {
        if let context {
            xmlFreeParserCtxt(context)
        }
        chunk.deallocate()
        grammar.deinitialize(count: 1)
        grammar.deallocate()
        run.deinitialize(count: 1)
        run.deallocate()
    }

    // MARK: - Feeding

    /// Hands libxml2 the next chunk, or the end of the document after the
    /// last (`xmlParseChunk`); the grammar receives the events.
    ///
    /// - Throws: ``PropertyListError/Kind/unreadable`` when reading the file
    ///   fails. libxml2's errors go to the grammar's failure.
    func feed() throws(PropertyListError) {
        guard !isFinished, let context else { return }
        let bytes = try read(upTo: chunkLength)
        let terminate: Int32 = bytes.isEmpty ? 1 : 0
        let status = xmlParseChunk(
            context, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(bytes.count), terminate)
        conclude(context, status: status, atEnd: terminate == 1)
    }

    /// Parses the whole document, for a parser made by ``drivenTwin(deliver:)``:
    /// libxml2 reads through ``supply(_:_:)``, the grammar queues the
    /// records and `deliver` takes them as they come. Then the grammar is
    /// complete or failed (its queue may still hold the last records),
    /// unless `deliver` stopped the parse.
    ///
    /// - Throws: ``PropertyListError/Kind/unreadable`` when reading the file
    ///   fails. libxml2's errors go to the grammar's failure.
    func parseDocument() throws(PropertyListError) {
        guard !isFinished, let context else { return }
        let status = xmlParseDocument(context)
        if let readFailure {
            isFinished = true
            throw readFailure
        }
        if libraryError == nil, grammar.pointee.failure == nil, CLibXML2_isWellFormed(context) != 0 {
            // libxml2's pull loop ends the document at a NUL byte after the
            // root and says nothing (its push loop reports it): report it
            // as the push loop does, so that both reads refuse it alike.
            let byte = CLibXML2_unparsedByte(context)
            if byte >= 0 {
                let cursor = CLibXML2_cursor(context)
                libraryError = LibraryError(
                    code: Int32(XML_ERR_DOCUMENT_END.rawValue), message: "Extra content at the end of the document",
                    line: Int(cursor.line), column: Int(cursor.column), detail: nil, afterRoot: true, byte: byte)
            }
        }
        conclude(context, status: status, atEnd: true)
    }

    /// After libxml2 returns: its error, or the end of the document.
    private func conclude(_ context: xmlParserCtxtPtr, status: Int32, atEnd: Bool) {
        let terminate: Int32 = atEnd ? 1 : 0
        if let error = libraryError {
            grammar.pointee.fail(propertyListError(from: error))
            CLibXML2_stopFromCallback(context)
        } else if status != 0 && grammar.pointee.failure == nil {
            // Errors raised without a parser context (input conversion
            // failures) reach no handler: libxml2 only stops, and returns
            // an error code (warnings set none).
            grammar.pointee.fail(
                PropertyListError(
                    .malformedXML, "malformed XML: libxml2 stopped reading",
                    at: SourceLocation(fileName: fileName, line: run.pointee.lastEndLine, column: run.pointee.lastEndColumn)))
        }
        if terminate == 1 {
            isFinished = true
            if grammar.pointee.failure == nil {
                if CLibXML2_isWellFormed(context) == 0 {
                    grammar.pointee.fail(
                        PropertyListError(
                            .malformedXML, "malformed XML: libxml2 stopped reading",
                            at: SourceLocation(fileName: fileName, line: run.pointee.lastEndLine, column: run.pointee.lastEndColumn)))
                } else {
                    endText()
                    grammar.pointee.endOfDocument(
                        at: SourceLocation(fileName: fileName, line: run.pointee.lastEndLine, column: run.pointee.lastEndColumn))
                }
            }
        } else if grammar.pointee.failure != nil {
            isFinished = true
        }
    }

    /// Up to `count` bytes of the document, from where the last read
    /// stopped; empty at its end.
    private func read(upTo count: Int) throws(PropertyListError) -> UnsafeRawBufferPointer {
        let wanted = min(count, chunk.count)
        if let data {
            let end = min(bytesFed + wanted, data.count)
            let filled = end - bytesFed
            if filled > 0 {
                data.copyBytes(
                    to: UnsafeMutableRawBufferPointer(rebasing: chunk[0..<filled]), from: bytesFed..<end)
            }
            bytesFed = end
            return UnsafeRawBufferPointer(rebasing: chunk[0..<filled])
        }
        guard let file else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        while true {
            let result = pread(file.descriptor, chunk.baseAddress, wanted, off_t(bytesFed))
            if result < 0 {
                if errno == EINTR { continue }
                throw PropertyListError(
                    .unreadable, "cannot read file: \(String(cString: strerror(errno)))", file: displayName)
            }
            bytesFed += result
            return UnsafeRawBufferPointer(rebasing: chunk[0..<result])
        }
    }

    /// libxml2's read callback for a driven parser: up to `length` bytes
    /// into `buffer`, from chunks of ``chunkSize`` read as the push parser
    /// reads them (libxml2 asks for about 4 KB at a time); 0 at the end,
    /// -1 when reading fails (the error is kept for ``parseDocument()``).
    private func supply(_ buffer: UnsafeMutablePointer<CChar>, _ length: Int) -> Int32 {
        if pending.isEmpty {
            let bytes: UnsafeRawBufferPointer
            do {
                bytes = try read(upTo: chunkLength)
            } catch {
                readFailure = error
                return -1
            }
            pending = 0..<bytes.count
        }
        let count = min(length, pending.count, Int(Int32.max))
        if count > 0, let base = chunk.baseAddress {
            UnsafeMutableRawPointer(buffer).copyMemory(from: base + pending.lowerBound, byteCount: count)
        }
        pending = (pending.lowerBound + count)..<pending.upperBound
        return Int32(count)
    }

    /// How far into the document the parser is, in bytes of the UTF-8
    /// libxml2 parses (the file's bytes, unless it is in another
    /// encoding).
    private func position(_ cursor: CLibXML2_Cursor) -> Int {
        guard let base = cursor.base, let cur = cursor.cur else { return bytesFed }
        return min(Int(cursor.consumed) + (cur - base), bytesFed)
    }

    // MARK: - Callbacks

    /// Sets the SAX2 callbacks: elements, text, comments, processing
    /// instructions, entity references, the DOCTYPE and the declarations
    /// that refuse an internal subset, and the structured error handler.
    /// Everything else stays `NULL`, so libxml2 resolves and loads nothing.
    private static func install(into handler: inout xmlSAXHandler) {
        handler.initialized = UInt32(XML_SAX2_MAGIC)
        // The three callbacks of every tag and text borrow the parser
        // (``withParser(_:_:)``): no retain and release per event.
        handler.startElementNs = { context, localName, prefix, _, _, _, _, _, _ in
            guard let context, let localName else { return }
            XMLPushParser.withParser(context) { $0.startElement(localName, prefix: prefix) }
        }
        handler.endElementNs = { context, localName, prefix, _ in
            guard let context, let localName else { return }
            XMLPushParser.withParser(context) { $0.endElement(localName, prefix: prefix) }
        }
        handler.characters = { context, bytes, count in
            guard let context, let bytes, count > 0 else { return }
            XMLPushParser.withParser(context) { $0.characters(UnsafeBufferPointer(start: bytes, count: Int(count))) }
        }
        handler.ignorableWhitespace = handler.characters
        handler.cdataBlock = { context, bytes, count in
            guard let context, let bytes, count > 0 else { return }
            XMLPushParser.withParser(context) { $0.cdata(UnsafeBufferPointer(start: bytes, count: Int(count))) }
        }
        handler.comment = { context, _ in
            guard let context else { return }
            XMLPushParser.parser(context).boundary()
        }
        handler.processingInstruction = { context, _, _ in
            guard let context else { return }
            XMLPushParser.parser(context).boundary()
        }
        handler.reference = { context, name in
            guard let context else { return }
            XMLPushParser.parser(context).reference(name)
        }
        handler.internalSubset = { context, _, _, _ in
            guard let context else { return }
            XMLPushParser.parser(context).documentType()
        }
        handler.entityDecl = { context, _, _, _, _, _ in
            guard let context else { return }
            XMLPushParser.parser(context).declaration()
        }
        handler.elementDecl = { context, _, _, _ in
            guard let context else { return }
            XMLPushParser.parser(context).declaration()
        }
        handler.attributeDecl = { context, _, _, _, _, _, tree in
            // The callback owns the enumeration (`xmlParseAttributeListDecl`).
            if let tree { xmlFreeEnumeration(tree) }
            guard let context else { return }
            XMLPushParser.parser(context).declaration()
        }
        handler.notationDecl = { context, _, _, _ in
            guard let context else { return }
            XMLPushParser.parser(context).declaration()
        }
        handler.unparsedEntityDecl = { context, _, _, _, _ in
            guard let context else { return }
            XMLPushParser.parser(context).declaration()
        }
        handler.serror = { context, error in
            guard let context, let error else { return }
            XMLPushParser.parser(context).record(error)
        }
    }

    /// The parser a callback's user data points at. The parser outlives
    /// its C context, which it frees: an unretained reference is enough.
    private static func parser(_ context: UnsafeMutableRawPointer) -> XMLPushParser {
        Unmanaged<XMLPushParser>.fromOpaque(context).takeUnretainedValue()
    }

    /// Runs `body` on the parser a callback's user data points at,
    /// borrowed rather than retained: ``feed()`` holds the parser for as
    /// long as libxml2 calls back. A retain and a release per event were
    /// about 5 % of the parsing thread's instructions (bench/README.md,
    /// "session 10").
    @inline(__always)
    private static func withParser(_ context: UnsafeMutableRawPointer, _ body: (XMLPushParser) -> Void) {
        Unmanaged<XMLPushParser>.fromOpaque(context)._withUnsafeGuaranteedRef(body)
    }

    private func startElement(_ localName: UnsafePointer<UInt8>, prefix: UnsafePointer<UInt8>?) {
        guard grammar.pointee.failure == nil, let context else { return }
        endText()
        let cursor = CLibXML2_cursor(context)
        // The cursor is on the tag's `>`, or on the `/` of `/>`.
        let isEmpty = cursor.cur.map { $0[0] == UInt8(ascii: "/") && $0[1] == UInt8(ascii: ">") } ?? false
        // `<foo:string>` is not `<string>`: Apple's parser does not know
        // namespaces either.
        let name = prefix == nil ? ElementName(cString: localName) : .other
        let location = startTagStart(cursor, name: name)
        run.pointee.lastEndLine = Int(cursor.line)
        run.pointee.lastEndColumn = Int(cursor.column) + (isEmpty ? 2 : 1)
        run.pointee.pendingEmptyEnd = isEmpty
        let end = position(cursor) + (isEmpty ? 2 : 1)
        grammar.pointee.start(
            name, qualifiedName: { Self.qualifiedName(localName, prefix: prefix) }, isEmpty: isEmpty,
            at: location, end: end)
        stopIfFailed()
        handOver()
    }

    private func endElement(_ localName: UnsafePointer<UInt8>, prefix: UnsafePointer<UInt8>?) {
        guard grammar.pointee.failure == nil, let context else { return }
        let cursor = CLibXML2_cursor(context)
        run.pointee.lastEndLine = Int(cursor.line)
        run.pointee.lastEndColumn = Int(cursor.column)
        if run.pointee.pendingEmptyEnd {
            run.pointee.pendingEmptyEnd = false
            return
        }
        endText()
        let name = prefix == nil ? ElementName(cString: localName) : .other
        grammar.pointee.end(
            name, qualifiedName: { Self.qualifiedName(localName, prefix: prefix) }, end: position(cursor))
        stopIfFailed()
        handOver()
    }

    private func characters(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard grammar.pointee.failure == nil else { return }
        if !run.pointee.inText {
            run.pointee.inText = true
            run.pointee.textLine = run.pointee.lastEndLine
            run.pointee.textColumn = run.pointee.lastEndColumn
            run.pointee.textLength = 0
        } else if run.pointee.textLength + bytes.count > Self.maximumTextLength, let context {
            // What libxml2's tree builder said (`xmlSAX2Text`) when a text
            // node grew past its limit, at the cursor.
            let cursor = CLibXML2_cursor(context)
            libraryError = LibraryError(
                code: Int32(XML_ERR_NO_MEMORY.rawValue), message: "xmlSAX2Characters: huge text node",
                line: Int(cursor.line), column: Int(cursor.column), detail: nil)
            grammar.pointee.fail(propertyListError(from: libraryError.unsafelyUnwrapped))
            CLibXML2_stopFromCallback(context)
            return
        }
        run.pointee.textLength += bytes.count
        grammar.pointee.text(bytes)
    }

    /// A piece of a CDATA section, as text, its line breaks ended as XML
    /// ends them before parsing: CR LF and a lone CR become LF.
    ///
    /// libxml2 2.9.14's pull loop (`xmlParseCDSect`) reads a section
    /// through `CUR_CHAR`, which does that; its push loop hands the
    /// section's bytes over as they are in its input, in pieces of 300
    /// bytes and a last one before `]]>`. So a CR LF may be cut between
    /// two pieces: a piece that ends with a CR notes where it ended in
    /// the input, and the next piece drops its first LF if it starts
    /// there (a later section starts past the `]]><![CDATA[` between).
    private func cdata(_ bytes: UnsafeBufferPointer<UInt8>) {
        let end = run.pointee.cdataCarriageReturnEnd
        run.pointee.cdataCarriageReturnEnd = -1
        guard bytes.contains(0x0D) || (end >= 0 && bytes.first == 0x0A) else {
            return characters(bytes)
        }
        var ended: [UInt8] = []
        ended.reserveCapacity(bytes.count)
        var index = 0
        if end >= 0, bytes.first == 0x0A, inputOffset(of: bytes.baseAddress) == end {
            index = 1
        }
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            guard byte == 0x0D else {
                ended.append(byte)
                continue
            }
            ended.append(0x0A)
            if index < bytes.count {
                if bytes[index] == 0x0A { index += 1 }
            } else if let start = inputOffset(of: bytes.baseAddress) {
                run.pointee.cdataCarriageReturnEnd = start + bytes.count
            }
        }
        ended.withUnsafeBufferPointer { characters($0) }
    }

    /// Where `pointer` is in libxml2's input, counted from its start,
    /// when it points into the input's buffer (the push loop's pieces of
    /// CDATA do); nil otherwise.
    private func inputOffset(of pointer: UnsafePointer<UInt8>?) -> Int? {
        guard let context, let pointer else { return nil }
        let cursor = CLibXML2_cursor(context)
        guard let base = cursor.base, let current = cursor.cur, pointer >= base, pointer <= current else { return nil }
        return Int(cursor.consumed) + (pointer - base)
    }

    /// A comment or processing instruction: it ends a run of text.
    private func boundary() {
        guard grammar.pointee.failure == nil, let context else { return }
        endText()
        let cursor = CLibXML2_cursor(context)
        run.pointee.lastEndLine = Int(cursor.line)
        run.pointee.lastEndColumn = Int(cursor.column)
    }

    /// `&name;` for an entity libxml2 does not know (with a DOCTYPE that
    /// names an external DTD, libxml2 only warns about it).
    private func reference(_ name: UnsafePointer<UInt8>?) {
        guard grammar.pointee.failure == nil, let context else { return }
        endText()
        let text = name.map { String(cString: $0) } ?? "?"
        let cursor = CLibXML2_cursor(context)
        // The cursor is after the `;`.
        let width = 2 + text.unicodeScalars.count
        grammar.pointee.entityReference(
            text,
            at: SourceLocation(
                fileName: fileName, line: Int(cursor.line), column: max(Int(cursor.column) - width, 1)))
        run.pointee.lastEndLine = Int(cursor.line)
        run.pointee.lastEndColumn = Int(cursor.column)
        stopIfFailed()
    }

    /// `<!DOCTYPE ...>`: an internal subset (`[`, where the cursor is
    /// after the external identifier) is refused. Only reached when the
    /// prolog scan could not see it (a very long prolog, UTF-16);
    /// libxml2 does not say where the DTD is, so the error has no
    /// location.
    private func documentType() {
        guard grammar.pointee.failure == nil, let context else { return }
        let cursor = CLibXML2_cursor(context)
        if let cur = cursor.cur, cur[0] == UInt8(ascii: "[") {
            declaration()
        }
    }

    /// Any declaration of an internal subset.
    private func declaration() {
        guard grammar.pointee.failure == nil else { return }
        grammar.pointee.fail(
            PropertyListError(.forbiddenDeclaration, PropertyListReader.internalSubsetMessage, file: displayName))
        stopIfFailed()
    }

    /// Closes the run of text, if one is open.
    private func endText() {
        guard run.pointee.inText else { return }
        run.pointee.inText = false
        grammar.pointee.endOfText(startedAt: SourceLocation(fileName: fileName, line: run.pointee.textLine, column: run.pointee.textColumn))
    }

    private func stopIfFailed() {
        if grammar.pointee.failure != nil, let context {
            CLibXML2_stopFromCallback(context)
        }
    }

    /// For a driven parser, hands a full batch of records to `deliver`,
    /// and stops the parse when it says so.
    @inline(__always)
    private func handOver() {
        guard let deliver, grammar.pointee.queuedCount >= Self.deliveryBatch else { return }
        if !deliver(grammar), let context {
            CLibXML2_stopFromCallback(context)
        }
    }

    /// Keeps libxml2's first error; warnings are ignored.
    private func record(_ error: UnsafeMutablePointer<xmlError>) {
        guard libraryError == nil, error.pointee.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
        let message = error.pointee.message.map { String(cString: $0) } ?? "unknown error"
        libraryError = LibraryError(
            code: error.pointee.code,
            // Some messages continue on a second line ("Bytes: 0xFF 0xFE"):
            // keep them on one, as every other message is.
            message: message.split(whereSeparator: \.isNewline)
                .map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty }
                .joined(separator: " "),
            line: Int(error.pointee.line),
            column: Int(error.pointee.int2),
            detail: error.pointee.str1.map { String(cString: $0) })
        if error.pointee.code == Int32(XML_ERR_DOCUMENT_END.rawValue), let context,
            CLibXML2_isAfterRoot(context) != 0
        {
            libraryError?.afterRoot = true
            libraryError?.byte = CLibXML2_unparsedByte(context)
        }
        if grammar.pointee.failure == nil, let libraryError {
            grammar.pointee.fail(propertyListError(from: libraryError))
        }
    }

    // MARK: - Positions

    /// Where the tag the parser has just read starts.
    func tagStart() -> SourceLocation {
        guard let context else { return SourceLocation(fileName: fileName, line: 1, column: 1) }
        return tagStart(CLibXML2_cursor(context))
    }

    /// Where the start tag of `name` that ends at `cursor` starts.
    ///
    /// A tag written `<name>` or `<name/>`, as every tag of a property
    /// list but `<plist version="1.0">` is, has its `<` the name's length
    /// before the cursor, on the same line: one byte to look at instead of
    /// a scan back (``tagStart(_:)`` was 4 % of the parsing thread). A `<`
    /// there can only be the tag's own, since none can appear inside a
    /// tag; any other tag (attributes, spaces, a line break, a name this
    /// grammar does not know) is counted back as before.
    @inline(__always)
    private func startTagStart(_ cursor: CLibXML2_Cursor, name: ElementName) -> SourceLocation {
        let length = name.byteCount
        if length > 0, let base = cursor.base, let cur = cursor.cur, cur - base > length,
            cur[-1 - length] == UInt8(ascii: "<")
        {
            return SourceLocation(
                fileName: fileName, line: Int(cursor.line), column: max(Int(cursor.column) - length - 1, 1))
        }
        return tagStart(cursor)
    }

    /// Where the tag that ends at `cursor` starts: the last `<` before the
    /// cursor (a `<` cannot appear inside a tag), counted back in
    /// characters and lines.
    private func tagStart(_ cursor: CLibXML2_Cursor) -> SourceLocation {
        let line = Int(cursor.line)
        let column = Int(cursor.column)
        guard let base = cursor.base, let cur = cursor.cur, cur > base else {
            return SourceLocation(fileName: fileName, line: line, column: column)
        }
        // Back to the `<`, counting on the way (one pass: a start tag's
        // location is computed for every element).
        var start = cur - 1
        var characters = 0
        var newlines = 0
        while true {
            let value = start[0]
            if value == 0x0A {
                newlines += 1
            } else if value & 0xC0 != 0x80 {
                characters += 1
            }
            if value == UInt8(ascii: "<") || start == base { break }
            start -= 1
        }
        if newlines == 0 {
            return SourceLocation(fileName: fileName, line: line, column: max(column - characters, 1))
        }
        // A tag over several lines: count the `<`'s column from the line
        // break before it, when libxml2 still holds it.
        var lineStart = start
        while lineStart > base && lineStart[-1] != 0x0A {
            lineStart -= 1
        }
        var startColumn = 1
        if lineStart == base && cursor.consumed > 0 {
            // libxml2 has let go of the line's start (it keeps only 80
            // bytes before its cursor when it shrinks its buffer, and how
            // often it shrinks depends on the chunks it is pushed): count
            // the characters before its buffer in the input itself.
            // Converted input (UTF-16, Latin-1) has no such count: its
            // offsets are libxml2's UTF-8, so the column stays 1 there.
            guard cursor.converted == 0, let before = charactersSinceLineBreak(before: Int(cursor.consumed)) else {
                return SourceLocation(fileName: fileName, line: line - newlines, column: 1)
            }
            startColumn += before
        }
        var counted = lineStart
        while counted < start {
            if counted[0] & 0xC0 != 0x80 { startColumn += 1 }
            counted += 1
        }
        return SourceLocation(fileName: fileName, line: line - newlines, column: startColumn)
    }

    /// How far the input has been counted for
    /// ``charactersSinceLineBreak(before:)``, and the characters since the
    /// last line break before that offset.
    private var lineScan = (offset: 0, characters: 0)

    /// The characters between the last line break before `offset` (a
    /// byte offset into the input, never smaller than the last one asked
    /// for) and `offset`, counted in the input itself: the data, or the
    /// file read again through its descriptor. Each byte is counted once
    /// per parse, however often a tag's line start is asked for. `nil`
    /// when the input cannot be read again.
    private func charactersSinceLineBreak(before offset: Int) -> Int? {
        guard offset >= lineScan.offset else { return nil }
        func scan(_ bytes: UnsafeRawBufferPointer) {
            var characters = lineScan.characters
            for byte in bytes {
                if byte == 0x0A {
                    characters = 0
                } else if byte & 0xC0 != 0x80 {
                    characters += 1
                }
            }
            lineScan = (lineScan.offset + bytes.count, characters)
        }
        if let data {
            guard offset <= data.count else { return nil }
            data.withUnsafeBytes { scan(UnsafeRawBufferPointer(rebasing: $0[lineScan.offset..<offset])) }
        } else if let file {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 1)
            defer { buffer.deallocate() }
            while lineScan.offset < offset {
                let wanted = min(buffer.count, offset - lineScan.offset)
                let read = pread(file.descriptor, buffer.baseAddress, wanted, off_t(lineScan.offset))
                if read < 0 && errno == EINTR { continue }
                guard read > 0 else { return nil }
                scan(UnsafeRawBufferPointer(rebasing: buffer[..<read]))
            }
        } else {
            return nil
        }
        return lineScan.characters
    }

    private static func qualifiedName(_ localName: UnsafePointer<UInt8>, prefix: UnsafePointer<UInt8>?) -> String {
        let name = String(cString: localName)
        guard let prefix else { return name }
        return String(cString: prefix) + ":" + name
    }

    // MARK: - Errors

    /// Turns libxml2's error into ours: entity problems are refusals,
    /// its depth limit is ours, everything else is malformed XML.
    private func propertyListError(from error: LibraryError) -> PropertyListError {
        let kind: PropertyListError.Kind
        let message: String
        // The input's last line, counted once (it reads the input again).
        var counted: (line: Int, characters: Int)??
        func last() -> (line: Int, characters: Int)? {
            if let counted { return counted }
            let line = lastLine()
            counted = .some(line)
            return line
        }
        switch error.code {
        case Int32(XML_ERR_UNDECLARED_ENTITY.rawValue), Int32(XML_WAR_UNDECLARED_ENTITY.rawValue):
            kind = .forbiddenDeclaration
            message = PropertyListReader.undeclaredEntityMessage(error.detail ?? "?")
        case Int32(XML_ERR_ENTITY_LOOP.rawValue):
            kind = .forbiddenDeclaration
            message = "entity reference loop: entity declarations are refused"
        case Int32(XML_ERR_INTERNAL_ERROR.rawValue) where error.message.hasPrefix("Excessive depth"):
            kind = .tooDeeplyNested
            message = PropertyListReader.tooDeeplyNestedMessage
        case Int32(XML_ERR_DOCUMENT_END.rawValue) where error.afterRoot:
            // Not a file cut short: the document has ended and more follows.
            kind = .malformedXML
            message = Self.afterRootMessage(byte: error.byte)
        case _ where error.line > 0 && error.line >= (last()?.line ?? .max):
            // An error on the last line is almost always a file cut short;
            // libxml2 often words it "Extra content at the end of the
            // document", which sends people looking for the wrong thing.
            kind = .malformedXML
            // libxml2's push loop says "Extra content at the end of the
            // document" (document end), its pull loop "Premature end of
            // data in tag …" (tag not finished): neither adds anything.
            let detail =
                error.code == Int32(XML_ERR_DOCUMENT_END.rawValue)
                    || error.code == Int32(XML_ERR_TAG_NOT_FINISHED.rawValue)
                ? "" : " (libxml2: \(error.message))"
            message = "malformed XML: the file ends before the document does (truncated?)\(detail)"
        case _ where error.message.contains("huge text node"):
            kind = .malformedXML
            message = "malformed XML: a text longer than libxml2's limit of 10,000,000 bytes"
        default:
            kind = .malformedXML
            message = "malformed XML: \(error.message)"
        }
        guard error.line > 0 else {
            return PropertyListError(kind, message, file: displayName)
        }
        var location = SourceLocation(fileName: fileName, line: error.line, column: max(error.column, 1))
        if kind == .malformedXML, let last = last(), error.line > last.line {
            // Past the last line (after its line break, where libxml2's
            // pull loop stops): the end of the last line, where its push
            // loop stops.
            location = SourceLocation(fileName: fileName, line: last.line, column: last.characters + 1)
        }
        return PropertyListError(kind, message, at: location)
    }

    /// What follows the root element's end, where XML allows nothing but
    /// comments, processing instructions and white space.
    static func afterRootMessage(byte: Int32) -> String {
        let what =
            switch byte {
            case 0: "a NUL byte"
            case 0x3C: "a second element"
            case 0x21...0x7E: "'\(Character(Unicode.Scalar(UInt8(byte))))'"
            case 0x01...0x20, 0x7F: "the control byte 0x" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            default: "text"
            }
        return "malformed XML: \(what) after the end of the document (only comments and white space may follow it)"
    }

    /// The number of the input's last line that holds anything, and the
    /// characters on it, counted only when an error needs it (a file is
    /// read again through its descriptor).
    private func lastLine() -> (line: Int, characters: Int)? {
        var newlines = 0
        var last: UInt8 = 0
        // Characters since the last line break, and on the line before it.
        var characters = 0
        var previous = 0
        func scan(_ bytes: UnsafeRawBufferPointer) {
            for byte in bytes {
                if byte == 0x0A {
                    newlines += 1
                    previous = characters
                    characters = 0
                } else if byte & 0xC0 != 0x80 {
                    characters += 1
                }
            }
            if let final = bytes.last { last = final }
        }
        if let data {
            data.withUnsafeBytes { scan($0) }
        } else if let file {
            var offset: off_t = 0
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 1)
            defer { buffer.deallocate() }
            while true {
                let read = pread(file.descriptor, buffer.baseAddress, buffer.count, offset)
                if read < 0 && errno == EINTR { continue }
                guard read > 0 else { break }
                scan(UnsafeRawBufferPointer(rebasing: buffer[..<read]))
                offset += off_t(read)
            }
        } else {
            return nil
        }
        // A final newline ends the last line rather than starting one.
        return last == 0x0A ? (newlines, previous) : (1 + newlines, characters)
    }
}

@available(*, unavailable, message: "an XML parser belongs to one thread")
extension XMLPushParser: Sendable {}
