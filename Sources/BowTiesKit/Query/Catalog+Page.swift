import Foundation

extension Catalog {
    /// One page of the bow ties `query` selects, in the order of
    /// ``bowTies(matching:reverse:)``: what a screen over a million ties
    /// shows without reading them all (`bowties serve`'s list).
    ///
    /// ```swift
    /// let second = try catalog.bowTies(matching: catalog.query(["sort:name"]), offset: 50, limit: 50)
    /// ```
    ///
    /// - Parameters:
    ///   - offset: How many ties of the order to skip (0 or more).
    ///   - limit: At most this many ties (1 or more).
    /// - Throws: ``QueryError``, ``CatalogError``.
    public func bowTies(matching query: Query, offset: Int, limit: Int, reverse: Bool = false) throws -> [BowTie] {
        let codec = bowTieCodec
        let (sql, arguments) = try selectSQL(matching: query, reverse: reverse)
        // Whole numbers the caller cannot spell otherwise: written in the
        // SQL (LIMIT and OFFSET read the same in SQLite and PostgreSQL).
        let page = sql + " LIMIT \(max(1, limit)) OFFSET \(max(0, offset))"
        return try read { db in
            try StoreRow.fetchAll(db, sql: page, arguments: StoreArguments(arguments)).map {
                BowTie(record: try codec.decode($0))
            }
        }
    }
}
