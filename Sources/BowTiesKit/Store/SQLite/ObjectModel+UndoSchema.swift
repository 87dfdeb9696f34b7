import Foundation

/// How a store keeps what undo needs, derived from the declaration.
///
/// Every changing command is one *action* (`undo_action`). While it runs,
/// `undo_recording` names it, and triggers on every table of the model
/// record each row it changes (`undo_change`: table, rowid, operation) with
/// the row's image before and after, in a shadow table of the same columns
/// (`undo_bowtie`: side 0 before, side 1 after). The images are exact:
/// same types, same bytes, so undo restores what was there, whatever the
/// column holds. The triggers fire for rows changed by other triggers and
/// by foreign-key actions too (a cascade's rows are logged before the row
/// that caused them), so an action's list is complete.
///
/// Outside a command `undo_recording.action` is NULL and the triggers do
/// nothing: a change made with plain SQL is not an action (undo then
/// refuses to revert over it).
///
/// Imports set `undo_recording.inserts` to 0: the rows they add are
/// logged as a range of rowids per table instead of one by one, which
/// keeps a 100,000-record import fast; undo deletes the range.
extension ObjectModel {
    /// The table that names the action being recorded (one row).
    static let undoRecordingTable = "undo_recording"
    static let undoActionTable = "undo_action"
    static let undoChangeTable = "undo_change"

    /// The shadow table holding the images of `table`'s changed rows.
    static func undoImageTable(_ table: String) -> String { "undo_" + table }

    /// The columns of a table of the model, in `CREATE TABLE` order, with
    /// their SQL types.
    func storedColumns(ofTable table: String) -> [(name: String, sqlType: String)] {
        if let entity = entities.first(where: { $0.tableName == table }) {
            var columns: [(String, String)] = []
            if entity.primaryKeyAttribute == nil { columns.append(("pk", "INTEGER")) }
            columns += entity.attributes.map { ($0.columnName, $0.sqlType) }
            columns += linkColumns(of: entity).map { ($0.name, $0.sqlType) }
            columns += entity.attributes.filter { $0.derivation != nil }.map { ($0.baselineColumnName, $0.sqlType) }
            return columns
        }
        if let join = joinTables.first(where: { $0.name == table }) {
            return [
                (join.ownerColumn, join.owner.entity.primaryKeyAttribute?.sqlType ?? "INTEGER"),
                (join.otherColumn, join.other.entity.primaryKeyAttribute?.sqlType ?? "INTEGER"),
            ]
        }
        return []
    }

    /// The tables of the undo history: the actions, their changes, what
    /// is being recorded, and an image table per table of the model.
    var undoTableNames: [String] {
        [Self.undoActionTable, Self.undoChangeTable, Self.undoRecordingTable] + tableNames.map(Self.undoImageTable)
    }

    /// The tables of the model in an order where a table comes after the
    /// tables it refers to: rows are put back in this order, and taken
    /// out in the reverse.
    var tablesInDependencyOrder: [String] {
        let roots = entities.filter { linkColumns(of: $0).isEmpty }.map(\.tableName)
        let linked = entities.filter { !linkColumns(of: $0).isEmpty }.map(\.tableName)
        return roots + linked + joinTables.map(\.name)
    }

    /// The tables every store with undo has, whatever its model: the
    /// actions, their changes, and what is being recorded.
    static let undoInfrastructureSQL: [String] = [
        """
        CREATE TABLE "undo_action" (\
        "id" INTEGER PRIMARY KEY, \
        "title" TEXT NOT NULL, \
        "date" DOUBLE NOT NULL, \
        "undone" INTEGER NOT NULL DEFAULT 0)
        """,
        """
        CREATE TABLE "undo_change" (\
        "seq" INTEGER PRIMARY KEY, \
        "action" INTEGER NOT NULL REFERENCES "undo_action"("id") ON DELETE CASCADE, \
        "phase" INTEGER NOT NULL, \
        "tableName" TEXT NOT NULL, \
        "operation" TEXT NOT NULL, \
        "row" INTEGER NOT NULL, \
        "lastRow" INTEGER)
        """,
        "CREATE INDEX undo_change_action ON undo_change(action, phase)",
        "CREATE INDEX undo_change_row ON undo_change(tableName, row)",
        """
        CREATE TABLE "undo_recording" (\
        "action" INTEGER, \
        "phase" INTEGER NOT NULL DEFAULT 0, \
        "inserts" BOOLEAN NOT NULL DEFAULT 1)
        """,
        "INSERT INTO undo_recording (action) VALUES (NULL)",
    ]

    /// The shadow tables and triggers that record the changes of every
    /// table of the model.
    var undoSQL: [String] {
        var statements: [String] = []
        for table in tableNames {
            let columns = storedColumns(ofTable: table)
            let shadow = Self.undoImageTable(table)
            let definitions = columns.map { "\"\($0.name)\" \($0.sqlType)" }.joined(separator: ", ")
            statements.append(
                """
                CREATE TABLE "\(shadow)" (\
                "seq" INTEGER NOT NULL REFERENCES "undo_change"("seq") ON DELETE CASCADE, \
                "side" INTEGER NOT NULL, \(definitions), \
                PRIMARY KEY ("seq", "side")) WITHOUT ROWID
                """)
            for column in blobColumns where column.table == table {
                // "Does an action still need this photo?" must be cheap.
                statements.append(
                    SecondaryIndex(name: "\(shadow)_\(column.column)", columns: [column.column], table: shadow)
                        .createSQL)
            }
            statements += undoTriggers(table: table, columns: columns.map(\.name))
        }
        return statements
    }

    /// The three triggers that record the changes of `table`.
    private func undoTriggers(table: String, columns: [String]) -> [String] {
        let shadow = Self.undoImageTable(table)
        let names = columns.map { "\"\($0)\"" }.joined(separator: ", ")
        func image(_ side: Int, _ row: String) -> String {
            "(last_insert_rowid(), \(side), " + columns.map { "\(row).\"\($0)\"" }.joined(separator: ", ") + ")"
        }
        func change(_ operation: String, _ row: String) -> String {
            "INSERT INTO \"undo_change\" (\"action\", \"phase\", \"tableName\", \"operation\", \"row\") "
                + "SELECT \"action\", \"phase\", '\(table)', '\(operation)', \(row).rowid FROM \"undo_recording\";"
        }
        let recording = "(SELECT \"action\" FROM \"undo_recording\") IS NOT NULL"
        let changed = columns.map { "OLD.\"\($0)\" IS NOT NEW.\"\($0)\"" }.joined(separator: " OR ")
        // The shadow table has no rowid, so last_insert_rowid() stays the
        // change's seq while both images go in.
        return [
            """
            CREATE TRIGGER "\(table)_undo_insert" AFTER INSERT ON "\(table)" \
            WHEN (SELECT "inserts" AND "action" IS NOT NULL FROM "undo_recording") \
            BEGIN \(change("insert", "NEW")) \
            INSERT INTO "\(shadow)" ("seq", "side", \(names)) VALUES \(image(1, "NEW")); END
            """,
            """
            CREATE TRIGGER "\(table)_undo_update" AFTER UPDATE ON "\(table)" \
            WHEN \(recording) AND (\(changed)) \
            BEGIN \(change("update", "NEW")) \
            INSERT INTO "\(shadow)" ("seq", "side", \(names)) VALUES \(image(0, "OLD")), \(image(1, "NEW")); END
            """,
            """
            CREATE TRIGGER "\(table)_undo_delete" AFTER DELETE ON "\(table)" \
            WHEN \(recording) \
            BEGIN \(change("delete", "OLD")) \
            INSERT INTO "\(shadow)" ("seq", "side", \(names)) VALUES \(image(0, "OLD")); END
            """,
        ]
    }
}
