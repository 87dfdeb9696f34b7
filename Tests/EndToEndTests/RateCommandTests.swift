import Foundation
import Testing

@Suite("bowties rate")
struct RateCommandTests {
    @Test("rate R 4.5 saves the rating")
    func rate() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let result = try bowties.run("rate", "R", "4.5")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "Rated Classic Red Bow Tie (R): 4.5/5\n", "\(result)")
        #expect(try bowties.run("show", "R").stdoutLines.contains("Rating: 4.5/5"))
    }

    @Test(
        "a rating outside 0...5 fails validation, exit 65, and nothing changes",
        arguments: [
            ("6", "rating is too large. (NSValidationNumberTooLargeError 1610"),
            ("-1", "rating is too small. (NSValidationNumberTooSmallError 1620"),
        ])
    func outOfRange(value: String, message: String) throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let result = try bowties.run("rate", "R", value)
        #expect(result.status == 65, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        #expect(result.stderr.hasPrefix("bowties: error: \(message)"), "\(result)")
        #expect(try bowties.run("show", "R").stdoutLines.contains("Rating: 3.5/5"))
    }

    @Test("a rating that is not a number is a usage error, exit 64")
    func notANumber() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let result = try bowties.run("rate", "R", "great")
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.contains("great"), "\(result)")
    }
}
