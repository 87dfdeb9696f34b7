// How a PostgreSQL catalog tells its listeners that it changed: a
// statement trigger on every table whose rows a page shows (the model's
// tables, `blob`, `setting`, and `undo_action`, whose rows name the
// action Undo would revert) raises `NOTIFY` on one channel, with the
// table's schema as the payload (two catalogs in one database, in two
// schemas, do not wake each other's pages).
//
// Why `NOTIFY`, and why these triggers:
// - the server delivers a notification when the transaction that raised
//   it commits, never for one that rolls back, and once per transaction
//   however many statements raised it (equal payloads are folded), so a
//   listener counts commits of this catalog, by any writer (the command
//   line, another machine, psql), and nothing else: the write-ahead log's
//   position, which the server polled before, moves with every database
//   on the server and with checkpoints;
// - `FOR EACH STATEMENT`: an import of a million rows raises it per
//   statement, not per row, and the server folds them into one.
//
// The frozen migration (`PostgreSQLStore.migrations`) holds this text
// literally, after the undo history's; `PostgreSQLSchemaTests` checks
// that the two agree.

extension ObjectModel {
    /// The channel a PostgreSQL catalog's triggers notify; the payload is
    /// the schema of the table that changed.
    static let postgreSQLChangeChannel = "bowties_changed"

    /// The tables whose changes are notified: the model's, the photos',
    /// the settings', and the undo history's actions.
    var postgreSQLNotifiedTables: [String] { ["blob", "setting"] + tableNames + ["undo_action"] }

    /// The function and the triggers that notify
    /// ``postgreSQLChangeChannel`` of every committed change.
    var postgreSQLNotifySQL: [String] {
        [
            #"CREATE FUNCTION "bowties_notify_changed"() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_notify('\#(Self.postgreSQLChangeChannel)', TG_TABLE_SCHEMA); RETURN NULL; END $$"#
        ]
            + postgreSQLNotifiedTables.map { table in
                #"CREATE TRIGGER "\#(table)_notify" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "\#(table)" FOR EACH STATEMENT EXECUTE FUNCTION "bowties_notify_changed"()"#
            }
    }

    /// The lines of ``postgreSQLSchema`` the notifications add.
    var postgreSQLNotifySchema: [String] {
        postgreSQLNotifiedTables.map { "trigger \($0) \($0)_notify" }
    }
}
