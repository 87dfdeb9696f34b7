/// The rows of a bulk load that refer to its records by key (a tag's
/// link in `bowtie_tag`, a wear), held in temporary tables until the key
/// index is back, then inserted with one statement per table.
///
/// While ``BulkKeyLoad`` has the key index away, SQLite refuses every
/// statement that checks a foreign key to that key ("foreign key
/// mismatch"). Before this stage, the importer built the index at the
/// first record with tags or wears, and the rest of the load paid for a
/// random leaf of the index per record, as if there had been no bulk
/// load (a file that tags one record in three from the first took 1.51×
/// the untagged one at 400,000 records, bench/README.md "session 9").
/// Now those rows wait here:
///
/// ```swift
/// try stage.insert(into: "bowtie_tag", columns: ["bowTie_id", "tag_pk"], [id, tag], ignoringConflicts: true, db)
/// // … after BulkKeyLoad.build:
/// try stage.flush(db)   // INSERT INTO main."bowtie_tag" … SELECT … ORDER BY rowid
/// ```
///
/// What can fail about such a row is settled before it is staged (a
/// tag's name is validated and the tag found or created, a wear is
/// validated as the record is decoded), so an import reports the same
/// errors, at the same record and key, as it did when the rows went in
/// one by one. The rows go in in the order they were staged, so the
/// store ends up holding what a record-by-record import writes, row for
/// row (a wear's `pk` follows the file). The temporary tables live in
/// SQLite's temporary database (a file, with its own small page cache):
/// memory stays flat at any size. They are created inside the load's
/// transaction, so a failed import leaves none behind; ``flush(_:)``
/// drops them.
///
/// Not `Sendable`: it lives inside one transaction.
struct BulkLinkStage {
    /// A staged table: where its rows go, and the `INSERT` that stages one.
    private struct Table {
        let target: String
        let stage: String
        let columns: [String]
        let ignoresConflicts: Bool
        let stageSQL: String
    }

    /// In the order they were first used: a flush inserts in that order.
    private var tables: [Table] = []

    /// Whether any row waits.
    var isEmpty: Bool { tables.isEmpty }

    /// Stages one row for `target`, whose columns are `columns` (in the
    /// order of `arguments`).
    ///
    /// - Parameter ignoringConflicts: The row is left out when the target
    ///   holds it already (`ON CONFLICT DO NOTHING`: a link), rather than
    ///   failing the flush.
    mutating func insert(
        into target: String, columns: [String], _ arguments: StoreArguments, ignoringConflicts: Bool = false,
        _ db: any StoreSession
    ) throws {
        let table: Table
        if let known = tables.first(where: { $0.target == target && $0.columns == columns }) {
            table = known
        } else {
            let stage = "bulk_stage_\(tables.count)_\(target)"
            let quoted = columns.map { "\"\($0)\"" }.joined(separator: ", ")
            // No types and no constraints: each value keeps what it was
            // bound as, and the target's affinities and constraints apply
            // when it is copied in.
            try db.execute(sql: "DROP TABLE IF EXISTS temp.\"\(stage)\"; CREATE TEMP TABLE \"\(stage)\" (\(quoted))")
            table = Table(
                target: target, stage: stage, columns: columns, ignoresConflicts: ignoringConflicts,
                stageSQL: "INSERT INTO temp.\"\(stage)\" (\(quoted)) VALUES ("
                    + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")")
            tables.append(table)
        }
        try db.cachedStatement(sql: table.stageSQL).execute(arguments: arguments)
    }

    /// Inserts every staged row into its table, in the order staged, and
    /// drops the temporary tables. Call once the key index is back.
    /// A link already there is left as it is (`ON CONFLICT DO NOTHING`,
    /// as the record-by-record insert does).
    mutating func flush(_ db: any StoreSession) throws {
        for table in tables {
            let quoted = table.columns.map { "\"\($0)\"" }.joined(separator: ", ")
            try db.execute(
                sql: """
                    INSERT INTO main."\(table.target)" (\(quoted)) \
                    SELECT \(quoted) FROM temp."\(table.stage)" WHERE true ORDER BY rowid\
                    \(table.ignoresConflicts ? " ON CONFLICT DO NOTHING" : "");
                    DROP TABLE temp."\(table.stage)"
                    """)
        }
        tables = []
    }
}
