import Foundation
import Testing

@testable import BowTiesKit

/// The importer skips `URL(string:)` for links of the plain shape: every
/// text that shape accepts must be one Foundation accepts.
@Suite("The plain-link shortcut never accepts what Foundation refuses")
struct PlainURITests {
    @Test("links of the usual shape are plain, and Foundation agrees")
    func plain() {
        let links = [
            "https://example.com/ties/knitted-red-0",
            "http://a", "http://a/", "ftp://files.example.org:21/a/b.txt",
            "https://example.com:65535/", "https://example.com:0",
            "https://example.com/search?q=bow+tie&page=2#top",
            "https://example.com/%41%c3%a9/x", "HTTPS://EXAMPLE.COM/A",
            "x-app+v1.2://host-1.example/a:b@c/d;e=f!$'()*,~_",
            "https://example.com?x", "https://example.com#frag", "https://a..b/", "https://-a-/",
        ]
        for link in links {
            #expect(PlainURI.matches(link), "\(link)")
            #expect(URL(string: link) != nil, "\(link)")
        }
    }

    @Test("anything else is left to Foundation")
    func leftToFoundation() {
        let links = [
            "", "https:", "https:/a", "https://", "https:///path", "1http://a", "ht tp://a",
            "https://example.com:65536/", "https://example.com:123456", "https://example.com:/",
            "https://user@example.com/", "https://[::1]/", "https://example.com/a b",
            "https://example.com/é", "https://example.com/%", "https://example.com/%4",
            "https://example.com/%zz", "https://example.com/a#b#c", "https://example.com/<x>",
            "https://exa_mple.com/", "mailto:someone@example.com", "https://example.com\\a",
            "https://example.com/\"", "https://example.com/{}", "https://example.com/|",
        ]
        for link in links {
            #expect(!PlainURI.matches(link), "\(link)")
        }
    }

    @Test("random texts over the characters links use: plain implies Foundation accepts")
    func random() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("abcXYZ019-._~!$&'()*+,;=:@/?#%AFaf[] é")
        let prefixes = ["https://", "http://h", "a+b://host.example:8", "x://", "https://example.com"]
        var plain = 0
        for _ in 0..<20_000 {
            let length = Int.random(in: 0...24, using: &generator)
            let tail = String((0..<length).map { _ in alphabet.randomElement(using: &generator) ?? "a" })
            let link = (prefixes.randomElement(using: &generator) ?? "") + tail
            guard PlainURI.matches(link) else { continue }
            plain += 1
            #expect(URL(string: link) != nil, "\(link)")
        }
        #expect(plain > 1_000, "the generator reached the plain shape \(plain) times")
    }
}
