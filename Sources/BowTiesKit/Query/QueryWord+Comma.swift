extension QueryWord {
    /// Whether `text` is the `,` between groups of terms, blanks around it
    /// allowed: what `text.trimmingCharacters(in: .whitespaces) == ","`
    /// answers, without Foundation's `CharacterSet`, whose first use in a
    /// process costs 0.86 M instructions (5 % of `bowties count`).
    ///
    /// The blanks are those of `CharacterSet.whitespaces` as
    /// CoreFoundation defines it (`kCFCharacterSetWhitespace`): tab, space,
    /// no-break space, U+1680, U+2000 to U+200B, U+202F, U+205F and U+3000.
    /// `QueryTests` compares the two on every one of them.
    public static func isLoneComma(_ text: String) -> Bool {
        var commas = 0
        for scalar in text.unicodeScalars {
            if scalar == "," {
                commas += 1
            } else if !isBlank(scalar) {
                return false
            }
        }
        // Blanks only at the ends: one comma and nothing else but blanks.
        return commas == 1
    }

    /// A character of `CharacterSet.whitespaces`.
    static func isBlank(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09, 0x20, 0xA0, 0x1680, 0x2000...0x200B, 0x202F, 0x205F, 0x3000: true
        default: false
        }
    }
}
