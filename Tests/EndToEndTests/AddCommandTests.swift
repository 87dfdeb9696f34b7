import Foundation
import Testing

@Suite("bowties add")
struct AddCommandTests {
    @Test("add stores a tie with a new id, its values, tags and favourite mark")
    func add() throws {
        let bowties = try BowTiesRunner()
        let result = try bowties.run(
            "add", "--name", "Paisley", "--key", "P", "--rating", "4.5", "--color", "#336699", "--url",
            "https://example.com/paisley", "--favorite", "--tag", "formal", "--tag", "Wedding")
        #expect(result.status == 0, "\(result)")
        let prefix = "Added Paisley (P): "
        #expect(result.stdout.hasPrefix(prefix), "\(result)")
        let id = result.stdout.dropFirst(prefix.count).trimmingCharacters(in: .newlines)
        #expect(UUID(uuidString: id) != nil, "\(result)")
        #expect(result.stderr.isEmpty, "\(result)")

        let show = try bowties.run("show", "P", "--json")
        let tie = try #require(try show.json() as? [String: Any], "\(show)")
        #expect(tie["id"] as? String == id)
        #expect(tie["name"] as? String == "Paisley")
        #expect(tie["rating"] as? Double == 4.5)
        #expect(tie["tintColor"] as? String == "#336699")
        #expect(tie["url"] as? String == "https://example.com/paisley")
        #expect(tie["isFavorite"] as? Bool == true)
        #expect(tie["timesWorn"] as? Int == 0)
        #expect(tie["tags"] as? [String] == ["formal", "Wedding"])
    }

    @Test("only --name and --key are needed; the rest takes the model's defaults")
    func minimal() throws {
        let bowties = try BowTiesRunner()
        let result = try bowties.run("add", "--name", "Plain", "--key", "PL")
        #expect(result.status == 0, "\(result)")
        let show = try bowties.run("show", "PL")
        #expect(show.stdoutLines.contains("Rating: 0/5"), "\(show)")
        #expect(show.stdoutLines.contains("Favourite: no"), "\(show)")
        #expect(show.stdoutLines.contains("Photo: none"), "\(show)")
        #expect(show.stdoutLines.contains("Tags: none"), "\(show)")
    }

    @Test("--json prints the tie as show --json does")
    func json() throws {
        let bowties = try BowTiesRunner()
        let result = try bowties.run("add", "--name", "Paisley", "--key", "P", "--json")
        #expect(result.status == 0, "\(result)")
        let added = try #require(try result.json() as? [String: Any], "\(result)")
        let show = try bowties.run("show", "P", "--json")
        let shown = try #require(try show.json() as? [String: Any], "\(show)")
        #expect(added["id"] as? String == shown["id"] as? String)
        #expect(Set(added.keys) == Set(shown.keys))
    }

    @Test("--photo of a text file is refused, exit 65, and no tie is added")
    func photoThatIsNotAnImage() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let notes = try bowties.write("hello world\n", to: "notes.txt")
        let before = try StoreSnapshot(storeURL: bowties.storeURL)
        let result = try bowties.run("add", "--name", "Notes", "--key", "N", "--photo", notes.path)
        #expect(result.status == 65, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        #expect(
            result.stderr.hasPrefix("bowties: error: \(notes.path) is not an image (it starts with \"hello wo\")\n"),
            "\(result)")
        let after = try StoreSnapshot(storeURL: bowties.storeURL)
        #expect(after == before, "\(after.difference(from: before))")
    }

    @Test("--photo stores the photo as every photo is stored")
    func photo() throws {
        let bowties = try BowTiesRunner()
        let small = BowTiesRunner.sampleImagesURL.appendingPathComponent("red.png").path
        let large = BowTiesRunner.sampleImagesURL.appendingPathComponent("blue.png").path
        #expect(try bowties.run("add", "--name", "Small", "--key", "S", "--photo", small).status == 0)
        let result = try bowties.run("add", "--name", "Large", "--key", "L", "--photo", large)
        #expect(result.status == 0, "\(result)")

        let smallShown = try bowties.run("show", "S")
        #expect(smallShown.stdoutLines.contains { $0.hasPrefix("Photo: PNG image") && $0.hasSuffix("stored inline") })
        let largeShown = try bowties.run("show", "L", "--json")
        let tie = try #require(try largeShown.json() as? [String: Any], "\(largeShown)")
        let photo = try #require(tie["photo"] as? [String: Any], "\(largeShown)")
        #expect(photo["storage"] as? String == "external")
        #expect(photo["bytes"] as? Int == 242_697)
        #expect(bowties.supportFiles().count == 1)
    }

    @Test("a taken key is refused, naming the tie that holds it; nothing is stored")
    func takenKey() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let result = try bowties.run("add", "--name", "Another Red", "--key", "R")
        #expect(result.status == 65, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        #expect(result.stderr.contains("the search key \"R\" is already used by \"Classic Red Bow Tie\""), "\(result)")
        #expect(try bowties.tieCount() == 7)
    }

    @Test(
        "the model's validation refuses bad values with Core Data's codes, exit 65, nothing stored",
        arguments: [
            (["--rating", "7"], "rating is too large. (NSValidationNumberTooLargeError 1610"),
            (["--rating", "-1"], "rating is too small. (NSValidationNumberTooSmallError 1620"),
            (["--url", "example.com/tie"], "url is not a valid URI. (NSValidationInvalidURIError 1690"),
            (["--rating", "high"], "rating: \"high\" is not a number"),
            (["--color", "red"], "tintColor: \"red\" is not a colour #RRGGBB"),
            (["--tag", "a,b"], "NSValidationStringPatternMatchingError 1680"),
        ])
    func refused(arguments: [String], message: String) throws {
        let bowties = try BowTiesRunner()
        let result = try bowties.run(arguments: ["add", "--name", "Paisley", "--key", "P"] + arguments)
        #expect(result.status == 65, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        #expect(result.stderr.hasPrefix("bowties: error: "), "\(result)")
        #expect(result.stderr.contains(message), "\(result)")
        // A first command that fails leaves no catalog behind.
        #expect(!FileManager.default.fileExists(atPath: bowties.storeURL.path))
    }

    @Test("an empty name is refused (1670) in a catalog that exists, which stays as it was")
    func emptyName() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let result = try bowties.run("add", "--name", "", "--key", "E")
        #expect(result.status == 65, "\(result)")
        #expect(result.stderr.contains("1670"), "\(result)")
        #expect(try bowties.tieCount() == 7)
    }

    @Test("a name of only spaces is refused by add, import and set (the model's rule, 1680); nothing changes")
    func spacesOnlyName() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let before = try StoreSnapshot(storeURL: bowties.storeURL)
        let added = try bowties.run("add", "--name", "   ", "--key", "S")
        #expect(added.status == 65, "\(added)")
        #expect(
            added.stderr == """
                bowties: error: name must contain a character other than a space. \
                (NSValidationStringPatternMatchingError 1680; record S "   "; name = "   ")

                """, "\(added)")
        let plist = try bowties.write(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0">
            <array>
            \t<dict>
            \t\t<key>name</key>
            \t\t<string> \t </string>
            \t\t<key>searchKey</key>
            \t\t<string>S</string>
            \t</dict>
            </array>
            </plist>

            """, to: "spaces.plist")
        let imported = try bowties.run("import", plist.path)
        #expect(imported.status == 65, "\(imported)")
        #expect(
            imported.stderr.contains(
                "name must contain a character other than a space. (NSValidationStringPatternMatchingError 1680"),
            "\(imported)")
        let set = try bowties.run("set", "R", "name=   ")
        #expect(set.status == 65, "\(set)")
        let after = try StoreSnapshot(storeURL: bowties.storeURL)
        #expect(after.rows == before.rows, "\(after.difference(from: before))")
        let model = try bowties.run("model")
        #expect(model.stdout.contains("required, length 1...500, not only spaces"), "\(model)")
    }

    @Test("a missing --name or --key is a usage error")
    func usage() throws {
        let bowties = try BowTiesRunner()
        #expect(try bowties.run("add", "--key", "P").status == 64)
        #expect(try bowties.run("add", "--name", "Paisley").status == 64)
    }

    @Test("--help explains the options")
    func help() throws {
        let result = try BowTiesRunner().run("add", "--help")
        #expect(result.status == 0, "\(result)")
        let text = result.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(text.hasPrefix("OVERVIEW: Add a bow tie to the catalog."), "\(result)")
        for option in [
            "--name <name>", "--key <key>", "--rating <rating>", "--color <#RRGGBB>", "--url <url>",
            "--photo <file>", "--favorite", "--tag <name>",
        ] {
            #expect(text.contains(option), "\(option)")
        }
    }
}
