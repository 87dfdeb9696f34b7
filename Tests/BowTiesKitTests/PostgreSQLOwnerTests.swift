import Foundation
import Testing

@testable import BowTiesKit

/// Who may upgrade a PostgreSQL catalog's schema, on a database whose
/// schema is one version behind: a store given a history one migration
/// longer than today's (no released bowties has a second PostgreSQL
/// migration yet, so the binary cannot be shown one; the un-migrated
/// database is ``PostgreSQLRoleTests``' on the binary).
@Suite("PostgreSQL: only the owner upgrades the schema")
struct PostgreSQLOwnerTests {
    @Test("an everyday role's write on an out-of-date schema: 77, the owner and migrate named, nothing changed")
    func everydayCannotUpgrade() throws {
        let server = try PostgreSQLServer()
        defer { server.stop() }
        let owner = try PostgreSQLSchemaTests.database(server)
        let made = try Catalog.migrate(url: owner)
        #expect(made.created && made.after == PostgreSQLStore.migrations.count)
        let password = "clerk-\(UInt32.random(in: 100_000...999_999))"
        try server.sql("CREATE ROLE clerk LOGIN PASSWORD '\(password)'")
        try server.sql(
            """
            GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO clerk; \
            GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO clerk
            """, database: "catalog1")
        let clerk = try #require(URL(string: "postgresql://clerk:\(password)@127.0.0.1:\(server.port)/catalog1"))
        let ahead =
            PostgreSQLStore.migrations + [
                PostgreSQLStore.Migration(
                    identifier: "v2: a column for this test", statements: [#"ALTER TABLE "bowtie" ADD COLUMN "extra" integer"#])
            ]
        let history = PostgreSQLStore.migrations.count
        for mode in [Catalog.OpenMode.mustExist, .createIfMissing] {
            do {
                _ = try PostgreSQLStore(url: clerk, mode: mode, wait: WaitPolicy(), model: BowTieModel.model, history: ahead)
                Issue.record("the clerk's store opened in \(mode)")
            } catch let error as CatalogError {
                #expect(error.kind == .permissionDenied)
                #expect(
                    error.message
                        == "only the owner of the database at postgresql://clerk:***@127.0.0.1:\(server.port)/catalog1 "
                        + "(role \"bowties\") can upgrade the catalog's schema (from v\(history) to v\(history + 1), "
                        + "which this version of bowties needs); this is role \"clerk\"; nothing was changed")
                #expect(error.hint?.hasPrefix("The owner runs `bowties migrate --store ADDRESS` once (as bowties)") == true)
                #expect(!error.description.contains(password))
            }
        }
        // Reading needs no upgrade.
        let reader = try PostgreSQLStore(url: clerk, mode: .readOnly, wait: WaitPolicy(), model: BowTieModel.model, history: ahead)
        #expect(try reader.read { try reader.schemaState($0) } == .outdated(pending: ["v2: a column for this test"]))
        #expect(try server.sql(#"SELECT count(*) FROM "bowties_migration""#, database: "catalog1") == "\(history)\n")

        // The owner's write upgrades it, in its own transaction.
        let store = try PostgreSQLStore(url: owner, mode: .mustExist, wait: WaitPolicy(), model: BowTieModel.model, history: ahead)
        _ = try store.transaction(commit: true) { _ in () }
        #expect(try store.read { try store.schemaState($0) } == .current)
        #expect(
            try server.sql(
                "SELECT column_name FROM information_schema.columns WHERE table_name = 'bowtie' AND column_name = 'extra'",
                database: "catalog1") == "extra\n")
    }
}
