import Foundation
import Testing

@testable import BowTiesKit

/// The PostgreSQL store's frozen migrations against the declaration, on a
/// real server (``PostgreSQLServer``, started and stopped per test).
@Suite("PostgreSQL schema")
struct PostgreSQLSchemaTests {
    /// The address of a new database, with the owner's password (in-process
    /// libpq reads no `PGPASSWORD` the test does not set for everyone).
    static func database(_ server: PostgreSQLServer) throws -> URL {
        let address = try server.createDatabase().replacingOccurrences(
            of: "://\(PostgreSQLServer.owner)@", with: "://\(PostgreSQLServer.owner):\(PostgreSQLServer.ownerPassword)@")
        return try #require(URL(string: address))
    }

    @Test("the migrated schema is what BowTieModel declares")
    func migratedSchemaMatchesTheDeclaration() throws {
        let server = try PostgreSQLServer()
        defer { server.stop() }
        let catalog = try Catalog(url: Self.database(server), mode: .createIfMissing)
        let live = try catalog.read { try PostgreSQLStore.liveSchema($0) }
        let expected = BowTieModel.model.postgreSQLSchema
        #expect(
            live == expected,
            """
            The PostgreSQL migrations and BowTieModel disagree. A released migration is never edited: add one at \
            the end of PostgreSQLStore.migrations.
            missing: \(Set(expected).subtracting(live).sorted().joined(separator: "\n"))
            not declared: \(Set(live).subtracting(expected).sorted().joined(separator: "\n"))
            """)
        #expect(try catalog.read { try catalog.store.schemaDifferences($0) }.isEmpty)
        #expect(try catalog.read { try catalog.store.schemaState($0) } == .current)
        // A declaration that runs ahead of the migrations is caught, in words.
        var entity = BowTieModel.entity
        entity.attributes.append(AttributeDescription("wornWith", .string, isOptional: false))
        let ahead = ObjectModel(entities: [entity] + BowTieModel.model.entities.dropFirst())
        #expect(
            Set(ahead.postgreSQLSchema).subtracting(live)
                == ["column bowtie.wornWith text not null", "column undo_bowtie.wornWith text"])
    }

    @Test("the undo history's tables, functions and triggers in v1 are the ones the declaration generates")
    func frozenUndoStatementsAreTheGeneratedOnes() throws {
        let generated = ObjectModel.postgreSQLUndoInfrastructureSQL + BowTieModel.model.postgreSQLUndoSQL
        let notifying = BowTieModel.model.postgreSQLNotifySQL.count
        let frozen = try #require(PostgreSQLStore.migrations.first).statements.dropLast(notifying)
            .suffix(generated.count)
        for (written, derived) in zip(frozen, generated) {
            #expect(written == derived)
        }
        #expect(Array(frozen) == generated)
    }

    @Test("the change notifications' function and triggers end v1, as the declaration generates them")
    func frozenNotifyStatementsAreTheGeneratedOnes() throws {
        let generated = BowTieModel.model.postgreSQLNotifySQL
        let frozen = try #require(PostgreSQLStore.migrations.first).statements.suffix(generated.count)
        #expect(Array(frozen) == generated)
        #expect(BowTieModel.model.postgreSQLNotifiedTables.sorted() == ["blob", "bowtie", "bowtie_tag", "setting", "tag", "undo_action", "wear"])
    }

    @Test("v3 drops the photo's foreign key for the statement triggers the declaration generates")
    func frozenPhotoReferenceStatementsAreTheGeneratedOnes() throws {
        let generated = BowTieModel.model.postgreSQLPhotoReferenceSQL
        let v3 = try #require(PostgreSQLStore.migrations.first { $0.identifier.hasPrefix("v3:") })
        #expect(v3.statements.first == #"ALTER TABLE "bowtie" DROP CONSTRAINT "bowtie_photoData_sha256_fkey""#)
        for (written, derived) in zip(v3.statements.dropFirst(), generated) {
            #expect(written == derived)
        }
        #expect(Array(v3.statements.dropFirst()) == generated)
        #expect(
            BowTieModel.model.postgreSQLPhotoReferenceSchema.sorted() == [
                "trigger blob blob_referenced_delete", "trigger blob blob_referenced_update",
                "trigger bowtie bowtie_photoData_sha256_insert", "trigger bowtie bowtie_photoData_sha256_update",
            ])
    }

    @Test("a value of every kind goes in and comes back as SQLite's would; ? outside quotes only")
    func valuesAndPlaceholders() throws {
        let server = try PostgreSQLServer()
        defer { server.stop() }
        let catalog = try Catalog(url: Self.database(server), mode: .createIfMissing)
        let row = try catalog.read { db in
            try StoreRow.fetchOne(
                db, sql: "SELECT ?::bigint AS n, ? AS t, ?::double precision AS r, ? AS b, NULL AS z, true AS f, '?' AS q",
                arguments: [Int64(7), "seven", 7.5, Data([0, 7, 255])])
        }
        let found = try #require(row)
        #expect(found["n"] == .integer(7) && found[1] == .text("seven") && found["r"] == .real(7.5))
        #expect(try found.decode(Data.self, atIndex: 3) == Data([0, 7, 255]))
        #expect(try found.decode(Int?.self, atIndex: 4) == nil)
        #expect(found["f"] == .integer(1) && found["q"] == .text("?"))
        #expect(try catalog.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM bowtie") } == 0)
    }
}
