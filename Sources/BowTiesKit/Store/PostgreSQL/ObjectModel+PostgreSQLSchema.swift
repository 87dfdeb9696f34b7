// How an object model is stored on PostgreSQL, derived from the
// declaration as `ObjectModel+Schema` derives SQLite's: what the frozen
// migrations (`PostgreSQLStore.migrations`) must produce. Migrations do
// not call it; `PostgreSQLSchemaTests` compares the two on a real server,
// line by line (``PostgreSQLStore/liveSchema(_:)`` reads the other side
// from the server's catalog).

extension AttributeDescription {
    /// The PostgreSQL type of the column: the values SQLite's column
    /// holds, in the type that holds exactly them. Ids stay `text` (the
    /// upper-case spelling SQLite keeps, so exports are the same bytes);
    /// dates are seconds since 1970 in `double precision`, as SQLite's.
    var postgreSQLType: String {
        switch type {
        case .string, .uri, .uuid, .binaryData: "text"
        case .boolean: "boolean"
        case .integer32: "integer"
        case .double, .date: "double precision"
        case .transformable: "bytea"
        }
    }

    /// The default as the server's catalog spells it, or nil.
    var postgreSQLDefault: String? {
        switch defaultValue {
        case .bool(let flag)?: flag ? "true" : "false"
        case .integer(let number)?: String(number)
        case .double(let number)?: AttributeValue.format(number)
        case .string(let text)?, .uri(let text)?: "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
        default: nil
        }
    }
}

extension ObjectModel {
    /// The schema the PostgreSQL migrations make, one line per column,
    /// key, foreign key, index and trigger, sorted: the form
    /// ``PostgreSQLStore/liveSchema(_:)`` reads from a database.
    ///
    /// Every table has `rowid bigint` (an identity column: the row number
    /// ``SQLDialect/postgresql`` orders by); an entity with no primary-key
    /// attribute keys on `pk`, generated from `rowid`. Case-insensitive
    /// unique names get a unique index on `lower(name COLLATE "C")` (ASCII
    /// folding, as SQLite's `NOCASE`), named `<table>_<name>_nocase`; other
    /// unique text gets a plain lookup index of that form, and so does
    /// indexed text, on `(lower(name COLLATE "C"), rowid)`: the keys its
    /// order sorts by; an indexed number or date on `(column, rowid)`. Derived
    /// attributes get one trigger per event on the relationship's table,
    /// and one on their baselines.
    var postgreSQLSchema: [String] {
        var lines: [String] = []
        func column(_ table: String, _ name: String, _ type: String, notNull: Bool, default value: String? = nil) {
            lines.append(
                "column \(table).\(name) \(type)" + (notNull ? " not null" : "") + (value.map { " default \($0)" } ?? ""))
        }
        lines += ["table blob", "table setting"]
        for (table, columns) in [
            ("blob", [("sha256", "text", true), ("byteCount", "integer", true), ("external", "boolean", true), ("data", "bytea", false)]),
            ("setting", [("key", "text", true), ("value", "bigint", false)]),
        ] {
            column(table, "rowid", "bigint identity", notNull: true)
            for (name, type, notNull) in columns { column(table, name, type, notNull: notNull) }
            lines.append("key \(table) (\(columns[0].0))")
        }
        // A photo column names a row of `blob` through statement triggers
        // (schema v3: ``postgreSQLPhotoReferenceSQL``), not a foreign key.
        lines += postgreSQLPhotoReferenceSchema
        for entity in entities {
            let table = entity.tableName
            lines.append("table \(table)")
            column(table, "rowid", "bigint identity", notNull: true)
            if entity.primaryKeyAttribute == nil {
                column(table, "pk", "bigint generated", notNull: true)
                lines.append("key \(table) (pk)")
            }
            for attribute in entity.attributes {
                column(
                    table, attribute.columnName, attribute.postgreSQLType,
                    notNull: !attribute.isOptional || attribute.isPrimaryKey, default: attribute.postgreSQLDefault)
                if attribute.isPrimaryKey { lines.append("key \(table) (\(attribute.columnName))") }
                if attribute.isCaseInsensitive {
                    lines.append("index \(table)_\(attribute.name)_nocase unique")
                } else if attribute.isUnique {
                    lines.append("unique \(table) (\(attribute.columnName))")
                    if attribute.type == .string { lines.append("index \(table)_\(attribute.name)_nocase") }
                }
                if attribute.isIndexed && (attribute.type == .string || attribute.type == .uri) {
                    // On `lower(name COLLATE "C"), rowid`: the order's keys
                    // (``SQLDialect/postgresql``), unless a unique name's
                    // own index serves.
                    if !(attribute.isUnique && attribute.type == .string) && !attribute.isCaseInsensitive {
                        lines.append("index \(table)_\(attribute.name)_nocase")
                    }
                } else if attribute.type == .binaryData || attribute.isIndexed {
                    // An indexed number or date on (column, rowid), the
                    // order's keys.
                    lines.append("index \(table)_\(attribute.columnName)")
                }
            }
            for link in linkColumns(of: entity) {
                let type = link.destination.primaryKeyAttribute?.postgreSQLType ?? "bigint"
                column(table, link.name, type, notNull: !link.relationship.isOptional)
                lines.append(
                    "references \(table).\(link.name) \(link.destination.tableName).\(link.destination.primaryKeyColumn) on delete \(link.onDelete)"
                )
                lines.append("index \(table)_\(link.name)")
            }
            for attribute in entity.attributes where attribute.derivation != nil {
                column(
                    table, attribute.baselineColumnName, attribute.postgreSQLType, notNull: !attribute.isOptional,
                    default: attribute.postgreSQLDefault)
            }
            let relationships = Set(entity.attributes.compactMap { $0.derivation?.relationship }).sorted()
            for name in relationships {
                guard let relationship = entity.relationship(named: name),
                    let link = linkColumn(inverseOf: relationship), let destination = self[relationship.destination]
                else { continue }
                let prefix = "\(table)_\(relationship.name)"
                for event in ["insert", "delete", "update"] {
                    lines.append("trigger \(destination.tableName) \(prefix)_\(event)")
                }
                lines.append("trigger \(table) \(prefix)_baseline")
                _ = link
            }
        }
        for joinTable in joinTables {
            let table = joinTable.name
            lines.append("table \(table)")
            column(table, "rowid", "bigint identity", notNull: true)
            for (side, name) in [(joinTable.owner, joinTable.ownerColumn), (joinTable.other, joinTable.otherColumn)] {
                let destination = side.entity
                column(table, name, destination.primaryKeyAttribute?.postgreSQLType ?? "bigint", notNull: true)
                lines.append(
                    "references \(table).\(name) \(destination.tableName).\(destination.primaryKeyColumn) on delete \(side.relationship.deleteRule.foreignKeyAction(joinTable: true))"
                )
            }
            lines.append("key \(table) (\(joinTable.ownerColumn), \(joinTable.otherColumn))")
            lines.append("index \(table)_\(joinTable.otherColumn)")
        }
        lines += postgreSQLUndoSchema
        lines += postgreSQLNotifySchema
        return lines.sorted()
    }
}

extension PostgreSQLStore {
    /// The schema of the database `session` reads, in the form of
    /// ``ObjectModel/postgreSQLSchema``: from `information_schema` and
    /// `pg_catalog`, the tables of the current schema less the migrations'
    /// bookkeeping.
    static func liveSchema(_ session: any StoreSession) throws -> [String] {
        func text(_ row: StoreRow, _ index: Int) -> String { row[index] as String? ?? "" }
        var lines: [String] = []
        let skipped = bookkeepingTable
        for row in try session.fetchAll(
            sql: """
                SELECT c.table_name, c.column_name, c.data_type, c.is_nullable, c.column_default, c.is_identity, \
                c.is_generated FROM information_schema.columns AS c JOIN information_schema.tables AS t \
                ON t.table_schema = c.table_schema AND t.table_name = c.table_name \
                WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE' AND c.table_name <> ?
                """, arguments: [skipped])
        {
            let table = text(row, 0)
            var type = text(row, 2)
            if text(row, 5) == "YES" { type += " identity" }
            if text(row, 6) == "ALWAYS" { type += " generated" }
            var line = "column \(table).\(text(row, 1)) \(type)"
            if text(row, 3) == "NO" { line += " not null" }
            if let value: String = row[4] {
                // `'x'::text` as the declaration spells it: `'x'`.
                line += " default " + (value.range(of: "::").map { String(value[..<$0.lowerBound]) } ?? value)
            }
            lines.append(line)
        }
        lines += try String.fetchAll(
            session,
            sql: """
                SELECT 'table ' || table_name FROM information_schema.tables \
                WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name <> ?
                """, arguments: [skipped])
        for row in try session.fetchAll(
            sql: """
                SELECT c.contype, r.relname, (SELECT string_agg(a.attname, ', ' ORDER BY k.n) FROM unnest(c.conkey) \
                WITH ORDINALITY AS k(attnum, n) JOIN pg_attribute AS a ON a.attrelid = c.conrelid AND a.attnum = k.attnum), \
                f.relname, (SELECT a.attname FROM pg_attribute AS a WHERE a.attrelid = c.confrelid AND a.attnum = c.confkey[1]), \
                c.confdeltype FROM pg_constraint AS c JOIN pg_class AS r ON r.oid = c.conrelid \
                LEFT JOIN pg_class AS f ON f.oid = c.confrelid \
                WHERE r.relnamespace = current_schema()::regnamespace AND c.contype IN ('p', 'u', 'f') AND r.relname <> ?
                """, arguments: [skipped])
        {
            let kind = text(row, 0)
            let table = text(row, 1)
            let columns = text(row, 2)
            switch kind {
            case "p": lines.append("key \(table) (\(columns))")
            case "u":
                // The identity column's UNIQUE is bookkeeping.
                if columns != "rowid" { lines.append("unique \(table) (\(columns))") }
            default:
                let action =
                    ["c": "CASCADE", "n": "SET NULL", "r": "RESTRICT", "a": "NO ACTION", "d": "SET DEFAULT"][
                        text(row, 5)] ?? "?"
                lines.append("references \(table).\(columns) \(text(row, 3)).\(text(row, 4)) on delete \(action)")
            }
        }
        for row in try session.fetchAll(
            sql: """
                SELECT i.relname, x.indisunique FROM pg_index AS x JOIN pg_class AS i ON i.oid = x.indexrelid \
                JOIN pg_class AS r ON r.oid = x.indrelid \
                WHERE r.relnamespace = current_schema()::regnamespace AND r.relname <> ? \
                AND NOT EXISTS (SELECT 1 FROM pg_constraint AS c WHERE c.conindid = x.indexrelid)
                """, arguments: [skipped])
        {
            let unique: Bool = row[1] ?? false
            lines.append("index \(text(row, 0))" + (unique ? " unique" : ""))
        }
        // A trigger `ALTER TABLE … DISABLE TRIGGER` set aside is not the
        // declared one: since v3 the photo's reference is such a trigger.
        lines += try String.fetchAll(
            session,
            sql: """
                SELECT 'trigger ' || r.relname || ' ' || t.tgname || CASE WHEN t.tgenabled = 'D' THEN ' disabled' \
                ELSE '' END FROM pg_trigger AS t JOIN pg_class AS r \
                ON r.oid = t.tgrelid WHERE NOT t.tgisinternal AND r.relnamespace = current_schema()::regnamespace
                """)
        return lines.sorted()
    }
}
