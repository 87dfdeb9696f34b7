internal import CLibXML2
import Foundation

/// What the XML reader is positioned on, reduced to what a property list
/// needs to know.
enum XMLNodeKind: Equatable {
    /// A start tag; `isEmpty` for `<name/>`, which has no end tag node.
    case startElement(ElementName, isEmpty: Bool)
    case endElement(ElementName)
    /// Character data or CDATA, whitespace included; the bytes are in
    /// ``XMLTextReader/text``.
    case text
    case comment
    case processingInstruction
    /// `<!DOCTYPE ...>`; `hasInternalSubset` when it declares anything.
    case documentType(hasInternalSubset: Bool)
    /// `&name;` for an entity that is not one of the five predefined ones.
    case entityReference
    case other
}

/// The one place where libxml2 is called: owns an `xmlTextReader`, frees
/// it in `deinit`, and walks the document node by node.
///
/// The reader is configured to be safe by construction: the only parser
/// options are `XML_PARSE_NONET` (never touch the network),
/// `XML_PARSE_NOCDATA` (CDATA arrives as text), `XML_PARSE_COMPACT` and
/// `XML_PARSE_BIG_LINES`. Without `XML_PARSE_NOENT`, `DTDLOAD`, `DTDVALID`
/// or `XINCLUDE`, libxml2 loads no external DTD or entity; without
/// `XML_PARSE_HUGE` its size limits stay on.
///
/// libxml2 never prints: a structured error handler collects its first
/// error, which ``read()`` throws as a ``PropertyListError``.
///
/// Not thread-safe: one reader, one thread.
final class XMLTextReader {
    /// The display name used in locations and messages.
    let displayName: String
    /// ``displayName`` for the location of every node.
    private let fileName: SourceLocation.FileName

    /// The bytes of the current text, comment or processing instruction
    /// node. Valid until the next ``read()``.
    private(set) var text = UnsafeBufferPointer<UInt8>(start: nil, count: 0)

    private let reader: OpaquePointer
    private let errors = XMLErrorCollector()
    /// Keeps the descriptor libxml2 reads from open as long as the reader.
    private let file: OpenFile?
    /// The copy of an in-memory document libxml2 reads from.
    private let buffer: UnsafeMutableRawBufferPointer?
    private var tracker = SourcePositionTracker()
    /// Where the prolog scan found the root element, used once.
    private var rootPosition: (line: Int, column: Int)?
    private var nodeLine = 1
    private var nodeColumn = 1

    /// Options for `xmlReaderForFd` and `xmlReaderForMemory`; see the type's
    /// documentation for why these and no others.
    private static let options = Int32(
        XML_PARSE_NONET.rawValue | XML_PARSE_NOCDATA.rawValue
            | XML_PARSE_COMPACT.rawValue | XML_PARSE_BIG_LINES.rawValue)

    /// Prepares libxml2 once per process, before the first reader:
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

    /// Reads the regular file open as `file` (`xmlReaderForFd`).
    ///
    /// - Parameters:
    ///   - rootPosition: where the root element starts, when the prolog
    ///     scan found it.
    /// - Throws: ``PropertyListError/Kind/unreadable`` if libxml2 cannot
    ///   create a reader.
    convenience init(
        file: OpenFile, path: String, displayName: String, rootPosition: (line: Int, column: Int)?
    ) throws(PropertyListError) {
        _ = Self.libraryPrepared
        guard let reader = xmlReaderForFd(file.descriptor, path, nil, Self.options) else {
            throw PropertyListError(.unreadable, "libxml2 cannot read the file", file: displayName)
        }
        self.init(
            reader: reader, file: file, buffer: nil, displayName: displayName, rootPosition: rootPosition)
    }

    /// Reads a copy of `data` (`xmlReaderForMemory`).
    ///
    /// - Throws: ``PropertyListError/Kind/unreadable`` if the document is
    ///   larger than libxml2's `int` length or libxml2 cannot create a
    ///   reader.
    convenience init(
        copying data: Data, displayName: String, rootPosition: (line: Int, column: Int)?
    ) throws(PropertyListError) {
        _ = Self.libraryPrepared
        guard data.count <= Int(Int32.max) else {
            throw PropertyListError(
                .unreadable, "in-memory documents are limited to 2 GiB", file: displayName)
        }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(data.count, 1), alignment: 1)
        data.copyBytes(to: buffer)
        let start = buffer.baseAddress?.assumingMemoryBound(to: CChar.self)
        guard let reader = xmlReaderForMemory(start, Int32(data.count), nil, nil, Self.options) else {
            buffer.deallocate()
            throw PropertyListError(.unreadable, "libxml2 cannot read the document", file: displayName)
        }
        self.init(
            reader: reader, file: nil, buffer: buffer, displayName: displayName,
            rootPosition: rootPosition)
    }

    private init(
        reader: OpaquePointer, file: OpenFile?, buffer: UnsafeMutableRawBufferPointer?,
        displayName: String, rootPosition: (line: Int, column: Int)?
    ) {
        self.reader = reader
        self.file = file
        self.buffer = buffer
        self.displayName = displayName
        fileName = SourceLocation.FileName(displayName)
        self.rootPosition = rootPosition
        // `xmlTextReaderSetStructuredErrorHandler`: libxml2 reports errors
        // to the collector instead of printing them. The collector lives as
        // long as `self`, which outlives the C reader: an unretained
        // reference is enough, and the closure captures nothing, as a C
        // function pointer must.
        xmlTextReaderSetStructuredErrorHandler(
            reader,
            { context, error in
                guard let context, let error else { return }
                Unmanaged<XMLErrorCollector>.fromOpaque(context).takeUnretainedValue().record(error)
            },
            Unmanaged.passUnretained(errors).toOpaque())
    }

    /// Frees the C reader (`xmlFreeTextReader`), then the memory it read
    /// from; the file, if any, is closed when `file` is released.
    deinit {
        xmlFreeTextReader(reader)
        buffer?.deallocate()
    }

    /// Where the current node starts.
    var location: SourceLocation {
        SourceLocation(fileName: fileName, line: nodeLine, column: nodeColumn)
    }

    /// The current node's qualified name, for messages
    /// (`xmlTextReaderConstName`).
    var currentName: String {
        xmlTextReaderConstName(reader).map { String(cString: $0) } ?? "?"
    }

    /// Whether ``text`` holds nothing but XML whitespace.
    var textIsWhitespace: Bool {
        text.allSatisfy(ScalarDecoder.isWhitespace)
    }

    /// Bytes of input libxml2 has consumed so far
    /// (`xmlTextReaderByteConsumed`): the parser runs a chunk ahead of the
    /// nodes returned, which is precise enough for progress.
    var bytesConsumed: Int {
        Int(xmlTextReaderByteConsumed(reader))
    }

    /// Moves to the next node (`xmlTextReaderRead`).
    ///
    /// - Returns: the node's kind, or `nil` at the end of the document.
    /// - Throws: libxml2's first error, as a ``PropertyListError``
    ///   (``PropertyListError/Kind/malformedXML`` unless it is about
    ///   entities or depth).
    func read() throws(PropertyListError) -> XMLNodeKind? {
        text = UnsafeBufferPointer(start: nil, count: 0)
        let status = xmlTextReaderRead(reader)
        if let error = errors.first {
            throw propertyListError(from: error)
        }
        guard status == 1 else {
            if status == 0 {
                return nil
            }
            throw PropertyListError(
                .malformedXML, "malformed XML: libxml2 stopped reading",
                at: SourceLocation(file: displayName, line: tracker.line, column: tracker.column))
        }
        // `xmlTextReaderCurrentNode` neither copies nor preserves the node
        // (unlike `xmlTextReaderCurrentDoc`, which would keep the whole
        // tree in memory); the node is only used until the next read.
        guard let node = xmlTextReaderCurrentNode(reader) else {
            return .other
        }

        switch node.pointee.type {
        case XML_ELEMENT_NODE:
            return element(node)
        case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
            let isCDATA = node.pointee.type == XML_CDATA_SECTION_NODE
            text = Self.bytes(node.pointee.content)
            setPosition(
                tracker.text(
                    text, recordedLine: Self.textLine(node),
                    prefixWidth: isCDATA ? 9 : 0, suffixWidth: isCDATA ? 3 : 0))
            return .text
        case XML_COMMENT_NODE:
            text = Self.bytes(node.pointee.content)
            setPosition(
                tracker.text(
                    text, recordedLine: Self.textLine(node), prefixWidth: 4, suffixWidth: 3))
            return .comment
        case XML_PI_NODE:
            text = Self.bytes(node.pointee.content)
            let target = Self.characterCount(node.pointee.name)
            setPosition(
                tracker.text(
                    text, recordedLine: Self.textLine(node),
                    prefixWidth: 2 + target + (text.isEmpty ? 0 : 1), suffixWidth: 2))
            return .processingInstruction
        case XML_DTD_NODE:
            return .documentType(hasInternalSubset: Self.declaresAnything(node))
        case XML_ENTITY_REF_NODE:
            setPosition((tracker.line, tracker.column))
            return .entityReference
        default:
            return .other
        }
    }

    // MARK: - Nodes

    /// A start or end tag (`xmlTextReaderNodeType` tells which: libxml2
    /// returns the same node for both).
    private func element(_ node: UnsafeMutablePointer<xmlNode>) -> XMLNodeKind {
        let name: ElementName
        var nameWidth: Int
        if let cName = node.pointee.name {
            name = ElementName(cString: cName)
            nameWidth = name == .other ? Self.characterCount(cName) : name.byteCount
        } else {
            name = .other
            nameWidth = 0
        }
        if let prefix = node.pointee.ns?.pointee.prefix {
            // `<foo:string>` is not `<string>`: Apple's parser does not
            // know namespaces either.
            return element(
                node, name: .other, nameWidth: nameWidth + 1 + Self.characterCount(prefix))
        }
        return element(node, name: name, nameWidth: nameWidth)
    }

    private func element(
        _ node: UnsafeMutablePointer<xmlNode>, name: ElementName, nameWidth: Int
    ) -> XMLNodeKind {
        if xmlTextReaderNodeType(reader) == Int32(XML_READER_TYPE_END_ELEMENT.rawValue) {
            setPosition(tracker.endTag(width: 3 + nameWidth))
            return .endElement(name)
        }
        let isEmpty = xmlTextReaderIsEmptyElement(reader) == 1
        if let root = rootPosition {
            tracker.moveTo(line: root.line, column: root.column)
            rootPosition = nil
        }
        var width = nameWidth + (isEmpty ? 3 : 2)
        if node.pointee.properties != nil || node.pointee.nsDef != nil {
            width += Self.attributesWidth(node)
        }
        let line = Int(node.pointee.line)
        setPosition(tracker.startTag(recordedLine: line > 0 && line < 65_535 ? line : nil, width: width))
        return .startElement(name, isEmpty: isEmpty)
    }

    private func setPosition(_ position: (line: Int, column: Int)) {
        nodeLine = position.line
        nodeColumn = position.column
    }

    /// The line libxml2 recorded for a text, comment or PI node: in the
    /// node up to 65,534, then (text only, with `XML_PARSE_BIG_LINES`) in
    /// its `psvi` field, as `xmlGetLineNo` reads it.
    private static func textLine(_ node: UnsafeMutablePointer<xmlNode>) -> Int? {
        let line = Int(node.pointee.line)
        if line > 0 && line < 65_535 {
            return line
        }
        let bigLine = Int(bitPattern: node.pointee.psvi)
        return line == 65_535 && bigLine > 0 ? bigLine : nil
    }

    /// Whether a DTD node declares anything: entities, parameter
    /// entities, elements, attributes, notations, or any child at all
    /// (an internal subset's declarations are the DTD's children).
    private static func declaresAnything(_ node: UnsafeMutablePointer<xmlNode>) -> Bool {
        let dtd = UnsafeMutablePointer<xmlDtd>(OpaquePointer(node)).pointee
        return dtd.children != nil || dtd.entities != nil || dtd.pentities != nil
            || dtd.elements != nil || dtd.attributes != nil || dtd.notations != nil
    }

    /// The width of ` name="value"` for each attribute and namespace
    /// declaration, assuming one space and double quotes (`<plist
    /// version="1.0">`); only column estimates depend on it.
    private static func attributesWidth(_ node: UnsafeMutablePointer<xmlNode>) -> Int {
        var width = 0
        var attribute = node.pointee.properties
        while let current = attribute {
            width += 4 + characterCount(current.pointee.name)
            if let prefix = current.pointee.ns?.pointee.prefix {
                width += 1 + characterCount(prefix)
            }
            if let value = current.pointee.children?.pointee.content {
                width += characterCount(value)
            }
            attribute = current.pointee.next
        }
        var namespace = node.pointee.nsDef
        while let current = namespace {
            width += 9 + characterCount(current.pointee.href)  // ` xmlns=""`
            if let prefix = current.pointee.prefix {
                width += 1 + characterCount(prefix)
            }
            namespace = current.pointee.next
        }
        return width
    }

    private static func bytes(_ string: UnsafePointer<UInt8>?) -> UnsafeBufferPointer<UInt8> {
        guard let string else {
            return UnsafeBufferPointer(start: nil, count: 0)
        }
        return UnsafeBufferPointer(
            start: string, count: strlen(UnsafeRawPointer(string).assumingMemoryBound(to: CChar.self)))
    }

    /// Characters (not bytes) in a NUL-terminated UTF-8 string.
    private static func characterCount(_ string: UnsafePointer<UInt8>?) -> Int {
        bytes(string).reduce(0) { count, byte in byte & 0xC0 == 0x80 ? count : count + 1 }
    }

    // MARK: - Errors

    /// Turns libxml2's error into ours: entity problems are refusals,
    /// its depth limit is ours, everything else is malformed XML.
    private func propertyListError(from error: XMLErrorCollector.Collected) -> PropertyListError {
        let kind: PropertyListError.Kind
        let message: String
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
        case _ where error.line > 0 && error.line >= (lastLine() ?? .max):
            // An error on the last line is almost always a file cut short;
            // libxml2 often words it "Extra content at the end of the
            // document", which sends people looking for the wrong thing.
            kind = .malformedXML
            let detail =
                error.code == Int32(XML_ERR_DOCUMENT_END.rawValue) ? "" : " (libxml2: \(error.message))"
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
        let location = SourceLocation(file: displayName, line: error.line, column: max(error.column, 1))
        return PropertyListError(kind, message, at: location)
    }
}

extension XMLTextReader {
    /// The number of the input's last line that holds anything, counted
    /// only when an error needs it (a file is read again through its
    /// descriptor).
    fileprivate func lastLine() -> Int? {
        var newlines = 0
        var last: UInt8 = 0
        func scan(_ bytes: UnsafeRawBufferPointer) {
            for byte in bytes where byte == 0x0A { newlines += 1 }
            if let final = bytes.last { last = final }
        }
        if let buffer {
            scan(UnsafeRawBufferPointer(buffer))
        } else if let file {
            var offset: off_t = 0
            let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 1)
            defer { chunk.deallocate() }
            while true {
                let read = pread(file.descriptor, chunk.baseAddress, chunk.count, offset)
                if read < 0 && errno == EINTR { continue }
                guard read > 0 else { break }
                scan(UnsafeRawBufferPointer(rebasing: chunk[..<read]))
                offset += off_t(read)
            }
        } else {
            return nil
        }
        // A final newline ends the last line rather than starting one.
        return 1 + newlines - (last == 0x0A ? 1 : 0)
    }
}

@available(*, unavailable, message: "an XML reader belongs to one thread")
extension XMLTextReader: Sendable {}

/// Receives libxml2's structured errors (`xmlStructuredErrorFunc`) and
/// keeps the first one; warnings are ignored.
private final class XMLErrorCollector {
    /// The parts of an `xmlError` the reader reports, copied out of
    /// libxml2's memory.
    struct Collected {
        var code: Int32
        var message: String
        var line: Int
        /// libxml2's column (`int2`), 0 when unknown.
        var column: Int
        /// The error's first string argument (`str1`): the entity name for
        /// entity errors.
        var detail: String?
    }

    private(set) var first: Collected?

    func record(_ error: UnsafeMutablePointer<xmlError>) {
        guard first == nil, error.pointee.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
        let message = error.pointee.message.map { String(cString: $0) } ?? "unknown error"
        first = Collected(
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
    }
}
