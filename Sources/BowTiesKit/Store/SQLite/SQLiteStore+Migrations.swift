import GRDB

extension SQLiteStore {
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
    /// A change to the schema is a new migration at the end, with its
    /// ``SchemaMigration/readShim`` so that commands that only read still
    /// read the stores made before it; tests check that the migrated
    /// schema matches what the declaration expects
    /// (``EntityDescription/expectedTableSchema(named:)``) and that the
    /// shims show every release's store with today's tables and columns.
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
                """,
            // Read without v2: the baselines are the stored values (what
            // the UPDATE above copies) and there is no history or tag.
            // The view names the table's rowid, which callers order by.
            readShim: """
                CREATE TEMP VIEW "bowtie" AS SELECT rowid AS rowid, *, "timesWorn" AS "timesWorn_baseline", "lastWorn" AS "lastWorn_baseline" FROM main."bowtie";
                CREATE TEMP TABLE "wear" ("pk" INTEGER PRIMARY KEY, "date" DOUBLE NOT NULL, "note" TEXT, "bowTie_id" TEXT NOT NULL);
                CREATE TEMP TABLE "tag" ("pk" INTEGER PRIMARY KEY, "name" TEXT NOT NULL UNIQUE COLLATE NOCASE);
                CREATE TEMP TABLE "bowtie_tag" ("bowTie_id" TEXT NOT NULL, "tag_pk" INTEGER NOT NULL, PRIMARY KEY ("bowTie_id", "tag_pk"));
                """),
        // bowties 0.2.0: the undo history. Every table of the model gets
        // a table of row images and three triggers that log its changes
        // while a command names its action in undo_recording.
        SchemaMigration(
            "v3: undo history",
            sql: """
                CREATE TABLE "undo_action" ("id" INTEGER PRIMARY KEY, "title" TEXT NOT NULL, "date" DOUBLE NOT NULL, "undone" INTEGER NOT NULL DEFAULT 0);
                CREATE TABLE "undo_change" ("seq" INTEGER PRIMARY KEY, "action" INTEGER NOT NULL REFERENCES "undo_action"("id") ON DELETE CASCADE, "phase" INTEGER NOT NULL, "tableName" TEXT NOT NULL, "operation" TEXT NOT NULL, "row" INTEGER NOT NULL, "lastRow" INTEGER);
                CREATE INDEX undo_change_action ON undo_change(action, phase);
                CREATE INDEX undo_change_row ON undo_change(tableName, row);
                CREATE TABLE "undo_recording" ("action" INTEGER, "phase" INTEGER NOT NULL DEFAULT 0, "inserts" BOOLEAN NOT NULL DEFAULT 1);
                INSERT INTO undo_recording (action) VALUES (NULL);
                CREATE TABLE "undo_bowtie" ("seq" INTEGER NOT NULL REFERENCES "undo_change"("seq") ON DELETE CASCADE, "side" INTEGER NOT NULL, "id" TEXT, "name" TEXT, "searchKey" TEXT, "rating" DOUBLE, "timesWorn" INTEGER, "lastWorn" DOUBLE, "isFavorite" BOOLEAN, "url" TEXT, "tintColor" BLOB, "photoData_sha256" TEXT, "timesWorn_baseline" INTEGER, "lastWorn_baseline" DOUBLE, PRIMARY KEY ("seq", "side")) WITHOUT ROWID;
                CREATE INDEX IF NOT EXISTS undo_bowtie_photoData_sha256 ON undo_bowtie(photoData_sha256);
                CREATE TRIGGER "bowtie_undo_insert" AFTER INSERT ON "bowtie" WHEN (SELECT "inserts" AND "action" IS NOT NULL FROM "undo_recording") BEGIN INSERT INTO "undo_change" ("action", "phase", "tableName", "operation", "row") SELECT "action", "phase", 'bowtie', 'insert', NEW.rowid FROM "undo_recording"; INSERT INTO "undo_bowtie" ("seq", "side", "id", "name", "searchKey", "rating", "timesWorn", "lastWorn", "isFavorite", "url", "tintColor", "photoData_sha256", "timesWorn_baseline", "lastWorn_baseline") VALUES (last_insert_rowid(), 1, NEW."id", NEW."name", NEW."searchKey", NEW."rating", NEW."timesWorn", NEW."lastWorn", NEW."isFavorite", NEW."url", NEW."tintColor", NEW."photoData_sha256", NEW."timesWorn_baseline", NEW."lastWorn_baseline"); END;
                CREATE TRIGGER "bowtie_undo_update" AFTER UPDATE ON "bowtie" WHEN (SELECT "action" FROM "undo_recording") IS NOT NULL AND (OLD."id" IS NOT NEW."id" OR OLD."name" IS NOT NEW."name" OR OLD."searchKey" IS NOT NEW."searchKey" OR OLD."rating" IS NOT NEW."rating" OR OLD."timesWorn" IS NOT NEW."timesWorn" OR OLD."lastWorn" IS NOT NEW."lastWorn" OR OLD."isFavorite" IS NOT NEW."isFavorite" OR OLD."url" IS NOT NEW."url" OR OLD."tintColor" IS NOT NEW."tintColor" OR OLD."photoData_sha256" IS NOT NEW."photoData_sha256" OR OLD."timesWorn_baseline" IS NOT NEW."timesWorn_baseline" OR OLD."lastWorn_baseline" IS NOT NEW."lastWorn_baseline") BEGIN INSERT INTO "undo_change" ("action", "phase", "tableName", "operation", "row") SELECT "action", "phase", 'bowtie', 'update', NEW.rowid FROM "undo_recording"; INSERT INTO "undo_bowtie" ("seq", "side", "id", "name", "searchKey", "rating", "timesWorn", "lastWorn", "isFavorite", "url", "tintColor", "photoData_sha256", "timesWorn_baseline", "lastWorn_baseline") VALUES (last_insert_rowid(), 0, OLD."id", OLD."name", OLD."searchKey", OLD."rating", OLD."timesWorn", OLD."lastWorn", OLD."isFavorite", OLD."url", OLD."tintColor", OLD."photoData_sha256", OLD."timesWorn_baseline", OLD."lastWorn_baseline"), (last_insert_rowid(), 1, NEW."id", NEW."name", NEW."searchKey", NEW."rating", NEW."timesWorn", NEW."lastWorn", NEW."isFavorite", NEW."url", NEW."tintColor", NEW."photoData_sha256", NEW."timesWorn_baseline", NEW."lastWorn_baseline"); END;
                CREATE TRIGGER "bowtie_undo_delete" AFTER DELETE ON "bowtie" WHEN (SELECT "action" FROM "undo_recording") IS NOT NULL BEGIN INSERT INTO "undo_change" ("action", "phase", "tableName", "operation", "row") SELECT "action", "phase", 'bowtie', 'delete', OLD.rowid FROM "undo_recording"; INSERT INTO "undo_bowtie" ("seq", "side", "id", "name", "searchKey", "rating", "timesWorn", "lastWorn", "isFavorite", "url", "tintColor", "photoData_sha256", "timesWorn_baseline", "lastWorn_baseline") VALUES (last_insert_rowid(), 0, OLD."id", OLD."name", OLD."searchKey", OLD."rating", OLD."timesWorn", OLD."lastWorn", OLD."isFavorite", OLD."url", OLD."tintColor", OLD."photoData_sha256", OLD."timesWorn_baseline", OLD."lastWorn_baseline"); END;
                CREATE TABLE "undo_wear" ("seq" INTEGER NOT NULL REFERENCES "undo_change"("seq") ON DELETE CASCADE, "side" INTEGER NOT NULL, "pk" INTEGER, "date" DOUBLE, "note" TEXT, "bowTie_id" TEXT, PRIMARY KEY ("seq", "side")) WITHOUT ROWID;
                CREATE TRIGGER "wear_undo_insert" AFTER INSERT ON "wear" WHEN (SELECT "inserts" AND "action" IS NOT NULL FROM "undo_recording") BEGIN INSERT INTO "undo_change" ("action", "phase", "tableName", "operation", "row") SELECT "action", "phase", 'wear', 'insert', NEW.rowid FROM "undo_recording"; INSERT INTO "undo_wear" ("seq", "side", "pk", "date", "note", "bowTie_id") VALUES (last_insert_rowid(), 1, NEW."pk", NEW."date", NEW."note", NEW."bowTie_id"); END;
                CREATE TRIGGER "wear_undo_update" AFTER UPDATE ON "wear" WHEN (SELECT "action" FROM "undo_recording") IS NOT NULL AND (OLD."pk" IS NOT NEW."pk" OR OLD."date" IS NOT NEW."date" OR OLD."note" IS NOT NEW."note" OR OLD."bowTie_id" IS NOT NEW."bowTie_id") BEGIN INSERT INTO "undo_change" ("action", "phase", "tableName", "operation", "row") SELECT "action", "phase", 'wear', 'update', NEW.rowid FROM "undo_recording"; INSERT INTO "undo_wear" ("seq", "side", "pk", "date", "note", "bowTie_id") VALUES (last_insert_rowid(), 0, OLD."pk", OLD."date", OLD."note", OLD."bowTie_id"), (last_insert_rowid(), 1, NEW."pk", NEW."date", NEW."note", NEW."bowTie_id"); END;
                CREATE TRIGGER "wear_undo_delete" AFTER DELETE ON "wear" WHEN (SELECT "action" FROM "undo_recording") IS NOT NULL BEGIN INSERT INTO "undo_change" ("action", "phase", "tableName", "operation", "row") SELECT "action", "phase", 'wear', 'delete', OLD.rowid FROM "undo_recording"; INSERT INTO "undo_wear" ("seq", "side", "pk", "date", "note", "bowTie_id") VALUES (last_insert_rowid(), 0, OLD."pk", OLD."date", OLD."note", OLD."bowTie_id"); END;
                CREATE TABLE "undo_tag" ("seq" INTEGER NOT NULL REFERENCES "undo_change"("seq") ON DELETE CASCADE, "side" INTEGER NOT NULL, "pk" INTEGER, "name" TEXT, PRIMARY KEY ("seq", "side")) WITHOUT ROWID;
                CREATE TRIGGER "tag_undo_insert" AFTER INSERT ON "tag" WHEN (SELECT "inserts" AND "action" IS NOT NULL FROM "undo_recording") BEGIN INSERT INTO "undo_change" ("action", "phase", "tableName", "operation", "row") SELECT "action", "phase", 'tag', 'insert', NEW.rowid FROM "undo_recording"; INSERT INTO "undo_tag" ("seq", "side", "pk", "name") VALUES (last_insert_rowid(), 1, NEW."pk", NEW."name"); END;
                CREATE TRIGGER "tag_undo_update" AFTER UPDATE ON "tag" WHEN (SELECT "action" FROM "undo_recording") IS NOT NULL AND (OLD."pk" IS NOT NEW."pk" OR OLD."name" IS NOT NEW."name") BEGIN INSERT INTO "undo_change" ("action", "phase", "tableName", "operation", "row") SELECT "action", "phase", 'tag', 'update', NEW.rowid FROM "undo_recording"; INSERT INTO "undo_tag" ("seq", "side", "pk", "name") VALUES (last_insert_rowid(), 0, OLD."pk", OLD."name"), (last_insert_rowid(), 1, NEW."pk", NEW."name"); END;
                CREATE TRIGGER "tag_undo_delete" AFTER DELETE ON "tag" WHEN (SELECT "action" FROM "undo_recording") IS NOT NULL BEGIN INSERT INTO "undo_change" ("action", "phase", "tableName", "operation", "row") SELECT "action", "phase", 'tag', 'delete', OLD.rowid FROM "undo_recording"; INSERT INTO "undo_tag" ("seq", "side", "pk", "name") VALUES (last_insert_rowid(), 0, OLD."pk", OLD."name"); END;
                CREATE TABLE "undo_bowtie_tag" ("seq" INTEGER NOT NULL REFERENCES "undo_change"("seq") ON DELETE CASCADE, "side" INTEGER NOT NULL, "bowTie_id" TEXT, "tag_pk" INTEGER, PRIMARY KEY ("seq", "side")) WITHOUT ROWID;
                CREATE TRIGGER "bowtie_tag_undo_insert" AFTER INSERT ON "bowtie_tag" WHEN (SELECT "inserts" AND "action" IS NOT NULL FROM "undo_recording") BEGIN INSERT INTO "undo_change" ("action", "phase", "tableName", "operation", "row") SELECT "action", "phase", 'bowtie_tag', 'insert', NEW.rowid FROM "undo_recording"; INSERT INTO "undo_bowtie_tag" ("seq", "side", "bowTie_id", "tag_pk") VALUES (last_insert_rowid(), 1, NEW."bowTie_id", NEW."tag_pk"); END;
                CREATE TRIGGER "bowtie_tag_undo_update" AFTER UPDATE ON "bowtie_tag" WHEN (SELECT "action" FROM "undo_recording") IS NOT NULL AND (OLD."bowTie_id" IS NOT NEW."bowTie_id" OR OLD."tag_pk" IS NOT NEW."tag_pk") BEGIN INSERT INTO "undo_change" ("action", "phase", "tableName", "operation", "row") SELECT "action", "phase", 'bowtie_tag', 'update', NEW.rowid FROM "undo_recording"; INSERT INTO "undo_bowtie_tag" ("seq", "side", "bowTie_id", "tag_pk") VALUES (last_insert_rowid(), 0, OLD."bowTie_id", OLD."tag_pk"), (last_insert_rowid(), 1, NEW."bowTie_id", NEW."tag_pk"); END;
                CREATE TRIGGER "bowtie_tag_undo_delete" AFTER DELETE ON "bowtie_tag" WHEN (SELECT "action" FROM "undo_recording") IS NOT NULL BEGIN INSERT INTO "undo_change" ("action", "phase", "tableName", "operation", "row") SELECT "action", "phase", 'bowtie_tag', 'delete', OLD.rowid FROM "undo_recording"; INSERT INTO "undo_bowtie_tag" ("seq", "side", "bowTie_id", "tag_pk") VALUES (last_insert_rowid(), 0, OLD."bowTie_id", OLD."tag_pk"); END;
                """,
            // Read without v3: an empty history (readers never record,
            // so no trigger is needed).
            readShim: """
                CREATE TEMP TABLE "undo_action" ("id" INTEGER PRIMARY KEY, "title" TEXT NOT NULL, "date" DOUBLE NOT NULL, "undone" INTEGER NOT NULL DEFAULT 0);
                CREATE TEMP TABLE "undo_change" ("seq" INTEGER PRIMARY KEY, "action" INTEGER NOT NULL, "phase" INTEGER NOT NULL, "tableName" TEXT NOT NULL, "operation" TEXT NOT NULL, "row" INTEGER NOT NULL, "lastRow" INTEGER);
                CREATE TEMP TABLE "undo_recording" ("action" INTEGER, "phase" INTEGER NOT NULL DEFAULT 0, "inserts" BOOLEAN NOT NULL DEFAULT 1);
                INSERT INTO temp."undo_recording" (action) VALUES (NULL);
                CREATE TEMP TABLE "undo_bowtie" ("seq" INTEGER NOT NULL, "side" INTEGER NOT NULL, "id" TEXT, "name" TEXT, "searchKey" TEXT, "rating" DOUBLE, "timesWorn" INTEGER, "lastWorn" DOUBLE, "isFavorite" BOOLEAN, "url" TEXT, "tintColor" BLOB, "photoData_sha256" TEXT, "timesWorn_baseline" INTEGER, "lastWorn_baseline" DOUBLE, PRIMARY KEY ("seq", "side")) WITHOUT ROWID;
                CREATE TEMP TABLE "undo_wear" ("seq" INTEGER NOT NULL, "side" INTEGER NOT NULL, "pk" INTEGER, "date" DOUBLE, "note" TEXT, "bowTie_id" TEXT, PRIMARY KEY ("seq", "side")) WITHOUT ROWID;
                CREATE TEMP TABLE "undo_tag" ("seq" INTEGER NOT NULL, "side" INTEGER NOT NULL, "pk" INTEGER, "name" TEXT, PRIMARY KEY ("seq", "side")) WITHOUT ROWID;
                CREATE TEMP TABLE "undo_bowtie_tag" ("seq" INTEGER NOT NULL, "side" INTEGER NOT NULL, "bowTie_id" TEXT, "tag_pk" INTEGER, PRIMARY KEY ("seq", "side")) WITHOUT ROWID;
                """),
        // bowties 0.3.0: `bowtie.id` kept unique by an index of its own,
        // not by `PRIMARY KEY`. SQLite keeps a `TEXT PRIMARY KEY` in an
        // index no statement can drop; `bowtie_id` can be dropped for a
        // bulk load and built after it (`ObjectModel.keyIndex(of:)`).
        // SQLite changes a table's constraints only by rebuilding it, and
        // the rebuild must not delete a wear or a tag: a `DROP TABLE` of
        // `bowtie` would cascade into every table that refers to it, so
        // `wear` and `bowtie_tag` are rebuilt first, referring to the new
        // table, and the old tables are dropped children first (their
        // triggers go with them). The renames point the references at
        // `bowtie` again. Every rowid is kept (the undo history names rows
        // by it). Then the indexes and triggers exactly as v1 to v3 made
        // them. One statement a line.
        SchemaMigration(
            "v4: bow tie ids kept by a unique index",
            sql: """
                CREATE TABLE "bowtie_v4" ("id" TEXT NOT NULL, "name" TEXT NOT NULL, "searchKey" TEXT UNIQUE, "rating" DOUBLE NOT NULL DEFAULT 0, "timesWorn" INTEGER NOT NULL DEFAULT 0, "lastWorn" DOUBLE, "isFavorite" BOOLEAN NOT NULL DEFAULT 0, "url" TEXT, "tintColor" BLOB, "photoData_sha256" TEXT REFERENCES "blob"("sha256"), "timesWorn_baseline" INTEGER NOT NULL DEFAULT 0, "lastWorn_baseline" DOUBLE);
                INSERT INTO "bowtie_v4" (rowid, "id", "name", "searchKey", "rating", "timesWorn", "lastWorn", "isFavorite", "url", "tintColor", "photoData_sha256", "timesWorn_baseline", "lastWorn_baseline") SELECT rowid, "id", "name", "searchKey", "rating", "timesWorn", "lastWorn", "isFavorite", "url", "tintColor", "photoData_sha256", "timesWorn_baseline", "lastWorn_baseline" FROM "bowtie" ORDER BY rowid;
                CREATE UNIQUE INDEX IF NOT EXISTS bowtie_id ON bowtie_v4(id);
                CREATE TABLE "wear_v4" ("pk" INTEGER PRIMARY KEY, "date" DOUBLE NOT NULL, "note" TEXT, "bowTie_id" TEXT NOT NULL REFERENCES "bowtie_v4"("id") ON DELETE CASCADE);
                INSERT INTO "wear_v4" ("pk", "date", "note", "bowTie_id") SELECT "pk", "date", "note", "bowTie_id" FROM "wear" ORDER BY "pk";
                CREATE TABLE "bowtie_tag_v4" ("bowTie_id" TEXT NOT NULL REFERENCES "bowtie_v4"("id") ON DELETE CASCADE, "tag_pk" INTEGER NOT NULL REFERENCES "tag"("pk") ON DELETE CASCADE, PRIMARY KEY ("bowTie_id", "tag_pk"));
                INSERT INTO "bowtie_tag_v4" (rowid, "bowTie_id", "tag_pk") SELECT rowid, "bowTie_id", "tag_pk" FROM "bowtie_tag" ORDER BY rowid;
                DROP TABLE "bowtie_tag";
                DROP TABLE "wear";
                DROP TABLE "bowtie";
                ALTER TABLE "bowtie_v4" RENAME TO "bowtie";
                ALTER TABLE "wear_v4" RENAME TO "wear";
                ALTER TABLE "bowtie_tag_v4" RENAME TO "bowtie_tag";
                CREATE INDEX bowtie_searchKey_nocase ON bowtie(searchKey COLLATE NOCASE);
                CREATE INDEX bowtie_photoData_sha256 ON bowtie(photoData_sha256);
                CREATE INDEX IF NOT EXISTS wear_bowTie_id ON wear(bowTie_id);
                CREATE INDEX IF NOT EXISTS bowtie_tag_tag_pk ON bowtie_tag(tag_pk);
                CREATE TRIGGER "bowtie_wears_insert" AFTER INSERT ON "wear" BEGIN UPDATE "bowtie" SET "timesWorn" = "timesWorn_baseline" + (SELECT count(*) FROM "wear" WHERE "bowTie_id" = NEW."bowTie_id"), "lastWorn" = (SELECT max(value) FROM (SELECT "lastWorn_baseline" AS value UNION ALL SELECT "date" FROM "wear" WHERE "bowTie_id" = NEW."bowTie_id")) WHERE "id" = NEW."bowTie_id"; END;
                CREATE TRIGGER "bowtie_wears_delete" AFTER DELETE ON "wear" BEGIN UPDATE "bowtie" SET "timesWorn" = "timesWorn_baseline" + (SELECT count(*) FROM "wear" WHERE "bowTie_id" = OLD."bowTie_id"), "lastWorn" = (SELECT max(value) FROM (SELECT "lastWorn_baseline" AS value UNION ALL SELECT "date" FROM "wear" WHERE "bowTie_id" = OLD."bowTie_id")) WHERE "id" = OLD."bowTie_id"; END;
                CREATE TRIGGER "bowtie_wears_update" AFTER UPDATE OF "bowTie_id", "date" ON "wear" BEGIN UPDATE "bowtie" SET "timesWorn" = "timesWorn_baseline" + (SELECT count(*) FROM "wear" WHERE "bowTie_id" = OLD."bowTie_id"), "lastWorn" = (SELECT max(value) FROM (SELECT "lastWorn_baseline" AS value UNION ALL SELECT "date" FROM "wear" WHERE "bowTie_id" = OLD."bowTie_id")) WHERE "id" = OLD."bowTie_id"; UPDATE "bowtie" SET "timesWorn" = "timesWorn_baseline" + (SELECT count(*) FROM "wear" WHERE "bowTie_id" = NEW."bowTie_id"), "lastWorn" = (SELECT max(value) FROM (SELECT "lastWorn_baseline" AS value UNION ALL SELECT "date" FROM "wear" WHERE "bowTie_id" = NEW."bowTie_id")) WHERE "id" = NEW."bowTie_id"; END;
                CREATE TRIGGER "bowtie_wears_baseline" AFTER UPDATE OF "timesWorn_baseline", "lastWorn_baseline" ON "bowtie" BEGIN UPDATE "bowtie" SET "timesWorn" = "timesWorn_baseline" + (SELECT count(*) FROM "wear" WHERE "bowTie_id" = NEW."id"), "lastWorn" = (SELECT max(value) FROM (SELECT "lastWorn_baseline" AS value UNION ALL SELECT "date" FROM "wear" WHERE "bowTie_id" = NEW."id")) WHERE "id" = NEW."id"; END;
                CREATE TRIGGER "bowtie_undo_insert" AFTER INSERT ON "bowtie" WHEN (SELECT "inserts" AND "action" IS NOT NULL FROM "undo_recording") BEGIN INSERT INTO "undo_change" ("action", "phase", "tableName", "operation", "row") SELECT "action", "phase", 'bowtie', 'insert', NEW.rowid FROM "undo_recording"; INSERT INTO "undo_bowtie" ("seq", "side", "id", "name", "searchKey", "rating", "timesWorn", "lastWorn", "isFavorite", "url", "tintColor", "photoData_sha256", "timesWorn_baseline", "lastWorn_baseline") VALUES (last_insert_rowid(), 1, NEW."id", NEW."name", NEW."searchKey", NEW."rating", NEW."timesWorn", NEW."lastWorn", NEW."isFavorite", NEW."url", NEW."tintColor", NEW."photoData_sha256", NEW."timesWorn_baseline", NEW."lastWorn_baseline"); END;
                CREATE TRIGGER "bowtie_undo_update" AFTER UPDATE ON "bowtie" WHEN (SELECT "action" FROM "undo_recording") IS NOT NULL AND (OLD."id" IS NOT NEW."id" OR OLD."name" IS NOT NEW."name" OR OLD."searchKey" IS NOT NEW."searchKey" OR OLD."rating" IS NOT NEW."rating" OR OLD."timesWorn" IS NOT NEW."timesWorn" OR OLD."lastWorn" IS NOT NEW."lastWorn" OR OLD."isFavorite" IS NOT NEW."isFavorite" OR OLD."url" IS NOT NEW."url" OR OLD."tintColor" IS NOT NEW."tintColor" OR OLD."photoData_sha256" IS NOT NEW."photoData_sha256" OR OLD."timesWorn_baseline" IS NOT NEW."timesWorn_baseline" OR OLD."lastWorn_baseline" IS NOT NEW."lastWorn_baseline") BEGIN INSERT INTO "undo_change" ("action", "phase", "tableName", "operation", "row") SELECT "action", "phase", 'bowtie', 'update', NEW.rowid FROM "undo_recording"; INSERT INTO "undo_bowtie" ("seq", "side", "id", "name", "searchKey", "rating", "timesWorn", "lastWorn", "isFavorite", "url", "tintColor", "photoData_sha256", "timesWorn_baseline", "lastWorn_baseline") VALUES (last_insert_rowid(), 0, OLD."id", OLD."name", OLD."searchKey", OLD."rating", OLD."timesWorn", OLD."lastWorn", OLD."isFavorite", OLD."url", OLD."tintColor", OLD."photoData_sha256", OLD."timesWorn_baseline", OLD."lastWorn_baseline"), (last_insert_rowid(), 1, NEW."id", NEW."name", NEW."searchKey", NEW."rating", NEW."timesWorn", NEW."lastWorn", NEW."isFavorite", NEW."url", NEW."tintColor", NEW."photoData_sha256", NEW."timesWorn_baseline", NEW."lastWorn_baseline"); END;
                CREATE TRIGGER "bowtie_undo_delete" AFTER DELETE ON "bowtie" WHEN (SELECT "action" FROM "undo_recording") IS NOT NULL BEGIN INSERT INTO "undo_change" ("action", "phase", "tableName", "operation", "row") SELECT "action", "phase", 'bowtie', 'delete', OLD.rowid FROM "undo_recording"; INSERT INTO "undo_bowtie" ("seq", "side", "id", "name", "searchKey", "rating", "timesWorn", "lastWorn", "isFavorite", "url", "tintColor", "photoData_sha256", "timesWorn_baseline", "lastWorn_baseline") VALUES (last_insert_rowid(), 0, OLD."id", OLD."name", OLD."searchKey", OLD."rating", OLD."timesWorn", OLD."lastWorn", OLD."isFavorite", OLD."url", OLD."tintColor", OLD."photoData_sha256", OLD."timesWorn_baseline", OLD."lastWorn_baseline"); END;
                CREATE TRIGGER "wear_undo_insert" AFTER INSERT ON "wear" WHEN (SELECT "inserts" AND "action" IS NOT NULL FROM "undo_recording") BEGIN INSERT INTO "undo_change" ("action", "phase", "tableName", "operation", "row") SELECT "action", "phase", 'wear', 'insert', NEW.rowid FROM "undo_recording"; INSERT INTO "undo_wear" ("seq", "side", "pk", "date", "note", "bowTie_id") VALUES (last_insert_rowid(), 1, NEW."pk", NEW."date", NEW."note", NEW."bowTie_id"); END;
                CREATE TRIGGER "wear_undo_update" AFTER UPDATE ON "wear" WHEN (SELECT "action" FROM "undo_recording") IS NOT NULL AND (OLD."pk" IS NOT NEW."pk" OR OLD."date" IS NOT NEW."date" OR OLD."note" IS NOT NEW."note" OR OLD."bowTie_id" IS NOT NEW."bowTie_id") BEGIN INSERT INTO "undo_change" ("action", "phase", "tableName", "operation", "row") SELECT "action", "phase", 'wear', 'update', NEW.rowid FROM "undo_recording"; INSERT INTO "undo_wear" ("seq", "side", "pk", "date", "note", "bowTie_id") VALUES (last_insert_rowid(), 0, OLD."pk", OLD."date", OLD."note", OLD."bowTie_id"), (last_insert_rowid(), 1, NEW."pk", NEW."date", NEW."note", NEW."bowTie_id"); END;
                CREATE TRIGGER "wear_undo_delete" AFTER DELETE ON "wear" WHEN (SELECT "action" FROM "undo_recording") IS NOT NULL BEGIN INSERT INTO "undo_change" ("action", "phase", "tableName", "operation", "row") SELECT "action", "phase", 'wear', 'delete', OLD.rowid FROM "undo_recording"; INSERT INTO "undo_wear" ("seq", "side", "pk", "date", "note", "bowTie_id") VALUES (last_insert_rowid(), 0, OLD."pk", OLD."date", OLD."note", OLD."bowTie_id"); END;
                CREATE TRIGGER "bowtie_tag_undo_insert" AFTER INSERT ON "bowtie_tag" WHEN (SELECT "inserts" AND "action" IS NOT NULL FROM "undo_recording") BEGIN INSERT INTO "undo_change" ("action", "phase", "tableName", "operation", "row") SELECT "action", "phase", 'bowtie_tag', 'insert', NEW.rowid FROM "undo_recording"; INSERT INTO "undo_bowtie_tag" ("seq", "side", "bowTie_id", "tag_pk") VALUES (last_insert_rowid(), 1, NEW."bowTie_id", NEW."tag_pk"); END;
                CREATE TRIGGER "bowtie_tag_undo_update" AFTER UPDATE ON "bowtie_tag" WHEN (SELECT "action" FROM "undo_recording") IS NOT NULL AND (OLD."bowTie_id" IS NOT NEW."bowTie_id" OR OLD."tag_pk" IS NOT NEW."tag_pk") BEGIN INSERT INTO "undo_change" ("action", "phase", "tableName", "operation", "row") SELECT "action", "phase", 'bowtie_tag', 'update', NEW.rowid FROM "undo_recording"; INSERT INTO "undo_bowtie_tag" ("seq", "side", "bowTie_id", "tag_pk") VALUES (last_insert_rowid(), 0, OLD."bowTie_id", OLD."tag_pk"), (last_insert_rowid(), 1, NEW."bowTie_id", NEW."tag_pk"); END;
                CREATE TRIGGER "bowtie_tag_undo_delete" AFTER DELETE ON "bowtie_tag" WHEN (SELECT "action" FROM "undo_recording") IS NOT NULL BEGIN INSERT INTO "undo_change" ("action", "phase", "tableName", "operation", "row") SELECT "action", "phase", 'bowtie_tag', 'delete', OLD.rowid FROM "undo_recording"; INSERT INTO "undo_bowtie_tag" ("seq", "side", "bowTie_id", "tag_pk") VALUES (last_insert_rowid(), 0, OLD."bowTie_id", OLD."tag_pk"); END;
                """,
            // Read without v4: the same tables and columns; only how the
            // key is kept differs. Nothing to shim.
            readShim: ""),
        // bowties 0.3.0 too: indexes for the orders by name, rating and
        // last wear (`isIndexed` in the declaration), so that a page of
        // ties in those orders reads an index instead of sorting every
        // tie (`bowties serve`'s pages, `list sort:name`). Orders compare
        // a name `COLLATE NOCASE`, and so does its index; SQLite appends
        // the rowid, the orders' last key, to every index. A first import
        // into an empty catalog drops and builds them after the records,
        // as it does the others (`ObjectModel.indexes(of:)`).
        SchemaMigration(
            "v5: indexes for the name, rating and last-worn orders",
            sql: """
                CREATE INDEX IF NOT EXISTS bowtie_name_nocase ON bowtie(name COLLATE NOCASE);
                CREATE INDEX IF NOT EXISTS bowtie_rating ON bowtie(rating);
                CREATE INDEX IF NOT EXISTS bowtie_lastWorn ON bowtie(lastWorn);
                """,
            // Read without v5: the same tables and columns, sorted
            // without an index. Nothing to shim.
            readShim: ""),
        // bowties 0.3.0 too: each tie's count of wears kept in a table of
        // its own, added to and taken from by the wear triggers, so that a
        // wear no longer counts the tie's whole history (inserting 20,000
        // wears of one tie took 28 s: bench/results/serve.md, session 16),
        // and a new wear's date only compared with the last one. The
        // counts of the wears already recorded, then the triggers as the
        // declaration makes them now (`ObjectModel.triggers`). One
        // statement a line.
        SchemaMigration(
            "v6: each tie's count of wears kept",
            sql: """
                CREATE TABLE "bowtie_wears_count" ("bowTie_id" TEXT PRIMARY KEY NOT NULL, "count" INTEGER NOT NULL) WITHOUT ROWID;
                INSERT INTO "bowtie_wears_count" ("bowTie_id", "count") SELECT "bowTie_id", count(*) FROM "wear" GROUP BY "bowTie_id";
                DROP TRIGGER "bowtie_wears_insert";
                DROP TRIGGER "bowtie_wears_delete";
                DROP TRIGGER "bowtie_wears_update";
                DROP TRIGGER "bowtie_wears_baseline";
                CREATE TRIGGER "bowtie_wears_insert" AFTER INSERT ON "wear" BEGIN INSERT INTO "bowtie_wears_count" ("bowTie_id", "count") VALUES (NEW."bowTie_id", 1) ON CONFLICT ("bowTie_id") DO UPDATE SET "count" = "count" + 1; UPDATE "bowtie" SET "timesWorn" = "timesWorn_baseline" + coalesce((SELECT "count" FROM "bowtie_wears_count" WHERE "bowTie_id" = NEW."bowTie_id"), 0), "lastWorn" = CASE WHEN "lastWorn" IS NULL OR NEW."date" > "lastWorn" THEN NEW."date" ELSE "lastWorn" END WHERE "id" = NEW."bowTie_id"; END;
                CREATE TRIGGER "bowtie_wears_delete" AFTER DELETE ON "wear" BEGIN UPDATE "bowtie_wears_count" SET "count" = "count" - 1 WHERE "bowTie_id" = OLD."bowTie_id"; DELETE FROM "bowtie_wears_count" WHERE "bowTie_id" = OLD."bowTie_id" AND "count" <= 0; UPDATE "bowtie" SET "timesWorn" = "timesWorn_baseline" + coalesce((SELECT "count" FROM "bowtie_wears_count" WHERE "bowTie_id" = OLD."bowTie_id"), 0), "lastWorn" = (SELECT max(value) FROM (SELECT "lastWorn_baseline" AS value UNION ALL SELECT "date" FROM "wear" WHERE "bowTie_id" = OLD."bowTie_id")) WHERE "id" = OLD."bowTie_id"; END;
                CREATE TRIGGER "bowtie_wears_update" AFTER UPDATE OF "bowTie_id", "date" ON "wear" BEGIN UPDATE "bowtie_wears_count" SET "count" = "count" - 1 WHERE "bowTie_id" = OLD."bowTie_id"; DELETE FROM "bowtie_wears_count" WHERE "bowTie_id" = OLD."bowTie_id" AND "count" <= 0; INSERT INTO "bowtie_wears_count" ("bowTie_id", "count") VALUES (NEW."bowTie_id", 1) ON CONFLICT ("bowTie_id") DO UPDATE SET "count" = "count" + 1; UPDATE "bowtie" SET "timesWorn" = "timesWorn_baseline" + coalesce((SELECT "count" FROM "bowtie_wears_count" WHERE "bowTie_id" = OLD."bowTie_id"), 0), "lastWorn" = (SELECT max(value) FROM (SELECT "lastWorn_baseline" AS value UNION ALL SELECT "date" FROM "wear" WHERE "bowTie_id" = OLD."bowTie_id")) WHERE "id" = OLD."bowTie_id"; UPDATE "bowtie" SET "timesWorn" = "timesWorn_baseline" + coalesce((SELECT "count" FROM "bowtie_wears_count" WHERE "bowTie_id" = NEW."bowTie_id"), 0), "lastWorn" = (SELECT max(value) FROM (SELECT "lastWorn_baseline" AS value UNION ALL SELECT "date" FROM "wear" WHERE "bowTie_id" = NEW."bowTie_id")) WHERE "id" = NEW."bowTie_id"; END;
                CREATE TRIGGER "bowtie_wears_baseline" AFTER UPDATE OF "timesWorn_baseline", "lastWorn_baseline" ON "bowtie" BEGIN UPDATE "bowtie" SET "timesWorn" = "timesWorn_baseline" + coalesce((SELECT "count" FROM "bowtie_wears_count" WHERE "bowTie_id" = NEW."id"), 0), "lastWorn" = (SELECT max(value) FROM (SELECT "lastWorn_baseline" AS value UNION ALL SELECT "date" FROM "wear" WHERE "bowTie_id" = NEW."id")) WHERE "id" = NEW."id"; END;
                """,
            // Read without v6: readers never count through the table
            // (timesWorn is stored), but it is one of today's tables.
            readShim: """
                CREATE TEMP TABLE "bowtie_wears_count" ("bowTie_id" TEXT PRIMARY KEY NOT NULL, "count" INTEGER NOT NULL) WITHOUT ROWID;
                """),
    ])

    /// Applies every pending migration in one IMMEDIATE transaction of
    /// its own.
    ///
    /// - Returns: The identifiers applied, in order: none when another
    ///   process brought the store up to date first.
    /// - Throws: ``CatalogError``: `.notAStore` for a store from a newer
    ///   version, `.storeDamaged` when the upgraded store would hold broken
    ///   references, and the errors of ``mapErrors(_:)``. The store is
    ///   then as it was.
    @discardableResult
    func migrateSchema() throws -> [String] {
        try mapErrors {
            var applied: [String] = []
            try mapMigrationErrors { applied = try migrator.migrate(database) }
            return applied
        }
    }

    /// The error for a store whose schema a newer bowties wrote.
    func newerStoreError() -> CatalogError {
        CatalogError(
            .notAStore, "\(url.path) was written by a newer version of bowties",
            hint: "Upgrade bowties to use this catalog.")
    }

    func mapMigrationErrors(_ body: () throws -> Void) throws {
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
