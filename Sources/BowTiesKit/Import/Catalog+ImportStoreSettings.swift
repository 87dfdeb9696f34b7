extension Catalog {
    /// Runs an import's transaction with the store set for it: the larger
    /// page cache (``importCacheKiB``) and the bulk load's journal
    /// (`CatalogStore.withBulkLoadJournal`: for an SQLite store the import
    /// created, a rollback journal instead of the WAL, whose index would
    /// grow with the catalog).
    func withImportStoreSettings<T>(_ body: () throws -> T) throws -> T {
        try store.withCacheSize(kibibytes: Self.importCacheKiB) {
            try store.withBulkLoadJournal(body)
        }
    }
}
