import Foundation
import Testing

@Suite("bowties delete")
struct DeleteCommandTests {
    @Test("delete removes the tie, and its photo file")
    func delete() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let result = try bowties.run("delete", "V")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "Deleted Violet Velvet (V).\n", "\(result)")
        #expect(try bowties.tieCount() == 6)
        // Kept while `undo` may bring the tie back; gone with the history.
        #expect(bowties.supportFiles().count == 2)
        #expect(try bowties.run("config", "--undo-limit", "0").status == 0)
        #expect(bowties.supportFiles().count == 1)

        let again = try bowties.run("show", "V")
        #expect(again.status == 1, "\(again)")
        #expect(again.stderr.hasPrefix("bowties: error: no bow tie has the search key or id \"V\""), "\(again)")
    }

    @Test("deleting a tie whose photo another tie shares keeps the file")
    func sharedPhoto() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        #expect(try bowties.run("config", "--undo-limit", "0").status == 0)
        let violet = BowTiesRunner.sampleImagesURL.appendingPathComponent("violet.png").path
        #expect(try bowties.run("photo", "B", "--set", violet).status == 0)
        #expect(bowties.supportFiles().count == 1)
        #expect(try bowties.run("delete", "V").status == 0)
        #expect(bowties.supportFiles().count == 1)
        #expect(
            try bowties.run("photo", "B", "--output", "-").stdoutData
                == (try Data(contentsOf: URL(fileURLWithPath: violet))))
        #expect(try bowties.run("delete", "B").status == 0)
        #expect(bowties.supportFiles().isEmpty)
    }

    @Test("deleting an unknown key exits 1 and deletes nothing")
    func unknownKey() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let result = try bowties.run("delete", "Z")
        #expect(result.status == 1, "\(result)")
        #expect(try bowties.tieCount() == 7)
    }
}
