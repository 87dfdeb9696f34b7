import Foundation
import GRDB

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

    /// The bow ties `query` selects, in its order; without sort terms, in
    /// `order`.
    ///
    /// - Parameters:
    ///   - order: The order when the query has no sort term.
    ///   - reverse: Reverse the whole order.
    /// - Throws: ``QueryError`` for a query of another entity,
    ///   ``CatalogError`` when the store cannot be read.
    public func bowTies(matching query: Query, order: BowTieOrder = .added, reverse: Bool = false) throws -> [BowTie] {
        try read { db in try bowTies(matching: query, order: order, reverse: reverse, db) }
    }

    /// ``bowTies(matching:order:reverse:)`` in the caller's transaction:
    /// for commands that change what a query selects.
    func bowTies(matching query: Query, order: BowTieOrder = .added, reverse: Bool = false, _ db: Database) throws
        -> [BowTie]
    {
        let codec = bowTieCodec
        let (sql, arguments) = try selectSQL(matching: query, order: order, reverse: reverse)
        return try Row.fetchAll(db, sql: sql, arguments: StatementArguments(arguments)).map {
            BowTie(record: try codec.decode($0))
        }
    }

    /// For each of `attributes`, the longest of the values of the first
    /// `limit` bow ties `query` selects (in its order; without sort terms,
    /// in `order`), as SQLite writes them as text (`length()`, in
    /// characters; 0 when none has a value), and how many ties that was:
    /// what a table needs to size its columns before it streams its rows.
    ///
    /// The limit keeps the first line of a huge table quick (`list |
    /// head -1`: measuring a million rows reads the whole table first);
    /// a later, longer value is for the table to cope with.
    ///
    /// - Throws: ``QueryError``, ``CatalogError``.
    public func textLengths(
        of attributes: [String], matching query: Query, order: BowTieOrder = .added, reverse: Bool = false,
        limit: Int
    ) throws -> (count: Int, lengths: [Int]) {
        let codec = bowTieCodec
        let table = codec.entity.tableName
        let columns = attributes.map { name -> String in
            guard let attribute = codec.entity[name] else { return "NULL" }
            return "\"\(table)\".\"\(attribute.columnName)\""
        }
        let (inner, arguments) = try selectSQL(
            matching: query, order: order, reverse: reverse,
            selection: "SELECT NULL" + columns.indices.map { ", \(columns[$0]) AS c\($0)" }.joined() + codec.fromClause)
        let sql =
            "SELECT count(*)" + columns.indices.map { ", ifnull(max(length(c\($0))), 0)" }.joined()
            + " FROM (" + inner + " LIMIT \(max(0, limit)))"
        return try read { db in
            guard let row = try Row.fetchOne(db, sql: sql, arguments: StatementArguments(arguments)) else {
                return (0, attributes.map { _ in 0 })
            }
            return (row[0], attributes.indices.map { row[$0 + 1] })
        }
    }

    /// The number of bow ties `query` selects.
    /// - Throws: ``QueryError``, ``CatalogError``.
    public func count(matching query: Query) throws -> Int {
        let compiled = try QueryCompiler(codec: bowTieCodec).compile(query)
        var sql = "SELECT count(*) FROM \"\(bowTieCodec.entity.tableName)\""
        if let condition = compiled.whereSQL { sql += " WHERE " + condition }
        return try read { db in try Int.fetchOne(db, sql: sql, arguments: StatementArguments(compiled.arguments)) ?? 0 }
    }

    /// The codec's selection (or `selection`, another `SELECT` of the
    /// codec's `FROM`) with the query's condition and order.
    func selectSQL(
        matching query: Query, order: BowTieOrder = .added, reverse: Bool = false, selection: String? = nil
    ) throws -> (sql: String, arguments: [DatabaseValue]) {
        let compiled = try QueryCompiler(codec: bowTieCodec).compile(
            query, fallbackOrder: order == .added ? nil : order.sql, reverse: reverse)
        var sql = selection ?? bowTieCodec.selection
        if let condition = compiled.whereSQL { sql += " WHERE " + condition }
        sql += " ORDER BY " + compiled.orderSQL
        return (sql, compiled.arguments)
    }
}
