import GRDB

extension AttributeDescription {
    /// The column that holds this attribute. Binary data is stored once
    /// per content in the `blob` table; the record's column holds its
    /// SHA-256.
    var columnName: String {
        type == .binaryData ? name + "_sha256" : name
    }
}

extension EntityDescription {
    /// Creates the table of this entity, its columns derived from the
    /// attribute declarations.
    ///
    /// Migrations call it with the declaration of their model version;
    /// a later model version adds its changes in a new migration, as Core
    /// Data's model versions do.
    func createTable(named table: String, in db: Database) throws {
        try db.create(table: table) { t in
            for attribute in attributes {
                let name = attribute.name
                switch attribute.type {
                case .uuid where name == "id":
                    t.primaryKey(name, .text)
                case .uuid, .string, .uri:
                    let column = t.column(name, .text)
                    if !attribute.isOptional { column.notNull() }
                    if attribute.isUnique { column.unique() }
                case .boolean:
                    t.column(name, .boolean).notNull().defaults(to: false)
                case .integer32:
                    t.column(name, .integer).notNull().defaults(to: 0)
                case .double:
                    t.column(name, .double).notNull().defaults(to: 0)
                case .date:
                    // Seconds since 1970: exact round trips, compact, sortable.
                    t.column(name, .double)
                case .transformable:
                    t.column(name, .blob)
                case .binaryData:
                    t.column(attribute.columnName, .text).references(Catalog.blobTable)
                }
            }
        }
        for index in secondaryIndexes(on: table) {
            try db.execute(sql: index.createSQL)
        }
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
                    name: "\(table)_\(attribute.name)_nocase",
                    columns: "\(attribute.name) COLLATE NOCASE", table: table))
        }
        for attribute in attributes where attribute.type == .binaryData {
            // "Does any record still use this blob?" must be cheap.
            indexes.append(
                SecondaryIndex(
                    name: "\(table)_\(attribute.columnName)", columns: attribute.columnName, table: table))
        }
        return indexes
    }
}

/// A non-unique index, by the statements that create and drop it.
struct SecondaryIndex {
    var name: String
    var columns: String
    var table: String

    var createSQL: String { "CREATE INDEX IF NOT EXISTS \(name) ON \(table)(\(columns))" }
    var dropSQL: String { "DROP INDEX IF EXISTS \(name)" }
}
