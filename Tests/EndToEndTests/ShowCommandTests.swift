import Foundation
import Testing

@Suite("bowties show")
struct ShowCommandTests {
    @Test("show R prints every field, its photo stored inline")
    func showRed() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let result = try bowties.run("show", "R")
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.isEmpty, "\(result)")
        let lines = result.stdoutLines
        #expect(lines.first == "Classic Red Bow Tie (R)", "\(result)")
        #expect(lines.contains("Rating: 3.5/5"), "\(result)")
        #expect(lines.contains("# times worn: 12"), "\(result)")
        #expect(lines.contains { $0.hasPrefix("Last worn: 2014-06-19 18:15:24 UTC (") }, "\(result)")
        #expect(lines.contains("Favourite: no"), "\(result)")
        #expect(lines.contains("Colour: #C81E2D"), "\(result)")
        #expect(lines.contains("URL: https://en.wikipedia.org/wiki/Bow_tie"), "\(result)")
        #expect(lines.contains("Photo: PNG image, 16,698 bytes, stored inline"), "\(result)")
        #expect(lines.contains("Id: B77AF80E-55E7-4111-B05C-A5641DE4D6B3"), "\(result)")
    }

    @Test("show prints every field: an empty colour and URL as none")
    func emptyFields() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        #expect(try bowties.run("add", "--name", "Plain", "--key", "P").status == 0)
        let result = try bowties.run("show", "P")
        #expect(result.status == 0, "\(result)")
        let lines = result.stdoutLines
        #expect(
            Array(lines.prefix(9)) == [
                "Plain (P)", "Rating: 0/5", "# times worn: 0", "Last worn: never", "Favourite: no", "Colour: none",
                "URL: none", "Tags: none", "Photo: none",
            ], "\(result)")
        #expect(lines.count == 11 && lines[9].hasPrefix("Id: ") && lines[10].isEmpty, "\(result)")
    }

    @Test("show B names the external photo file, named by its SHA-256")
    func showBlue() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let result = try bowties.run("show", "B", "--json")
        #expect(result.status == 0, "\(result)")
        let tie = try #require(try result.json() as? [String: Any], "\(result)")
        #expect(tie["name"] as? String == "Midnight Blue Silk")
        #expect(tie["isFavorite"] as? Bool == true)
        #expect(tie["rating"] as? Double == 4.75)
        let photo = try #require(tie["photo"] as? [String: Any], "\(result)")
        #expect(photo["storage"] as? String == "external")
        #expect(photo["bytes"] as? Int == 242_697)
        #expect(photo["type"] as? String == "PNG")
        let sha256 = try #require(photo["sha256"] as? String)
        #expect(photo["file"] as? String == bowties.externalDataURL.appendingPathComponent(sha256).path)
    }

    @Test("a key matches ignoring case, or by a prefix of the id")
    func keyForms() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        for key in ["r", "B77AF80E", "B77AF80E-55E7-4111-B05C-A5641DE4D6B3"] {
            let result = try bowties.run("show", key)
            #expect(result.status == 0, "\(result)")
            #expect(result.stdoutLines.first == "Classic Red Bow Tie (R)", "\(result)")
        }
    }

    @Test("non-ASCII and escaped names survive the trip")
    func names() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        #expect(try bowties.run("show", "G").stdoutLines.first == "Green & Gold Paisley (G)")
        #expect(try bowties.run("show", "I").stdoutLines.first == "Indigo Crêpe (I)")
    }
}
