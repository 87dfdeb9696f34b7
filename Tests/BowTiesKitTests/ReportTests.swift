import Foundation
import Testing

@testable import BowTiesKit

@Suite("HTML report, figures and escaping")
struct ReportTests {
    /// A GIF's bytes (embedded as they are: bowties does not scale GIFs).
    private static func gif(_ count: Int) -> Data {
        Data("GIF89a".utf8) + Data(repeating: 7, count: max(0, count - 6))
    }

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
            tie("C", worn: 1, photoBytes: 5000), tie("A", worn: 1, photoBytes: 100),
            tie("B", worn: 1, photoBytes: 100), tie("D", worn: 1, photoBytes: 100),
        ]
        var reads: [String] = []
        let report = HTMLReport(
            ties: ties, limits: .init(cards: 10, photoBytes: 1000, photoBudget: 100)
        ) { tie in
            reads.append(tie.searchKey ?? "")
            return .success(Self.gif(tie.photo?.byteCount ?? 0))
        }
        let (html, outcome) = try report.render()
        #expect(outcome.photosEmbedded == 1 && outcome.photosLeftOut == 3 && outcome.photosScaled == 0)
        #expect(reads == ["C", "A"], "once the budget is spent, photos are not read")
        #expect(html.contains("Photo not embedded: 5 kB is over the report&#39;s 1 kB limit for one photo"))
        #expect(html.components(separatedBy: "for photos is spent").count - 1 == 2)
        #expect(html.contains("url(\"data:image/gif;base64,"))
    }

    /// A PNG of `width`×`height` pixels: a grainy gradient, with a
    /// transparent left half when `alpha`.
    private static func png(width: Int, height: Int, alpha: Bool = false) throws -> Data {
        let channels = alpha ? 4 : 3
        var pixels = [UInt8](repeating: 0, count: width * height * channels)
        for y in 0..<height {
            for x in 0..<width {
                let at = (y * width + x) * channels
                // Grain, as a photo has, so that a JPEG beats a PNG.
                let grain = (x &* 7919 ^ y &* 104_729) & 31
                pixels[at] = UInt8(x * 223 / width + grain)
                pixels[at + 1] = UInt8(y * 223 / height + grain)
                pixels[at + 2] = UInt8(96 + grain)
                if alpha { pixels[at + 3] = x < width / 2 ? 0 : 255 }
            }
        }
        return try PhotoScaler.encodePNG(Bitmap(width: width, height: height, channels: channels, pixels: pixels))
    }

    /// The `data:` URIs of the page's photo classes, decoded.
    private static func embeddedImages(_ html: String) -> [(type: String, data: Data)] {
        html.components(separatedBy: "url(\"data:").dropFirst().compactMap { rest in
            guard let end = rest.firstIndex(of: "\""), let comma = rest.firstIndex(of: ",") else { return nil }
            let type = String(rest[..<comma]).replacingOccurrences(of: ";base64", with: "")
            return Data(base64Encoded: String(rest[rest.index(after: comma)..<end])).map { (type, $0) }
        }
    }

    @Test func aLargePhotoIsScaledDownOnceToACardsSize() throws {
        let large = try Self.png(width: 3000, height: 2000)
        // Three ties share the photo: it is read, scaled and embedded once.
        var ties = [tie("A", worn: 1, photoBytes: large.count), tie("B", worn: 1), tie("C", worn: 1)]
        ties[1].photo = ties[0].photo
        ties[2].photo = ties[0].photo
        var reads = 0
        let (html, outcome) = try HTMLReport(ties: ties) { _ in
            reads += 1
            return .success(large)
        }.render()
        #expect(reads == 1)
        #expect(outcome.photosEmbedded == 1 && outcome.photosScaled == 1 && outcome.photosLeftOut == 0)
        let images = Self.embeddedImages(html)
        try #require(images.count == 1)
        #expect(images[0].type == "image/jpeg", "an opaque photo becomes a JPEG")
        #expect(images[0].data.count < 100_000 && outcome.photoBytesEmbedded == images[0].data.count)
        let (decoded, width, height) = try PhotoScaler.decode(images[0].data, fitting: 10_000)
        #expect(width == 480 && height == 320)
        #expect(decoded.channels == 3)
    }

    @Test func aLargeJPEGIsDecodedSmallerByLibjpegThenScaled() throws {
        var rgb = [UInt8](repeating: 200, count: 4000 * 3000 * 3)
        for index in stride(from: 0, to: rgb.count, by: 3 * 4000 + 3) { rgb[index] = 20 }
        let photo = try PhotoScaler.encodeJPEG(Bitmap(width: 4000, height: 3000, channels: 3, pixels: rgb))
        // libjpeg's DCT scaling: 1/8 still covers 480 pixels (500×375).
        let (decoded, width, height) = try PhotoScaler.decode(photo, fitting: 480)
        #expect(width == 4000 && height == 3000)
        #expect(decoded.width == 500 && decoded.height == 375)
        let (html, outcome) = try HTMLReport(ties: [tie("A", worn: 1, photoBytes: photo.count)]) { _ in
            .success(photo)
        }.render()
        #expect(outcome.photosScaled == 1)
        let images = Self.embeddedImages(html)
        try #require(images.count == 1)
        let (small, _, _) = try PhotoScaler.decode(images[0].data, fitting: 10_000)
        #expect(small.width == 480 && small.height == 360)
    }

    @Test func aPhotoWithTransparencyStaysAPNG() throws {
        let photo = try Self.png(width: 1000, height: 500, alpha: true)
        let (html, outcome) = try HTMLReport(ties: [tie("A", worn: 1, photoBytes: photo.count)]) { _ in
            .success(photo)
        }.render()
        #expect(outcome.photosScaled == 1)
        let images = Self.embeddedImages(html)
        try #require(images.count == 1)
        #expect(images[0].type == "image/png")
        let (decoded, width, height) = try PhotoScaler.decode(images[0].data, fitting: 10_000)
        #expect(width == 480 && height == 240)
        #expect(decoded.channels == 4 && !decoded.isOpaque)
        // The transparent half stays transparent; the opaque half keeps its colour.
        #expect(decoded.pixels[3] == 0 && decoded.pixels[(479) * 4 + 3] == 255)
    }

    @Test func aSmallPhotoIsEmbeddedAsStored() throws {
        let photo = try Self.png(width: 320, height: 200)
        let (html, outcome) = try HTMLReport(ties: [tie("A", worn: 1, photoBytes: photo.count)]) { _ in
            .success(photo)
        }.render()
        #expect(outcome.photosScaled == 0 && outcome.photosEmbedded == 1)
        #expect(Self.embeddedImages(html).first?.data == photo)
    }

    /// CRC-32 (ISO 3309), for a PNG chunk.
    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    @Test func damagedOrHugePhotosAreLeftOutWithAReasonNotACrash() throws {
        let good = try Self.png(width: 600, height: 400)
        let truncatedPNG = good.prefix(good.count / 2)
        let jpegGarbage = Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10]) + Data((0..<2000).map { UInt8(($0 * 37) & 0xFF) })
        let goodJPEG = try PhotoScaler.encodeJPEG(
            Bitmap(width: 800, height: 600, channels: 3, pixels: [UInt8](repeating: 90, count: 800 * 600 * 3)))
        var brokenJPEG = goodJPEG
        for index in stride(from: 200, to: brokenJPEG.count - 2, by: 7) { brokenJPEG[index] = 0xFF }
        // A valid header (CRCs right) claiming 30000×30000 pixels, and the
        // start of its data.
        func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let typed = Array(type.utf8) + body
            let crc = Self.crc32(typed)
            return [0, 0, UInt8(body.count >> 8), UInt8(body.count & 0xFF)] + typed
                + [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
        }
        let huge = Data(
            [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
                + chunk("IHDR", [0, 0, 0x75, 0x30, 0, 0, 0x75, 0x30, 8, 2, 0, 0, 0]) + chunk("IDAT", [0x78, 0x01]))
        let photos: [String: Data] = ["P": truncatedPNG, "J": jpegGarbage, "K": brokenJPEG, "H": huge]
        let ties = ["P", "J", "K", "H"].map { tie($0, worn: 1, photoBytes: 1) }
        let (html, outcome) = try HTMLReport(ties: ties) { tie in .success(photos[tie.searchKey ?? ""] ?? Data()) }
            .render()
        #expect(html.contains("Photo not embedded: cannot read it as PNG ("))
        #expect(html.contains("Photo not embedded: cannot read it as JPEG ("))
        #expect(html.contains("30000×30000 pixels is more than the report scales"))
        // A JPEG damaged after its header decodes as far as it can, or is
        // left out; either way the page is made.
        #expect(outcome.photosEmbedded + outcome.photosLeftOut == 4)
        #expect(outcome.photosLeftOut >= 3)
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
