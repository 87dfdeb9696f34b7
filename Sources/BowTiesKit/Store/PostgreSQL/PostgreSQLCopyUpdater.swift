import Foundation

/// `import --update` on PostgreSQL, a batch of records at a time
/// (``RecordBatchUpdater``): one `SELECT … WHERE id = ANY(…)` finds the
/// batch's stored records; the new ones go into the table through
/// `COPY` (``PostgreSQLCopyInserter``), the changed ones through `COPY`
/// into a temporary staging table and one `UPDATE … FROM` it, inside a
/// savepoint.
///
/// One record at a time, an update costs ten round trips or more (the
/// insert that finds the id taken, under its savepoint; the stored
/// record, its baselines, the unique values, the update, the list of
/// updated ids): 6 ms a record on loopback, where a batch of 2,048 costs
/// a handful (bench/results/postgres.md, "Session 12").
///
/// The staging table (`bowties_import_staged`) has the columns the
/// update sets (``EntityCodec/updateWithBaselinesColumns``) and the
/// primary key; it is made for the import's transaction (`ON COMMIT
/// DROP`, and a rollback takes it away too) and emptied after each batch.
/// A temporary table needs the `TEMPORARY` privilege, which `import
/// --update` needed already (``UpdatedRecordLog``). The update's row
/// triggers run as for one `UPDATE` a record: the undo history logs each
/// changed row, the totals follow the baselines, the photos' references
/// are checked at the statement's end.
///
/// Not `Sendable`: it belongs to the import's transaction.
final class PostgreSQLCopyUpdater: RecordBatchUpdater {
    private let session: PostgreSQLSession
    private let codec: EntityCodec
    private let inserter: PostgreSQLCopyInserter
    private let staging: PostgreSQLCopyInserter
    static let stagingTable = "bowties_import_staged"

    /// The updater for `codec`'s table, or nil when its rows cannot go
    /// through binary `COPY` (``PostgreSQLCopyInserter/make(_:codec:)``).
    static func make(_ session: PostgreSQLSession, codec: EntityCodec) throws -> PostgreSQLCopyUpdater? {
        guard let inserter = try PostgreSQLCopyInserter.make(session, codec: codec) else { return nil }
        let table = codec.entity.tableName
        let columns = codec.updateWithBaselinesColumns + [codec.entity.primaryKeyColumn]
        let list = columns.map { "\"\($0)\"" }.joined(separator: ", ")
        _ = try session.connection.execute(
            "CREATE TEMP TABLE IF NOT EXISTS \"\(stagingTable)\" ON COMMIT DROP AS SELECT \(list) FROM \"\(table)\" WITH NO DATA")
        _ = try session.connection.execute("TRUNCATE \"\(stagingTable)\"")
        // updateArguments: the update's columns, then the key.
        guard
            let staging = try PostgreSQLCopyInserter.make(
                session, table: stagingTable, columns: columns,
                arguments: { try codec.updateArguments($0, baselines: true) })
        else { return nil }
        return PostgreSQLCopyUpdater(session: session, codec: codec, inserter: inserter, staging: staging)
    }

    private init(
        session: PostgreSQLSession, codec: EntityCodec, inserter: PostgreSQLCopyInserter, staging: PostgreSQLCopyInserter
    ) {
        self.session = session
        self.codec = codec
        self.inserter = inserter
        self.staging = staging
    }

    func stored(_ keys: [String], updatedLog: String?) throws -> [String: StoredRecord] {
        guard !keys.isEmpty else { return [:] }
        let table = codec.entity.tableName
        let key = "\"\(table)\".\"\(codec.entity.primaryKeyColumn)\""
        // One array parameter: `{"…","…"}`, each element quoted.
        let array =
            "{" + keys.map { "\"" + $0.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\"" }
            .joined(separator: ",") + "}"
        let condition = " WHERE \(key) = ANY(CAST(? AS text[]))"
        var records: [String: Record] = [:]
        for row in try session.fetchAll(sql: codec.selection + condition, arguments: [array]) {
            let record = try codec.decode(row)
            if let stored = record.primaryKey.flatMap({ String.fromStoreValue($0.storeValue) }) { records[stored] = record }
        }
        let updated = updatedLog.map { "EXISTS (SELECT 1 FROM \"\($0)\" AS u WHERE u.id = \(key))" } ?? "false"
        let baselines = codec.baselineColumns.map { "\"\(table)\".\($0)" }
        let details = try session.fetchAll(
            sql: "SELECT \(([key, "\"\(table)\".rowid", updated] + baselines).joined(separator: ", ")) FROM \"\(table)\""
                + condition,
            arguments: [array])
        var found: [String: StoredRecord] = [:]
        for row in details {
            guard let id: String = row[0], let record = records[id], let rowid: Int64 = row[1] else { continue }
            found[id] = StoredRecord(
                rowid: rowid, record: record, baselines: try codec.baselines(from: row, at: 3), updated: row[2] ?? false)
        }
        return found
    }

    func begin() throws {
        _ = try session.connection.execute("SAVEPOINT bowties_update")
    }

    func insert(_ records: [Record]) throws -> Bool {
        for record in records where !(try inserter.stage(record)) {
            // A value binary COPY cannot carry: one at a time.
            inserter.discard()
            return false
        }
        return try inserter.flush()
    }

    func update(_ records: [Record], updatedLog: String) throws -> Bool {
        for record in records where !(try staging.stage(record)) {
            staging.discard()
            return false
        }
        guard try staging.flush() else { return false }
        let table = "\"\(codec.entity.tableName)\""
        let key = "\"\(codec.entity.primaryKeyColumn)\""
        let assignments = codec.updateWithBaselinesColumns.map { "\"\($0)\" = s.\"\($0)\"" }.joined(separator: ", ")
        do {
            _ = try session.connection.execute(
                "UPDATE \(table) AS t SET \(assignments) FROM \"\(Self.stagingTable)\" AS s WHERE t.\(key) = s.\(key)")
        } catch let error as PostgreSQLError where error.sqlState.hasPrefix("23") || error.sqlState.hasPrefix("22") {
            return false
        }
        _ = try session.connection.execute(
            "INSERT INTO \"\(updatedLog)\" (id) SELECT \(key) FROM \"\(Self.stagingTable)\" ON CONFLICT DO NOTHING")
        session.connection.sendDeferred("TRUNCATE \"\(Self.stagingTable)\"")
        return true
    }

    func commit() throws {
        session.connection.sendDeferred("RELEASE SAVEPOINT bowties_update")
    }

    func rollback() throws {
        _ = try session.connection.execute("ROLLBACK TO SAVEPOINT bowties_update")
        _ = try session.connection.execute("TRUNCATE \"\(Self.stagingTable)\"")
        _ = try session.connection.execute("RELEASE SAVEPOINT bowties_update")
    }
}
