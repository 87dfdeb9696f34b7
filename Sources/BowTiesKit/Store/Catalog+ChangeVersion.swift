import Foundation

extension Catalog {
    /// A number that changes whenever a change to the store is committed
    /// by another connection: another process (the command line), or
    /// another ``Catalog`` of this one. Compare two readings to know
    /// whether anything changed between them.
    ///
    /// Cheap enough to poll a few times a second (`bowties serve` does,
    /// every 200 ms, on one catalog opened ``OpenMode/readOnly``), and
    /// never inside a transaction: polling neither waits for writers nor
    /// keeps old pages of the store alive.
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
}
