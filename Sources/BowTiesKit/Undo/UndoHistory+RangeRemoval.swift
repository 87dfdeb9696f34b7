import Foundation

/// The undo of an import: its range of added rows deleted with the
/// table's lookup-only indexes set aside when the range is most of the
/// table.
///
/// The rows go in rowid order, which is the table's own order, but the
/// indexes keep them in other orders: a tie's name, its search key. Each
/// delete then lands on a random leaf of each such index, and once the
/// index outgrows the page cache every delete reads a page and writes
/// one. In WAL mode (an undo is one transaction, so none of its pages can
/// be checkpointed before it commits) each of those reads first looks
/// the page up in the WAL index, which grows with everything the undo has
/// written so far: the undo of ten million ties took 1.38× the time per
/// record of one million's, with a 3.2 GB WAL (bench/README.md, "10
/// million records, session 11").
///
/// When the range holds at least as many rows as the table keeps, the
/// indexes that enforce nothing and that no trigger or foreign key reads
/// (of ``ObjectModel/indexes(of:)``, the ones a first import builds at its
/// end: a tie's name, search key, rating, last worn) are dropped before
/// the deletes and built again after them, on the rows left, by one
/// sort each; in the same transaction, so a failure or an interrupt rolls
/// back the drop as well, and a reader keeps seeing the catalog with its
/// indexes until the commit. The indexes that enforce something stay: the key's `UNIQUE`
/// index (foreign keys refer to it, and SQLite refuses to delete a parent
/// row without it) and a `UNIQUE` attribute's; so do the indexes of link
/// and photo columns, which triggers and foreign keys look rows up by.
///
/// SQLite only: PostgreSQL keeps its indexes as they are.
extension UndoHistory {
    /// The fewest rows a range must hold for its table's indexes to be
    /// set aside: below that, the deletes stay in the page cache and the
    /// rebuild would cost more than it saves.
    static let indexRebuildThreshold: Int64 = 50_000

    /// Deletes the rows of `table` in `first...last` (an import's range),
    /// setting aside its lookup-only indexes while it does when the range
    /// is most of the table (`setsIndexesAside`, on SQLite).
    ///
    /// - Parameter cacheKiB: the page cache to go back to after the
    ///   indexes are built (their builds take a smaller one: a sort takes
    ///   as much memory again as the cache).
    static func removeRange(
        of table: String, from first: Int64, through last: Int64, model: ObjectModel, setsIndexesAside: Bool,
        cacheKiB: Int, _ db: any StoreSession
    ) throws {
        let indexes =
            setsIndexesAside ? try indexesToSetAside(of: table, from: first, through: last, model: model, db) : []
        for index in indexes { try db.execute(sql: index.dropSQL) }
        try deleteRows(of: table, from: first, through: last, db)
        guard !indexes.isEmpty else { return }
        try db.execute(sql: SecondaryIndex.bulkBuildSQL(indexes))
        try db.execute(sql: "PRAGMA cache_size = -\(cacheKiB)")
    }

    /// The lookup-only indexes of `table`, when the range `first...last`
    /// holds at least ``indexRebuildThreshold`` rows and no fewer than the
    /// table keeps outside it; none otherwise.
    private static func indexesToSetAside(
        of table: String, from first: Int64, through last: Int64, model: ObjectModel, _ db: any StoreSession
    ) throws -> [SecondaryIndex] {
        guard let entity = model.entities.first(where: { $0.tableName == table }) else { return [] }
        // Not the indexes of link columns (the wear triggers count a tie's
        // wears by `wear.bowTie_id` at every wear deleted: without its
        // index, a scan of the table each time) nor of photo columns
        // (deleting a blob looks its users up by them).
        let kept = Set(
            model.linkColumns(of: entity).map { "\(table)_\($0.name)" }
                + model.blobColumns.filter { $0.table == table }.map { "\(table)_\($0.column)" })
        let indexes = model.indexes(of: entity).filter { !kept.contains($0.name) }
        guard !indexes.isEmpty, last - first + 1 >= indexRebuildThreshold else { return [] }
        // The range's rows: an import's rowids, none deleted since (a
        // later action on the range makes the undo refuse). The rows kept
        // are counted only up to as many: as cheap as the range.
        let removed = last - first + 1
        let rowsKept =
            try Int64.fetchOne(
                db,
                sql: """
                    SELECT count(*) FROM (SELECT 1 FROM "\(table)" WHERE rowid < ? OR rowid > ? LIMIT ?)
                    """,
                arguments: [first, last, removed + 1]) ?? 0
        return removed >= rowsKept ? indexes : []
    }
}
