/// Follows the reader through the document to give each node the line and
/// column where it starts.
///
/// libxml2's reader cannot say this by itself:
///
/// - The parser runs ahead of the reader by a chunk of input, so
///   `xmlTextReaderGetParserLineNumber` and `...ColumnNumber` describe
///   some later node.
/// - Nodes record the line where the parser created them (for an element,
///   the end of its start tag; for text, the end of the text), but in an
///   `unsigned short`: from line 65,535 on, elements all say 65,535. With
///   `XML_PARSE_BIG_LINES`, text nodes keep the real line elsewhere.
/// - Nodes record no column at all.
///
/// So the tracker keeps a running position: lines come from the nodes
/// whenever they know them, and from the last text seen otherwise;
/// columns are counted from the last line break in text (the indentation
/// before a tag) plus the widths of the tags since. In a pretty-printed
/// property list every key and value starts a line, and both numbers are
/// exact; after entity references on the same line, columns are estimates.
struct SourcePositionTracker {
    /// Line of the character after the last node.
    private(set) var line = 1
    /// Column of the character after the last node.
    private(set) var column = 1

    /// Positions the tracker at a start tag and moves past it; returns
    /// where the tag starts.
    ///
    /// - Parameters:
    ///   - recordedLine: the line libxml2 stored in the node, when below
    ///     its 65,535 cap.
    ///   - width: the tag's width in characters, `<` to `>`.
    mutating func startTag(recordedLine: Int?, width: Int) -> (line: Int, column: Int) {
        if let recordedLine, recordedLine != line {
            // The node knows better (character references such as `&#10;`
            // made the running count drift), or the tag spans lines; either
            // way the running column means nothing on this line.
            line = recordedLine
            column = 1
        }
        let start = (line, column)
        column += width
        return start
    }

    /// Positions the tracker at an element the prolog scan located (the
    /// root element: libxml2 reports no whitespace before it).
    mutating func moveTo(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// Moves past an end tag of `width` characters; returns where it
    /// starts.
    mutating func endTag(width: Int) -> (line: Int, column: Int) {
        let start = (line, column)
        column += width
        return start
    }

    /// Moves past text (or a comment or processing instruction, whose
    /// delimiters count in `prefixWidth` and `suffixWidth`); returns where
    /// it starts.
    ///
    /// - Parameters:
    ///   - recordedLine: the line libxml2 stored for the node: where the
    ///     text ends (or where its first piece ended, for text libxml2
    ///     delivered in pieces).
    mutating func text(
        _ bytes: UnsafeBufferPointer<UInt8>, recordedLine: Int?,
        prefixWidth: Int = 0, suffixWidth: Int = 0
    ) -> (line: Int, column: Int) {
        let start = (line, column)
        var newlines = 0
        var characters = 0
        var position = 0
        if let base = bytes.baseAddress {
            // Eight bytes at a time while they are ASCII and hold no line
            // feed (most of a property list's text): each is a character.
            let raw = UnsafeRawPointer(base)
            while position + 8 <= bytes.count {
                let word = raw.loadUnaligned(fromByteOffset: position, as: UInt64.self)
                let feeds = word ^ 0x0A0A_0A0A_0A0A_0A0A
                let hasFeed = (feeds &- 0x0101_0101_0101_0101) & ~feeds & 0x8080_8080_8080_8080
                guard word & 0x8080_8080_8080_8080 == 0, hasFeed == 0 else { break }
                characters += 8
                position += 8
            }
        }
        while position < bytes.count {
            let byte = bytes[position]
            if byte == 0x0A {
                newlines += 1
                characters = 0
            } else if byte & 0xC0 != 0x80 {
                characters += 1
            }
            position += 1
        }
        if newlines == 0 {
            column += prefixWidth + characters + suffixWidth
        } else {
            column = 1 + characters + suffixWidth
        }
        line = max(recordedLine ?? 0, line + newlines)
        return start
    }
}
