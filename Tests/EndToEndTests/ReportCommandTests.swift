import Foundation
import Testing

@Suite("bowties report")
struct ReportCommandTests {
    /// A name that would change the page if it ever ran: as an element,
    /// as an attribute's script, and as a script that closes the JSON block.
    static let hostileName =
        "<script>document.body.setAttribute('data-pwned','1')</script>"
        + "<img src=x onerror=\"document.title='pwned'\"></script>"

    /// The sample data plus a tie whose name and tag are hostile.
    private func catalogWithHostileTie() throws -> BowTiesRunner {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let added = try bowties.run("add", "--name", Self.hostileName, "--key", "X", "--tag", "<b>bold</b>")
        try #require(added.status == 0, "\(added)")
        return bowties
    }

    @Test("the page is self-contained: photos as data URIs, no address outside it, a CSP")
    func selfContained() throws {
        let bowties = try catalogWithHostileTie()
        let output = bowties.directory.appendingPathComponent("ties.html")
        let result = try bowties.run("report", "--output", output.path)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("8 bow ties, 8 cards, 7 photos embedded"), "\(result)")
        let html = try String(contentsOf: output, encoding: .utf8)
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(html.contains("http-equiv=\"Content-Security-Policy\""))
        #expect(html.contains("default-src 'none'; img-src data:;"))
        // Seven distinct sample photos, each once.
        #expect(html.components(separatedBy: "url(\"data:image/png;base64,").count - 1 == 7)
        // Nothing is loaded from elsewhere: every src or href attribute of
        // every tag, and every url() of the style sheet, is a data: URI.
        // (Attributes are read whole, quoted values included, so the
        // hostile name's escaped `src=x` inside a label is not one.)
        let tags = try NSRegularExpression(pattern: "<[a-zA-Z][^>]*>")
        let attributes = try NSRegularExpression(pattern: #"([^\s=<>"']+)\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)"#)
        var addresses: [String] = []
        for tag in tags.matches(in: html, range: NSRange(html.startIndex..., in: html)) {
            for attribute in attributes.matches(in: html, range: tag.range) {
                let name = html[Range(attribute.range(at: 1), in: html)!].lowercased()
                let value = html[Range(attribute.range(at: 2), in: html)!].trimmingCharacters(in: ["\"", "'"])
                if ["src", "href", "action", "srcset", "poster", "data"].contains(name) { addresses.append(value) }
            }
        }
        #expect(addresses.allSatisfy { $0.hasPrefix("data:") }, "\(addresses)")
        let urls = try NSRegularExpression(pattern: #"(?i)url\(\s*(?!["']?data:)|@import"#)
        #expect(urls.numberOfMatches(in: html, range: NSRange(html.startIndex..., in: html)) == 0)
        #expect(!html.contains("http://"))
        #expect(!html.contains("https://"))
    }

    @Test("text from the catalog is escaped in the cards and the table's data")
    func escaping() throws {
        let bowties = try catalogWithHostileTie()
        let result = try bowties.run("report", "--output", "-")
        #expect(result.status == 0, "\(result)")
        let html = result.stdout
        #expect(!html.contains("<script>document"), "the name is markup")
        #expect(!html.contains("<img src=x"), "the name is markup")
        #expect(!html.contains("<b>bold</b>"), "the tag is markup")
        #expect(
            html.contains("&lt;script&gt;document.body.setAttribute(&#39;data-pwned&#39;,&#39;1&#39;)&lt;/script&gt;"))
        #expect(html.contains("&lt;b&gt;bold&lt;/b&gt;"))
        // In the JSON block, < never appears: it cannot close the element.
        let data = try #require(html.range(of: "<script type=\"application/json\" id=\"ties-data\">"))
        let end = try #require(html.range(of: "</script>", range: data.upperBound..<html.endIndex))
        let json = html[data.upperBound..<end.lowerBound]
        #expect(!json.contains("<"))
        #expect(json.contains(#"\u003Cscript\u003E"#))
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[Any]])
        #expect(rows.count == 8)
        #expect(rows.last?[1] as? String == Self.hostileName)
        #expect(html.components(separatedBy: "<script").count - 1 == 2, "only the page's own two scripts")
    }

    @Test("figures: ties, favourites, most and least worn, never worn, photos' size")
    func figures() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let html = try bowties.run("report").stdout
        func figure(_ value: String, _ label: String) -> Bool {
            html.contains("<div class=\"value\">\(value)</div><div class=\"label\">\(label)</div>")
        }
        #expect(figure("7", "ties"))
        #expect(figure("1", "favourite"))
        #expect(figure("21", "most worn (times)"))
        #expect(html.contains("<bdi>Midnight Blue Silk (B)</bdi>"))
        #expect(figure("1", "least worn (times, of those worn)"))
        #expect(figure("1", "never worn"))
        #expect(figure("7", "not worn in 90 days"))
        // 16,698 + 18,494 + 19,724 + 16,592 + 242,697 + 15,710 + 243,643 bytes.
        #expect(figure("574 kB", "of photos"))  // 573,558 bytes
        #expect(html.contains("★"))
        #expect(html.contains("aria-label=\"rated 4.75 of 5\""))
    }

    @Test("a query selects the ties; --cards limits the gallery and says so")
    func queryAndCards() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let result = try bowties.run("report", "rating:3..", "--cards", "2", "--json", "--output", "r.html")
        #expect(result.status == 0, "\(result)")
        let outcome = try #require(try result.json() as? [String: Any], "\(result)")
        #expect(outcome["ties"] as? Int == 4)
        #expect(outcome["cards"] as? Int == 2)
        let html = try String(contentsOf: bowties.directory.appendingPathComponent("r.html"), encoding: .utf8)
        #expect(html.contains("The gallery shows the first 2 of 4 ties"))
        #expect(html.contains("<code>rating:3..</code>"))
        #expect(html.components(separatedBy: "<article class=\"card\">").count - 1 == 2)
    }

    @Test("a missing photo file: the card says so, the report is still written")
    func missingPhoto() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        for file in try FileManager.default.contentsOfDirectory(atPath: bowties.externalDataURL.path) {
            try FileManager.default.removeItem(at: bowties.externalDataURL.appendingPathComponent(file))
        }
        let result = try bowties.run("report")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.components(separatedBy: "Photo unavailable: missing file").count - 1 == 2)
    }

    @Test("standard output that is a terminal is refused with a hint; an unwritable file exits 73")
    func refusals() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let result = try bowties.run("report", "--output", "/nonexistent/folder/r.html")
        #expect(result.status == 73, "\(result)")
        let help = try bowties.run("report", "--help")
        #expect(help.stdout.contains("self-contained"), "\(help)")
    }

    @Test("a large photo is embedded scaled down to a card's size; damaged photos are left out, saying why")
    func scaledAndDamagedPhotos() throws {
        let bowties = try BowTiesRunner()
        let large = Self.storedPNG(width: 3000, height: 2000)
        let files: [(key: String, data: Data)] = [
            ("L", large), ("M", large),  // two ties, one photo
            ("P", large.prefix(large.count / 3)),  // a PNG cut short
            ("J", Data([0xFF, 0xD8, 0xFF, 0xDB, 0x00, 0x43]) + Data(repeating: 0x11, count: 4000)),
        ]
        for file in files {
            let url = bowties.directory.appendingPathComponent("\(file.key).img")
            try file.data.write(to: url)
            let added = try bowties.run("add", "--name", "Tie \(file.key)", "--key", file.key, "--photo", url.path)
            try #require(added.status == 0, "\(added)")
        }
        let output = bowties.directory.appendingPathComponent("ties.html")
        let result = try bowties.run("report", "--output", output.path)
        #expect(result.status == 0, "\(result)")
        #expect(
            result.stdout.contains("4 bow ties, 4 cards, 1 photo embedded")
                && result.stdout.contains("1 scaled down)") && result.stdout.contains("2 left out"),
            "\(result)")
        let html = try String(contentsOf: output, encoding: .utf8)
        let uris = html.components(separatedBy: "url(\"data:image/jpeg;base64,").dropFirst()
        try #require(uris.count == 1, "the shared photo is embedded once, as a JPEG")
        let base64 = try #require(uris.first?.prefix { $0 != "\"" })
        let jpeg = try #require(Data(base64Encoded: String(base64)))
        #expect(jpeg.count < 100_000, "\(jpeg.count) bytes")
        let size = try #require(Self.jpegSize(jpeg))
        #expect(size.width == 480 && size.height == 320, "\(size)")
        #expect(html.contains("Photo not embedded: cannot read it as PNG ("))
        #expect(html.contains("Photo not embedded: cannot read it as JPEG ("))
    }

    /// A PNG of `width`×`height` RGB pixels (a grainy gradient) made without an
    /// image library: zlib's stored (uncompressed) blocks, CRC-32, Adler-32.
    static func storedPNG(width: Int, height: Int) -> Data {
        let table: [UInt32] = (0..<256).map { index in
            var crc = UInt32(index)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
            return crc
        }
        func crc32(_ bytes: [UInt8]) -> UInt32 {
            var crc: UInt32 = 0xFFFF_FFFF
            for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
            return ~crc
        }
        func bigEndian(_ value: UInt32) -> [UInt8] {
            [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
        }
        var raw = [UInt8]()
        raw.reserveCapacity((width * 3 + 1) * height)
        for y in 0..<height {
            raw.append(0)  // filter: none
            for x in 0..<width {
                // Grain, as a photo has, so that a JPEG beats a PNG.
                let grain = (x &* 7919 ^ y &* 104_729) & 31
                raw.append(UInt8(x * 223 / width + grain))
                raw.append(UInt8(y * 223 / height + grain))
                raw.append(UInt8(96 + grain))
            }
        }
        var zlib: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let count = min(65_535, raw.count - offset)
            let final: UInt8 = offset + count == raw.count ? 1 : 0
            zlib += [final, UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            zlib += raw[offset..<offset + count]
            offset += count
        } while offset < raw.count
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in raw {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        zlib += bigEndian(b << 16 | a)
        func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let typed = Array(type.utf8) + body
            return bigEndian(UInt32(body.count)) + typed + bigEndian(crc32(typed))
        }
        let header = bigEndian(UInt32(width)) + bigEndian(UInt32(height)) + [8, 2, 0, 0, 0]
        return Data(
            [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header) + chunk("IDAT", zlib)
                + chunk("IEND", []))
    }

    /// The size a JPEG's frame header (SOF0–SOF2) declares.
    static func jpegSize(_ data: Data) -> (width: Int, height: Int)? {
        let bytes = [UInt8](data)
        var index = 2
        while index + 9 < bytes.count, bytes[index] == 0xFF {
            let marker = bytes[index + 1]
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            if (0xC0...0xC2).contains(marker) {
                let height = Int(bytes[index + 5]) << 8 | Int(bytes[index + 6])
                let width = Int(bytes[index + 7]) << 8 | Int(bytes[index + 8])
                return (width, height)
            }
            index += 2 + length
        }
        return nil
    }

    /// Chromium, when installed, opens the page: the table's script runs
    /// (its CSP hash is right) and the hostile name runs nothing.
    @Test(
        "headless Chromium renders the table and runs nothing from the catalog",
        .enabled(if: ReportCommandTests.chromium != nil, "chromium is not installed"))
    func inChromium() throws {
        let bowties = try catalogWithHostileTie()
        let output = bowties.directory.appendingPathComponent("ties.html")
        let result = try bowties.run("report", "--output", output.path)
        try #require(result.status == 0, "\(result)")
        let dom = try Self.dumpDOM(output, in: bowties.directory)
        #expect(dom.contains("Showing 1–8 of 8"), "the table's script did not run:\n\(dom.prefix(2000))")
        #expect(dom.contains("<td class=\"k\">X</td>"), "no table rows")
        #expect(!dom.contains("<body data-pwned"), "the hostile name ran")
        #expect(dom.contains("<body>"), "the body changed")
        #expect(!dom.contains("<title>pwned"), "the hostile name ran")
        #expect(dom.contains("&lt;script&gt;document.body"), "the name is not shown as text")
    }

    static let chromium: String? = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    /// `chromium --headless --dump-dom`: the page after its scripts ran.
    static func dumpDOM(_ page: URL, in directory: URL) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(chromium))
        process.arguments = [
            "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
            "--user-data-dir=\(directory.appendingPathComponent("chromium").path)",
            "--virtual-time-budget=2000", "--dump-dom", page.absoluteString,
        ]
        let stdout = directory.appendingPathComponent("dom.html")
        try Data().write(to: stdout)
        let handle = try FileHandle(forWritingTo: stdout)
        process.standardOutput = handle
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try handle.close()
        return try String(contentsOf: stdout, encoding: .utf8)
    }
}
