/// What a terminal would obey instead of show, written as escapes: the one
/// escaper for text from the catalog in a table, a line of output or a
/// message, so that a value cannot break a line or a table, recolour the
/// terminal, or reorder what follows it.
///
/// ```swift
/// ControlCharacters.escaped("a\u{1B}[31mb")   // a\e[31mb
/// ControlCharacters.escaped("two\nlines")     // two\nlines, on one line
/// ControlCharacters.escaped("\u{202E}txt")    // \u{202E}txt
/// ```
///
/// `\n`, `\r`, `\t`, `\e` (ESC), `\x07` (other C0 and C1 controls, DEL),
/// and `\u{202E}` (bidirectional controls: embeddings, overrides, isolates
/// and marks). Other text is unchanged (JSON output does not use this: it
/// stays exact).
public enum ControlCharacters {
    /// `text` with every control character written as its escape.
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var result = ""
        for scalar in text.unicodeScalars { append(scalar, to: &result) }
        return result
    }

    /// Appends `scalar` to `text`, as its escape when it needs one: for
    /// a caller that stops part way (``AttributeValue/abbreviated(_:)``).
    public static func append(_ scalar: Unicode.Scalar, to text: inout String) {
        switch scalar {
        case "\n": text += "\\n"
        case "\r": text += "\\r"
        case "\t": text += "\\t"
        case "\u{1B}": text += "\\e"
        case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value):
            let hex = String(scalar.value, radix: 16)
            text += "\\x" + (hex.count == 1 ? "0" + hex : hex)
        case _ where isBidiControl(scalar):
            text += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
        default:
            text.unicodeScalars.append(scalar)
        }
    }

    /// Controls, DEL and C1, and the bidirectional controls.
    public static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || isBidiControl(scalar)
    }

    /// U+061C, U+200E–U+200F, U+202A–U+202E, U+2066–U+2069.
    static func isBidiControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
