import Foundation
import GRDB
import Synchronization
import Testing

@testable import BowTiesKit

/// The schema's history (``SQLiteStore/migrator``) against the declaration
/// and against the stores released versions made, and the migrator's
/// promise: every pending migration or none.
@Suite("Schema migrations")
struct SchemaMigrationTests {
    /// The versions whose stores are kept as fixtures (see
    /// `ReleasedStoreTests.releases`).
    static let releases = ["0.1.0", "0.2.0-dev-v3", "0.2.0-dev-v4"]

    struct Planned: Error {}

    // MARK: - Declaration

    @Test("the migrated schema is what BowTieModel declares")
    func migratedSchemaMatchesTheDeclaration() throws {
        let differences = try Self.differencesFromDeclaration(BowTieModel.entity)
        // Whatever the order of its statements, one declaration makes one schema.
        #expect(try Self.differencesFromDeclaration(BowTieModel.entity, migrator: .creating(BowTieModel.model)).isEmpty)
        #expect(
            differences.isEmpty,
            """
            The migrations and BowTieModel disagree. A released migration is never edited: add one at the end of \
            SQLiteStore.migrator (docs/ARCHITECTURE.md, "Adding a migration").
            \(differences.joined(separator: "\n"))
            """)
    }

    @Test("a declaration that runs ahead of the migrations is caught, in words")
    func declarationAheadOfTheMigrationsIsCaught() throws {
        var entity = BowTieModel.entity
        entity.attributes.append(AttributeDescription("wornWith", .string, isOptional: false))
        if let name = entity.attributes.firstIndex(where: { $0.name == "name" }) {
            entity.attributes[name].isUnique = true
        }
        if let timesWorn = entity.attributes.firstIndex(where: { $0.name == "timesWorn" }) {
            entity.attributes[timesWorn].isIndexed = true
        }
        entity.attributes.removeAll { $0.name == "url" }
        let differences = try Self.differencesFromDeclaration(entity)
        #expect(
            Array(differences.prefix(4)) == [
                "bowtie.name: declared as `name TEXT NOT NULL UNIQUE`, the store has `name TEXT NOT NULL`",
                "bowtie.wornWith: declared as `wornWith TEXT NOT NULL`, missing from the store",
                "bowtie.url: `url TEXT` is not declared",
                "bowtie.bowtie_timesWorn (index): declared as `INDEX bowtie_timesWorn(timesWorn)`, "
                    + "missing from the store",
            ], "\(differences)")
        // The undo history's image table and triggers follow the table.
        #expect(
            differences.contains("undo_bowtie.wornWith: declared as `wornWith TEXT`, missing from the store"),
            "\(differences)")
        for trigger in ["bowtie_undo_insert", "bowtie_undo_update", "bowtie_undo_delete"] {
            #expect(differences.contains { $0.hasPrefix("trigger \(trigger): declared as") }, "\(differences)")
        }
    }

    /// How a new store differs from what the model with `entity` as its
    /// bow-tie entity expects.
    static func differencesFromDeclaration(
        _ entity: EntityDescription, migrator: SchemaMigrator = SQLiteStore.migrator
    ) throws -> [String] {
        let queue = try DatabaseQueue()
        try migrator.migrate(queue)
        var model = BowTieModel.model
        model.entities[0] = entity
        return try queue.read { try model.schemaDifferences($0) }
    }

    // MARK: - Released stores

    @Test("the migrations a release applied still make exactly its schema", arguments: releases)
    func releasedMigrationsAreUnchanged(version: String) throws {
        let directory = try TemporaryDirectory()
        let store = try Self.copyReleasedStore(version, into: directory)
        let released = try DatabaseQueue(path: store.path)
        defer { try? released.close() }
        let applied = try released.read { try SchemaMigrator([]).appliedIdentifiers($0) }
        let history = SQLiteStore.migrator.migrations.prefix { applied.contains($0.identifier) }
        try #require(
            Set(history.map(\.identifier)) == applied, "\(version)'s migrations are not the first ones of today's")

        let new = try DatabaseQueue()
        try SchemaMigrator(Array(history)).migrate(new)
        #expect(try new.read(Self.schema) == released.read(Self.schema))
    }

    @Test("a store a release made, once migrated, has a new store's schema", arguments: releases)
    func releasedStoreMigratesToTodaysSchema(version: String) throws {
        let directory = try TemporaryDirectory()
        let released = try DatabaseQueue(path: try Self.copyReleasedStore(version, into: directory).path)
        defer { try? released.close() }
        try SQLiteStore.migrator.migrate(released)
        let new = try DatabaseQueue()
        try SQLiteStore.migrator.migrate(new)
        #expect(try released.read(Self.schema) == new.read(Self.schema))
        #expect(try released.read { try SQLiteStore.migrator.state($0) } == .current)
    }

    // MARK: - One transaction

    @Test("a failing migration leaves a real store byte-identical")
    func failingMigrationChangesNothing() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.copyReleasedStore("0.1.0", into: directory)
        let before = try Self.checksums(directory)
        #expect(before.count == 4, "the store and its three photo files: \(before.keys.sorted())")
        let migrator = SchemaMigrator(
            SQLiteStore.migrator.migrations + [
                SchemaMigration("v2: test, fails") { db in
                    try db.execute(sql: "ALTER TABLE bowtie ADD COLUMN wornWith TEXT")
                    try db.execute(sql: "UPDATE bowtie SET wornWith = 'a white shirt'")
                    throw Planned()
                }
            ])
        try Self.withQueue(store) { queue in
            #expect(throws: Planned.self) { try migrator.migrate(queue) }
            let state = try queue.read { try migrator.state($0) }
            #expect(state == .outdated(pending: Array(SQLiteStore.migrator.identifiers.dropFirst()) + ["v2: test, fails"]))
        }
        #expect(try Self.checksums(directory) == before)
    }

    @Test("a store two versions behind gets both migrations, or neither")
    func pendingMigrationsRunTogether() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.copyReleasedStore("0.1.0", into: directory)
        let before = try Self.checksums(directory)
        let v2 = SchemaMigration("v2: test, a column", sql: "ALTER TABLE bowtie ADD COLUMN wornWith TEXT")
        let failing = SchemaMigration("v3: test, fails") { db in
            try db.execute(sql: "CREATE INDEX bowtie_wornWith ON bowtie(wornWith)")
            throw Planned()
        }
        let working = SchemaMigration("v3: test, an index", sql: "CREATE INDEX bowtie_wornWith ON bowtie(wornWith)")

        try Self.withQueue(store) { queue in
            #expect(throws: Planned.self) {
                try SchemaMigrator(SQLiteStore.migrator.migrations + [v2, failing]).migrate(queue)
            }
        }
        #expect(try Self.checksums(directory) == before, "v2 was kept although v3 failed")

        try Self.withQueue(store) { queue in
            let migrator = SchemaMigrator(SQLiteStore.migrator.migrations + [v2, working])
            let first = try migrator.migrate(queue)
            let second = try migrator.migrate(queue)
            let released = SQLiteStore.migrator.identifiers
            #expect(first == Array(released.dropFirst()) + ["v2: test, a column", "v3: test, an index"])
            #expect(second == [])
            let applied = try queue.read { try migrator.appliedIdentifiers($0) }
            #expect(Set(applied) == Set(released + ["v2: test, a column", "v3: test, an index"]))
            let columns = try queue.read { try $0.columns(in: "bowtie") }
            #expect(columns.contains { $0.name == "wornWith" })
        }
        #expect(try Self.checksums(directory) != before, "the checksums see a committed change")
    }

    @Test("a migration that leaves a broken reference fails, and changes nothing")
    func brokenReferenceFailsTheMigration() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.copyReleasedStore("0.1.0", into: directory)
        let before = try Self.checksums(directory)
        let migrator = SchemaMigrator(
            SQLiteStore.migrator.migrations + [
                SchemaMigration(
                    "v2: test, a dangling photo",
                    sql: "UPDATE bowtie SET photoData_sha256 = 'no such photo' WHERE searchKey = 'V'")
            ])
        try Self.withQueue(store) { queue in
            let broken = SchemaMigrationError.foreignKeyViolations([
                "row 7 of bowtie refers to a row of blob that does not exist"
            ])
            #expect(throws: broken) { try migrator.migrate(queue) }
        }
        #expect(try Self.checksums(directory) == before)
    }

    @Test("a store with a migration unknown here is refused, and left as it is")
    func unknownMigrationIsRefused() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.copyReleasedStore("0.1.0", into: directory)
        try Self.withQueue(store) { queue in
            try queue.write { try $0.execute(sql: "INSERT INTO grdb_migrations VALUES ('v99: the future')") }
        }
        let before = try Self.checksums(directory)
        let migrator = SchemaMigrator(
            SQLiteStore.migrator.migrations + [SchemaMigration("v2: test", sql: "CREATE TABLE wear (id TEXT)")])
        try Self.withQueue(store) { queue in
            #expect(throws: SchemaMigrationError.newerSchema(unknown: ["v99: the future"])) {
                try migrator.migrate(queue)
            }
            let state = try queue.read { try migrator.state($0) }
            #expect(state == .newer(unknown: ["v99: the future"]))
        }
        #expect(try Self.checksums(directory) == before)
    }

    /// As two commands creating the same new store do: each sees an empty
    /// store, then both migrate it.
    @Test("two connections creating the same store both succeed; v1 runs once")
    func concurrentCreation() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("catalog.sqlite").path
        var configuration = Configuration()
        configuration.busyMode = .timeout(30)
        let queues = try (0..<2).map { _ in try DatabaseQueue(path: path, configuration: configuration) }
        let outcomes = Mutex<[String]>([])
        let read = DispatchGroup()
        let done = DispatchGroup()
        for _ in queues {
            read.enter()
            done.enter()
        }
        for queue in queues {
            Thread.detachNewThread {
                defer { done.leave() }
                do {
                    // GRDB caches what it learns of the schema: this must
                    // not decide what the migrator does later.
                    let state = try queue.read { db in
                        _ = try db.tableExists(SchemaMigrator.bookkeepingTable)
                        return try SQLiteStore.migrator.state(db)
                    }
                    read.leave()
                    read.wait()
                    let applied = try SQLiteStore.migrator.migrate(queue)
                    outcomes.withLock { $0.append("\(state) then applied \(applied)") }
                } catch {
                    outcomes.withLock { $0.append("\(error)") }
                }
            }
        }
        done.wait()
        #expect(
            outcomes.withLock { $0.sorted() } == [
                "uncreated then applied \(SQLiteStore.migrator.identifiers)", "uncreated then applied []",
            ])
        let state = try queues[0].read { try SQLiteStore.migrator.state($0) }
        #expect(state == .current)
    }

    // MARK: - Opening a store

    @Test("a store GRDB's migrator left half-made is empty to readers, and writers create it")
    func storeWithOnlyTheBookkeepingTable() throws {
        let directory = try TemporaryDirectory()
        let url = directory.path("catalog.sqlite")
        // GRDB's migrator created its table before v1's transaction: a
        // command killed in between left this.
        try Self.withQueue(url) { queue in
            try queue.write {
                try $0.execute(sql: "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
            }
        }
        let error = try #require(throws: CatalogError.self) { try Catalog(url: url, mode: .readOnly) }
        #expect(error.kind == .storeNotFound && error.message.hasSuffix("is empty"), "\(error)")
        let catalog = try Catalog(url: url, mode: .mustExist)
        #expect(try catalog.database.read { try SQLiteStore.migrator.state($0) } == .current)
        #expect(try catalog.check().isHealthy)
    }

    @Test("a store from a newer version is refused by every command that opens it")
    func newerStoreIsRefused() throws {
        let directory = try TemporaryDirectory()
        let url = try Self.copyReleasedStore("0.1.0", into: directory)
        try Self.withQueue(url) { queue in
            try queue.write { try $0.execute(sql: "INSERT INTO grdb_migrations VALUES ('v99: the future')") }
        }
        for mode in [Catalog.OpenMode.readOnly, .mustExist, .createIfMissing] {
            let error = try #require(throws: CatalogError.self) { try Catalog(url: url, mode: mode) }
            #expect(error.kind == .notAStore, "\(mode)")
            #expect(error.message.hasSuffix("was written by a newer version of bowties"), "\(mode): \(error)")
        }
    }

    // MARK: - Reading an older store

    @Test("every migration but the first has a read shim")
    func everyMigrationHasAReadShim() {
        for migration in SQLiteStore.migrator.migrations.dropFirst() {
            #expect(
                migration.readShim != nil, "\(migration.identifier) has no readShim: reads would refuse older stores")
        }
    }

    @Test("read shims show the store of every earlier schema with today's tables and columns")
    func readShimsShowTodaysTables() throws {
        let new = try DatabaseQueue()
        try SQLiteStore.migrator.migrate(new)
        let expected = try new.read(Self.columnsByTable)
        for applied in 1..<SQLiteStore.migrator.migrations.count {
            let old = try DatabaseQueue()
            try SchemaMigrator(Array(SQLiteStore.migrator.migrations.prefix(applied))).migrate(old)
            let pending = Array(SQLiteStore.migrator.identifiers.dropFirst(applied))
            let installed = try old.writeWithoutTransaction {
                try SQLiteStore.migrator.installReadShims(pending: pending, $0)
            }
            #expect(installed)
            let shimmed = try old.read(Self.columnsByTable)
            #expect(shimmed == expected, "a store with \(applied) migration(s): \(shimmed)")
            // Nothing of the store itself changed.
            #expect(try old.read { try SQLiteStore.migrator.state($0) } == .outdated(pending: pending))
        }
    }

    @Test("a release's store opened to read is read through the shims and left byte-identical", arguments: releases)
    func releasedStoreIsReadAsItIs(version: String) throws {
        let directory = try TemporaryDirectory()
        let url = try Self.copyReleasedStore(version, into: directory)
        var applied = 0
        try Self.withQueue(url) { queue in
            applied = try queue.read { try SchemaMigrator([]).appliedIdentifiers($0) }.count
        }
        let before = try Self.checksums(directory)
        for mode in [Catalog.OpenMode.readOnly, .inspect] {
            let catalog = try Catalog(url: url, mode: mode)
            let current = SQLiteStore.migrator.migrations.count
            #expect(catalog.olderSchema == (applied < current ? .init(store: applied, current: current) : nil))
            #expect(catalog.upgradedSchema == nil)
            #expect(try catalog.count() == 7)
            #expect(try catalog.bowTie(matching: "R").name == "Classic Red Bow Tie")
            if mode == .inspect {
                let report = try catalog.check()
                #expect(report.isHealthy, "\(report.problems)")
                #expect(report.bowTieCount == 7 && report.olderSchema == catalog.olderSchema)
            }
        }
        #expect(try Self.checksums(directory) == before)

        let writer = try Catalog(url: url, mode: .mustExist)
        #expect(writer.olderSchema == nil)
        let current = SQLiteStore.migrator.migrations.count
        #expect(writer.upgradedSchema == (applied < current ? .init(store: applied, current: current) : nil))
        #expect(try Catalog(url: url, mode: .mustExist).upgradedSchema == nil, "upgraded twice")
    }

    /// Every table (and `TEMP` table or view, which hide the store's own
    /// of the same name) with its columns, as a reader's query sees them;
    /// the `rowid` a shim's view names is the table's own.
    static func columnsByTable(_ db: Database) throws -> [String: [String]] {
        let names = try String.fetchSet(
            db,
            sql: """
                SELECT name FROM sqlite_master WHERE type = 'table' \
                UNION SELECT name FROM sqlite_temp_master WHERE type IN ('table', 'view')
                """
        ).filter { !$0.hasPrefix("sqlite_") && $0 != SchemaMigrator.bookkeepingTable }
        var tables: [String: [String]] = [:]
        for name in names {
            tables[name] = try String.fetchAll(
                db, sql: "SELECT name FROM pragma_table_info(?) ORDER BY cid", arguments: [name]
            ).filter { $0 != "rowid" }
        }
        return tables
    }

    // MARK: - Helpers

    /// `sqlite_master`: every table and index, with the SQL that made it.
    ///
    /// An index's table is compared unquoted: v4's `bowtie_id` reads
    /// `ON "bowtie"(id)` in a store the v4 migration upgraded (SQLite
    /// quotes the name when `ALTER TABLE … RENAME` rewrites it) and `ON
    /// bowtie(id)` in one whose first import built it after the records
    /// (`0.2.0-dev-v4`): the same index, as SQLite reads both.
    static func schema(_ db: Database) throws -> [String] {
        try Row.fetchAll(db, sql: "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name").map {
            let table = $0[2] as String
            var sql = $0[3] as String? ?? "(automatic)"
            if ($0[0] as String) == "index" { sql = sql.replacingOccurrences(of: " ON \"\(table)\"(", with: " ON \(table)(") }
            return "\($0[0] as String) \($0[1] as String) on \(table): \(sql)"
        }
    }

    /// Copies the store `version` made (and its photo folder) into
    /// `directory`; returns the copy's SQLite file.
    static func copyReleasedStore(_ version: String, into directory: TemporaryDirectory) throws -> URL {
        let fixture = Fixtures.packageRoot.appendingPathComponent("Tests/EndToEndTests/Fixtures/Stores/\(version)")
        for name in ["catalog.sqlite", ".catalog_SUPPORT"] {
            try FileManager.default.copyItem(
                at: fixture.appendingPathComponent(name), to: directory.url.appendingPathComponent(name))
        }
        return directory.path("catalog.sqlite")
    }

    /// Runs `body` with a connection to `store`, closed afterwards: SQLite
    /// then removes its `-wal` and `-shm` files.
    static func withQueue(_ store: URL, _ body: (DatabaseQueue) throws -> Void) throws {
        let queue = try DatabaseQueue(path: store.path)
        do {
            try body(queue)
        } catch {
            try? queue.close()
            throw error
        }
        try queue.close()
    }

    /// The SHA-256 of every file under `directory`, by relative path.
    static func checksums(_ directory: TemporaryDirectory) throws -> [String: String] {
        var sums: [String: String] = [:]
        for path in directory.allFiles() {
            sums[path] = try Data(contentsOf: directory.path(path)).sha256Hex
        }
        return sums
    }
}
