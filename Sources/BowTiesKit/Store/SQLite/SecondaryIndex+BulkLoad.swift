extension SecondaryIndex {
    /// The page cache, in KiB, while a bulk load builds the indexes it
    /// deferred: SQLite's default, the store's usual one.
    static let bulkBuildCacheKiB = 2000

    /// The worker threads SQLite's sorter may use while a bulk load builds
    /// its indexes at the end (`PRAGMA threads`; Debian's SQLite allows up
    /// to 8, none by default).
    ///
    /// When the last record is stored the parsing thread has ended, and
    /// the builds (six sorts of every row at the end of a first import)
    /// ran on one core while the other stood idle. With one worker, a
    /// sort's full batch of keys is sorted and written out on the other
    /// core while this thread reads the next rows, and the batches are
    /// merged on both. It costs one more batch in memory (the page cache's
    /// size, ``bulkBuildCacheKiB``) while a worker holds it. Set back to 0
    /// after the builds: a build in the middle of a load (the first record
    /// with tags) would take the core the parser is using.
    static let bulkBuildThreads = 1

    // `staysDuringBulkLoad`: the photo's index has few distinct keys (a
    // few images shared by many ties, or NULL for ties without one), and
    // SQLite appends the rowid to every key, so each insert lands at the
    // end of its key's run: a few hot pages, no random leaf. Kept up to
    // date on the storing thread while the parsing thread (the longer
    // one) reads, it leaves the builds after the last record, which run
    // alone (bench/README.md, "Import, session 13": at 100,000 records
    // the storing thread's CPU after the last record fell by 0.07 to
    // 0.13 s, for 0.05 to 0.11 s more while it stores). The rating's
    // index, a few hundred values in the bench's files, cost the storing
    // thread three to four times what it saved there; the name's, a
    // date's and the id's would land on a random leaf each once the index
    // outgrows the page cache: they are still built at the end.

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
    /// any case. The sorter takes ``bulkBuildThreads`` workers for the
    /// builds.
    static func bulkBuildSQL(_ indexes: [SecondaryIndex]) -> String {
        (["PRAGMA cache_size = -\(bulkBuildCacheKiB)", "PRAGMA threads = \(bulkBuildThreads)"]
            + indexes.map(\.createSQL) + ["PRAGMA threads = 0"]).joined(separator: ";\n")
    }
}
