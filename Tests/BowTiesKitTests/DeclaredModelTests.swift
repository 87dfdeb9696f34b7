import Foundation
import GRDB
import Testing

@testable import BowTiesKit

/// The promise of one declaration: a model with an attribute and an
/// entity the code has never heard of goes through the store, import,
/// validation, JSON, export and check with no other change.
@Suite("A declared model drives everything")
struct DeclaredModelTests {
    /// BowTies' model plus `BowTie.fabric` and an entity `Maker`, linked
    /// many-to-many to bow ties and imported by name from `makers`.
    static let extended: ObjectModel = {
        var bowTie = BowTieModel.entity
        bowTie.attributes.append(AttributeDescription("fabric", .string, minLength: 1, maxLength: 20))
        bowTie.relationships.append(
            RelationshipDescription("makers", to: "Maker", inverse: "bowTies", toMany: true, importKey: "makers"))
        let maker = EntityDescription(
            name: "Maker",
            attributes: [
                AttributeDescription(
                    "name", .string, isOptional: false, minLength: 1, isUnique: true, isCaseInsensitive: true),
                AttributeDescription("founded", .integer32, minValue: 1600),
            ],
            relationships: [RelationshipDescription("bowTies", to: "BowTie", inverse: "makers", toMany: true)],
            nameAttribute: "name")
        return ObjectModel(entities: [bowTie, BowTieModel.wear, BowTieModel.tag, maker])
    }()

    static func plist(_ records: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><array>
        \(records)
        </array></plist>
        """
    }

    static let twoTies = plist(
        """
        <dict><key>name</key><string>Shantung</string><key>searchKey</key><string>S</string>
          <key>fabric</key><string>silk</string>
          <key>makers</key><array><string>Charvet</string><string>Turnbull</string></array>
          <key>tags</key><array><string>formal</string></array></dict>
        <dict><key>name</key><string>Donegal</string><key>searchKey</key><string>D</string>
          <key>fabric</key><string>tweed</string>
          <key>makers</key><array><string>charvet</string></array></dict>
        """)

    @Test("an extra attribute and an extra entity go through import, store, show (JSON) and export")
    func extendedModelRoundTrip() throws {
        let directory = try TemporaryDirectory()
        let model = Self.extended
        let catalog = try Catalog(
            url: directory.path("catalog.sqlite"), model: model, migrator: .creating(model))
        let report = try catalog.importPropertyList(at: try directory.write(Self.twoTies, to: "ties.plist"))
        #expect(report.added == 2 && report.warnings.isEmpty, "\(report)")

        // Stored, and read back by name.
        let silk = try catalog.bowTie(matching: "S")
        #expect(silk.record["fabric"] == .string("silk"))
        #expect(silk.record.names["makers"] == ["Charvet", "Turnbull"])
        #expect(silk.tags == ["formal"])
        // A name that matches ignoring case is the same maker.
        #expect(try catalog.bowTie(matching: "D").record.names["makers"] == ["Charvet"])
        let makers = try catalog.database.read { db in
            try Row.fetchAll(db, sql: "SELECT name, founded FROM maker ORDER BY name").map { $0[0] as String }
        }
        #expect(makers == ["Charvet", "Turnbull"])

        // What `show --json` prints: every attribute, the makers too.
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(RecordJSON(silk.record)))
        let object = try #require(json as? [String: Any])
        #expect(object["fabric"] as? String == "silk")
        #expect(object["makers"] as? [String] == ["Charvet", "Turnbull"])
        #expect(object["timesWorn"] as? Int == 0)

        // Export: the new attribute among the attributes, the new
        // relationship after them.
        let output = directory.path("ties.csv")
        #expect(try catalog.exportCSV(to: .file(output)) == 2)
        let lines = try String(contentsOf: output, encoding: .utf8).components(separatedBy: "\r\n")
        #expect(
            lines[0]
                == "id,name,searchKey,rating,timesWorn,lastWorn,isFavorite,url,tintColor,photoBytes,photoSHA256,fabric,tags,makers,"
                + "timesWornBefore,lastWornBefore,wears"
        )
        #expect(lines[1].hasSuffix(",S,0,0,,false,,,,,silk,formal,\"Charvet, Turnbull\",0,,[]"), "\(lines[1])")

        // The store is what the declaration says, and clean.
        #expect(try catalog.database.read { try model.schemaDifferences($0) }.isEmpty)
        #expect(try catalog.check().problems.isEmpty)

        // Deleting a tie unlinks it from its makers (nullify); they stay.
        try catalog.delete("S")
        let links = try catalog.database.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM bowtie_maker") }
        #expect(links == 1)
        #expect(try catalog.database.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM maker") } == 2)
    }

    @Test("the extra attribute's rules are enforced, with Core Data's code, at its place in the file")
    func extendedModelValidation() throws {
        let directory = try TemporaryDirectory()
        let model = Self.extended
        let catalog = try Catalog(
            url: directory.path("catalog.sqlite"), model: model, migrator: .creating(model))
        let file = try directory.write(
            Self.plist(
                """
                <dict><key>name</key><string>Long</string>
                <key>fabric</key><string>a fabric with a far too long name</string></dict>
                """), to: "bad.plist")
        let error = try #require(throws: ImportError.self) { try catalog.importPropertyList(at: file) }
        #expect(error.field == "fabric")
        #expect(error.validation?.code == .stringTooLong)
        #expect(error.location?.line == 4)
        #expect(try catalog.count() == 0)
    }

    @Test("a deny rule refuses the delete with 1600 and changes nothing; a count rule refuses the save with 1590")
    func denyAndCountRules() throws {
        var model = Self.extended
        model.entities[0].relationships[2].deleteRule = .deny
        model.entities[0].relationships[2].maxCount = 2
        let directory = try TemporaryDirectory()
        let catalog = try Catalog(url: directory.path("catalog.sqlite"), model: model, migrator: .creating(model))
        try catalog.importPropertyList(at: try directory.write(Self.twoTies, to: "ties.plist"))
        let denied = try #require(throws: ValidationError.self) { try catalog.delete("S") }
        #expect(denied.code == .relationshipDeniedDelete)
        #expect(try catalog.count() == 2)

        var tie = try catalog.bowTie(matching: "D")
        tie.record.names["makers"] = ["A", "B", "C"]
        let tooMany = try #require(throws: ValidationError.self) { try catalog.save(tie) }
        #expect(tooMany.code == .relationshipExceedsMaximumCount)
        #expect(try catalog.bowTie(matching: "D").record.names["makers"] == ["Charvet"])
    }

    @Test("a declaration the store cannot hold is refused, with the reason")
    func invalidModels() throws {
        var cascading = BowTieModel.model
        cascading.entities[0].relationships[1].deleteRule = .cascade
        #expect(throws: ModelError.self) { try cascading.validate() }

        var noInverse = BowTieModel.model
        noInverse.entities[1].relationships[0].inverse = "worn"
        #expect(throws: ModelError.self) { try noInverse.validate() }

        try BowTieModel.model.validate()
    }

    @Test("timesWorn and lastWorn follow the history whoever writes it: the store's triggers")
    func derivedAttributesFollowTheHistory() throws {
        let directory = try TemporaryDirectory()
        let catalog = try Catalog.temporary(in: directory)
        try catalog.importPropertyList(at: Fixtures.samplePlist)
        let before = try catalog.bowTie(matching: "R")
        // A wear written with plain SQL, as another tool would.
        try catalog.database.write { db in
            try db.execute(
                sql: "INSERT INTO wear (date, bowTie_id) VALUES (?, ?)",
                arguments: [Date(timeIntervalSince1970: 2_000_000_000).timeIntervalSince1970, before.id.uuidString])
        }
        let after = try catalog.bowTie(matching: "R")
        #expect(after.timesWorn == before.timesWorn + 1)
        #expect(after.lastWorn == Date(timeIntervalSince1970: 2_000_000_000))
        try catalog.database.write { db in try db.execute(sql: "DELETE FROM wear") }
        #expect(try catalog.bowTie(matching: "R") == before)
    }
}
