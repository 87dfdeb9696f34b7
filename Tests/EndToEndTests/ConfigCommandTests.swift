import Foundation
import Testing

@Suite("bowties config")
struct ConfigCommandTests {
    @Test("config shows the store, the photo folder and the threshold")
    func show() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let result = try bowties.run("config")
        #expect(result.status == 0, "\(result)")
        #expect(
            result.stdout == """
                Catalog: \(bowties.storeURL.path)
                Bow ties: 7
                Photo files: \(bowties.externalDataURL.path)
                Photo threshold: 102,400 bytes
                Undo history: the last 100 actions

                """, "\(result)")
    }

    @Test("--photo-threshold applies to photos saved from then on")
    func threshold() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let set = try bowties.run("config", "--photo-threshold", "1000", "--json")
        #expect(set.status == 0, "\(set)")
        let settings = try #require(try set.json() as? [String: Any], "\(set)")
        #expect(settings["photoThreshold"] as? Int == 1000)
        #expect(settings["bowTies"] as? Int == 7)

        // R's photo stays inline; a new photo of 5,000 bytes goes to a file.
        #expect(try bowties.run("show", "R").stdoutLines.contains("Photo: PNG image, 16,698 bytes, stored inline"))
        // A PNG's signature, then bytes to make 5,000: an image as far as
        // bowties looks.
        let small = bowties.directory.appendingPathComponent("small.png")
        try (Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data(repeating: 7, count: 4992)).write(to: small)
        let result = try bowties.run("photo", "R", "--set", small.path)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("5,000 bytes, external file \(bowties.externalDataURL.path)/"), "\(result)")
        #expect(bowties.supportFiles().count == 3)
    }

    @Test("a negative threshold is a usage error")
    func negative() throws {
        let bowties = try BowTiesRunner()
        let result = try bowties.run("config", "--photo-threshold", "-5")
        #expect(result.status == 64, "\(result)")
        #expect(!FileManager.default.fileExists(atPath: bowties.storeURL.path))
    }
}
