/// Text from the catalog made safe for the places a report puts it.
///
/// Every name, key, tag and date the report shows goes through one of
/// these; nothing from the catalog reaches the page unescaped, so a name
/// such as `<script>alert(1)</script>` shows as text and runs nothing.
enum HTMLText {
    /// `text` for an element's content or a quoted attribute value:
    /// `& < > " '` as character references.
    ///
    /// ```swift
    /// HTMLText.escaped("<b>Tom & Jerry's</b>")  // &lt;b&gt;Tom &amp; Jerry&#39;s&lt;/b&gt;
    /// ```
    static func escaped(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 || $0 == 0x27 })
        else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 16)
        for character in text.unicodeScalars {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.unicodeScalars.append(character)
            }
        }
        return result
    }

    /// `text` as a JSON string literal that may sit inside a `<script>`
    /// element: besides JSON's own escapes, `<`, `>` and `&` are written
    /// `\u003C`…, so the text can never close the element (`</script>`)
    /// or open a comment; U+2028 and U+2029 are escaped for old parsers.
    static func jsonString(_ text: String) -> String {
        var result = "\""
        result.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "<", ">", "&", "\u{2028}", "\u{2029}":
                result += unicodeEscape(scalar.value)
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                result += unicodeEscape(scalar.value)
            default:
                result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    private static func unicodeEscape(_ value: UInt32) -> String {
        let hex = String(value, radix: 16, uppercase: true)
        return "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
