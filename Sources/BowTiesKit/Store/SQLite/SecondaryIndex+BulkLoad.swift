extension SecondaryIndex {
    /// The page cache, in KiB, while a bulk load builds the indexes it
    /// deferred: SQLite's default, the store's usual one.
    static let bulkBuildCacheKiB = 2000

    /// Creates `indexes` at the end of a bulk load, in its transaction,
    /// with the store's usual page cache rather than the import's larger
    /// one.
    ///
    /// `CREATE INDEX` sorts its keys in memory as large as the page cache,
    /// on top of the cache itself, so the builds were the import's peak
    /// memory (4 MiB of cache and 4 MiB of sort, 36.8 MiB in all at
    /// 400,000 records, against 32.7 MiB while inserting). With 2 MB for
    /// both, the insertion can take a larger cache (`Catalog.importCacheKiB`)
    /// and the import stays within 40 MiB; the sort spills more often to
    /// a temporary file, which costs little next to the page misses a
    /// larger cache saves while inserting (bench/README.md, "session 8").
    /// The cache goes back to the store's usual size after the import in
    /// any case.
    static func bulkBuildSQL(_ indexes: [SecondaryIndex]) -> String {
        (["PRAGMA cache_size = -\(bulkBuildCacheKiB)"] + indexes.map(\.createSQL)).joined(separator: ";\n")
    }
}
