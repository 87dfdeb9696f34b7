import Foundation
import GRDB

extension Catalog {
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
                    WHERE searchKey LIKE ? ESCAPE '\\' ORDER BY searchKey COLLATE NOCASE LIMIT ?
                    """,
                arguments: [pattern, limit])
        }
    }
}
