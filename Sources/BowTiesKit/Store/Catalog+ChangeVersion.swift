import Foundation

extension Catalog {
    /// A number that changes whenever a change to the store is committed
    /// by another connection: another process (the command line), or
    /// another ``Catalog`` of this one. Compare two readings to know
    /// whether anything changed between them.
    ///
    /// Cheap enough to poll a few times a second, and never inside a
    /// transaction: polling neither waits for writers nor keeps old pages
    /// of the store alive. To wait for the next change, call
    /// ``waitForChange(after:timeout:)``.
    ///
    /// On SQLite it is `PRAGMA data_version`; on PostgreSQL, the number of
    /// commits to this catalog the connection heard of by `LISTEN` (the
    /// store's triggers `NOTIFY` them): the first reading starts
    /// listening, so compare readings of one catalog only.
    ///
    /// ```swift
    /// let watcher = try Catalog(url: url, mode: .readOnly)
    /// let before = try watcher.changeVersion()
    /// // ... `bowties wear R` runs in another process ...
    /// try watcher.changeVersion() != before  // true
    /// ```
    ///
    /// - Throws: ``CatalogError`` when the store cannot be read.
    public func changeVersion() throws -> Int64 {
        try store.mapErrors { try store.changeVersion() }
    }

    /// Waits until ``changeVersion()`` differs from `version` (a change
    /// was committed since that reading), or `timeout` passes.
    ///
    /// What `bowties serve` runs in a loop, on one catalog opened
    /// ``OpenMode/readOnly``, to tell open pages of every change: on
    /// SQLite it reads `data_version` every 200 ms (no one tells SQLite of
    /// another process's commit); on PostgreSQL it sleeps on the
    /// connection's socket until the server sends a notification of a
    /// commit to this catalog, and sends no statement meanwhile.
    ///
    /// ```swift
    /// var version = try watcher.changeVersion()
    /// while true {
    ///     let now = try watcher.waitForChange(after: version, timeout: .milliseconds(500))
    ///     if now != version { refreshPages() }
    ///     version = now
    /// }
    /// ```
    ///
    /// - Returns: The change version now: `version` when nothing changed.
    /// - Throws: ``CatalogError`` when the store cannot be read (a lost
    ///   connection: open a new catalog).
    public func waitForChange(after version: Int64, timeout: Duration) throws -> Int64 {
        try store.mapErrors { try store.waitForChange(after: version, timeout: timeout) }
    }
}
