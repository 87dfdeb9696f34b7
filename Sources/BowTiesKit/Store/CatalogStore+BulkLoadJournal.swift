extension CatalogStore {
    /// Runs `body` as it is: the journal a store keeps for every write
    /// suits a bulk load too (PostgreSQL's WAL, a read-only store).
    func withBulkLoadJournal<T>(_ body: () throws -> T) throws -> T {
        try body()
    }
}
