import GRDB

extension AttributeDescription {
    /// The columns that hold this attribute. Binary data that allows
    /// external storage takes four: the inline bytes (NULL when external),
    /// the SHA-256 (which names the external file), the size, and where
    /// the bytes are.
    var columnNames: [String] {
        if type == .binaryData && allowsExternalStorage {
            return [name, name + "_sha256", name + "_size", name + "_external"]
        }
        return [name]
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
                    t.column(name, .blob)
                    if attribute.allowsExternalStorage {
                        t.column(name + "_sha256", .text)
                        t.column(name + "_size", .integer)
                        t.column(name + "_external", .boolean).notNull().defaults(to: false)
                    }
                }
            }
        }
        for attribute in attributes where attribute.isUnique && attribute.type == .string {
            // Case-insensitive fallback lookups use this index.
            try db.execute(
                sql: "CREATE INDEX \(table)_\(attribute.name)_nocase ON \(table)(\(attribute.name) COLLATE NOCASE)")
        }
        for attribute in attributes where attribute.allowsExternalStorage {
            // "Is this external file still referenced?" must be cheap.
            try db.execute(
                sql: """
                    CREATE INDEX \(table)_\(attribute.name)_files ON \(table)(\(attribute.name)_sha256)
                    WHERE \(attribute.name)_external
                    """)
        }
    }
}

extension Catalog {
    /// The store's schema history. Identifiers never change once released.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: bow ties and settings") { db in
            try BowTieModel.entity.createTable(named: BowTieModel.tableName, in: db)
            try db.create(table: "setting") { t in
                t.primaryKey("key", .text)
                t.column("value", .any)
            }
        }
        return migrator
    }
}
