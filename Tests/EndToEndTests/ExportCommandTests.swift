import Foundation
import Testing

@Suite("bowties export")
struct ExportCommandTests {
    static let header = [
        "id", "name", "searchKey", "rating", "timesWorn", "lastWorn", "isFavorite", "url", "tintColor",
        "photoBytes", "photoSHA256", "tags", "timesWornBefore", "lastWornBefore", "wears",
    ]

    @Test("CSV with CRLF line ends: a header and one row per tie")
    func csv() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let result = try bowties.run("export")
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.isEmpty, "\(result)")
        let rows = try Self.parse(result.stdout)
        #expect(rows.count == 8, "\(result)")
        #expect(rows.first == Self.header)
        let red = try #require(rows.dropFirst().first)
        #expect(
            red == [
                "B77AF80E-55E7-4111-B05C-A5641DE4D6B3", "Classic Red Bow Tie", "R", "3.5", "12",
                "2014-06-19T18:15:24Z", "false", "https://en.wikipedia.org/wiki/Bow_tie", "#C81E2D", "16698",
                red[10], "", "12", "2014-06-19T18:15:24Z", "[]",
            ])
        #expect(rows.dropFirst().map { $0[2] } == ["R", "O", "Y", "G", "B", "I", "V"])
        #expect(rows.dropFirst().map { $0[6] } == ["false", "false", "false", "false", "true", "false", "false"])
        #expect(rows[4][1] == "Green & Gold Paisley")
        #expect(rows[6][1] == "Indigo Crêpe")
        #expect(rows[5][9] == "242697")
    }

    @Test("--output writes the same CSV to a file and says so on stderr")
    func outputFile() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let file = bowties.directory.appendingPathComponent("ties.csv")
        let result = try bowties.run("export", "--output", file.path)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        #expect(result.stderr == "Exported 7 bow ties to \(file.path).\n", "\(result)")
        #expect(try Data(contentsOf: file) == (try bowties.run("export").stdoutData))
    }

    @Test("an output folder that does not exist exits 73")
    func cannotCreateOutput() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let file = bowties.directory.appendingPathComponent("missing/ties.csv")
        let result = try bowties.run("export", "--output", file.path)
        #expect(result.status == 73, "\(result)")
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    /// Splits RFC 4180 CSV (CRLF line ends, quoted cells) into rows.
    static func parse(_ text: String) throws -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = []
        var cell = ""
        var quoted = false
        var characters = text.unicodeScalars.makeIterator()
        var pending: Unicode.Scalar?
        while let scalar = pending ?? characters.next() {
            pending = nil
            if quoted {
                if scalar == "\"" {
                    let next = characters.next()
                    if next == "\"" {
                        cell.unicodeScalars.append("\"")
                    } else {
                        quoted = false
                        pending = next
                    }
                } else {
                    cell.unicodeScalars.append(scalar)
                }
                continue
            }
            switch scalar {
            case "\"": quoted = true
            case ",":
                row.append(cell)
                cell = ""
            case "\r":
                let next = characters.next()
                try #require(next == "\n", "a CR not followed by LF")
                row.append(cell)
                rows.append(row)
                row = []
                cell = ""
            case "\n":
                Issue.record("a bare LF line end")
            default:
                cell.unicodeScalars.append(scalar)
            }
        }
        #expect(row.isEmpty && cell.isEmpty, "the CSV does not end with CRLF")
        return rows
    }
}
