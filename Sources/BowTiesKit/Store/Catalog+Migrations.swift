import GRDB

extension Catalog {
    /// Photo bytes, once per content (made by v1): inline in `data`, or
    /// `external` with `data` NULL, the bytes then in the file named by
    /// the hash.
    static let blobTable = "blob"

    /// The `blob` table as v1 made it: where photos' bytes are, whatever
    /// the model (not an entity: a store's own bookkeeping).
    static let blobTableSQL = """
        CREATE TABLE "blob" (\
        "sha256" TEXT PRIMARY KEY NOT NULL, \
        "byteCount" INTEGER NOT NULL, \
        "external" BOOLEAN NOT NULL, \
        "data" BLOB)
        """

    /// The `setting` table as v1 made it.
    static let settingTableSQL = """
        CREATE TABLE "setting" ("key" TEXT PRIMARY KEY NOT NULL, "value" ANY)
        """

    /// The store's schema history, oldest first: each released schema
    /// version written down once, literally.
    ///
    /// Never edit a migration once released, and never make one read the
    /// live declaration (``BowTieModel``): stores in the wild were made by
    /// the migration as it was, and the next migration starts from there.
    /// A change to the schema is a new migration at the end; a test checks
    /// that the migrated schema matches what the declaration expects
    /// (``EntityDescription/expectedTableSchema(named:)``).
    /// `docs/ARCHITECTURE.md` says how to add one.
    static let migrator = SchemaMigrator([
        // bowties 0.1.0. The statements as SQLite keeps them in
        // `sqlite_master` of a store 0.1.0 made (GRDB's table builder wrote
        // them from the declaration of the time), one a line: a `\` at the
        // end of a line continues it.
        SchemaMigration(
            "v1: bow ties, blobs and settings",
            sql: """
                CREATE TABLE "blob" (\
                "sha256" TEXT PRIMARY KEY NOT NULL, \
                "byteCount" INTEGER NOT NULL, \
                "external" BOOLEAN NOT NULL, \
                "data" BLOB);
                CREATE TABLE "bowtie" (\
                "id" TEXT PRIMARY KEY NOT NULL, \
                "name" TEXT NOT NULL, \
                "searchKey" TEXT UNIQUE, \
                "rating" DOUBLE NOT NULL DEFAULT 0, \
                "timesWorn" INTEGER NOT NULL DEFAULT 0, \
                "lastWorn" DOUBLE, \
                "isFavorite" BOOLEAN NOT NULL DEFAULT 0, \
                "url" TEXT, \
                "tintColor" BLOB, \
                "photoData_sha256" TEXT REFERENCES "blob"("sha256"));
                CREATE INDEX bowtie_searchKey_nocase ON bowtie(searchKey COLLATE NOCASE);
                CREATE INDEX bowtie_photoData_sha256 ON bowtie(photoData_sha256);
                CREATE TABLE "setting" ("key" TEXT PRIMARY KEY NOT NULL, "value" ANY);
                """),
        // bowties 0.2.0: wear history and tags. The counts and dates
        // stored so far had no history: they become the baselines the
        // history adds to. The triggers keep timesWorn and lastWorn equal
        // to baseline plus history, whoever writes. One statement a line.
        SchemaMigration(
            "v2: wear history and tags",
            sql: """
                ALTER TABLE "bowtie" ADD COLUMN "timesWorn_baseline" INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE "bowtie" ADD COLUMN "lastWorn_baseline" DOUBLE;
                UPDATE "bowtie" SET "timesWorn_baseline" = "timesWorn", "lastWorn_baseline" = "lastWorn";
                CREATE TABLE "wear" ("pk" INTEGER PRIMARY KEY, "date" DOUBLE NOT NULL, "note" TEXT, "bowTie_id" TEXT NOT NULL REFERENCES "bowtie"("id") ON DELETE CASCADE);
                CREATE INDEX IF NOT EXISTS wear_bowTie_id ON wear(bowTie_id);
                CREATE TABLE "tag" ("pk" INTEGER PRIMARY KEY, "name" TEXT NOT NULL UNIQUE COLLATE NOCASE);
                CREATE TABLE "bowtie_tag" ("bowTie_id" TEXT NOT NULL REFERENCES "bowtie"("id") ON DELETE CASCADE, "tag_pk" INTEGER NOT NULL REFERENCES "tag"("pk") ON DELETE CASCADE, PRIMARY KEY ("bowTie_id", "tag_pk"));
                CREATE INDEX IF NOT EXISTS bowtie_tag_tag_pk ON bowtie_tag(tag_pk);
                CREATE TRIGGER "bowtie_wears_insert" AFTER INSERT ON "wear" BEGIN UPDATE "bowtie" SET "timesWorn" = "timesWorn_baseline" + (SELECT count(*) FROM "wear" WHERE "bowTie_id" = NEW."bowTie_id"), "lastWorn" = (SELECT max(value) FROM (SELECT "lastWorn_baseline" AS value UNION ALL SELECT "date" FROM "wear" WHERE "bowTie_id" = NEW."bowTie_id")) WHERE "id" = NEW."bowTie_id"; END;
                CREATE TRIGGER "bowtie_wears_delete" AFTER DELETE ON "wear" BEGIN UPDATE "bowtie" SET "timesWorn" = "timesWorn_baseline" + (SELECT count(*) FROM "wear" WHERE "bowTie_id" = OLD."bowTie_id"), "lastWorn" = (SELECT max(value) FROM (SELECT "lastWorn_baseline" AS value UNION ALL SELECT "date" FROM "wear" WHERE "bowTie_id" = OLD."bowTie_id")) WHERE "id" = OLD."bowTie_id"; END;
                CREATE TRIGGER "bowtie_wears_update" AFTER UPDATE OF "bowTie_id", "date" ON "wear" BEGIN UPDATE "bowtie" SET "timesWorn" = "timesWorn_baseline" + (SELECT count(*) FROM "wear" WHERE "bowTie_id" = OLD."bowTie_id"), "lastWorn" = (SELECT max(value) FROM (SELECT "lastWorn_baseline" AS value UNION ALL SELECT "date" FROM "wear" WHERE "bowTie_id" = OLD."bowTie_id")) WHERE "id" = OLD."bowTie_id"; UPDATE "bowtie" SET "timesWorn" = "timesWorn_baseline" + (SELECT count(*) FROM "wear" WHERE "bowTie_id" = NEW."bowTie_id"), "lastWorn" = (SELECT max(value) FROM (SELECT "lastWorn_baseline" AS value UNION ALL SELECT "date" FROM "wear" WHERE "bowTie_id" = NEW."bowTie_id")) WHERE "id" = NEW."bowTie_id"; END;
                CREATE TRIGGER "bowtie_wears_baseline" AFTER UPDATE OF "timesWorn_baseline", "lastWorn_baseline" ON "bowtie" BEGIN UPDATE "bowtie" SET "timesWorn" = "timesWorn_baseline" + (SELECT count(*) FROM "wear" WHERE "bowTie_id" = NEW."id"), "lastWorn" = (SELECT max(value) FROM (SELECT "lastWorn_baseline" AS value UNION ALL SELECT "date" FROM "wear" WHERE "bowTie_id" = NEW."id")) WHERE "id" = NEW."id"; END;
                """),
    ])

    /// Applies every pending migration in one IMMEDIATE transaction of
    /// its own.
    ///
    /// - Throws: ``CatalogError``: `.notAStore` for a store from a newer
    ///   version, `.storeDamaged` when the upgraded store would hold broken
    ///   references, and the errors of ``mapErrors(_:)``. The store is
    ///   then as it was.
    func migrateSchema() throws {
        try mapErrors {
            try mapMigrationErrors { _ = try migrator.migrate(database) }
        }
    }

    /// Applies every pending migration inside the caller's IMMEDIATE
    /// transaction, which rolls back if this throws.
    ///
    /// - Throws: ``CatalogError`` as ``migrateSchema()``, or the
    ///   `DatabaseError` of a migration.
    func migrateSchema(_ db: Database) throws {
        try mapMigrationErrors { _ = try migrator.migrate(db) }
    }

    /// The error for a store whose schema a newer bowties wrote.
    func newerStoreError() -> CatalogError {
        CatalogError(
            .notAStore, "\(url.path) was written by a newer version of bowties",
            hint: "Upgrade bowties to use this catalog.")
    }

    private func mapMigrationErrors(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch SchemaMigrationError.newerSchema {
            throw newerStoreError()
        } catch SchemaMigrationError.foreignKeyViolations(let rows) {
            throw CatalogError(
                .storeDamaged,
                "cannot upgrade the catalog at \(url.path), nothing was changed: "
                    + rows.prefix(5).joined(separator: "; ") + (rows.count > 5 ? "; and \(rows.count - 5) more" : ""),
                hint: "Run `bowties check` to see what is damaged; `bowties check --repair` fixes what it can.")
        }
    }
}
