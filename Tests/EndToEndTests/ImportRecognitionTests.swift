import Foundation
import Testing

/// What `bowties import` says about a file it does not read, and how it
/// reads a CSV header typed by a person (issue 20, item 6: a PNG, a
/// `;`-separated CSV, a CSV with other column names and `hello world`
/// were all "malformed XML: Document is empty"; `Name` was not `name`).
@Suite("bowties import: files it does not read, and CSV headers as people write them")
struct ImportRecognitionTests {
    struct Unread: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: [UInt8]
        /// The start of standard error.
        var error: String
        /// The line after it.
        var hint: String
        var testDescription: String { name }
    }

    static let formatsHint =
        "hint: bowties reads XML or binary property lists, JSON (an array of objects), JSON Lines, CSV or TSV "
        + "whose first row names the columns (`bowties import --help` lists them), and Core Data stores; "
        + "--format names the format.\n"

    static let unread: [Unread] = [
        Unread(
            name: "semicolons.csv", bytes: Array("Name;Search Key;Rating\nRed;R;4\n".utf8),
            error: "semicolons.csv:1:1: the file looks like values separated by semicolons "
                + "(\"Name;Search Key;Rating\"), with the columns Name, Search Key, Rating: bowties reads CSV "
                + "separated by commas, or TSV separated by tabs\n",
            hint: "hint: Save it again as CSV with commas (a spreadsheet calls it \"CSV, comma-separated\"), "
                + "or as tab-separated text.\n"),
        Unread(
            name: "other.csv", bytes: Array("Title,Code,Price\nRed,R,4\n".utf8),
            error: "other.csv:1:1: the file looks like CSV, but its header names no column bowties reads: "
                + "\"Title\", \"Code\", \"Price\"\n",
            hint: "hint: The columns bowties reads: id, name, searchKey, rating, timesWorn, lastWorn, isFavorite, "),
        Unread(
            name: "typos.tsv", bytes: Array("Nmae\tSerch Key\tRaiting\nRed\tR\t4\n".utf8),
            error: "typos.tsv:1:1: the file looks like TSV, but its header names no column bowties reads: "
                + "\"Nmae\" (did you mean \"name\"?), \"Serch Key\" (did you mean \"searchKey\"?), "
                + "\"Raiting\" (did you mean \"rating\"?)\n",
            hint: "hint: The columns bowties reads:"),
        Unread(
            name: "notes.txt", bytes: Array("hello world\n".utf8),
            error: "notes.txt:1:1: the file is text in no format bowties reads (it begins \"hello world\")\n",
            hint: formatsHint),
        Unread(
            name: "photo.png",
            bytes: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D] + Array("IHDR".utf8),
            error: "photo.png: this is a PNG image, not a file of bow ties\n",
            hint: "hint: A photo is given to a tie with `bowties photo KEY --set FILE`, or named by imageName in "
                + "the file you import. bowties reads XML"),
        Unread(
            name: "ties.xlsx", bytes: [0x50, 0x4B, 0x03, 0x04, 0x14, 0, 0x06, 0],
            error: "ties.xlsx: this is a ZIP archive (a spreadsheet such as .xlsx, .ods or .numbers is one: "
                + "export it as CSV), not a file of bow ties\n",
            hint: formatsHint),
        Unread(
            name: "random.bin", bytes: [0x00, 0x01, 0x02, 0xFF, 0xFE, 0x00],
            error: "random.bin: this is binary data, not text in a format bowties reads\n", hint: formatsHint),
    ]

    @Test("a file in no format bowties reads: what it looks like, what bowties reads, exit 65", arguments: unread)
    func unreadFile(_ unread: Unread) throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let before = try workspace.snapshot()
        let file = workspace.inputDirectory.appendingPathComponent(unread.name)
        try Data(unread.bytes).write(to: file)
        let result = try workspace.run("import", file.path)
        #expect(result.status == 65, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        #expect(result.stderr.hasPrefix("bowties: error: " + unread.error + unread.hint), "\(result)")
        #expect(!result.stderr.contains("XML:"), "\(result)")
        #expect(try workspace.snapshot() == before)
    }

    @Test("hello world on standard input: located at stdin:1:1, nothing created")
    func standardInputText() throws {
        let bowties = try BowTiesRunner()
        let input = try bowties.write("hello world\n", to: "input.txt")
        let result = try bowties.run(arguments: ["import", "-"], input: input)
        #expect(result.status == 65, "\(result)")
        #expect(
            result.stderr
                == "bowties: error: stdin:1:1: the file is text in no format bowties reads (it begins \"hello world\")\n"
                + Self.formatsHint,
            "\(result)")
        #expect(!FileManager.default.fileExists(atPath: bowties.storeURL.path))
    }

    @Test("a header matches whatever its case, spaces, _ and -, and the labels list and show print")
    func headerAsPeopleWriteIt() throws {
        let bowties = try BowTiesRunner()
        let file = try bowties.write(
            """
            Name,Search Key,RATING,times_worn,Last-Worn,Favourite,Colour,Tags
            Red Silk,R,4,3,2024-03-15,yes,#C81E2D,"formal, silk"

            """, to: "ties.csv")
        let result = try bowties.run("import", file.path)
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.isEmpty, "\(result)")
        #expect(result.stdout.contains("added 1, updated 0, unchanged 0"), "\(result)")
        let export = try bowties.run(
            "export", "--fields", "name,searchKey,rating,timesWorn,lastWorn,isFavorite,tintColor,tags")
        #expect(
            export.stdout.split(whereSeparator: \.isNewline).last
                == "Red Silk,R,4,3,2024-03-15T00:00:00Z,true,#C81E2D,\"formal, silk\"",
            "\(export)")
    }

    @Test("the same column twice under two spellings is refused, located")
    func duplicateColumn() throws {
        let bowties = try BowTiesRunner()
        let file = try bowties.write("name,searchKey,Search Key\nA,A,B\n", to: "ties.csv")
        let result = try bowties.run("import", file.path)
        #expect(result.status == 65, "\(result)")
        #expect(
            result.stderr.hasPrefix(
                "bowties: error: ties.csv:1:16: duplicate key \"Search Key\": the header names the column searchKey twice"
            ),
            "\(result)")
    }

    @Test("an unknown column beside known ones is a warning with the nearest known column")
    func unknownColumnSuggestion() throws {
        let bowties = try BowTiesRunner()
        let file = try bowties.write("name,searchKey,Ratng\nA,A,4\n", to: "ties.csv")
        let result = try bowties.run("import", file.path)
        #expect(result.status == 0, "\(result)")
        #expect(
            result.stderr
                == "bowties: warning: ties.csv:2:5: unknown key \"Ratng\" ignored (did you mean \"rating\"?)\n",
            "\(result)")
    }
}
