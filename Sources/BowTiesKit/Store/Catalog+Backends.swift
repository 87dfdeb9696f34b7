extension Catalog {
    /// True when the catalog is a PostgreSQL database.
    public var isOnPostgreSQL: Bool { store is PostgreSQLStore }
}
