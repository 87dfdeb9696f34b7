import Foundation
import Testing

@testable import BowTiesKit

@Suite("HTML report, figures and escaping")
struct ReportTests {
    private static let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data(repeating: 7, count: 92)

    private func tie(_ key: String, worn: Int32, lastWorn: Date? = nil, favourite: Bool = false, photoBytes: Int? = nil)
        -> BowTie
    {
        BowTie(
            name: "Tie \(key)", searchKey: key, rating: 2.5, timesWorn: worn, lastWorn: lastWorn,
            isFavorite: favourite,
            photo: photoBytes.map { PhotoInfo(byteCount: $0, sha256: "sha-\(key)", storage: .inline) })
    }

    @Test func escapingForTextAndForJSONInsideAScript() {
        #expect(
            HTMLText.escaped(#"<a href="x">Tom & 'Jerry'</a>"#)
                == "&lt;a href=&quot;x&quot;&gt;Tom &amp; &#39;Jerry&#39;&lt;/a&gt;")
        #expect(HTMLText.escaped("plain, Crêpe 蝶") == "plain, Crêpe 蝶")
        #expect(
            HTMLText.jsonString("</script><!--\u{2028}\"\\\n\u{1}")
                == #""\u003C/script\u003E\u003C!--\u2028\"\\\n\u0001""#)
    }

    @Test func figuresCountEveryTieAndPhotosOnce() {
        let now = Date(timeIntervalSince1970: 2_000_000_000)
        let ties = [
            tie("A", worn: 5, lastWorn: now.addingTimeInterval(-86_400), favourite: true, photoBytes: 100),
            tie("B", worn: 9, lastWorn: now.addingTimeInterval(-100 * 86_400), photoBytes: 100),
            tie("C", worn: 0),
            tie("D", worn: 9, lastWorn: now.addingTimeInterval(-5 * 86_400)),
            tie("E", worn: 2, lastWorn: now.addingTimeInterval(-95 * 86_400)),
        ]
        var shared = ties
        shared[1].photo = ties[0].photo  // A and B share one photo
        let summary = CatalogSummary(shared, now: now)
        #expect(summary.ties == 5)
        #expect(summary.favourites == 1)
        #expect(summary.mostWorn?.tie.searchKey == "B" && summary.mostWorn?.others == 1)
        #expect(summary.leastWorn?.tie.searchKey == "E" && summary.leastWorn?.timesWorn == 2)
        #expect(summary.neverWorn == 1)
        #expect(summary.notWornRecently == 3)  // B, C (never), E
        #expect(summary.withPhoto == 2 && summary.photoBytes == 100)
    }

    @Test func photosOverTheLimitOrPastTheBudgetAreLeftOutAndSaySo() throws {
        let ties = [
            tie("A", worn: 1, photoBytes: 100), tie("B", worn: 1, photoBytes: 100),
            tie("C", worn: 1, photoBytes: 5000), tie("D", worn: 1, photoBytes: 100),
        ]
        var reads: [String] = []
        let report = HTMLReport(
            ties: ties, limits: .init(cards: 10, photoBytes: 1000, photoBudget: 150)
        ) { tie in
            reads.append(tie.searchKey ?? "")
            return .success(Self.png)
        }
        let (html, outcome) = try report.render()
        #expect(outcome.photosEmbedded == 1 && outcome.photosLeftOut == 3)
        #expect(reads == ["A"], "a photo left out is never read")
        #expect(html.contains("Photo not embedded: 5 kB is over the report&#39;s 1 kB limit for one photo"))
        #expect(html.components(separatedBy: "for photos is spent").count - 1 == 2)
    }

    @Test func theGalleryStopsAtItsLimitTheTableDoesNot() throws {
        let ties = (0..<30).map { tie("K\($0)", worn: Int32($0)) }
        let (html, outcome) = try HTMLReport(ties: ties, limits: .init(cards: 5)) { _ in nil }.render()
        #expect(outcome.cards == 5)
        #expect(html.components(separatedBy: "<article class=\"card\">").count - 1 == 5)
        #expect(html.contains("The gallery shows the first 5 of 30 ties"))
        #expect(html.contains(#"["K29","Tie K29",2.5,29,"",0,"",""]"#))
    }

    @Test func thePolicyNamesTheStyleAndScriptByHash() throws {
        let (html, _) = try HTMLReport(ties: [tie("A", worn: 1)]) { _ in nil }.render()
        let policy = try #require(html.range(of: #"content="default-src 'none'[^"]*""#, options: .regularExpression))
        #expect(html[policy].contains("script-src 'sha256-"))
        #expect(html[policy].contains("style-src 'sha256-"))
        #expect(!html[policy].contains("unsafe-inline"))
    }

    @Test func ratingsHaveAtMostTwoDecimals() {
        #expect(HTMLReport.rating(3.333333) == "3.33")
        #expect(HTMLReport.rating(4) == "4")
        #expect(HTMLReport.rating(.nan) == "0")
        #expect(HTMLReport.stars(3.5).components(separatedBy: "class=\"full\"").count - 1 == 3)
        #expect(HTMLReport.stars(3.5).contains("class=\"half\""))
    }

    @Test func editDistanceSuggestsSlipsOnly() {
        #expect(EditDistance.between("lsit", "list") == 1)
        #expect(EditDistance.between("kitten", "sitting") == 3)
        #expect(EditDistance.suggestion(for: "Rating", among: ["name", "rating"]) == "rating")
        #expect(EditDistance.suggestion(for: "timesworn", among: ["timesWorn", "lastWorn"]) == "timesWorn")
        #expect(EditDistance.suggestion(for: "fabric", among: ["name", "rating", "url"]) == nil)
        #expect(EditDistance.suggestion(for: "list", among: ["list", "lst"]) == nil)
    }
}
