import Foundation
import Testing

@Suite("bowties import")
struct ImportCommandTests {
    @Test("importing the sample data twice adds 7, then leaves 7 unchanged")
    func importTwice() throws {
        let bowties = try BowTiesRunner()
        let first = try bowties.run("import", BowTiesRunner.sampleDataURL.path)
        #expect(first.status == 0, "\(first)")
        #expect(first.stdout.contains("added 7, updated 0, unchanged 0"), "\(first)")
        #expect(first.stdout.contains("7 photos saved; 2 new files in \(bowties.externalDataURL.path)"), "\(first)")
        #expect(first.stderr.isEmpty, "\(first)")

        let second = try bowties.run("import", BowTiesRunner.sampleDataURL.path)
        #expect(second.status == 0, "\(second)")
        #expect(second.stdout.contains("added 0, updated 0, unchanged 7"), "\(second)")
        #expect(second.stderr.isEmpty, "\(second)")
    }

    @Test("without a file, import reads the bundled sample data")
    func importBundledSampleData() throws {
        let bowties = try BowTiesRunner()
        let result = try bowties.run("import")
        #expect(result.status == 0, "\(result)")
        #expect(
            result.stdout.hasPrefix("Imported SampleData.plist into \(bowties.storeURL.path): added 7"), "\(result)")
    }

    @Test("--store wins over $BOWTIES_STORE")
    func explicitStore() throws {
        let bowties = try BowTiesRunner()
        let other = bowties.directory.appendingPathComponent("other/ties.sqlite")
        let result = try bowties.run("import", "--store", other.path)
        #expect(result.status == 0, "\(result)")
        #expect(FileManager.default.fileExists(atPath: other.path))
        #expect(!FileManager.default.fileExists(atPath: bowties.storeURL.path))
        // External photos go beside that store, named after it.
        let external = bowties.directory.appendingPathComponent("other/.ties_SUPPORT/_EXTERNAL_DATA")
        #expect(try FileManager.default.contentsOfDirectory(atPath: external.path).count == 2)
    }

    @Test("--dry-run reports the counts and writes nothing")
    func dryRun() throws {
        let bowties = try BowTiesRunner()
        let result = try bowties.run("import", "--dry-run")
        #expect(result.status == 0, "\(result)")
        #expect(
            result.stdout.contains(
                "Dry run of SampleData.plist, nothing written: would have added 7, updated 0, unchanged 0."),
            "\(result)")
        #expect(try bowties.tieCount() == 0)
        #expect(bowties.supportFiles().isEmpty)
    }

    @Test("a re-import keeps what was worn and rated; --update restores the file's values")
    func update() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        #expect(try bowties.run("rate", "R", "5").status == 0)

        let again = try bowties.run("import")
        #expect(again.stdout.contains("added 0, updated 0, unchanged 7"), "\(again)")
        #expect(try bowties.run("show", "R").stdoutLines.contains("Rating: 5/5"))

        let update = try bowties.run("import", "--update")
        #expect(update.status == 0, "\(update)")
        #expect(update.stdout.contains("added 0, updated 1, unchanged 6"), "\(update)")
        #expect(try bowties.run("show", "R").stdoutLines.contains("Rating: 3.5/5"))
    }

    @Test("--update changes only the fields the file has")
    func updateOnlyGivenFields() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        #expect(try bowties.run("rate", "R", "5").status == 0)
        func file(_ entries: String) throws -> String {
            try bowties.write(
                """
                <?xml version="1.0" encoding="UTF-8"?>
                <plist version="1.0">
                <array><dict>
                <key>id</key><string>B77AF80E-55E7-4111-B05C-A5641DE4D6B3</string>
                <key>name</key><string>Classic Red Bow Tie</string>
                \(entries)
                </dict></array>
                </plist>
                """, to: "Update.plist"
            ).path
        }

        let withoutRating = try bowties.run("import", "--update", try file("<key>isFavorite</key><true/>"))
        #expect(withoutRating.status == 0, "\(withoutRating)")
        #expect(withoutRating.stdout.contains("added 0, updated 1, unchanged 0"), "\(withoutRating)")
        var show = try bowties.run("show", "R")
        #expect(show.stdoutLines.contains("Rating: 5/5"), "\(show)")
        #expect(show.stdoutLines.contains("Favourite: yes"), "\(show)")
        #expect(show.stdoutLines.contains("# times worn: 12"), "\(show)")
        #expect(show.stdoutLines.contains { $0.hasPrefix("Photo: PNG image") }, "\(show)")

        let withRating = try bowties.run("import", "--update", try file("<key>rating</key><real>2</real>"))
        #expect(withRating.status == 0, "\(withRating)")
        show = try bowties.run("show", "R")
        #expect(show.stdoutLines.contains("Rating: 2/5"), "\(show)")
        #expect(show.stdoutLines.contains("Favourite: yes"), "\(show)")
    }

    @Test("a missing file exits 66")
    func missingFile() throws {
        let bowties = try BowTiesRunner()
        let result = try bowties.run("import", bowties.directory.appendingPathComponent("nowhere.plist").path)
        #expect(result.status == 66, "\(result)")
        #expect(result.stderr.hasPrefix("bowties: error: "), "\(result)")
        #expect(result.stderr.contains("nowhere.plist"), "\(result)")
    }

    @Test("malformed XML exits 65 with file:line:column and imports nothing")
    func malformedPlist() throws {
        let bowties = try BowTiesRunner()
        let file = try bowties.write(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0">
            <array>
            \t<dict>
            \t\t<key>name</key>
            \t\t<string>Fine</string>
            \t\t<key>searchKey</key>
            \t\t<string>F</string>
            \t</dict>
            \t<dict>
            \t\t<key>name</key>
            \t\t<string>Broken</strong>
            \t</dict>
            </array>
            </plist>

            """, to: "Broken.plist")
        let result = try bowties.run("import", file.path)
        #expect(result.status == 65, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        #expect(result.stderr.hasPrefix("bowties: error: Broken.plist:12:"), "\(result)")
        #expect(try bowties.tieCount() == 0)
    }

    @Test("a broken binary property list is refused with its byte offset, exit 65")
    func binaryPlist() throws {
        let bowties = try BowTiesRunner()
        let file = bowties.directory.appendingPathComponent("Binary.plist")
        try Data("bplist00\u{D0}\u{08}\u{00}\u{00}".utf8).write(to: file)
        let result = try bowties.run("import", file.path)
        #expect(result.status == 65, "\(result)")
        #expect(result.stderr.hasPrefix("bowties: error: Binary.plist: byte "), "\(result)")
        #expect(try bowties.tieCount() == 0)
    }

    @Test("an XML external entity is refused and the file it names is never read")
    func externalEntity() throws {
        let bowties = try BowTiesRunner()
        let secret = "TOP-SECRET-\(UUID().uuidString)"
        let secretFile = try bowties.write(secret + "\n", to: "secret.txt")
        let file = try bowties.write(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist [
              <!ENTITY xxe SYSTEM "file://\(secretFile.path)">
            ]>
            <plist version="1.0">
            <array>
            \t<dict>
            \t\t<key>name</key>
            \t\t<string>&xxe;</string>
            \t\t<key>searchKey</key>
            \t\t<string>X</string>
            \t</dict>
            </array>
            </plist>

            """, to: "Entity.plist")
        let result = try bowties.run("import", file.path)
        #expect(result.status == 65, "\(result)")
        #expect(result.stderr.contains("Entity.plist:2:1:"), "\(result)")
        #expect(result.stderr.contains("internal DTD subset"), "\(result)")

        // The same entity referenced without a declaration is refused too.
        let undeclared = try bowties.write(
            try String(contentsOf: file, encoding: .utf8)
                .replacingOccurrences(
                    of: "<!DOCTYPE plist [\n  <!ENTITY xxe SYSTEM \"file://\(secretFile.path)\">\n]>\n", with: ""),
            to: "Undeclared.plist")
        let second = try bowties.run("import", undeclared.path)
        #expect(second.status == 65, "\(second)")
        #expect(second.stderr.contains("&xxe;"), "\(second)")

        #expect(try bowties.tieCount() == 0)
        let list = try bowties.run("list", "--json")
        let export = try bowties.run("export")
        for output in [result, second, list, export].flatMap({ [$0.stdout, $0.stderr] }) {
            #expect(!output.contains(secret))
        }
        // Nor in any file the commands left: store, WAL, photo folder.
        let files = FileManager.default.enumerator(atPath: bowties.directory.path)
        while let name = files?.nextObject() as? String {
            if name == "secret.txt" { continue }
            let url = bowties.directory.appendingPathComponent(name)
            guard let bytes = try? Data(contentsOf: url) else { continue }  // a folder
            #expect(bytes.range(of: Data(secret.utf8)) == nil, "the secret is in \(name)")
        }
    }

    @Test("one invalid record (the fifth of seven) stops the import: no tie, no photo file")
    func invalidFifthRecord() throws {
        let bowties = try BowTiesRunner()
        // The fifth record is B, whose photo is external: its file must not
        // survive the failed import either.
        let sample = try String(contentsOf: BowTiesRunner.sampleDataURL, encoding: .utf8)
        let invalid = sample.replacingOccurrences(of: "<real>4.75</real>", with: "<real>7</real>")
        try #require(invalid != sample)
        let file = try bowties.write(invalid, to: "Invalid.plist")
        let line = invalid.components(separatedBy: "\n").firstIndex { $0.contains("<real>7</real>") }.map { $0 + 1 }

        let result = try bowties.run("import", file.path, "--images", BowTiesRunner.sampleImagesURL.path)
        #expect(result.status == 65, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        #expect(result.stderr.contains("Invalid.plist:\(line ?? 0):"), "\(result)")
        #expect(result.stderr.contains("record 5 (B \"Midnight Blue Silk\")"), "\(result)")
        #expect(result.stderr.contains("rating is too large."), "\(result)")
        #expect(try bowties.tieCount() == 0)
        #expect(bowties.supportFiles().isEmpty, "\(bowties.supportFiles())")
    }

    @Test("a dry run next to a real import on a new store never removes what the import wrote")
    func concurrentDryRun() throws {
        for round in 0..<10 {
            let bowties = try BowTiesRunner()
            let binary = try BowTiesRunner.executableURL()
            let processes = try [["import"], ["import", "--dry-run"]].map { arguments -> Process in
                let process = Process()
                process.executableURL = binary
                process.arguments = arguments
                process.environment = bowties.environment
                process.standardInput = FileHandle.nullDevice
                process.standardOutput = FileHandle.nullDevice
                process.standardError = FileHandle.nullDevice
                try process.run()
                return process
            }
            processes.forEach { $0.waitUntilExit() }
            #expect(processes[0].terminationStatus == 0, "round \(round): the real import failed")
            #expect(processes[1].terminationStatus == 0, "round \(round): the dry run failed")
            #expect(try bowties.tieCount() == 7, "round \(round): the imported catalog is gone")
        }
    }

    @Test("a missing image is a warning; the tie is imported without a photo")
    func missingImage() throws {
        let bowties = try BowTiesRunner()
        let file = try bowties.write(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0">
            <array>
            \t<dict>
            \t\t<key>name</key>
            \t\t<string>No Photo</string>
            \t\t<key>searchKey</key>
            \t\t<string>N</string>
            \t\t<key>imageName</key>
            \t\t<string>nowhere</string>
            \t</dict>
            </array>
            </plist>

            """, to: "NoPhoto.plist")
        let result = try bowties.run("import", file.path)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("added 1, updated 0, unchanged 0"), "\(result)")
        #expect(result.stderr.hasPrefix("bowties: warning: NoPhoto.plist:10:"), "\(result)")
        #expect(result.stderr.contains("image \"nowhere\" not found"), "\(result)")
        #expect(try bowties.run("show", "N").stdoutLines.contains("Photo: none"))
    }

    @Test("an image name that leaves the images folder is refused")
    func imageOutsideFolder() throws {
        let bowties = try BowTiesRunner()
        let file = try bowties.write(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0">
            <array>
            \t<dict>
            \t\t<key>name</key>
            \t\t<string>Sneaky</string>
            \t\t<key>imageName</key>
            \t\t<string>../secret.txt</string>
            \t</dict>
            </array>
            </plist>

            """, to: "Sneaky.plist")
        let result = try bowties.run("import", file.path)
        #expect(result.status == 65, "\(result)")
        #expect(result.stderr.contains("leaves the images folder"), "\(result)")
        #expect(try bowties.tieCount() == 0)
    }
}

extension BowTiesRunner {
    /// The number of ties `list --json` reports; 0 when there is no store
    /// at all (a failed or dry-run import may leave none behind).
    func tieCount() throws -> Int {
        let result = try run("list", "--json")
        if result.status == 66, !FileManager.default.fileExists(atPath: storeURL.path) { return 0 }
        try #require(result.status == 0, "\(result)")
        return try #require(try result.json() as? [Any], "\(result)").count
    }
}
