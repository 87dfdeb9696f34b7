import CSV
import Foundation
import Testing

@testable import BowTiesKit

/// The CSV export, read back with an independent RFC 4180 parser
/// (CSV.swift): whatever the catalog holds must come back cell for cell.
@Suite("CSV export")
struct ExportTests {
    /// Ties whose text needs quoting, or would run as a formula in a
    /// spreadsheet.
    static let awkward: [BowTie] = [
        BowTie(name: "Plain", searchKey: "P", rating: 4, timesWorn: 3),
        BowTie(
            name: "Comma, \"quotes\"\r\nand lines\nhere", searchKey: "Q", rating: 1.25,
            lastWorn: Date(timeIntervalSince1970: -86_401.5)),
        BowTie(name: "=HYPERLINK(\"http://evil.example\")", searchKey: "F", rating: 0.1),
        // Keys cannot start with - or + (they would read as options or
        // tags to add): @ stands for the formula characters there.
        BowTie(name: "+1", searchKey: "@2", url: URL(string: "https://example.com/?a=1,2")),
        BowTie(name: "-SUM(A1)", searchKey: "\tT", timesWorn: 2_147_483_647),
        BowTie(name: "Crêpe ☃ 🎀", searchKey: "U", tintColor: Color(red8: 1, green8: 2, blue8: 255)),
    ]

    private func export(
        _ ties: [BowTie], spreadsheetSafe: Bool = false
    ) throws -> (text: String, rows: [[String]]) {
        let directory = try TemporaryDirectory()
        let catalog = try Catalog.temporary(in: directory)
        for tie in ties { try catalog.save(tie) }
        let output = directory.path("ties.csv")
        #expect(try catalog.exportCSV(to: .file(output), spreadsheetSafe: spreadsheetSafe) == ties.count)
        let text = try String(contentsOf: output, encoding: .utf8)
        let reader = try CSVReader(string: text, hasHeaderRow: false)
        var rows: [[String]] = []
        while let row = reader.next() { rows.append(row) }
        return (text, rows)
    }

    @Test func everyCellReadsBackAsStored() throws {
        let (text, rows) = try export(Self.awkward)
        #expect(text.hasSuffix("\r\n"))
        #expect(rows.first == Catalog.csvColumns)
        #expect(rows.count == Self.awkward.count + 1)
        for (tie, row) in zip(Self.awkward, rows.dropFirst()) {
            #expect(row.count == Catalog.csvColumns.count)
            #expect(row[0] == tie.id.uuidString)
            #expect(row[1] == tie.name)
            #expect(row[2] == tie.searchKey)
            #expect(Double(row[3]) == tie.rating)
            #expect(Int32(row[4]) == tie.timesWorn)
            #expect(row[5] == (tie.lastWorn.map(ISO8601.string(from:)) ?? ""))
            #expect(row[6] == String(tie.isFavorite))
            #expect(row[7] == (tie.url?.absoluteString ?? ""))
            #expect(row[8] == (tie.tintColor?.hexString ?? ""))
        }
    }

    @Test func datesBefore1970RoundDownToTheSecond() throws {
        let (_, rows) = try export([Self.awkward[1]])
        #expect(rows[1][5] == "1969-12-30T23:59:58Z")
    }

    @Test func spreadsheetSafeDefusesFormulaCellsOnly() throws {
        let (_, rows) = try export(Self.awkward, spreadsheetSafe: true)
        let names = rows.dropFirst().map { $0[1] }
        let keys = rows.dropFirst().map { $0[2] }
        #expect(names[0] == "Plain")
        #expect(names[2] == "'=HYPERLINK(\"http://evil.example\")")
        #expect(names[3] == "'+1" && keys[3] == "'@2")
        #expect(names[4] == "'-SUM(A1)" && keys[4] == "'\tT")
        #expect(names[5] == "Crêpe ☃ 🎀")
        // Numbers and dates are never prefixed.
        #expect(rows[1][3] == "4" && rows[2][5].hasPrefix("1969-"))
    }

    @Test func anEmptyCatalogExportsTheHeaderOnly() throws {
        let (text, rows) = try export([])
        #expect(rows == [Catalog.csvColumns])
        #expect(text == Catalog.csvColumns.joined(separator: ",") + "\r\n")
    }
}
