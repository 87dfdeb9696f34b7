/// What makes a command-line word query syntax rather than a plain word.
///
/// Commands that take `KEY|QUERY` (`delete`, `wear`, `set`, `tag`,
/// `list`, …) read each argument that is a stored search key as that
/// tie, and the rest as query terms. A key is therefore only a key when
/// it cannot also be read as syntax: `rating:4` is a query term, so it
/// cannot be a search key. The model declares that rule on `searchKey`
/// (``AttributeDescription/isQueryWord``); this type says what the
/// readers of arguments treat specially.
///
/// ```swift
/// QueryWord.syntax(in: "rating:4")   // .fieldValue
/// QueryWord.syntax(in: "R")          // nil: a plain word
/// ```
public enum QueryWord {
    /// One way a word reads as something other than itself.
    public enum Syntax: Sendable, Equatable {
        /// A `:` (`rating:4`, `sort:name`, `is:favorite`).
        case fieldValue
        /// A `..` (`3..5`).
        case range
        /// A leading `^`.
        case negation
        /// A lone `,` (spaces around it allowed).
        case separator
        /// A `=` (`set` reads `field=value` as a change).
        case assignment
        /// A leading `+` (`tag QUERY +NAME`) or `-` (`untag QUERY -NAME`,
        /// and options).
        case tagChange(Character)

        /// What the character is and how it would be read, for messages:
        /// `contains ":", which a query reads as field:value`.
        public var explanation: String {
            switch self {
            case .fieldValue: "contains \":\", which a query reads as field:value"
            case .range: "contains \"..\", which a query reads as a range"
            case .negation: "starts with \"^\", which a query reads as \"not\""
            case .separator: "is \",\", which a query reads as \"or\""
            case .assignment: "contains \"=\", which `set` reads as field=value"
            case .tagChange("+"): "starts with \"+\", which `tag` reads as a tag to add"
            case .tagChange(let sign): "starts with \"\(sign)\", which reads as an option or a tag to remove"
            }
        }
    }

    /// The first way `text` would be read as syntax, nil when it is a
    /// plain word. Scans bytes once: every save of a search key runs it.
    public static func syntax(in text: String) -> Syntax? {
        var text = text
        return text.withUTF8 { bytes -> Syntax? in
            guard let first = bytes.first else { return nil }
            switch first {
            case UInt8(ascii: "^"): return .negation
            case UInt8(ascii: "+"): return .tagChange("+")
            case UInt8(ascii: "-"): return .tagChange("-")
            default: break
            }
            var previous: UInt8 = 0
            var onlyComma = true
            var commas = 0
            for byte in bytes {
                switch byte {
                case UInt8(ascii: ":"): return .fieldValue
                case UInt8(ascii: "="): return .assignment
                case UInt8(ascii: ".") where previous == UInt8(ascii: "."): return .range
                case UInt8(ascii: ","): commas += 1
                case UInt8(ascii: " "), UInt8(ascii: "\t"): break
                default: onlyComma = false
                }
                previous = byte
            }
            return onlyComma && commas == 1 ? .separator : nil
        }
    }
}
