import Foundation

extension Catalog {
    /// Parses query terms against the catalog's bow-tie entity.
    ///
    /// ```swift
    /// let ties = try catalog.bowTies(matching: catalog.query(["rating:4..", "^tag:formal"]))
    /// ```
    ///
    /// - Parameter now: The instant relative dates (`-90d`) count back from.
    /// - Throws: ``QueryError``.
    public func query(_ terms: [String], now: Date = Date()) throws -> Query {
        try Query.parse(terms, model: bowTieCodec.entity, in: model, now: now)
    }

    /// The bow ties `query` selects, in the order of its `sort:` terms,
    /// then in the order they were added.
    ///
    /// - Parameter reverse: Reverse the whole order.
    /// - Throws: ``QueryError`` for a query of another entity,
    ///   ``CatalogError`` when the store cannot be read.
    public func bowTies(matching query: Query, reverse: Bool = false) throws -> [BowTie] {
        try read { db in try bowTies(matching: query, reverse: reverse, db) }
    }

    /// ``bowTies(matching:reverse:)`` in the caller's transaction:
    /// for commands that change what a query selects.
    func bowTies(matching query: Query, reverse: Bool = false, _ db: any StoreSession) throws -> [BowTie] {
        let codec = bowTieCodec
        let (sql, arguments) = try selectSQL(matching: query, reverse: reverse)
        return try StoreRow.fetchAll(db, sql: sql, arguments: StoreArguments(arguments)).map {
            BowTie(record: try codec.decode($0))
        }
    }

    /// The number of bow ties `query` selects.
    /// - Throws: ``QueryError``, ``CatalogError``.
    public func count(matching query: Query) throws -> Int {
        let compiled = try QueryCompiler(codec: bowTieCodec, dialect: store.dialect).compile(query)
        var sql = "SELECT count(*) FROM \"\(bowTieCodec.entity.tableName)\""
        if let condition = compiled.whereSQL { sql += " WHERE " + condition }
        return try read { db in try Int.fetchOne(db, sql: sql, arguments: StoreArguments(compiled.arguments)) ?? 0 }
    }

    /// The codec's selection (or `selection`, another `SELECT` of the
    /// codec's `FROM`) with the query's condition and order (none when
    /// not `ordered`: a query selects the same rows in any order).
    func selectSQL(
        matching query: Query, reverse: Bool = false, selection: String? = nil, ordered: Bool = true
    ) throws -> (sql: String, arguments: [StoreValue]) {
        let compiled = try QueryCompiler(codec: bowTieCodec, dialect: store.dialect).compile(query, reverse: reverse)
        var sql = selection ?? bowTieCodec.selection
        if let condition = compiled.whereSQL { sql += " WHERE " + condition }
        if ordered { sql += " ORDER BY " + compiled.orderSQL }
        return (sql, compiled.arguments)
    }
}
