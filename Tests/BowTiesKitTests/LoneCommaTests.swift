import Foundation
import Testing

@testable import BowTiesKit

/// `QueryWord.isLoneComma` must answer as Foundation's trimming did.
@Suite("The comma between groups of query terms")
struct LoneCommaTests {
    @Test("the blanks are CharacterSet.whitespaces, every scalar of Unicode")
    func blanksAreFoundationsWhitespace() {
        var differing: [UInt32] = []
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            if QueryWord.isBlank(scalar) != CharacterSet.whitespaces.contains(scalar) { differing.append(value) }
        }
        #expect(differing.isEmpty, "\(differing.map { String($0, radix: 16) })")
    }

    @Test("a lone comma is what trimming whitespace leaves as \",\"")
    func sameAsTrimming() {
        let words = [
            ",", " , ", "\t,\u{A0}", "\u{3000},\u{200B}", ",,", ", ,", "", " ", "a,", ",a", "a", "\n,", ",\n",
            "\u{2028},", "\u{FEFF},", "，", ",\u{301}", "\u{1680}\u{205F},\u{202F}",
        ]
        for word in words {
            #expect(
                QueryWord.isLoneComma(word) == (word.trimmingCharacters(in: .whitespaces) == ","),
                "\(word.unicodeScalars.map { String($0.value, radix: 16) })")
        }
    }
}
