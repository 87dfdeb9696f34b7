import Foundation
import Testing

/// `list` and `export` in every format (`--format`, `--photos`,
/// `--fields`), read back by independent parsers (Foundation's JSON,
/// Python's `plistlib`), and their streaming to a reader that goes away.
@Suite("list and export formats")
struct FormatCommandTests {
    static let images = [
        "R": "red.png", "O": "orange.png", "Y": "yellow.png", "G": "green.png", "B": "blue.png", "I": "indigo.png",
        "V": "violet.png",
    ]

    static let jsonKeys = ExportCommandTests.header.filter { !$0.hasPrefix("photo") } + ["photo"]

    @Test("JSON has every key in every object, null when missing; list and export agree; --json is --format json")
    func json() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        #expect(try bowties.run("set", "V", "url=", "--yes").status == 0)
        #expect(try bowties.run("wear", "R", "--on", "2014-07-01", "--note", "wedding").status == 0)
        #expect(try bowties.run("wear", "R", "--on", "2014-06-30").status == 0)
        let result = try bowties.run("export", "--format", "json")
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.isEmpty, "\(result)")
        let ties = try #require(try result.json() as? [[String: Any]], "\(result)")
        #expect(ties.count == 7)
        for tie in ties { #expect(Set(tie.keys) == Set(Self.jsonKeys), "\(tie)") }
        #expect(ties.compactMap { $0["searchKey"] as? String } == ["R", "O", "Y", "G", "B", "I", "V"])
        #expect(ties[6]["url"] is NSNull, "\(result)")
        let red = ties[0]
        #expect(red["lastWorn"] as? String == "2014-07-01T00:00:00Z")
        #expect(red["tintColor"] as? String == "#C81E2D")
        #expect(red["tags"] as? [String] == [])
        let wears = try #require(red["wears"] as? [[String: Any]])
        #expect(wears.compactMap { $0["date"] as? String } == ["2014-06-30T00:00:00Z", "2014-07-01T00:00:00Z"])
        #expect(wears[0]["note"] is NSNull && wears[1]["note"] as? String == "wedding")
        let blue = try #require(ties[4]["photo"] as? [String: Any])
        #expect(blue["storage"] as? String == "external" && blue["bytes"] as? Int == 242_697)
        #expect((blue["file"] as? String)?.hasPrefix(bowties.externalDataURL.path) == true, "\(blue)")

        // One object per line, between [ and ].
        #expect(result.stdout.hasPrefix("[\n{\"id\":"), "\(result)")
        #expect(result.stdoutLines.count == 7 + 3, "\(result)")
        for arguments in [["list", "--format", "json"], ["list", "--json"], ["export", "--json"]] {
            let other = try bowties.run(arguments: arguments)
            #expect(other.status == 0, "\(other)")
            #expect(other.stdout == result.stdout, "\(other)")
        }
    }

    @Test("JSON Lines: one object per line, the JSON array's objects")
    func jsonLines() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let lines = try bowties.run("list", "--format", "jsonl", "--sort", "name")
        #expect(lines.status == 0, "\(lines)")
        let array = try bowties.run("list", "--format", "json", "--sort", "name")
        let objects = try #require(try array.json() as? [[String: Any]])
        let decoded = try lines.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(decoded.count == 7)
        #expect(decoded.compactMap { $0["searchKey"] as? String } == objects.compactMap { $0["searchKey"] as? String })
        #expect(lines.stdout.hasSuffix("}\n"), "\(lines)")
    }

    @Test("TSV: the CSV's columns, tab-separated with LF line ends")
    func tsv() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let result = try bowties.run("export", "--format", "tsv")
        #expect(result.status == 0, "\(result)")
        #expect(!result.stdout.contains("\r"), "\(result)")
        let rows = result.stdoutLines.dropLast().map { $0.split(separator: "\t", omittingEmptySubsequences: false) }
        #expect(rows.count == 8)
        #expect(rows.first?.map(String.init) == ExportCommandTests.header)
        let csv = try ExportCommandTests.parse(try bowties.run("export").stdout)
        #expect(rows.map { $0.map(String.init) } == csv, "TSV and CSV hold the same cells")
        #expect(try bowties.run("list", "--format", "csv").stdout == (try bowties.run("export").stdout))
    }

    @Test("the property list reads back in Python's plistlib, with dates, reals and Booleans typed")
    func propertyList() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        #expect(try bowties.run("wear", "G", "--on", "2015-01-02", "--note", "A & B <C>").status == 0)
        let file = bowties.directory.appendingPathComponent("ties.plist")
        let result = try bowties.run("export", "--format", "plist", "--output", file.path)
        #expect(result.status == 0, "\(result)")
        let summary = try Self.python(
            """
            import plistlib, sys, json
            ties = plistlib.load(open(sys.argv[1], 'rb'))
            out = []
            for t in ties:
                out.append({k: (v.isoformat() if hasattr(v, 'isoformat') else type(v).__name__ + ':' + str(v)
                                if k in ('rating', 'timesWorn', 'isFavorite') else v)
                            for k, v in t.items()})
            print(json.dumps(out, default=lambda o: o.isoformat()))
            """, file.path)
        let ties = try #require(try JSONSerialization.jsonObject(with: Data(summary.utf8)) as? [[String: Any]])
        #expect(ties.count == 7)
        let red = ties[0]
        #expect(red["name"] as? String == "Classic Red Bow Tie")
        #expect(red["lastWorn"] as? String == "2014-06-19T18:15:24")
        #expect(red["rating"] as? String == "float:3.5")
        #expect(red["timesWorn"] as? String == "int:12")
        #expect(red["isFavorite"] as? String == "bool:False")
        #expect(red["tintColor"] as? String == "#C81E2D")
        #expect((red["photo"] as? [String: Any])?["sha256"] as? String != nil)
        let green = ties[3]
        let wears = try #require(green["wears"] as? [[String: Any]])
        #expect(wears.first?["note"] as? String == "A & B <C>")
        #expect(wears.first?["date"] as? String == "2015-01-02T00:00:00")
        #expect(ties[4]["isFavorite"] as? String == "bool:True")
    }

    @Test("--photos inline: Base64 that decodes to the exact photo bytes, in JSON, JSON Lines, plist and CSV")
    func inlinePhotos() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let json = try bowties.run("export", "--format", "json", "--photos", "inline")
        #expect(json.status == 0, "\(json)")
        let ties = try #require(try json.json() as? [[String: Any]], "\(json)")
        for tie in ties {
            let key = try #require(tie["searchKey"] as? String)
            let image = try Data(
                contentsOf: BowTiesRunner.sampleImagesURL.appendingPathComponent(try #require(Self.images[key])))
            let base64 = try #require(tie["photo"] as? String, "\(key)")
            #expect(Data(base64Encoded: base64) == image, "\(key)")
        }
        let lines = try bowties.run("list", "--format", "jsonl", "--photos", "inline", "--fields", "searchKey,photo")
        let blue = try #require(lines.stdout.split(separator: "\n").first { $0.contains("\"B\"") })
        let object = try #require(try JSONSerialization.jsonObject(with: Data(blue.utf8)) as? [String: Any])
        #expect(
            Data(base64Encoded: object["photo"] as? String ?? "")
                == (try Data(contentsOf: BowTiesRunner.sampleImagesURL.appendingPathComponent("blue.png"))))

        let file = bowties.directory.appendingPathComponent("photos.plist")
        #expect(try bowties.run("export", "--format", "plist", "--photos", "inline", "--output", file.path).status == 0)
        let digests = try Self.python(
            """
            import plistlib, sys, hashlib
            for t in plistlib.load(open(sys.argv[1], 'rb')):
                print(t['searchKey'], hashlib.sha256(t['photo']).hexdigest())
            """, file.path)
        let csv = try ExportCommandTests.parse(try bowties.run("export", "--photos", "inline").stdout)
        #expect(
            csv.first
                == ExportCommandTests.header.prefix(11) + ["photoBase64"] + ExportCommandTests.header.dropFirst(11))
        for row in csv.dropFirst() {
            let image = try Data(
                contentsOf: BowTiesRunner.sampleImagesURL.appendingPathComponent(try #require(Self.images[row[2]])))
            #expect(Data(base64Encoded: row[11]) == image, "\(row[2])")
            #expect(digests.contains("\(row[2]) \(row[10])\n"), "\(digests)")
        }
    }

    @Test("--photos inline with a photo file gone: exit 74 naming it, and no output file")
    func inlinePhotoMissing() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let files = try FileManager.default.contentsOfDirectory(atPath: bowties.externalDataURL.path)
        let gone = try #require(files.sorted().first)
        try FileManager.default.removeItem(at: bowties.externalDataURL.appendingPathComponent(gone))
        let file = bowties.directory.appendingPathComponent("ties.json")
        let result = try bowties.run("export", "--json", "--photos", "inline", "--output", file.path)
        #expect(result.status == 74, "\(result)")
        #expect(result.stderr.contains("missing file"), "\(result)")
        #expect(result.stderr.contains(gone), "\(result)")
        #expect(!FileManager.default.fileExists(atPath: file.path))
        // Hashes need no photo file.
        #expect(try bowties.run("export", "--json").status == 0)
    }

    @Test("--photos none: null in JSON, no key in a plist, no columns in CSV")
    func noPhotos() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let json = try bowties.run("export", "--json", "--photos", "none")
        let ties = try #require(try json.json() as? [[String: Any]], "\(json)")
        #expect(ties.allSatisfy { $0["photo"] is NSNull }, "\(json)")
        let plist = try bowties.run("export", "--format", "plist", "--photos", "none")
        #expect(plist.status == 0 && !plist.stdout.contains("<key>photo</key>"), "\(plist)")
        let csv = try ExportCommandTests.parse(try bowties.run("export", "--photos", "none").stdout)
        #expect(csv.first == ExportCommandTests.header.filter { !$0.hasPrefix("photo") })
        #expect(csv.allSatisfy { $0.count == ExportCommandTests.header.count - 2 })
        // Said once, where a file is written: importing it restores no photo.
        let file = bowties.directory.appendingPathComponent("nophotos.csv")
        let written = try bowties.run("export", "--photos", "none", "--output", file.path)
        #expect(
            written.stderr.hasSuffix(
                "Without photos (--photos none): importing it restores none; ties already in a catalog keep theirs.\n"),
            "\(written)")
    }

    @Test("--fields chooses the columns and their order")
    func fields() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let csv = try bowties.run("export", "--fields", "searchKey,name,tags", "is:favorite")
        #expect(csv.status == 0, "\(csv)")
        #expect(csv.stdout == "searchKey,name,tags\r\nB,Midnight Blue Silk,\r\n", "\(csv)")
        let json = try bowties.run("list", "--json", "--fields", "rating,searchKey", "--sort", "rating", "--reverse")
        #expect(json.stdout.split(separator: "\n")[1] == "{\"rating\":4.75,\"searchKey\":\"B\"},", "\(json)")
        let photo = try bowties.run("export", "--format", "tsv", "--fields", "photo,searchKey")
        #expect(photo.stdoutLines.first == "photoBytes\tphotoSHA256\tsearchKey", "\(photo)")
    }

    @Test(
        "an unknown field exits 64 and suggests the closest; --fields on the table too",
        arguments: [
            (["export", "--fields", "name,ratng"], "unknown field \"ratng\"; did you mean \"rating\"?"),
            (["list", "--format", "jsonl", "--fields", "Tags"], "did you mean \"tags\"?"),
            (["list", "--fields", "name"], "--fields does not apply to the table"),
            (["export", "--json", "--format", "csv"], "--json means --format json"),
            (["export", "--format", "yaml"], "yaml"),
        ])
    func badFields(arguments: [String], message: String) throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let result = try bowties.run(arguments: arguments)
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.contains(message), "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
    }

    @Test(
        "a reader that has gone away ends list and export quietly with status 0",
        arguments: [
            ["list"], ["list", "--format", "csv"], ["list", "--json"], ["list", "--format", "jsonl"],
            ["export", "--format", "plist"], ["export", "--format", "tsv"], ["export"],
        ])
    func closedPipe(arguments: [String]) throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let pipe = Pipe()
        // Closed before the child starts: its first write fails with EPIPE.
        try pipe.fileHandleForReading.close()
        let stderrURL = bowties.directory.appendingPathComponent("stderr")
        try Data().write(to: stderrURL)
        let process = Process()
        process.executableURL = try BowTiesRunner.executableURL()
        process.arguments = arguments
        process.environment = bowties.environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = pipe.fileHandleForWriting
        process.standardError = try FileHandle(forWritingTo: stderrURL)
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationReason == .exit, "killed by signal \(process.terminationStatus)")
        #expect(process.terminationStatus == 0)
        #expect(try String(contentsOf: stderrURL, encoding: .utf8) == "")
    }

    @Test("list | head -1 on a catalog larger than a pipe: the header, and list exits 0 without a word")
    func head() throws {
        let bowties = try BowTiesRunner()
        let plist = bowties.directory.appendingPathComponent("Many.plist")
        try GeneratedPlist.write(to: plist, records: 3000, keyPrefix: "K")
        #expect(try bowties.run("import", plist.path).status == 0)
        for format in ["table", "csv", "jsonl", "plist"] {
            let (status, first, message) = try bowties.piped("list --format \(format)", into: "head -1")
            #expect(status == 0, "\(format): \(message)")
            #expect(message.isEmpty, "\(format): \(message)")
            #expect(first.split(separator: "\n").count == 1, "\(format): \(first)")
        }
    }

    /// Runs a Python 3 script with `arguments`; its standard output.
    static func python(_ script: String, _ arguments: String...) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "python3 failed")
        return String(decoding: data, as: UTF8.self)
    }
}
