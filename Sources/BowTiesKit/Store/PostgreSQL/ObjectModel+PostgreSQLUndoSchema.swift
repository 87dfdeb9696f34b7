// The undo history on PostgreSQL, derived from the declaration as
// `ObjectModel+UndoSchema` derives SQLite's: the same tables
// (`undo_action`, `undo_change`, `undo_recording`, an image table
// `undo_<table>` per table of the model) holding the same rows, so that
// `UndoHistory` and `undo`/`redo`/`log` run unchanged above the store.
//
// What differs, and why:
// - a trigger's `WHEN` may not read a table on PostgreSQL, so each table
//   has one PL/pgSQL function (`undo_<table>_changed`) that reads
//   `undo_recording` and returns early, behind two triggers: `<table>_undo`
//   after update and delete, and `<table>_undo_insert` after insert, which
//   an import turns off with a setting (``postgreSQLUndoInsertsSetting``);
// - `seq` and the action's `id` are one past the largest, as SQLite's
//   `INTEGER PRIMARY KEY` numbers them, not an identity: a trigger that
//   took a sequence's value would change `lastval()`, which the store
//   answers `lastInsertedRowID` with (the tag just added), and writers are
//   one at a time (the advisory lock); the new `seq` comes back from
//   `INSERT … RETURNING`;
// - `undo_recording.inserts` is an `integer` (0 or 1): the SQL above the
//   store sets it with `= 1`, which PostgreSQL refuses for a `boolean`.
//
// The frozen migration (`PostgreSQLStore.migrations`) holds this text
// literally; `PostgreSQLSchemaTests` checks that the two agree.

extension ObjectModel {
    /// The columns of a table of the model as its image table keeps them,
    /// in ``storedColumns(ofTable:)``'s order, with their PostgreSQL types.
    func postgreSQLStoredColumns(ofTable table: String) -> [(name: String, type: String)] {
        if let entity = entities.first(where: { $0.tableName == table }) {
            var columns: [(String, String)] = []
            if entity.primaryKeyAttribute == nil { columns.append(("pk", "bigint")) }
            columns += entity.attributes.map { ($0.columnName, $0.postgreSQLType) }
            columns += linkColumns(of: entity).map {
                ($0.name, $0.destination.primaryKeyAttribute?.postgreSQLType ?? "bigint")
            }
            columns += entity.attributes.filter { $0.derivation != nil }.map {
                ($0.baselineColumnName, $0.postgreSQLType)
            }
            return columns
        }
        if let join = joinTables.first(where: { $0.name == table }) {
            return [
                (join.ownerColumn, join.owner.entity.primaryKeyAttribute?.postgreSQLType ?? "bigint"),
                (join.otherColumn, join.other.entity.primaryKeyAttribute?.postgreSQLType ?? "bigint"),
            ]
        }
        return []
    }

    /// The tables every PostgreSQL store with undo has: the actions, their
    /// changes, and what is being recorded (one row).
    static let postgreSQLUndoInfrastructureSQL: [String] = [
        #"CREATE TABLE "undo_action" ("id" bigint PRIMARY KEY, "title" text NOT NULL, "date" double precision NOT NULL, "undone" integer NOT NULL DEFAULT 0)"#,
        #"CREATE TABLE "undo_change" ("seq" bigint PRIMARY KEY, "action" bigint NOT NULL REFERENCES "undo_action"("id") ON DELETE CASCADE, "phase" integer NOT NULL, "tableName" text NOT NULL, "operation" text NOT NULL, "row" bigint NOT NULL, "lastRow" bigint)"#,
        #"CREATE INDEX "undo_change_action" ON "undo_change" ("action", "phase")"#,
        #"CREATE INDEX "undo_change_row" ON "undo_change" ("tableName", "row")"#,
        #"CREATE TABLE "undo_recording" ("action" bigint, "phase" integer NOT NULL DEFAULT 0, "inserts" integer NOT NULL DEFAULT 1)"#,
        #"INSERT INTO "undo_recording" ("action") VALUES (NULL)"#,
    ]

    /// The setting an import turns `off` for its transaction
    /// (`set_config`), so that the insert triggers do not fire at all: its
    /// rows are logged as ranges. A trigger's `WHEN` may call a function
    /// but not read a table; a PL/pgSQL call per row that reads
    /// `undo_recording` only to return cost an import of 20,000 ties a
    /// third more time (10.9 s without the triggers, 14.5 s with them).
    static let postgreSQLUndoInsertsSetting = "bowties.undo_inserts"

    /// The image tables, functions and triggers that record the changes of
    /// every table of the model.
    var postgreSQLUndoSQL: [String] {
        var statements: [String] = []
        for table in tableNames {
            let columns = postgreSQLStoredColumns(ofTable: table)
            let shadow = Self.undoImageTable(table)
            let definitions = columns.map { "\"\($0.name)\" \($0.type)" }.joined(separator: ", ")
            statements.append(
                #"CREATE TABLE "\#(shadow)" ("seq" bigint NOT NULL REFERENCES "undo_change"("seq") ON DELETE CASCADE, "side" integer NOT NULL, \#(definitions), PRIMARY KEY ("seq", "side"))"#
            )
            for column in blobColumns where column.table == table {
                // "Does an action still need this photo?" must be cheap.
                statements.append(#"CREATE INDEX "\#(shadow)_\#(column.column)" ON "\#(shadow)" ("\#(column.column)")"#)
            }
            statements += postgreSQLUndoTrigger(table: table, columns: columns.map(\.name))
        }
        return statements
    }

    /// The function and the trigger that record the changes of `table`.
    private func postgreSQLUndoTrigger(table: String, columns: [String]) -> [String] {
        let shadow = Self.undoImageTable(table)
        let names = columns.map { "\"\($0)\"" }.joined(separator: ", ")
        func image(_ side: Int, _ row: String) -> String {
            "(change_seq, \(side), " + columns.map { "\(row).\"\($0)\"" }.joined(separator: ", ") + ")"
        }
        func change(_ operation: String, _ row: String) -> String {
            #"INSERT INTO "undo_change" ("seq", "action", "phase", "tableName", "operation", "row") VALUES ((SELECT coalesce(max("seq"), 0) + 1 FROM "undo_change"), recorded_action, recorded_phase, '\#(table)', '\#(operation)', \#(row)."rowid") RETURNING "seq" INTO change_seq;"#
        }
        let changed = columns.map { "OLD.\"\($0)\" IS DISTINCT FROM NEW.\"\($0)\"" }.joined(separator: " OR ")
        let insert = #"INSERT INTO "\#(shadow)" ("seq", "side", \#(names)) VALUES"#
        return [
            #"CREATE FUNCTION "undo_\#(table)_changed"() RETURNS trigger LANGUAGE plpgsql AS $$ DECLARE recorded_action bigint; recorded_phase integer; recorded_inserts integer; change_seq bigint; BEGIN SELECT "action", "phase", "inserts" INTO recorded_action, recorded_phase, recorded_inserts FROM "undo_recording"; IF recorded_action IS NULL THEN RETURN NULL; END IF; IF TG_OP = 'INSERT' THEN IF recorded_inserts = 0 THEN RETURN NULL; END IF; \#(change("insert", "NEW")) \#(insert) \#(image(1, "NEW")); ELSIF TG_OP = 'UPDATE' THEN IF NOT (\#(changed)) THEN RETURN NULL; END IF; \#(change("update", "NEW")) \#(insert) \#(image(0, "OLD")), \#(image(1, "NEW")); ELSE \#(change("delete", "OLD")) \#(insert) \#(image(0, "OLD")); END IF; RETURN NULL; END $$"#,
            #"CREATE TRIGGER "\#(table)_undo" AFTER UPDATE OR DELETE ON "\#(table)" FOR EACH ROW EXECUTE FUNCTION "undo_\#(table)_changed"()"#,
            #"CREATE TRIGGER "\#(table)_undo_insert" AFTER INSERT ON "\#(table)" FOR EACH ROW WHEN (current_setting('\#(Self.postgreSQLUndoInsertsSetting)', true) IS DISTINCT FROM 'off') EXECUTE FUNCTION "undo_\#(table)_changed"()"#,
        ]
    }

    /// The lines of ``postgreSQLSchema`` the undo history adds.
    var postgreSQLUndoSchema: [String] {
        var lines: [String] = []
        func column(_ table: String, _ name: String, _ type: String, notNull: Bool = false, default value: String? = nil) {
            lines.append(
                "column \(table).\(name) \(type)" + (notNull ? " not null" : "") + (value.map { " default \($0)" } ?? ""))
        }
        lines += ["table undo_action", "table undo_change", "table undo_recording"]
        column("undo_action", "id", "bigint", notNull: true)
        column("undo_action", "title", "text", notNull: true)
        column("undo_action", "date", "double precision", notNull: true)
        column("undo_action", "undone", "integer", notNull: true, default: "0")
        lines.append("key undo_action (id)")
        column("undo_change", "seq", "bigint", notNull: true)
        column("undo_change", "action", "bigint", notNull: true)
        column("undo_change", "phase", "integer", notNull: true)
        column("undo_change", "tableName", "text", notNull: true)
        column("undo_change", "operation", "text", notNull: true)
        column("undo_change", "row", "bigint", notNull: true)
        column("undo_change", "lastRow", "bigint")
        lines.append("key undo_change (seq)")
        lines.append("references undo_change.action undo_action.id on delete CASCADE")
        lines += ["index undo_change_action", "index undo_change_row"]
        column("undo_recording", "action", "bigint")
        column("undo_recording", "phase", "integer", notNull: true, default: "0")
        column("undo_recording", "inserts", "integer", notNull: true, default: "1")
        for table in tableNames {
            let shadow = Self.undoImageTable(table)
            lines.append("table \(shadow)")
            column(shadow, "seq", "bigint", notNull: true)
            column(shadow, "side", "integer", notNull: true)
            for (name, type) in postgreSQLStoredColumns(ofTable: table) { column(shadow, name, type) }
            lines.append("key \(shadow) (seq, side)")
            lines.append("references \(shadow).seq undo_change.seq on delete CASCADE")
            for blob in blobColumns where blob.table == table { lines.append("index \(shadow)_\(blob.column)") }
            lines.append("trigger \(table) \(table)_undo")
            lines.append("trigger \(table) \(table)_undo_insert")
        }
        return lines
    }
}
