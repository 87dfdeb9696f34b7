extension AttributeDescription {
    /// The column that holds this attribute. Binary data is stored once
    /// per content in the `blob` table; the record's column holds its
    /// SHA-256.
    var columnName: String {
        type == .binaryData ? name + "_sha256" : name
    }
}

extension EntityDescription {
    /// What the table of this entity must look like in a store whose
    /// migrations are all applied, derived from the declaration.
    ///
    /// It describes; it creates nothing. Migrations write their DDL
    /// literally (``Catalog/migrator``) and are never edited once
    /// released, so a declaration can run ahead of them: a test, and
    /// `bowties check`, compare this with what the migrations made
    /// (``TableSchema/differences(from:)``).
    ///
    /// - Parameter table: The table's name (``BowTieModel/tableName``).
    func expectedTableSchema(named table: String) -> TableSchema {
        var columns: [TableSchema.Column] = []
        var foreignKeys: [TableSchema.ForeignKey] = []
        for attribute in attributes {
            let name = attribute.columnName
            switch attribute.type {
            case .uuid where name == "id":
                columns.append(.init(name, "TEXT", notNull: true, primaryKeyPosition: 1))
            case .uuid, .string, .uri:
                columns.append(.init(name, "TEXT", notNull: !attribute.isOptional, unique: attribute.isUnique))
            case .boolean:
                columns.append(.init(name, "BOOLEAN", notNull: true, defaultSQL: "0"))
            case .integer32:
                columns.append(.init(name, "INTEGER", notNull: true, defaultSQL: "0"))
            case .double:
                columns.append(.init(name, "DOUBLE", notNull: true, defaultSQL: "0"))
            case .date:
                // Seconds since 1970: exact round trips, compact, sortable.
                columns.append(.init(name, "DOUBLE"))
            case .transformable:
                columns.append(.init(name, "BLOB"))
            case .binaryData:
                columns.append(.init(name, "TEXT"))
                foreignKeys.append(
                    .init(columns: [name], parentTable: Catalog.blobTable, parentColumns: ["sha256"]))
            }
        }
        let indexes = secondaryIndexes(on: table).map {
            TableSchema.Index(name: $0.name, isUnique: false, columns: $0.columns)
        }
        return TableSchema(
            name: table, columns: columns, indexes: indexes.sorted { $0.name < $1.name }, foreignKeys: foreignKeys)
    }

    /// The table's indexes that enforce nothing: they only speed up
    /// lookups, so a bulk load into an empty table may drop them and build
    /// them once at the end (a sort instead of a b-tree insert per row).
    /// Unique indexes are never among them: imports rely on them to catch
    /// duplicates as they happen.
    func secondaryIndexes(on table: String) -> [SecondaryIndex] {
        var indexes: [SecondaryIndex] = []
        for attribute in attributes where attribute.isUnique && attribute.type == .string {
            // Case-insensitive fallback lookups use this index.
            indexes.append(
                SecondaryIndex(
                    name: "\(table)_\(attribute.name)_nocase", columns: ["\(attribute.name) COLLATE NOCASE"],
                    table: table))
        }
        for attribute in attributes where attribute.type == .binaryData {
            // "Does any record still use this blob?" must be cheap.
            indexes.append(
                SecondaryIndex(
                    name: "\(table)_\(attribute.columnName)", columns: [attribute.columnName], table: table))
        }
        return indexes
    }
}

/// A non-unique index, by the statements that create and drop it.
struct SecondaryIndex {
    var name: String
    /// Key columns as `CREATE INDEX` lists them, with their collation
    /// when not the default (`searchKey COLLATE NOCASE`).
    var columns: [String]
    var table: String

    var createSQL: String { "CREATE INDEX IF NOT EXISTS \(name) ON \(table)(\(columns.joined(separator: ", ")))" }
    var dropSQL: String { "DROP INDEX IF EXISTS \(name)" }
}
