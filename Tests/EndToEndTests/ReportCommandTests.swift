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
