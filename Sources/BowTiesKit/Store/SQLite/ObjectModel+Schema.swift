import GRDB

// How an object model is stored: the one place that turns declarations
// into tables, columns, foreign keys, indexes and triggers. Migrations do
// not call it (they are written down literally); it says what a migrated
// store must look like, creates the stores of models that were never
// released (tests), and writes the DDL a new migration starts from.

extension AttributeDescription {
    /// The column that holds this attribute. Binary data is stored once
    /// per content in the `blob` table; the record's column holds its
    /// SHA-256.
    var columnName: String {
        type == .binaryData ? name + "_sha256" : name
    }

    /// The column that holds a derived attribute's baseline.
    var baselineColumnName: String { name + "_baseline" }

    /// The name exports and imports give a derived attribute's baseline:
    /// `timesWornBefore`, what `timesWorn` counted before the history
    /// began.
    var baselineExportName: String { exportName + "Before" }

    /// The SQL type of the column.
    var sqlType: String {
        switch type {
        case .string, .uri, .uuid, .binaryData: "TEXT"
        case .boolean: "BOOLEAN"
        case .integer32: "INTEGER"
        // Dates: seconds since 1970, exact round trips, compact, sortable.
        case .double, .date: "DOUBLE"
        case .transformable: "BLOB"
        }
    }

    /// The column's definition, as `CREATE TABLE` and `ALTER TABLE` take it.
    ///
    /// A primary key is a plain `NOT NULL` column: its table is a rowid
    /// table, and what makes the key unique is its own index,
    /// ``ObjectModel/keyIndex(of:)``.
    func columnDefinition(named column: String, unique: Bool) -> String {
        if isPrimaryKey { return "\"\(column)\" \(sqlType) NOT NULL" }
        var parts = ["\"\(column)\"", sqlType]
        if !isOptional { parts.append("NOT NULL") }
        if unique { parts.append("UNIQUE") }
        if isCaseInsensitive { parts.append("COLLATE NOCASE") }
        if let defaultValue { parts.append("DEFAULT " + Self.sqlLiteral(defaultValue)) }
        if type == .binaryData { parts.append("REFERENCES \"\(Catalog.blobTable)\"(\"sha256\")") }
        return parts.joined(separator: " ")
    }

    private static func sqlLiteral(_ value: AttributeValue) -> String {
        switch value {
        case .bool(let flag): flag ? "1" : "0"
        case .integer(let number): String(number)
        case .double(let number): AttributeValue.format(number)
        case .date(let date): AttributeValue.format(date.timeIntervalSince1970)
        case .string(let text), .uri(let text): "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
        case .uuid(let id): "'\(id.uuidString)'"
        case .color, .blob: "NULL"
        }
    }
}

/// A to-many relationship whose inverse is to-many too, stored as a
/// table of pairs (`bowtie_tag`).
struct JoinTable: Sendable {
    var name: String
    /// The side declared first in the model, and the other.
    var owner: (entity: EntityDescription, relationship: RelationshipDescription)
    var other: (entity: EntityDescription, relationship: RelationshipDescription)
    /// The column naming the owner's object (`bowTie_id`), and the other's (`tag_pk`).
    var ownerColumn: String { owner.entity.referenceColumn }
    var otherColumn: String { other.entity.referenceColumn }

    /// The column that names an object of `entity` and the one naming
    /// the object it is linked to, seen from `relationship`.
    func columns(from relationship: RelationshipDescription, of entity: EntityDescription)
        -> (near: String, far: String)
    {
        owner.entity.name == entity.name && owner.relationship.name == relationship.name
            ? (ownerColumn, otherColumn) : (otherColumn, ownerColumn)
    }
}

/// A to-one relationship stored as a column of its entity's table
/// (`wear.bowTie_id`), referring to the destination's primary key.
struct LinkColumn: Sendable {
    var name: String
    var relationship: RelationshipDescription
    var destination: EntityDescription
    /// The foreign key's action when the destination is deleted: the
    /// inverse's delete rule.
    var onDelete: String

    var sqlType: String { destination.primaryKeyAttribute?.sqlType ?? "INTEGER" }
}

extension RelationshipDescription.DeleteRule {
    /// The `ON DELETE` action that enforces the rule from the other end:
    /// for a link column, cascade deletes the row and nullify sets it to
    /// NULL; for a join table's row, both remove the link.
    func foreignKeyAction(joinTable: Bool) -> String {
        switch self {
        case .cascade: "CASCADE"
        case .nullify: joinTable ? "CASCADE" : "SET NULL"
        case .deny: "RESTRICT"
        }
    }
}

extension ObjectModel {
    /// The columns that store the to-one relationships of `entity`.
    func linkColumns(of entity: EntityDescription) -> [LinkColumn] {
        entity.relationships.compactMap { relationship in
            guard !relationship.isToMany, let destination = self[relationship.destination],
                let inverse = inverse(of: relationship)
            else { return nil }
            return LinkColumn(
                name: relationship.name + "_" + destination.primaryKeyColumn, relationship: relationship,
                destination: destination, onDelete: inverse.deleteRule.foreignKeyAction(joinTable: false))
        }
    }

    /// Every many-to-many relationship, once, named after the side
    /// declared first.
    var joinTables: [JoinTable] {
        var tables: [JoinTable] = []
        for (position, entity) in entities.enumerated() {
            for relationship in entity.relationships where relationship.isToMany {
                guard let inverse = inverse(of: relationship), inverse.isToMany,
                    let other = self[relationship.destination],
                    let otherPosition = entities.firstIndex(where: { $0.name == other.name })
                else { continue }
                // Declared first: the earlier entity, or on a relationship
                // to itself, the earlier relationship.
                let isOwner =
                    position < otherPosition
                    || (position == otherPosition
                        && entity.relationships.firstIndex(where: { $0.name == relationship.name })
                            ?? 0 <= entity.relationships.firstIndex(where: { $0.name == inverse.name }) ?? 0)
                guard isOwner else { continue }
                tables.append(
                    JoinTable(
                        name: entity.tableName + "_" + other.tableName, owner: (entity, relationship),
                        other: (other, inverse)))
            }
        }
        return tables
    }

    /// The join table of a many-to-many relationship of `entity`.
    func joinTable(for relationship: RelationshipDescription, of entity: EntityDescription) -> JoinTable? {
        joinTables.first {
            ($0.owner.entity.name == entity.name && $0.owner.relationship.name == relationship.name)
                || ($0.other.entity.name == entity.name && $0.other.relationship.name == relationship.name)
        }
    }

    /// The to-one relationship at the other end of a one-to-many, and its column.
    func linkColumn(inverseOf relationship: RelationshipDescription) -> LinkColumn? {
        guard let destination = self[relationship.destination] else { return nil }
        return linkColumns(of: destination).first { $0.relationship.name == relationship.inverse }
    }

    /// The many-to-many relationships of `entity` whose destination has a
    /// name (``EntityDescription/nameAttribute``): a record carries their
    /// names, and exports write them as one column.
    func namedRelationships(of entity: EntityDescription) -> [RelationshipDescription] {
        entity.relationships.filter { relationship in
            relationship.isToMany && inverse(of: relationship)?.isToMany == true
                && self[relationship.destination]?.nameAttribute != nil
        }
    }

    /// Every column that refers to a `blob` row: the binary attributes of
    /// every entity.
    var blobColumns: [(table: String, column: String)] {
        entities.flatMap { entity in
            entity.attributes.filter { $0.type == .binaryData }.map { (entity.tableName, $0.columnName) }
        }
    }

    /// Every table the model's objects live in: one per entity, one per
    /// many-to-many relationship.
    var tableNames: [String] { entities.map(\.tableName) + joinTables.map(\.name) }

    /// The statements that create the model's tables, indexes and
    /// triggers, in a store that has the `blob` table.
    var creationSQL: [String] {
        var statements: [String] = []
        for entity in entities {
            statements.append(createTableSQL(entity))
            statements += ((keyIndex(of: entity).map { [$0] } ?? []) + indexes(of: entity)).map(\.createSQL)
        }
        for table in joinTables {
            let owner = table.owner.entity
            let other = table.other.entity
            let ownerType = owner.primaryKeyAttribute?.sqlType ?? "INTEGER"
            let otherType = other.primaryKeyAttribute?.sqlType ?? "INTEGER"
            statements.append(
                """
                CREATE TABLE "\(table.name)" (\
                "\(table.ownerColumn)" \(ownerType) NOT NULL REFERENCES "\(owner.tableName)"("\(owner.primaryKeyColumn)") \
                ON DELETE \(table.owner.relationship.deleteRule.foreignKeyAction(joinTable: true)), \
                "\(table.otherColumn)" \(otherType) NOT NULL REFERENCES "\(other.tableName)"("\(other.primaryKeyColumn)") \
                ON DELETE \(table.other.relationship.deleteRule.foreignKeyAction(joinTable: true)), \
                PRIMARY KEY ("\(table.ownerColumn)", "\(table.otherColumn)"))
                """)
            statements.append(
                SecondaryIndex(
                    name: "\(table.name)_\(table.otherColumn)", columns: [table.otherColumn], table: table.name
                ).createSQL)
        }
        statements += derivedCountTables.map(\.createSQL)
        statements += triggers.map(\.sql)
        return statements
    }

    /// `CREATE TABLE` for one entity: its primary key, its attributes in
    /// declaration order, its link columns, then the baselines of its
    /// derived attributes (the order `ALTER TABLE ADD COLUMN` leaves too).
    func createTableSQL(_ entity: EntityDescription) -> String {
        var columns: [String] = []
        if entity.primaryKeyAttribute == nil { columns.append("\"pk\" INTEGER PRIMARY KEY") }
        for attribute in entity.attributes {
            columns.append(attribute.columnDefinition(named: attribute.columnName, unique: attribute.isUnique))
        }
        for link in linkColumns(of: entity) {
            columns.append(linkColumnDefinition(link))
        }
        for attribute in entity.attributes where attribute.derivation != nil {
            columns.append(attribute.columnDefinition(named: attribute.baselineColumnName, unique: false))
        }
        return "CREATE TABLE \"\(entity.tableName)\" (" + columns.joined(separator: ", ") + ")"
    }

    func linkColumnDefinition(_ link: LinkColumn) -> String {
        "\"\(link.name)\" \(link.sqlType)" + (link.relationship.isOptional ? "" : " NOT NULL")
            + " REFERENCES \"\(link.destination.tableName)\"(\"\(link.destination.primaryKeyColumn)\")"
            + " ON DELETE \(link.onDelete)"
    }

    /// The `UNIQUE` index that keeps an entity's declared primary key
    /// (`bowtie_id`), nil for an entity without one (its rowid, `pk`, is
    /// the key).
    ///
    /// Why an index beside the rowid rather than `PRIMARY KEY`: SQLite
    /// keeps a `TEXT PRIMARY KEY` in an index it makes itself, which no
    /// statement can drop. Random UUIDs land on a random leaf of it at
    /// each insert, and once it outgrows the page cache each insert reads
    /// and writes a page: two thirds of an import's storing work at a
    /// million records, growing with the catalog (bench/README.md,
    /// "session 9"). An index of our own can be dropped for a bulk load
    /// into an empty catalog and built by one sort at the end
    /// (``RecordImporter``), and it makes the key exactly as unique, and
    /// as usable by `REFERENCES`, `ON CONFLICT` and lookups, as the
    /// primary key did.
    func keyIndex(of entity: EntityDescription) -> SecondaryIndex? {
        guard let key = entity.primaryKeyAttribute else { return nil }
        let table = entity.tableName
        return SecondaryIndex(name: "\(table)_\(key.columnName)", columns: [key.columnName], table: table, isUnique: true)
    }

    /// The indexes of an entity's table that enforce nothing (``SecondaryIndex``).
    func indexes(of entity: EntityDescription) -> [SecondaryIndex] {
        let table = entity.tableName
        var indexes: [SecondaryIndex] = []
        for attribute in entity.attributes where attribute.isUnique && attribute.type == .string {
            // Case-insensitive fallback lookups use this index; a
            // case-insensitive attribute's unique index serves them.
            guard !attribute.isCaseInsensitive else { continue }
            indexes.append(
                SecondaryIndex(
                    name: "\(table)_\(attribute.name)_nocase", columns: ["\(attribute.name) COLLATE NOCASE"],
                    table: table))
        }
        for attribute in entity.attributes where attribute.type == .binaryData || attribute.isIndexed {
            if attribute.type == .string || attribute.type == .uri {
                // Orders compare text ignoring case (`ORDER BY name COLLATE
                // NOCASE, rowid`: ``QueryCompiler``): an index in that
                // collation serves them, rowid included (SQLite appends it
                // to every index), so a page of them is read from the
                // index instead of sorting the table. A unique name's own
                // index (above, or its `UNIQUE COLLATE NOCASE`) serves it.
                guard !(attribute.isUnique && attribute.type == .string) else { continue }
                indexes.append(
                    SecondaryIndex(
                        name: "\(table)_\(attribute.name)_nocase", columns: ["\(attribute.columnName) COLLATE NOCASE"],
                        table: table))
                continue
            }
            // "Does any record still use this blob?" must be cheap; an
            // indexed number or date orders its pages (`rating`, rowid).
            // The photo's has few distinct keys (photos shared by many
            // ties, or none): a bulk load keeps it as it inserts.
            indexes.append(
                SecondaryIndex(
                    name: "\(table)_\(attribute.columnName)", columns: [attribute.columnName], table: table,
                    staysDuringBulkLoad: attribute.type == .binaryData))
        }
        for link in linkColumns(of: entity) {
            // Deleting the destination, and its to-many, look the rows up by it.
            indexes.append(SecondaryIndex(name: "\(table)_\(link.name)", columns: [link.name], table: table))
        }
        return indexes
    }

    /// A trigger that keeps derived attributes up to date.
    struct Trigger: Sendable {
        var name: String
        var sql: String
    }

    /// A table of kept counts (``ObjectModel/derivedCountTables``): one
    /// row for each object the relationship's rows refer to, none for an
    /// object with no such row.
    struct DerivedCountTable: Sendable {
        var name: String
        /// The link column of the relationship's rows, and the key here.
        var keyColumn: String
        var keyType: String
        /// The table of the relationship's rows (`wear`).
        var source: String

        var createSQL: String {
            "CREATE TABLE \"\(name)\" (\"\(keyColumn)\" \(keyType) PRIMARY KEY NOT NULL, \"count\" INTEGER NOT NULL) WITHOUT ROWID"
        }

        /// Counts every row again (a new store, `check --repair`, an undo
        /// that set tables aside or put them back).
        var recountSQL: [String] {
            [
                "DELETE FROM \"\(name)\"",
                "INSERT INTO \"\(name)\" (\"\(keyColumn)\", \"count\") SELECT \"\(keyColumn)\", count(*) "
                    + "FROM \"\(source)\" GROUP BY \"\(keyColumn)\"",
            ]
        }

        /// For `check`: the keys whose kept count is not the number of
        /// rows, with both (0 for none).
        var mismatchSQL: String {
            """
            SELECT key, sum(kept), sum(counted) FROM (\
            SELECT "\(keyColumn)" AS key, "count" AS kept, 0 AS counted FROM "\(name)" \
            UNION ALL SELECT "\(keyColumn)", 0, count(*) FROM "\(source)" GROUP BY "\(keyColumn)") \
            GROUP BY key HAVING sum(kept) IS NOT sum(counted) OR min(kept) < 0 ORDER BY key
            """
        }

        func incrementSQL(_ key: String) -> String {
            "INSERT INTO \"\(name)\" (\"\(keyColumn)\", \"count\") VALUES (\(key), 1) "
                + "ON CONFLICT (\"\(keyColumn)\") DO UPDATE SET \"count\" = \"count\" + 1;"
        }

        func decrementSQL(_ key: String) -> String {
            "UPDATE \"\(name)\" SET \"count\" = \"count\" - 1 WHERE \"\(keyColumn)\" = \(key); "
                + "DELETE FROM \"\(name)\" WHERE \"\(keyColumn)\" = \(key) AND \"count\" <= 0;"
        }
    }

    private typealias Derivations = (
        entity: EntityDescription, relationship: RelationshipDescription, link: LinkColumn,
        destination: EntityDescription, attributes: [AttributeDescription]
    )

    /// The derived attributes of an entity that follow one relationship,
    /// with what they need: every group of derived attributes the model has.
    private var derivations: [Derivations] {
        var groups: [Derivations] = []
        for entity in entities {
            let derived = entity.attributes.filter { $0.derivation != nil }
            for name in Set(derived.compactMap { $0.derivation?.relationship }).sorted() {
                guard let relationship = entity.relationship(named: name),
                    let link = linkColumn(inverseOf: relationship), let destination = self[relationship.destination]
                else { continue }
                groups.append(
                    (entity, relationship, link, destination, derived.filter { $0.derivation?.relationship == name }))
            }
        }
        return groups
    }

    /// `UPDATE` of the derived attributes of the object whose primary key
    /// is `key` (an SQL expression), from its baselines and relationship:
    /// a count from `counts` (the kept count, ``DerivedCountTable``) or,
    /// without it, by counting the relationship's rows. With `added`
    /// (`NEW`, in a trigger after an insert), a latest value is the later
    /// of the stored one and the added row's, with no read of the others.
    private static func recompute(
        _ entity: EntityDescription, _ link: LinkColumn, _ destination: EntityDescription,
        _ attributes: [AttributeDescription], key: String, subqueryAlias: String = "",
        counts: DerivedCountTable? = nil, added: String? = nil
    ) -> String {
        let source = "FROM \"\(destination.tableName)\" WHERE \"\(link.name)\" = \(key)"
        let assignments = attributes.map { attribute -> String in
            switch attribute.derivation {
            case .latest(_, let name)?:
                if let added {
                    let column = "\"\(attribute.columnName)\""
                    let value = "\(added).\"\(name)\""
                    return "\(column) = CASE WHEN \(column) IS NULL OR \(value) > \(column) "
                        + "THEN \(value) ELSE \(column) END"
                }
                // max() of one column skips NULLs: no baseline, no wears.
                return "\"\(attribute.columnName)\" = (SELECT max(value) FROM "
                    + "(SELECT \"\(attribute.baselineColumnName)\" AS value UNION ALL SELECT \"\(name)\" \(source))"
                    + "\(subqueryAlias))"
            default:
                guard let counts else {
                    return "\"\(attribute.columnName)\" = \"\(attribute.baselineColumnName)\" + (SELECT count(*) \(source))"
                }
                return "\"\(attribute.columnName)\" = \"\(attribute.baselineColumnName)\" + "
                    + "coalesce((SELECT \"count\" FROM \"\(counts.name)\" WHERE \"\(counts.keyColumn)\" = \(key)), 0)"
            }
        }
        return "UPDATE \"\(entity.tableName)\" SET " + assignments.joined(separator: ", ")
            + " WHERE \"\(entity.primaryKeyColumn)\" = \(key);"
    }

    /// The tables that keep, for each object, how many objects a
    /// relationship with a counted derived attribute holds
    /// (``Derivation/count(of:)``): `bowtie_wears_count`, the wears of
    /// each tie that has any.
    ///
    /// The triggers add 1 and take 1 as rows of the relationship come and
    /// go, so that a wear costs the same whatever the tie's history;
    /// counting the history at every wear read all of it, and inserting
    /// many wears of one tie cost the square of their number (5,000 in
    /// 1.7 s, 20,000 in 28.1 s: bench/results/serve.md, session 16). The
    /// count is not an attribute: no undo image holds it, so the order in
    /// which an undo puts rows back cannot count a wear twice (the
    /// objects' rows are restored from their images, the relationship's
    /// rows change the count), and a derived value is always its baseline
    /// plus the count when a trigger writes it. `bowties check` compares
    /// it with the relationship's rows, and `--repair` counts again.
    var derivedCountTables: [DerivedCountTable] {
        derivations.compactMap(Self.countTable)
    }

    /// The statements that count every kept count again
    /// (``DerivedCountTable/recountSQL``, for each table).
    var recountDerivedSQL: [String] { derivedCountTables.flatMap(\.recountSQL) }

    /// The table of kept counts of one group of derived attributes, when
    /// the group has a count.
    private static func countTable(_ group: Derivations) -> DerivedCountTable? {
        let counts = group.attributes.contains {
            if case .count? = $0.derivation { return true }
            return false
        }
        guard counts else { return nil }
        return DerivedCountTable(
            name: "\(group.entity.tableName)_\(group.relationship.name)_count", keyColumn: group.link.name,
            keyType: group.link.sqlType, source: group.destination.tableName)
    }

    /// The triggers that keep each derived attribute equal to its
    /// baseline plus what its relationship holds: after a row of the
    /// relationship's destination is inserted, deleted or moved, and
    /// after a baseline changes.
    var triggers: [Trigger] {
        derivations.flatMap { group -> [Trigger] in
            let (entity, relationship, link, destination, attributes) = group
            let prefix = "\(entity.tableName)_\(relationship.name)"
            let counts = Self.countTable(group)
            func recompute(_ key: String) -> String {
                Self.recompute(entity, link, destination, attributes, key: key, counts: counts)
            }
            let update = counts.map { "\($0.incrementSQL("NEW.\"\(link.name)\"")) " } ?? ""
            let decrementOld = counts.map { "\($0.decrementSQL("OLD.\"\(link.name)\"")) " } ?? ""
            // A wear added: the count as kept (one more), and the later of
            // the last date and the wear's, without reading the history.
            let insertBody = Self.recompute(
                entity, link, destination, attributes, key: "NEW.\"\(link.name)\"", counts: counts, added: "NEW")
            let watched =
                ([link.name]
                + attributes.compactMap {
                    if case .latest(_, let name)? = $0.derivation { return name }
                    return nil
                }).map { "\"\($0)\"" }.joined(separator: ", ")
            let baselines = attributes.map { "\"\($0.baselineColumnName)\"" }.joined(separator: ", ")
            let table = "\"\(destination.tableName)\""
            return [
                Trigger(
                    name: prefix + "_insert",
                    sql: "CREATE TRIGGER \"\(prefix)_insert\" AFTER INSERT ON \(table) "
                        + "BEGIN \(update)\(insertBody) END"),
                Trigger(
                    name: prefix + "_delete",
                    sql: "CREATE TRIGGER \"\(prefix)_delete\" AFTER DELETE ON \(table) "
                        + "BEGIN \(decrementOld)\(recompute("OLD.\"\(link.name)\"")) END"),
                Trigger(
                    name: prefix + "_update",
                    sql: "CREATE TRIGGER \"\(prefix)_update\" AFTER UPDATE OF \(watched) ON \(table) "
                        + "BEGIN \(decrementOld)\(update)"
                        + "\(recompute("OLD.\"\(link.name)\"")) \(recompute("NEW.\"\(link.name)\"")) END"),
                Trigger(
                    name: prefix + "_baseline",
                    sql: "CREATE TRIGGER \"\(prefix)_baseline\" AFTER UPDATE OF \(baselines) "
                        + "ON \"\(entity.tableName)\" "
                        + "BEGIN \(recompute("NEW.\"\(entity.primaryKeyColumn)\"")) END"),
            ]
        }
    }

    /// The statements that make every object's derived attributes agree
    /// with its baselines and relationships again (`check --repair`), in
    /// SQL both backends speak (PostgreSQL wants a subquery in `FROM`
    /// named; the triggers' text, frozen in SQLite's migrations, does not
    /// name it).
    var recomputeDerivedSQL: [String] {
        derivations.map { entity, _, link, destination, attributes in
            Self.recompute(
                entity, link, destination, attributes,
                key: "\"\(entity.tableName)\".\"\(entity.primaryKeyColumn)\"", subqueryAlias: " AS \"values\"")
        }
    }

    /// For `check`: a query listing the objects whose derived attributes
    /// disagree with their relationships: primary key, the stored value,
    /// the right one, then the object's key and name attributes.
    var derivedMismatchQueries: [(entity: EntityDescription, attribute: String, sql: String)] {
        derivations.flatMap { entity, _, link, destination, attributes in
            attributes.map { attribute -> (entity: EntityDescription, attribute: String, sql: String) in
                let table = "\"\(entity.tableName)\""
                let key = "\(table).\"\(entity.primaryKeyColumn)\""
                let source = "FROM \"\(destination.tableName)\" WHERE \"\(link.name)\" = \(key)"
                let expected: String
                switch attribute.derivation {
                case .latest(_, let name)?:
                    expected =
                        "(SELECT max(value) FROM (SELECT \(table).\"\(attribute.baselineColumnName)\" AS value "
                        + "UNION ALL SELECT \"\(name)\" \(source)) AS \"values\")"
                default:
                    expected = "\(table).\"\(attribute.baselineColumnName)\" + (SELECT count(*) \(source))"
                }
                let column = "\(table).\"\(attribute.columnName)\""
                let label = [entity.keyAttribute, entity.nameAttribute].map {
                    $0.map { "\(table).\"\($0)\"" } ?? "NULL"
                }
                return (
                    entity, attribute.name,
                    "SELECT \(key), \(column), \(expected) AS expected, \(label.joined(separator: ", ")) FROM \(table) "
                        + "WHERE \(column) IS DISTINCT FROM \(expected)"
                )
            }
        }
    }
}

/// An index, by the statements that create and drop it: a lookup-only
/// one, or the `UNIQUE` one that keeps a primary key
/// (``ObjectModel/keyIndex(of:)``).
struct SecondaryIndex: Sendable {
    var name: String
    /// Key columns as `CREATE INDEX` lists them, with their collation
    /// when not the default (`searchKey COLLATE NOCASE`).
    var columns: [String]
    var table: String
    /// `CREATE UNIQUE INDEX`: building it fails on a repeated key.
    var isUnique = false
    /// Whether a first import (a bulk load, ``RecordImporter``) keeps
    /// this index as it inserts, instead of dropping it and building it
    /// after the last record; see ``bulkBuildSQL(_:)``.
    var staysDuringBulkLoad = false

    var createSQL: String {
        "CREATE \(isUnique ? "UNIQUE " : "")INDEX IF NOT EXISTS \(name) ON \(table)(\(columns.joined(separator: ", ")))"
    }
    var dropSQL: String { "DROP INDEX IF EXISTS \(name)" }
}

extension ObjectModel {
    /// What a store of this model must hold: its tables' shapes and its
    /// triggers, read back from an in-memory database made with
    /// ``creationSQL``, so that they compare with what a store holds as
    /// SQLite itself reports both.
    func expectedSchema() throws -> (tables: [TableSchema], triggers: [String: String]) {
        let queue = try DatabaseQueue()
        return try queue.write { db in
            try db.execute(sql: SQLiteStore.blobTableSQL)
            for statement in creationSQL + Self.undoInfrastructureSQL + undoSQL { try db.execute(sql: statement) }
            return (
                try (tableNames + derivedCountTables.map(\.name) + undoTableNames).compactMap {
                    try TableSchema.read($0, db)
                },
                try Self.triggers(db)
            )
        }
    }

    /// The triggers a store holds, by name: their SQL with white space
    /// runs made one space.
    static func triggers(_ db: Database) throws -> [String: String] {
        let rows = try Row.fetchAll(db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'trigger'")
        var triggers: [String: String] = [:]
        for row in rows {
            let sql = (row[1] as String? ?? "").split(whereSeparator: \.isWhitespace).joined(separator: " ")
            triggers[row[0]] = sql
        }
        return triggers
    }

    /// How the store `db` differs from what this model requires, one line
    /// per difference: its tables, columns, indexes, foreign keys and
    /// triggers. Empty when they agree.
    func schemaDifferences(_ db: Database) throws -> [String] {
        let expected = try expectedSchema()
        var lines: [String] = []
        for table in expected.tables {
            guard let found = try TableSchema.read(table.name, db) else {
                lines.append("\(table.name): declared, missing from the store")
                continue
            }
            lines += found.differences(from: table)
        }
        let triggers = try Self.triggers(db)
        for (name, sql) in expected.triggers.sorted(by: { $0.key < $1.key }) {
            switch triggers[name] {
            case nil: lines.append("trigger \(name): declared, missing from the store")
            case sql?: break
            case let other?: lines.append("trigger \(name): declared as `\(sql)`, the store has `\(other)`")
            }
        }
        for name in triggers.keys.sorted() where expected.triggers[name] == nil {
            lines.append("trigger \(name): not declared")
        }
        return lines
    }
}

extension SchemaMigrator {
    /// The history of a model that was never released: one migration that
    /// creates the store from the declaration. Only for models no store in
    /// the wild was made with (tests of a changed declaration): a released
    /// model's history is written down literally (``SQLiteStore/migrator``).
    static func creating(_ model: ObjectModel) -> SchemaMigrator {
        let statements =
            [SQLiteStore.blobTableSQL, SQLiteStore.settingTableSQL] + model.creationSQL + ObjectModel.undoInfrastructureSQL
            + model.undoSQL
        return SchemaMigrator([
            SchemaMigration("unreleased: created from the declaration") { db in
                for statement in statements { try db.execute(sql: statement) }
            }
        ])
    }
}
