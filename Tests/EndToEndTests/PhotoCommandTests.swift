import Foundation
import Testing

@Suite("bowties photo")
struct PhotoCommandTests {
    static func sampleImage(_ name: String) throws -> Data {
        try Data(contentsOf: BowTiesRunner.sampleImagesURL.appendingPathComponent(name))
    }

    @Test(
        "--output writes the photo byte for byte, inline (R) or external (B)",
        arguments: [("R", "red.png", "16,698"), ("B", "blue.png", "242,697")])
    func output(key: String, image: String, size: String) throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let file = bowties.directory.appendingPathComponent("out-\(image)")
        let result = try bowties.run("photo", key, "--output", file.path)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.hasPrefix("Wrote the photo of "), "\(result)")
        #expect(result.stdout.hasSuffix(" to \(file.path) (\(size) bytes).\n"), "\(result)")
        #expect(try Data(contentsOf: file) == (try Self.sampleImage(image)))

        let piped = try bowties.run("photo", key, "--output", "-")
        #expect(piped.status == 0)
        #expect(piped.stdoutData == (try Self.sampleImage(image)))
    }

    @Test("only the two large photos are files, named by their SHA-256")
    func externalFiles() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let expected = try ["blue.png", "violet.png"].map { try Self.sampleImage($0).sha256Hex }.sorted()
        #expect(bowties.supportFiles() == expected)
        for name in expected {
            let data = try Data(contentsOf: bowties.externalDataURL.appendingPathComponent(name))
            #expect(try data.sha256Hex == name)
        }
    }

    @Test("without an option, photo describes the photo")
    func describe() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let result = try bowties.run("photo", "R")
        #expect(result.status == 0, "\(result)")
        #expect(
            result.stdout == """
                Photo: PNG image, 16,698 bytes, stored inline
                SHA-256: \(try Self.sampleImage("red.png").sha256Hex)

                """, "\(result)")
    }

    @Test("--set a large photo replaces the file; the old file goes when nothing uses it")
    func setLargePhoto() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        // No undo history: a photo no tie uses goes at once.
        #expect(try bowties.run("config", "--undo-limit", "0").status == 0)
        let blue = try Self.sampleImage("blue.png").sha256Hex
        let violet = try Self.sampleImage("violet.png").sha256Hex

        // 200,000 bytes that no compression could make small, after a
        // PNG's signature.
        var generator = SystemRandomNumberGenerator()
        let large =
            Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
            + Data((8..<200_000).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let file = bowties.directory.appendingPathComponent("large.png")
        try large.write(to: file)
        let largeHash = try large.sha256Hex
        let set = try bowties.run("photo", "B", "--set", file.path)
        #expect(set.status == 0, "\(set)")
        #expect(set.stdout.hasPrefix("Saved the photo of Midnight Blue Silk (B).\n"), "\(set)")
        #expect(set.stdout.contains("200,000 bytes, external file"), "\(set)")
        #expect(bowties.supportFiles() == [largeHash, violet].sorted())
        #expect(try bowties.run("photo", "B", "--output", "-").stdoutData == large)

        // The same photo on two ties is one file, kept until both let go.
        #expect(try bowties.run("photo", "R", "--set", file.path).status == 0)
        #expect(bowties.supportFiles() == [largeHash, violet].sorted())
        #expect(try bowties.run("photo", "B", "--remove").status == 0)
        #expect(bowties.supportFiles() == [largeHash, violet].sorted())
        #expect(try bowties.run("photo", "R", "--remove").status == 0)
        #expect(bowties.supportFiles() == [violet])
        #expect(!bowties.supportFiles().contains(blue))
    }

    @Test("--set a small photo stores it inline")
    func setSmallPhoto() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        // No undo history: a photo no tie uses goes at once.
        #expect(try bowties.run("config", "--undo-limit", "0").status == 0)
        let result = try bowties.run(
            "photo", "B", "--set", BowTiesRunner.sampleImagesURL.appendingPathComponent("red.png").path)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("Photo: PNG image, 16,698 bytes, stored inline"), "\(result)")
        #expect(bowties.supportFiles() == [try Self.sampleImage("violet.png").sha256Hex])
    }

    @Test("--remove removes an inline photo, and an external one with its file")
    func remove() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        // No undo history: a photo no tie uses goes at once.
        #expect(try bowties.run("config", "--undo-limit", "0").status == 0)
        let red = try bowties.run("photo", "R", "--remove")
        #expect(red.status == 0, "\(red)")
        #expect(
            red.stdout == "Removed the photo of Classic Red Bow Tie (R).\nClassic Red Bow Tie (R) has no photo.\n",
            "\(red)")
        #expect(try bowties.run("show", "R").stdoutLines.contains("Photo: none"))
        let output = try bowties.run(
            "photo", "R", "--output", bowties.directory.appendingPathComponent("none.png").path)
        #expect(output.status == 1, "\(output)")

        #expect(try bowties.run("photo", "V", "--remove").status == 0)
        #expect(bowties.supportFiles() == [try Self.sampleImage("blue.png").sha256Hex])
    }

    @Test("a damaged photo file is detected on read")
    func damagedFile() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let name = try Self.sampleImage("blue.png").sha256Hex
        let path = bowties.externalDataURL.appendingPathComponent(name).path
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        try Data("not the photo".utf8).write(to: URL(fileURLWithPath: path))
        let result = try bowties.run("photo", "B", "--output", "-")
        #expect(result.status == 74, "\(result)")
        #expect(result.stdoutData.isEmpty, "\(result)")
        #expect(result.stderr.contains("damaged file \(path): truncated, 13 of 242697 bytes"), "\(result)")
    }

    @Test("--set and --remove together are a usage error, exit 64")
    func conflictingOptions() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let result = try bowties.run("photo", "R", "--set", "a", "--remove")
        #expect(result.status == 64, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        #expect(result.stderr.hasPrefix("bowties: error: choose one of --output, --set and --remove."), "\(result)")
        #expect(result.stderr.contains("hint: `bowties photo --help`"), "\(result)")
    }

    @Test(
        "--set of a text file or an empty file is refused, exit 65, nothing changed",
        arguments: [
            ("notes.txt", Data("hello world\n".utf8), "is not an image (it starts with \"hello wo\")"),
            ("empty.png", Data(), "is empty, not an image"),
            (
                "noise.png", Data([0x00, 0x01, 0x02, 0x03, 0x04]),
                "is not an image (it starts with 0x00 0x01 0x02 0x03)"
            ),
        ])
    func setRefusesWhatIsNotAnImage(name: String, bytes: Data, reason: String) throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let file = bowties.directory.appendingPathComponent(name)
        try bytes.write(to: file)
        let before = try StoreSnapshot(storeURL: bowties.storeURL)
        let result = try bowties.run("photo", "R", "--set", file.path)
        #expect(result.status == 65, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        #expect(
            result.stderr == """
                bowties: error: \(file.path) \(reason)
                hint: A photo is a PNG, JPEG, GIF, WebP or HEIC image file.

                """, "\(result)")
        let after = try StoreSnapshot(storeURL: bowties.storeURL)
        #expect(after == before, "\(after.difference(from: before))")
        #expect(try bowties.run("show", "R").stdoutLines.contains("Photo: PNG image, 16,698 bytes, stored inline"))
    }

    @Test("--set with a missing file exits 66")
    func missingPhotoFile() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let result = try bowties.run("photo", "R", "--set", bowties.directory.appendingPathComponent("none.png").path)
        #expect(result.status == 66, "\(result)")
        #expect(try bowties.run("show", "R").stdoutLines.contains("Photo: PNG image, 16,698 bytes, stored inline"))
    }
}

extension Data {
    /// Lowercase hex SHA-256, as external photo files are named: computed
    /// by coreutils' `sha256sum`, independently of the code under test.
    var sha256Hex: String {
        get throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["sha256sum"]
            let input = Pipe()
            let output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            try process.run()
            // sha256sum reads all its input before it writes: no deadlock.
            try input.fileHandleForWriting.write(contentsOf: self)
            try input.fileHandleForWriting.close()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return String(text.prefix(64))
        }
    }
}
