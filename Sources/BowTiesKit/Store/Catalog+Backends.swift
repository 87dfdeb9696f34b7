extension Catalog {
    /// True when the catalog is a PostgreSQL database.
    public var isOnPostgreSQL: Bool { store is PostgreSQLStore }

    /// Refuses, before anything is read or written, what the PostgreSQL
    /// store does not do yet: a command fails whole and says so (exit 69),
    /// never half-works.
    /// - Throws: ``CatalogError`` `.storeUnavailable`.
    func requireSQLite(_ what: String) throws {
        if store is PostgreSQLStore { throw PostgreSQLStore.notYetAvailable(what) }
    }
}
