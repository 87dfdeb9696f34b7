import Foundation

extension Catalog {
    /// What a catalog opened ``OpenMode/readOnly`` on an SQLite file was
    /// opened on: the file (its device and inode, taken before the open).
    /// ``isReusable(_:)`` compares it with the path's file now.
    public struct FileIdentity: Sendable, Equatable {
        let device: UInt64
        let inode: UInt64

        /// The file at `url` now, or nil when there is none (or `url` is a
        /// PostgreSQL address).
        public init?(of url: URL) {
            var status = stat()
            guard !url.isStoreAddress, stat(url.fileSystemPath, &status) == 0 else { return nil }
            device = UInt64(status.st_dev)
            inode = UInt64(status.st_ino)
        }
    }

    /// Whether this catalog, opened read-only on the file `identity` names
    /// (taken before it was opened), may serve another read as a catalog
    /// opened now would: it reads a current SQLite store on SQLite's own
    /// connection, outside any transaction between reads; the path still
    /// names that file (not a copy moved over it, nor a new store); and
    /// its schema is still this version's (another release may have
    /// upgraded it). A long-running reader (`bowties serve`) keeps such
    /// catalogs between requests instead of opening one for each: the
    /// open's allocations (the connection, its page cache, the parsed
    /// schema) were most of a small read's.
    ///
    /// ```swift
    /// let identity = Catalog.FileIdentity(of: url)
    /// let catalog = try Catalog(url: url, mode: .readOnly)
    /// // … a read; later, before the next one:
    /// if let identity, catalog.isReusable(identity) { /* read again */ }
    /// ```
    ///
    /// - Returns: false for every other catalog (a PostgreSQL one, one
    ///   opened to write, a store read through an older schema's shims),
    ///   and whenever the answer cannot be had: open a new catalog then.
    public func isReusable(_ identity: FileIdentity) -> Bool {
        guard let reader = store as? SQLiteReadStore else { return false }
        return reader.isStillCurrent(device: identity.device, inode: identity.inode)
    }
}

extension Catalog {
    /// Prepares SQLite for a process that serves many requests for long
    /// (`bowties serve`): its page caches allocate each page (4 KB) as
    /// they need it, where they would allocate 20 pages (87 KB) at once,
    /// for every connection opened and every temporary b-tree a
    /// statement builds (a page of ties builds one), allocated and freed
    /// for each request (bench/results/serve.md, session 12). A command
    /// that runs once keeps SQLite's default.
    ///
    /// Call it before the first catalog opens.
    ///
    /// - Returns: false when a catalog was already opened in this
    ///   process: SQLite keeps its default then, and works the same.
    @discardableResult
    public static func prepareForLongRunningServer() -> Bool {
        SQLiteProcessSettings.allocatePagesOneByOne()
    }
}
