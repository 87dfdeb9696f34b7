/// Looks at a document's first bytes before libxml2 does.
///
/// libxml2 parses the whole internal DTD subset, and the content that
/// follows in the same chunk, before the reader reports the `DOCTYPE` node.
/// Refusing an internal subset here, on bytes, means no entity declaration
/// ever reaches the parser. The scan also finds where the root element
/// starts, which libxml2 does not say (it reports no whitespace outside the
/// root element, so the reader cannot count columns there).
///
/// The scan understands ASCII-compatible encodings (UTF-8, ISO-8859-x).
/// On anything else, or a prolog longer than the bytes given, it answers
/// ``Verdict/undetermined`` and the reader relies on its second line of
/// defence: inspecting the DTD node libxml2 reports.
enum PrologScanner {
    enum Verdict: Equatable {
        /// `<!DOCTYPE name [ ...`: the `<!DOCTYPE` is at this line and column.
        case internalSubset(line: Int, column: Int)
        /// The prolog is harmless and the root element's `<` is here.
        case rootElement(line: Int, column: Int)
        /// The bytes end inside the prolog, or are not ASCII-compatible.
        case undetermined
    }

    /// Scans the prolog: XML declaration, comments, processing
    /// instructions, whitespace and at most one `DOCTYPE`.
    static func scan(_ bytes: UnsafeRawBufferPointer) -> Verdict {
        var scanner = Cursor(bytes: bytes)
        // A UTF-8 byte-order mark.
        if scanner.hasPrefix([0xEF, 0xBB, 0xBF]) {
            scanner.advance(by: 3, countingColumns: false)
        }
        while true {
            scanner.skipWhitespace()
            guard !scanner.isAtEnd else { return .undetermined }
            guard scanner.current == UInt8(ascii: "<") else { return .undetermined }

            if scanner.hasPrefix(Array("<?".utf8)) {
                guard scanner.skip(through: Array("?>".utf8)) else { return .undetermined }
            } else if scanner.hasPrefix(Array("<!--".utf8)) {
                guard scanner.skip(through: Array("-->".utf8)) else { return .undetermined }
            } else if scanner.hasPrefix(Array("<!DOCTYPE".utf8)) {
                let line = scanner.line
                let column = scanner.column
                switch scanner.skipDoctype() {
                case .internalSubset: return .internalSubset(line: line, column: column)
                case .end: continue
                case .truncated: return .undetermined
                }
            } else {
                // The root element, or something libxml2 will reject.
                let next = scanner.peek(offset: 1)
                guard let next, next >= 0x41 || next == UInt8(ascii: "_") || next == UInt8(ascii: ":")
                else { return .undetermined }
                return .rootElement(line: scanner.line, column: scanner.column)
            }
        }
    }

    /// A position in the bytes with its line and column (columns count
    /// characters: UTF-8 continuation bytes do not advance them).
    private struct Cursor {
        let bytes: UnsafeRawBufferPointer
        var offset = 0
        var line = 1
        var column = 1

        enum DoctypeEnd {
            case internalSubset, end, truncated
        }

        var isAtEnd: Bool { offset >= bytes.count }
        var current: UInt8 { bytes[offset] }

        func peek(offset delta: Int) -> UInt8? {
            offset + delta < bytes.count ? bytes[offset + delta] : nil
        }

        func hasPrefix(_ prefix: [UInt8]) -> Bool {
            guard bytes.count - offset >= prefix.count else { return false }
            for (index, byte) in prefix.enumerated() where bytes[offset + index] != byte {
                return false
            }
            return true
        }

        mutating func advance(by count: Int = 1, countingColumns: Bool = true) {
            for _ in 0..<count where offset < bytes.count {
                let byte = bytes[offset]
                offset += 1
                if byte == 0x0A {
                    line += 1
                    column = 1
                } else if countingColumns, byte & 0xC0 != 0x80 {
                    column += 1
                }
            }
        }

        mutating func skipWhitespace() {
            while !isAtEnd, ScalarDecoder.isWhitespace(current) {
                advance()
            }
        }

        /// Moves past the next occurrence of `terminator`; false if the
        /// bytes end first.
        mutating func skip(through terminator: [UInt8]) -> Bool {
            while !isAtEnd {
                if hasPrefix(terminator) {
                    advance(by: terminator.count)
                    return true
                }
                advance()
            }
            return false
        }

        /// Moves past `<!DOCTYPE ... >`, stopping at a `[` outside quoted
        /// public and system identifiers.
        mutating func skipDoctype() -> DoctypeEnd {
            var quote: UInt8?
            while !isAtEnd {
                let byte = current
                if let open = quote {
                    if byte == open { quote = nil }
                } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                    quote = byte
                } else if byte == UInt8(ascii: "[") {
                    return .internalSubset
                } else if byte == UInt8(ascii: ">") {
                    advance()
                    return .end
                }
                advance()
            }
            return .truncated
        }
    }
}
