import Foundation

/// What ``Catalog/migrate(url:wait:)`` found and did, in schema versions
/// counted in migrations (0: no schema yet).
public struct SchemaMigrationReport: Sendable, Equatable {
    /// The version the catalog had.
    public var before: Int
    /// The version it has now: this bowties' own.
    public var after: Int
    /// The migrations applied, oldest first (none when it was up to date).
    public var applied: [String]

    /// Whether the catalog had no schema and now has one.
    public var created: Bool { before == 0 && !applied.isEmpty }
}

extension Catalog {
    /// Creates or upgrades the catalog's schema to this version's, and
    /// does nothing else (`bowties migrate`).
    ///
    /// On PostgreSQL this is the owner's step: a database with no catalog
    /// gets its schema, one with an older schema is upgraded, both in one
    /// transaction under the write lock, and only by the role that owns
    /// the database, so that every other role needs no privilege beyond
    /// `SELECT`, `INSERT`, `UPDATE` and `DELETE`. On SQLite it upgrades a
    /// file an earlier release made, as the first command that writes
    /// would; a missing file stays missing (an import makes one), since
    /// an empty catalog there needs no one's privileges.
    ///
    /// - Returns: The versions before and after, and what was applied.
    /// - Throws: ``CatalogError``: `.storeNotFound` (no SQLite file),
    ///   `.notAStore` (a newer bowties' schema, left as it is),
    ///   `.permissionDenied` (a PostgreSQL role that does not own the
    ///   database, where there was something to do), and what opening
    ///   throws.
    public static func migrate(url: URL, wait: WaitPolicy = WaitPolicy()) throws -> SchemaMigrationReport {
        // On PostgreSQL a database without a catalog is where the owner
        // makes one; an SQLite file is taken as it is (no migration on
        // opening), then migrated below.
        let catalog = try Catalog(url: url, mode: url.isStoreAddress ? .createIfMissing : .repair, wait: wait)
        return try catalog.migrateSchema()
    }

    private func migrateSchema() throws -> SchemaMigrationReport {
        let known = store.migrationIdentifiers.count
        // As found on opening: a PostgreSQL store migrates before its
        // first read or write.
        let before = try (store as? PostgreSQLStore)?.schemaOnOpen ?? read { db in try store.schemaState(db) }
        let applied: Int
        switch before {
        case .current:
            return SchemaMigrationReport(before: known, after: known, applied: [])
        case .newer:
            throw CatalogError(
                .notAStore, "the catalog at \(url.storeDescription) was written by a newer version of bowties",
                hint: "Upgrade bowties to use this catalog; `bowties migrate` never downgrades one.")
        case .uncreated:
            applied = 0
        case .outdated(let pending):
            applied = known - pending.count
        }
        // The PostgreSQL store migrates as the transaction begins (it was
        // opened to); the SQLite store here.
        _ = try write { db, _ in try store.migrateSchema(db) }
        let after = try read { db in try store.schemaState(db) }
        guard after == .current else {
            throw CatalogError(.storeIO, "the catalog at \(url.storeDescription) was not migrated: its schema is still \(after)")
        }
        return SchemaMigrationReport(
            before: applied, after: known, applied: Array(store.migrationIdentifiers.dropFirst(applied)))
    }
}
