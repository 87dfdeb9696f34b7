import GRDB

/// The shape of a table: its columns, indexes and foreign keys.
///
/// Two sources make one. ``read(_:_:)`` asks SQLite what a store holds
/// (`PRAGMA table_xinfo`, `index_list`, `index_xinfo`,
/// `foreign_key_list`); ``EntityDescription/expectedTableSchema(named:)``
/// says what the declaration requires. Migrations write their DDL
/// literally, so the two can disagree; ``differences(from:)`` says how, one
/// line per difference, for a test or `bowties check` to show.
struct TableSchema: Equatable, Sendable {
    /// One column, as `PRAGMA table_xinfo` describes it.
    struct Column: Equatable, Sendable, CustomStringConvertible {
        var name: String
        /// The declared type, upper-cased (`TEXT`, `DOUBLE`, `BOOLEAN`).
        var type: String
        var isNotNull = false
        /// The default's SQL text (`0`), nil for none.
        var defaultSQL: String?
        /// Position in the primary key, from 1; 0 when not part of it.
        var primaryKeyPosition = 0
        /// A `UNIQUE` constraint on this column alone.
        var isUnique = false

        init(
            _ name: String, _ type: String, notNull: Bool = false, defaultSQL: String? = nil,
            primaryKeyPosition: Int = 0, unique: Bool = false
        ) {
            self.name = name
            self.type = type.uppercased()
            self.isNotNull = notNull
            self.defaultSQL = defaultSQL
            self.primaryKeyPosition = primaryKeyPosition
            self.isUnique = unique
        }

        /// As a column definition reads: `id TEXT PRIMARY KEY NOT NULL`.
        var description: String {
            var parts = [name, type.isEmpty ? "(no type)" : type]
            if primaryKeyPosition == 1 { parts.append("PRIMARY KEY") }
            if primaryKeyPosition > 1 { parts.append("PRIMARY KEY (column \(primaryKeyPosition))") }
            if isNotNull { parts.append("NOT NULL") }
            if isUnique { parts.append("UNIQUE") }
            if let defaultSQL { parts.append("DEFAULT \(defaultSQL)") }
            return parts.joined(separator: " ")
        }
    }

    /// An index made with `CREATE INDEX`, or a `UNIQUE` constraint on
    /// several columns (one on a single column is ``Column/isUnique``).
    struct Index: Equatable, Sendable, CustomStringConvertible {
        /// The index's name; for a constraint, `UNIQUE(a, b)`, since
        /// SQLite's names for those depend on their order.
        var name: String
        var isUnique: Bool
        /// Key columns, with their collation and order when not the
        /// default: `searchKey COLLATE NOCASE`.
        var columns: [String]
        var isPartial = false

        var description: String {
            (isUnique ? "UNIQUE " : "") + "INDEX \(name)(\(columns.joined(separator: ", ")))"
                + (isPartial ? " WHERE ..." : "")
        }
    }

    /// A `REFERENCES` clause.
    struct ForeignKey: Equatable, Sendable, CustomStringConvertible {
        var columns: [String]
        var parentTable: String
        /// Empty when the clause names none (the parent's primary key).
        var parentColumns: [String]
        var onUpdate = "NO ACTION"
        var onDelete = "NO ACTION"

        var description: String {
            "(\(columns.joined(separator: ", "))) REFERENCES \(parentTable)(\(parentColumns.joined(separator: ", ")))"
                + " ON UPDATE \(onUpdate) ON DELETE \(onDelete)"
        }
    }

    var name: String
    var columns: [Column]
    /// By name.
    var indexes: [Index] = []
    var foreignKeys: [ForeignKey] = []

    /// What the store holds for `table`, or nil when it has no such table.
    static func read(_ table: String, _ db: Database) throws -> TableSchema? {
        // Not `db.tableExists`: GRDB caches the schema, and another
        // process may have changed it.
        var columns = try Row.fetchAll(
            db, sql: "SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_xinfo(?) ORDER BY cid",
            arguments: [table]
        ).map { row in
            Column(
                row[0] as String, row[1] as String? ?? "", notNull: row[2] as Bool, defaultSQL: row[3] as String?,
                primaryKeyPosition: row[4] as Int)
        }
        guard !columns.isEmpty else { return nil }  // no such table
        var indexes: [Index] = []
        let list = try Row.fetchAll(
            db, sql: "SELECT name, \"unique\", origin, partial FROM pragma_index_list(?)", arguments: [table])
        for row in list {
            let name: String = row[0]
            let origin: String = row[2]
            guard origin != "pk" else { continue }  // the columns' primaryKeyPosition says it
            let keys = try Row.fetchAll(
                db, sql: "SELECT name, \"desc\", coll FROM pragma_index_xinfo(?) WHERE key ORDER BY seqno",
                arguments: [name]
            ).map { key -> String in
                let collation = (key[2] as String?)?.uppercased() ?? "BINARY"
                return (key[0] as String? ?? "(expression)") + (collation == "BINARY" ? "" : " COLLATE \(collation)")
                    + (key[1] as Bool ? " DESC" : "")
            }
            if origin == "u", keys.count == 1, let column = columns.firstIndex(where: { $0.name == keys[0] }) {
                columns[column].isUnique = true
                continue
            }
            indexes.append(
                Index(
                    name: origin == "u" ? "UNIQUE(\(keys.joined(separator: ", ")))" : name,
                    isUnique: row[1] as Bool, columns: keys, isPartial: row[3] as Bool))
        }
        var foreignKeys: [Int: ForeignKey] = [:]
        let references = try Row.fetchAll(
            db,
            sql: """
                SELECT id, "table", "from", "to", on_update, on_delete
                FROM pragma_foreign_key_list(?) ORDER BY id, seq
                """,
            arguments: [table])
        for row in references {
            let id: Int = row[0]
            var key =
                foreignKeys[id]
                ?? ForeignKey(
                    columns: [], parentTable: row[1] as String, parentColumns: [], onUpdate: row[4] as String,
                    onDelete: row[5] as String)
            key.columns.append(row[2] as String)
            if let parentColumn = row[3] as String? { key.parentColumns.append(parentColumn) }
            foreignKeys[id] = key
        }
        return TableSchema(
            name: table, columns: columns, indexes: indexes.sorted { $0.name < $1.name },
            foreignKeys: foreignKeys.sorted { $0.key < $1.key }.map(\.value))
    }

    /// How `self` (what a store holds) differs from `expected`, one line
    /// per difference; empty when they agree. Column order is not
    /// compared: every statement names its columns.
    ///
    /// ```
    /// bowtie.wornCount: declared as `wornCount INTEGER NOT NULL DEFAULT 0`, missing from the store
    /// ```
    func differences(from expected: TableSchema) -> [String] {
        var lines: [String] = []
        func compare<T: Equatable & CustomStringConvertible>(
            _ what: String, expected: [T], found: [T], key: (T) -> String
        ) {
            func place(_ item: T) -> String { "\(name).\(key(item))" + (what.isEmpty ? "" : " (\(what))") }
            for item in expected {
                let label = place(item)
                if let actual = found.first(where: { key($0) == key(item) }) {
                    if actual != item { lines.append("\(label): declared as `\(item)`, the store has `\(actual)`") }
                } else {
                    lines.append("\(label): declared as `\(item)`, missing from the store")
                }
            }
            for item in found where !expected.contains(where: { key($0) == key(item) }) {
                lines.append("\(place(item)): `\(item)` is not declared")
            }
        }
        compare("", expected: expected.columns, found: columns, key: \.name)
        compare("index", expected: expected.indexes, found: indexes, key: \.name)
        compare(
            "foreign key", expected: expected.foreignKeys, found: foreignKeys,
            key: { $0.columns.joined(separator: ", ") })
        return lines
    }
}
