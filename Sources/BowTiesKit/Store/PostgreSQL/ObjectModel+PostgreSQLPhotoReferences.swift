// How a PostgreSQL catalog keeps every photo a record names stored
// (schema v3): statement triggers over transition tables, where v1–v2
// had a foreign key from each photo column to `blob`.
//
// Why not the foreign key: PostgreSQL checks a foreign key row by row.
// Each row a `COPY` writes into `bowtie` runs, in the key's own trigger,
// a `SELECT 1 FROM blob WHERE sha256 = $1 FOR KEY SHARE` through SPI
// (about 35 µs here): psql's `\copy` of 100,000 ties into the catalog's
// table took 1.71× its time into a plain table, 1.06× without that key
// (bench/results/postgres.md). A deferred key queues the same per-row
// check for the commit. The photos of an import are few (a handful of
// distinct hashes for thousands of ties), so one check per statement
// over the distinct hashes the statement wrote does the same work once.
//
// The guarantee is the key's, under concurrent writers:
// - after each `INSERT`, `COPY` or `UPDATE` of a table with a photo
//   column, the photos the statement named (on an update, only those it
//   changed) are locked `FOR KEY SHARE`, as the key locks them, and any
//   that is not in `blob` refuses the statement. A photo another
//   transaction is deleting makes the lock wait for it; at READ
//   COMMITTED a committed delete then leaves the photo out, and the check
//   (a new snapshot per statement) finds it missing; at REPEATABLE READ
//   the lock fails with a serialization error (40001), as the key's does;
// - after each `DELETE` or `UPDATE` of `blob`, a hash that is no longer
//   in `blob` but that a record names refuses the statement. A record
//   being written by another transaction holds its photo's `KEY SHARE`
//   lock, which the delete waits for; once that record is committed the
//   check (READ COMMITTED: a new snapshot) sees it.
// - the errors are the key's: SQLSTATE 23503 with the server's words for
//   the constraint `<table>_<column>_fkey`, so a command prints what it
//   printed before.
//
// One difference: the key was `DEFERRABLE`, and `SET CONSTRAINTS ALL
// DEFERRED` (undo) put its check off to the commit; the triggers check at
// each statement's end. No command needs it later: undo never writes
// `blob`, and a photo's row is written before the records that name it
// and deleted only when none does (`Catalog.deleteUnusedBlobSQL`).
//
// `FOR EACH STATEMENT` with transition tables: one trigger per event (the
// server allows no `INSERT OR UPDATE` and no column list with transition
// tables). `session_replication_role = replica` sets these triggers aside
// as it did the key's; `check` finds what was written meanwhile (a record
// naming a photo that is not stored) as before.
//
// The frozen migration v3 (`PostgreSQLStore.migrations`) holds this text
// literally, after dropping the keys; `PostgreSQLSchemaTests` checks that
// the two agree.

extension ObjectModel {
    /// The constraint name v1–v2's foreign key had (the server's default
    /// for an inline `REFERENCES`), which the triggers' errors keep.
    static func postgreSQLPhotoKeyName(table: String, column: String) -> String {
        "\(table)_\(column)_fkey"
    }

    /// The functions and triggers that keep every photo a record names in
    /// `blob` (schema v3), for each of the model's photo columns
    /// (``blobColumns``).
    var postgreSQLPhotoReferenceSQL: [String] {
        var statements: [String] = []
        for (table, column) in blobColumns {
            let key = Self.postgreSQLPhotoKeyName(table: table, column: column)
            let prefix = "\(table)_\(column)"
            // The hashes the statement named (insert) or changed (update).
            let named = #"SELECT "\#(column)" AS value FROM "new_rows" WHERE "\#(column)" IS NOT NULL"#
            let changed =
                #"SELECT n."\#(column)" AS value FROM "new_rows" AS n JOIN "old_rows" AS o ON o."rowid" = n."rowid" WHERE n."\#(column)" IS NOT NULL AND n."\#(column)" IS DISTINCT FROM o."\#(column)""#
            func check(_ hashes: String) -> String {
                #"PERFORM 1 FROM "blob" WHERE "sha256" IN (\#(hashes)) FOR KEY SHARE; SELECT r.value INTO missing FROM (SELECT DISTINCT h.value FROM (\#(hashes)) AS h) AS r WHERE NOT EXISTS (SELECT 1 FROM "blob" WHERE "sha256" = r.value) LIMIT 1;"#
            }
            statements.append(
                #"CREATE FUNCTION "\#(prefix)_check"() RETURNS trigger LANGUAGE plpgsql AS $$ DECLARE missing text; BEGIN IF TG_OP = 'INSERT' THEN \#(check(named)) ELSE \#(check(changed)) END IF; IF missing IS NOT NULL THEN RAISE EXCEPTION USING ERRCODE = 'foreign_key_violation', MESSAGE = 'insert or update on table "\#(table)" violates foreign key constraint "\#(key)"', DETAIL = format('Key (\#(column))=(%s) is not present in table "blob".', missing), TABLE = '\#(table)', CONSTRAINT = '\#(key)'; END IF; RETURN NULL; END $$"#
            )
            statements.append(
                #"CREATE TRIGGER "\#(prefix)_insert" AFTER INSERT ON "\#(table)" REFERENCING NEW TABLE AS "new_rows" FOR EACH STATEMENT EXECUTE FUNCTION "\#(prefix)_check"()"#
            )
            statements.append(
                #"CREATE TRIGGER "\#(prefix)_update" AFTER UPDATE ON "\#(table)" REFERENCING OLD TABLE AS "old_rows" NEW TABLE AS "new_rows" FOR EACH STATEMENT EXECUTE FUNCTION "\#(prefix)_check"()"#
            )
        }
        guard !blobColumns.isEmpty else { return statements }
        // `blob`'s side: a hash gone from `blob` that a record still names.
        let checks = blobColumns.map { table, column in
            let key = Self.postgreSQLPhotoKeyName(table: table, column: column)
            return
                #"SELECT o."sha256" INTO gone FROM "old_rows" AS o WHERE NOT EXISTS (SELECT 1 FROM "blob" WHERE "sha256" = o."sha256") AND EXISTS (SELECT 1 FROM "\#(table)" WHERE "\#(column)" = o."sha256") LIMIT 1; IF gone IS NOT NULL THEN RAISE EXCEPTION USING ERRCODE = 'foreign_key_violation', MESSAGE = 'update or delete on table "blob" violates foreign key constraint "\#(key)" on table "\#(table)"', DETAIL = format('Key (sha256)=(%s) is still referenced from table "\#(table)".', gone), TABLE = 'blob', CONSTRAINT = '\#(key)'; END IF;"#
        }
        statements.append(
            #"CREATE FUNCTION "blob_referenced_check"() RETURNS trigger LANGUAGE plpgsql AS $$ DECLARE gone text; BEGIN \#(checks.joined(separator: " ")) RETURN NULL; END $$"#
        )
        for event in ["delete", "update"] {
            statements.append(
                #"CREATE TRIGGER "blob_referenced_\#(event)" AFTER \#(event.uppercased()) ON "blob" REFERENCING OLD TABLE AS "old_rows" FOR EACH STATEMENT EXECUTE FUNCTION "blob_referenced_check"()"#
            )
        }
        return statements
    }

    /// The lines of ``postgreSQLSchema`` the photo references add: the
    /// triggers on each photo column's table and on `blob`.
    var postgreSQLPhotoReferenceSchema: [String] {
        blobColumns.flatMap { table, column in
            ["insert", "update"].map { "trigger \(table) \(table)_\(column)_\($0)" }
        } + (blobColumns.isEmpty ? [] : ["delete", "update"].map { "trigger blob blob_referenced_\($0)" })
    }
}
