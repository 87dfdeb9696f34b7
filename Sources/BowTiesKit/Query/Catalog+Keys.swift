import Foundation

extension Catalog {
    /// The bow tie a user means by `key`: its search key exactly; else a
    /// case-insensitive match when only one tie has it; else its full id;
    /// else a unique prefix of its id (at least 4 characters).
    ///
    /// - Throws: ``CatalogError`` `.noSuchRecord` or `.ambiguousKey`.
    public func bowTie(matching key: String) throws -> BowTie {
        try read { db in try resolve(key, db) }
    }

    func resolve(_ key: String, _ db: any StoreSession) throws -> BowTie {
        let codec = bowTieCodec
        let table = codec.entity.tableName
        func fetch(_ condition: String, _ arguments: StoreArguments, limit: Int = 2) throws -> [BowTie] {
            try fetchWhere("\(table).\(condition)", arguments, limit: limit)
        }
        func fetchWhere(_ condition: String, _ arguments: StoreArguments, limit: Int = 2) throws -> [BowTie] {
            try StoreRow.fetchAll(
                db, sql: codec.selection + " WHERE \(condition) LIMIT \(limit)", arguments: arguments
            ).map { BowTie(record: try codec.decode($0)) }
        }
        func single(_ matches: [BowTie], _ what: String) throws -> BowTie? {
            guard matches.count > 1 else { return matches.first }
            throw CatalogError(
                .ambiguousKey,
                "\"\(key)\" matches several bow ties by \(what): "
                    + matches.map(\.label).joined(separator: ", ") + (matches.count == 2 ? ", ..." : ""),
                hint: "Use the exact search key or more characters of the id.")
        }
        if let tie = try fetch("searchKey = ?", [key], limit: 1).first { return tie }
        if let tie = try single(fetchWhere(db.dialect.equalsIgnoringCase("\(table).searchKey"), [key]), "search key") {
            return tie
        }
        if let id = UUID(uuidString: key), let tie = try fetchOne(id: id, db) { return tie }
        let prefix = key.uppercased()
        if prefix.count >= 4, prefix.count < 36, prefix.allSatisfy({ $0.isHexDigit || $0 == "-" }) {
            // Ids are upper-case hex and dashes, all below "Z": a range scan
            // of the primary key finds the ids starting with the prefix.
            if let tie = try single(fetch("id >= ? AND \(table).id < ?", [prefix, prefix + "Z"]), "id prefix") {
                return tie
            }
        }
        throw CatalogError(
            .noSuchRecord, "no bow tie has the search key or id \"\(key)\"",
            hint: "`bowties list` shows the search keys.")
    }

    /// All bow ties, in the order they were added (reversed with
    /// `reverse`); ``bowTies(matching:reverse:)`` selects some, in any
    /// order `sort:` terms ask for.
    public func bowTies(reverse: Bool = false) throws -> [BowTie] {
        try bowTies(matching: Query.all(of: bowTieCodec.entity), reverse: reverse)
    }

    /// The number of bow ties in the catalog.
    public func count() throws -> Int {
        try read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM \(bowTieCodec.entity.tableName)") ?? 0 }
    }

    /// Search keys that start with `prefix` (ignoring case), for shell
    /// completion: at most `limit`, sorted, without reading whole ties.
    ///
    /// - Throws: ``CatalogError`` when the store cannot be read.
    public func searchKeys(startingWith prefix: String, limit: Int = 200) throws -> [String] {
        let table = bowTieCodec.entity.tableName
        let pattern =
            prefix.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_") + "%"
        return try read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT DISTINCT searchKey FROM \(table)
                    WHERE \(db.dialect.likeIgnoringCase("searchKey")) ORDER BY \(db.dialect.caseInsensitive("searchKey")) LIMIT ?
                    """,
                arguments: [pattern, limit])
        }
    }
}
