import Foundation
import Testing

/// `bowties import` of every format it reads: the sample data written as
/// JSON, JSON Lines, CSV, TSV and a binary property list
/// (`Fixtures/Formats`, made by its `make-fixtures.py`), standard input,
/// round trips through `export`, and located errors.
@Suite("bowties import: formats")
struct ImportFormatTests {
    static let sampleFiles = [
        "SampleData.json", "SampleData.jsonl", "SampleData.csv", "SampleData.tsv", "SampleData.bplist",
    ]

    static func fixture(_ name: String) throws -> URL {
        let folder = try #require(
            Bundle.module.url(forResource: "Formats", withExtension: nil, subdirectory: "Fixtures"))
        return folder.appendingPathComponent(name)
    }

    /// The CSV export of the catalog, without the photo's storage columns
    /// (equal anyway) : what two imports of the same data must agree on.
    static func export(_ bowties: BowTiesRunner, store: URL) throws -> String {
        let result = try bowties.run("export", "--store", store.path)
        try #require(result.status == 0, "\(result)")
        return result.stdout
    }

    @Test("each format imports the sample data as the XML plist does, then leaves it unchanged", arguments: sampleFiles)
    func sampleData(_ name: String) throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let expected = try Self.export(bowties, store: bowties.storeURL)

        // Named .data: the format is told from the content, never the name.
        let input = bowties.directory.appendingPathComponent("ties.data")
        try FileManager.default.copyItem(at: try Self.fixture(name), to: input)
        let store = bowties.directory.appendingPathComponent("other/catalog.sqlite")
        let first = try bowties.run(
            "import", input.path, "--images", BowTiesRunner.sampleImagesURL.path, "--store", store.path)
        #expect(first.status == 0, "\(first)")
        #expect(first.stdout.contains("added 7, updated 0, unchanged 0"), "\(first)")
        #expect(first.stdout.contains("7 photos saved; 2 new files"), "\(first)")
        #expect(first.stderr.isEmpty, "\(first)")
        #expect(try Self.export(bowties, store: store) == expected)

        let second = try bowties.run(
            "import", input.path, "--images", BowTiesRunner.sampleImagesURL.path, "--store", store.path)
        #expect(second.stdout.contains("added 0, updated 0, unchanged 7"), "\(second)")

        // --update restores what the file says, and only that.
        #expect(try bowties.run("rate", "R", "5", "--store", store.path).status == 0)
        let update = try bowties.run(
            "import", input.path, "--update", "--images", BowTiesRunner.sampleImagesURL.path, "--store", store.path)
        #expect(update.stdout.contains("added 0, updated 1, unchanged 6"), "\(update)")
        #expect(try Self.export(bowties, store: store) == expected)
    }

    @Test("import - reads standard input, in every format", arguments: sampleFiles)
    func standardInput(_ name: String) throws {
        let bowties = try BowTiesRunner()
        let result = try bowties.run(
            arguments: ["import", "-", "--images", BowTiesRunner.sampleImagesURL.path], input: try Self.fixture(name))
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("Imported stdin into"), "\(result)")
        #expect(result.stdout.contains("added 7, updated 0, unchanged 0"), "\(result)")
    }

    @Test(
        "import - on a terminal says once that it reads standard input, before it waits; piped it says nothing",
        .enabled(if: TerminalOutputTests.script != nil, "util-linux script is not installed"))
    func standardInputOnTerminal() throws {
        let bowties = try BowTiesRunner()
        func quoted(_ word: String) -> String { "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let command =
            [try BowTiesRunner.executableURL().path, "import", "-"].map(quoted).joined(separator: " ")
            + "; echo \"exit status $?\""
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(TerminalOutputTests.script))
        process.arguments = ["-qec", command, "/dev/null"]
        process.environment = bowties.environment
        let output = bowties.directory.appendingPathComponent("terminal.out")
        try Data().write(to: output)
        let handle = try FileHandle(forWritingTo: output)
        process.standardOutput = handle
        process.standardError = handle
        let typing = Pipe()
        process.standardInput = typing
        try process.run()
        func screen() throws -> String {
            String(decoding: try Data(contentsOf: output), as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
        }
        // Nothing typed yet: the line must be there while it waits.
        let deadline = Date().addingTimeInterval(20)
        while try !screen().contains("Ctrl-D ends"), Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        let waiting = try screen()
        #expect(waiting == "reading from standard input; Ctrl-D ends\n", "\(waiting)")
        typing.fileHandleForWriting.write(Data("[{\"name\": \"Typed\", \"searchKey\": \"T\"}]\n\u{04}".utf8))
        try typing.fileHandleForWriting.close()
        process.waitUntilExit()
        try handle.close()
        let text = try screen()
        #expect(text.components(separatedBy: "reading from standard input").count == 2, "\(text)")
        #expect(text.contains("Imported stdin into"), "\(text)")
        #expect(text.hasSuffix("exit status 0\n"), "\(text)")

        let piped = try bowties.run(arguments: ["import", "-"], input: try bowties.write("[]\n", to: "empty.json"))
        #expect(piped.status == 0, "\(piped)")
        #expect(piped.stderr.isEmpty, "\(piped)")
    }

    @Test("--format names the format: CSV read as JSON is refused with its location")
    func forcedFormat() throws {
        let bowties = try BowTiesRunner()
        let result = try bowties.run("import", try Self.fixture("SampleData.csv").path, "--format", "json")
        #expect(result.status == 65, "\(result)")
        #expect(result.stderr.hasPrefix("bowties: error: SampleData.csv:1:1: expected a JSON array"), "\(result)")
        #expect(!FileManager.default.fileExists(atPath: bowties.storeURL.path))
    }

    @Test("export CSV, import into an empty catalog: every field and tag comes back; into the same: unchanged")
    func csvRoundTrip() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        #expect(try bowties.run("wear", "R", "--note", "gala").status == 0)
        #expect(try bowties.run("tag", "name:red", "+formal", "+silk", "--yes").status == 0)
        #expect(try bowties.run("set", "name:blue", "rating=1.5", "--yes").status == 0)
        let exported = try Self.export(bowties, store: bowties.storeURL)
        let file = try bowties.write(exported, to: "export.csv")

        let same = try bowties.run("import", file.path, "--update")
        #expect(same.status == 0, "\(same)")
        #expect(same.stdout.contains("added 0, updated 0, unchanged 7"), "\(same)")
        #expect(try Self.export(bowties, store: bowties.storeURL) == exported)

        // An empty catalog holds none of the photos the hashes name.
        let store = bowties.directory.appendingPathComponent("empty/catalog.sqlite")
        let empty = try bowties.run("import", file.path, "--store", store.path)
        #expect(empty.status == 0, "\(empty)")
        #expect(empty.stdout.contains("added 7, updated 0, unchanged 0"), "\(empty)")
        #expect(empty.stderr.contains("is not in this catalog nor in "), "\(empty)")
        func withoutPhotos(_ csv: String) -> [String] {
            csv.split(separator: "\r\n").map { line in
                let cells = line.split(separator: ",", omittingEmptySubsequences: false)
                return (cells.prefix(9) + cells.dropFirst(11)).joined(separator: ",")
            }
        }
        #expect(withoutPhotos(try Self.export(bowties, store: store)) == withoutPhotos(exported))
    }

    @Test("export TSV, import it into an empty catalog: names with quotes, tabs, line breaks and backslashes come back")
    func tsvRoundTrip() throws {
        let bowties = try BowTiesRunner()
        let names = [
            "\"Dapper\" Dan", "He said \"hi\"", "tab\there", "two\nlines", "back\\slash \\t", "\"", "a\r\nb",
        ]
        var json = "["
        for (index, name) in names.enumerated() {
            let escaped = name.replacingOccurrences(of: "\\", with: "\\\\")
                .replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\t", with: "\\t")
                .replacingOccurrences(of: "\n", with: "\\n").replacingOccurrences(of: "\r", with: "\\r")
            json += (index > 0 ? ",\n" : "")
            json += "{\"name\": \"\(escaped)\", \"searchKey\": \"K\(index)\", \"tags\": [\"a\\\\b\"]}"
        }
        json += "]\n"
        let source = try bowties.write(json, to: "ties.json")
        let imported = try bowties.run("import", source.path)
        try #require(imported.status == 0, "\(imported)")
        let exported = try bowties.run("export", "--format", "tsv", "--photos", "none")
        try #require(exported.status == 0, "\(exported)")
        let file = try bowties.write(exported.stdout, to: "ties.tsv")

        let store = bowties.directory.appendingPathComponent("empty/catalog.sqlite")
        let again = try bowties.run("import", file.path, "--store", store.path)
        #expect(again.status == 0, "\(again)")
        #expect(again.stdout.contains("added \(names.count), updated 0, unchanged 0"), "\(again)")
        let reexported = try bowties.run("export", "--format", "tsv", "--photos", "none", "--store", store.path)
        #expect(reexported.stdout == exported.stdout)
        let shown = try bowties.run("export", "--format", "json", "--fields", "name", "--store", store.path)
        for name in ["\\\"Dapper\\\" Dan", "tab\\there", "two\\nlines", "back\\\\slash \\\\t", "a\\r\\nb"] {
            #expect(shown.stdout.contains(name), "\(name) in \(shown.stdout)")
        }
    }

    @Test("JSON with inline photos and wear history: fields, tags, photo and history come back", arguments: ["json", "jsonl"])
    func jsonHistory(_ layout: String) throws {
        let bowties = try BowTiesRunner()
        let photo = try Data(contentsOf: BowTiesRunner.sampleImagesURL.appendingPathComponent("red.png"))
        let record = """
            {"id": "B77AF80E-55E7-4111-B05C-A5641DE4D6B3", "name": "Classic Red Bow Tie", "searchKey": "R", \
            "rating": 3.5, "timesWorn": 12, "lastWorn": "2014-06-19T18:15:24Z", "isFavorite": true, \
            "url": null, "tintColor": "#C81E2D", "photo": "\(photo.base64EncodedString())", \
            "tags": ["formal", "silk"], \
            "wears": [{"date": "2014-06-19T18:15:24Z", "note": "gala"}, {"date": "2014-01-02T10:00:00Z", "note": null}]}
            """
        let text = layout == "json" ? "[\n" + record + "\n]\n" : record + "\n"
        let file = try bowties.write(text, to: "ties.\(layout)")
        let result = try bowties.run("import", file.path)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("added 1, updated 0, unchanged 0"), "\(result)")
        #expect(result.stdout.contains("1 photo saved"), "\(result)")

        let history = try bowties.run("history", "R")
        #expect(history.stdout.contains("12 times worn: 2 recorded, 10 before the history began"), "\(history)")
        #expect(history.stdout.contains("gala"), "\(history)")
        let show = try bowties.run("show", "R", "--json")
        let json = try #require(try show.json() as? [String: Any], "\(show)")
        #expect(json["timesWorn"] as? Int == 12)
        #expect(json["lastWorn"] as? String == "2014-06-19T18:15:24Z")
        #expect(json["isFavorite"] as? Bool == true)
        #expect(json["tags"] as? [String] == ["formal", "silk"])
        #expect((json["photo"] as? [String: Any])?["bytes"] as? Int == photo.count)

        // Again, and again with --update: the same history is no change.
        #expect(try bowties.run("import", file.path).stdout.contains("unchanged 1"))
        let update = try bowties.run("import", file.path, "--update")
        #expect(update.stdout.contains("added 0, updated 0, unchanged 1"), "\(update)")
        #expect(try bowties.run("history", "R").stdout == history.stdout)
    }

    @Test("an XML plist with <data> photo and wears, and a CSV with a Base64 photo column, come back whole")
    func plistAndCSVInline() throws {
        let bowties = try BowTiesRunner()
        let photo = try Data(contentsOf: BowTiesRunner.sampleImagesURL.appendingPathComponent("blue.png"))
        let plist = try bowties.write(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0">
            <array>
            \t<dict>
            \t\t<key>name</key><string>Midnight Blue Silk</string>
            \t\t<key>searchKey</key><string>B</string>
            \t\t<key>timesWorn</key><integer>3</integer>
            \t\t<key>photo</key><data>\(photo.base64EncodedString())</data>
            \t\t<key>wears</key>
            \t\t<array>
            \t\t\t<dict><key>date</key><date>2014-06-21T20:00:00Z</date><key>note</key><string>opera</string></dict>
            \t\t</array>
            \t</dict>
            </array>
            </plist>

            """, to: "ties.plist")
        let result = try bowties.run("import", plist.path)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("added 1, updated 0, unchanged 0"), "\(result)")
        let history = try bowties.run("history", "B")
        #expect(history.stdout.contains("3 times worn: 1 recorded, 2 before the history began"), "\(history)")
        #expect(history.stdout.contains("opera"), "\(history)")
        let saved = bowties.directory.appendingPathComponent("b.png")
        #expect(try bowties.run("photo", "B", "--output", saved.path).status == 0)
        #expect(try Data(contentsOf: saved) == photo)

        let csv = try bowties.write(
            "name,searchKey,photo,tags\r\nRed,R,\(photo.base64EncodedString()),\"formal, silk\"\r\n", to: "ties.csv")
        let second = try bowties.run("import", csv.path)
        #expect(second.stdout.contains("added 1, updated 0, unchanged 0"), "\(second)")
        let red = bowties.directory.appendingPathComponent("r.png")
        #expect(try bowties.run("photo", "R", "--output", red.path).status == 0)
        #expect(try Data(contentsOf: red) == photo)
        #expect(try bowties.run("show", "R").stdout.contains("Tags: formal, silk"))
    }

    @Test("a count smaller than the history it lists is refused, located")
    func countBelowHistory() throws {
        let bowties = try BowTiesRunner()
        let file = try bowties.write(
            """
            {"name": "A", "searchKey": "A", "timesWorn": 1, "wears": [{"date": "2020-01-01T00:00:00Z"}, {"date": "2020-01-02T00:00:00Z"}]}

            """, to: "ties.jsonl")
        let result = try bowties.run("import", file.path)
        #expect(result.status == 65, "\(result)")
        #expect(result.stderr.hasPrefix("bowties: error: ties.jsonl:1:1: record 1 (A \"A\"), timesWorn: "), "\(result)")
    }

    struct BadInput: Sendable, CustomTestStringConvertible {
        var name: String
        var text: String
        var error: String
        var testDescription: String { name }
    }

    static let badInputs: [BadInput] = [
        BadInput(
            name: "bad.json", text: "[\n  {\"name\": \"A\", \"searchKey\": \"A\"},\n  {\"name\": \"B\" \"searchKey\": \"B\"}\n]\n",
            error: "bad.json:3:16: expected , or } in the object, found '\"'"),
        BadInput(
            name: "type.json", text: "[{\"name\": \"A\", \"searchKey\": \"A\", \"rating\": \"high\"}]",
            error: "type.json:1:44: record 1 (A \"A\"), rating: expected a number, found a string"),
        BadInput(
            name: "date.jsonl", text: "{\"name\": \"A\"}\n{\"name\": \"B\", \"lastWorn\": \"yesterday\"}\n",
            error: "date.jsonl:2:27: record 2 (\"B\"), lastWorn: \"yesterday\" is not a date"),
        BadInput(
            name: "twice.jsonl", text: "{\"name\": \"A\"} {\"name\": \"B\"}\n",
            error: "twice.jsonl:1:15: expected one JSON value per line"),
        BadInput(
            name: "rating.csv", text: "name,searchKey,rating\r\nA,A,4\r\nB,B,lots\r\n",
            error: "rating.csv:3:5: record 2 (B \"B\"), rating: \"lots\" is not a number"),
        BadInput(
            name: "ragged.csv", text: "name,searchKey\nA,A\nB\n",
            error: "ragged.csv:3:1: the row has 1 field, the header 2"),
        BadInput(
            name: "quote.csv", text: "name,searchKey\n\"A,A\n",
            error: "quote.csv:2:1: the file ends inside a quoted field"),
    ]

    @Test("bad input in any format: a located error, exit 65, nothing written", arguments: badInputs)
    func locatedErrors(_ bad: BadInput) throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let before = try workspace.snapshot()
        let file = workspace.inputDirectory.appendingPathComponent(bad.name)
        try Data(bad.text.utf8).write(to: file)
        let result = try workspace.run("import", file.path)
        #expect(result.status == 65, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        #expect(result.stderr.hasPrefix("bowties: error: " + bad.error), "\(result)")
        #expect(try workspace.snapshot() == before)
    }

    @Test("a binary property list's errors are located by byte offset")
    func binaryErrors() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let before = try workspace.snapshot()
        // [{"name": "A", "rating": "x"}] as plistlib writes it.
        let bytes: [UInt8] =
            Array("bplist00".utf8) + [0xA1, 0x01, 0xD2, 0x02, 0x03, 0x04, 0x05]
            + [0x54] + Array("name".utf8) + [0x56] + Array("rating".utf8) + [0x51] + Array("A".utf8)
            + [0x51] + Array("x".utf8)
            + [0x08, 0x0A, 0x0F, 0x14, 0x1B, 0x1D]
            + [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 6] + [0, 0, 0, 0, 0, 0, 0, 0]
            + [0, 0, 0, 0, 0, 0, 0, 0x1F]
        let file = workspace.inputDirectory.appendingPathComponent("bad.plist")
        try Data(bytes).write(to: file)
        let result = try workspace.run("import", file.path)
        #expect(result.status == 65, "\(result)")
        #expect(
            result.stderr.hasPrefix("bowties: error: bad.plist: byte 29: record 1 (\"A\"), rating: expected <real>"),
            "\(result)")
        #expect(try workspace.snapshot() == before)
    }
}
