import Foundation
import Testing

@testable import BowTiesKit

/// `import --update` changes only the fields the file has.
extension ImportTests {
    /// A plist of one record for R (by its id) with these extra entries.
    private func updateFile(_ entries: String, in directory: TemporaryDirectory) throws -> URL {
        try directory.write(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0">
            <array>
            <dict>
            <key>id</key><string>B77AF80E-55E7-4111-B05C-A5641DE4D6B3</string>
            <key>name</key><string>Classic Red Bow Tie</string>
            \(entries)
            </dict>
            </array>
            </plist>
            """, to: "update/Update.plist")
    }

    @Test func anUpdateLeavesWhatTheFileLeavesOut() throws {
        let directory = try TemporaryDirectory()
        let catalog = try Catalog.temporary(in: directory)
        try catalog.importPropertyList(at: Fixtures.samplePlist)
        try catalog.wear("R")
        try catalog.tag("R", with: ["formal"])
        let before = try catalog.bowTie(matching: "R")

        let file = try updateFile("<key>isFavorite</key><true/>", in: directory)
        let report = try catalog.importPropertyList(at: file, options: ImportOptions(update: true))
        #expect(report.updated == 1 && report.unchanged == 0)
        let after = try catalog.bowTie(matching: "R")
        #expect(after.isFavorite)
        #expect(after.rating == 3.5)
        #expect(after.searchKey == "R")
        #expect(after.url == before.url)
        #expect(after.tintColor == before.tintColor)
        #expect(after.timesWorn == 13)
        #expect(after.lastWorn == before.lastWorn)
        #expect(after.photo == before.photo)
        #expect(after.tags == ["formal"])

        // The same file again changes nothing.
        let again = try catalog.importPropertyList(at: file, options: ImportOptions(update: true))
        #expect(again.updated == 0 && again.unchanged == 1)
    }

    /// The ids an update has updated are kept in a temporary table, not in
    /// memory: a stored record updated twice by one file is still refused,
    /// and the table goes with the import (a second import, a dry run).
    @Test func aStoredRecordUpdatedTwiceByOneFileIsRefused() throws {
        let directory = try TemporaryDirectory()
        let catalog = try Catalog.temporary(in: directory)
        try catalog.importPropertyList(at: Fixtures.samplePlist)
        let red = "<dict><key>id</key><string>B77AF80E-55E7-4111-B05C-A5641DE4D6B3</string>"
        let file = try directory.write(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><array>
            \(red)<key>rating</key><real>1</real></dict>
            \(red)<key>rating</key><real>2</real></dict>
            </array></plist>
            """, to: "update/Twice.plist")
        for dryRun in [false, true, false] {
            do {
                try catalog.importPropertyList(at: file, options: ImportOptions(update: true, dryRun: dryRun))
                Issue.record("a record updated twice was imported")
            } catch let error as ImportError {
                #expect(error.recordNumber == 2 && error.field == "id")
                #expect(error.message.contains("appears more than once in this file"), "\(error.message)")
            }
            #expect(try catalog.bowTie(matching: "R").rating == 3.5)
        }
        // Once: updated, then unchanged.
        let once = try directory.write(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><array>\(red)<key>rating</key><real>1</real></dict></array></plist>
            """, to: "update/Once.plist")
        #expect(try catalog.importPropertyList(at: once, options: ImportOptions(update: true)).updated == 1)
        #expect(try catalog.importPropertyList(at: once, options: ImportOptions(update: true)).unchanged == 1)
    }

    @Test func anUpdateWithoutTheNameKeepsTheStoredName() throws {
        let directory = try TemporaryDirectory()
        let catalog = try Catalog.temporary(in: directory)
        try catalog.importPropertyList(at: Fixtures.samplePlist)
        let file = try directory.write(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><array>
            <dict><key>id</key><string>B77AF80E-55E7-4111-B05C-A5641DE4D6B3</string>
            <key>rating</key><real>1.5</real></dict>
            </array></plist>
            """, to: "update/NoName.plist")
        let report = try catalog.importPropertyList(at: file, options: ImportOptions(update: true))
        #expect(report.updated == 1)
        let after = try catalog.bowTie(matching: "R")
        #expect(after.name == "Classic Red Bow Tie")
        #expect(after.rating == 1.5)

        // Without --update, and for a record that is not stored, the name
        // is required, as always (1570, located).
        let plain = #expect(throws: ImportError.self) {
            try catalog.importPropertyList(at: file)
        }
        #expect(plain?.validation?.code == .missingMandatoryProperty)
        let new = try directory.write(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><array>
            <dict><key>id</key><string>00000000-0000-4000-8000-000000000001</string>
            <key>rating</key><real>1.5</real></dict>
            </array></plist>
            """, to: "update/NewNoName.plist")
        let refused = #expect(throws: ImportError.self) {
            try catalog.importPropertyList(at: new, options: ImportOptions(update: true))
        }
        #expect(refused?.validation?.code == .missingMandatoryProperty)
        #expect(refused?.location?.line == 3)
        #expect(try catalog.count() == 7)
    }

    @Test func anUpdateChangesWhatTheFileHas() throws {
        let directory = try TemporaryDirectory()
        let catalog = try Catalog.temporary(in: directory)
        try catalog.importPropertyList(at: Fixtures.samplePlist)

        let file = try updateFile(
            "<key>rating</key><real>1.5</real><key>timesWorn</key><integer>20</integer>", in: directory)
        let report = try catalog.importPropertyList(at: file, options: ImportOptions(update: true))
        #expect(report.updated == 1)
        let after = try catalog.bowTie(matching: "R")
        #expect(after.rating == 1.5)
        #expect(after.timesWorn == 20)
        #expect(after.searchKey == "R")
        #expect(after.photo != nil)
    }

    @Test func withoutUpdateAnExistingRecordIsLeftAlone() throws {
        let directory = try TemporaryDirectory()
        let catalog = try Catalog.temporary(in: directory)
        try catalog.importPropertyList(at: Fixtures.samplePlist)
        let file = try updateFile("<key>rating</key><real>1.5</real>", in: directory)
        let report = try catalog.importPropertyList(at: file)
        #expect(report.unchanged == 1)
        #expect(try catalog.bowTie(matching: "R").rating == 3.5)
    }
}
