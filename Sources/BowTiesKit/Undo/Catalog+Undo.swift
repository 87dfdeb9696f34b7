import Foundation

/// One action of the undo history, as `bowties log` lists it.
public struct UndoAction: Sendable, Equatable {
    /// Its number, which `bowties undo N` takes.
    public var id: Int64
    /// `Wear Classic Red Bow Tie`.
    public var title: String
    public var date: Date
    /// Undone, so `bowties redo` can apply it again.
    public var isUndone: Bool
}

/// What an undo or a redo changed, record by record.
public struct UndoReport: Sendable {
    /// What happened to one record.
    public struct RecordChange: Sendable {
        public enum Kind: String, Sendable {
            /// The record was put back (an undone delete) or made again.
            case added
            case removed
            case changed
        }

        public var entity: EntityDescription
        public var label: String
        public var kind: Kind
        /// The attributes that changed (for `changed`), as the user knows them.
        public var fields: [FieldChange]
        /// Links of to-many relationships made or taken away, by
        /// relationship: `tags: ["+formal", "-casual"]`.
        public var links: [(relationship: String, names: [String])] = []
    }

    public var action: UndoAction
    /// At most ``recordLimit`` records, in the order they were changed;
    /// ``recordCount`` counts them all.
    public var records: [RecordChange]
    public var recordCount: Int
    /// How many records of each entity were added or removed, by entity
    /// name, whether listed or not.
    public var added: [String: Int]
    public var removed: [String: Int]

    /// Records described one by one; the others are only counted.
    public static let recordLimit = 50
}

extension Catalog {
    /// The most recent actions, newest first.
    public func undoHistory(limit: Int = 20) throws -> [UndoAction] {
        return try read { db in
            guard try UndoHistory.exists(db) else { return [] }
            return try StoreRow.fetchAll(
                db,
                sql: """
                    SELECT "id", "title", "date", "undone" FROM "undo_action" ORDER BY "id" DESC LIMIT ?
                    """,
                arguments: [max(limit, 0)]
            ).map { try Self.action($0) }
        }
    }

    /// How many actions the history keeps (`config --undo-limit`).
    public func undoLimit() throws -> Int {
        try read { db in try UndoHistory.limit(db) }
    }

    /// Sets how many actions the history keeps; older ones go now. With
    /// 0 the history is off: nothing can be undone.
    public func setUndoLimit(_ limit: Int) throws {
        guard limit >= 0 else {
            throw CatalogError(.invalidInput, "the undo limit must be 0 or more (it is \(limit))")
        }
        try write { db, changes in
            try db.execute(
                sql: "INSERT INTO setting (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                arguments: [UndoHistory.limitSettingKey, limit])
            let dropped = try Int64.fetchAll(
                db,
                sql: """
                    SELECT "id" FROM "undo_action" WHERE "id" NOT IN
                        (SELECT "id" FROM "undo_action" ORDER BY "id" DESC LIMIT ?)
                    """,
                arguments: [limit])
            for sha256 in try UndoHistory.drop(dropped, model: model, db).sorted() {
                try releaseBlob(sha256, db, changes)
            }
        }
    }

    /// Reverts an action: by default the latest one not yet undone.
    ///
    /// Every row the action changed is put back as it was, in one
    /// transaction, and the changes this makes are kept so that
    /// ``redo()`` can apply the action again.
    ///
    /// - Parameter id: The action to undo (`bowties log` numbers them).
    /// - Throws: ``CatalogError`` `.noSuchRecord` when there is nothing to
    ///   undo; `.conflict` when a record it changed has changed since,
    ///   naming the later action to undo first. Nothing is written then.
    public func undo(_ id: Int64? = nil) throws -> UndoReport {
        return try withLargeCache { try undoAction(id) }
    }

    private func undoAction(_ id: Int64?) throws -> UndoReport {
        try write { db, changes in
            try requireHistory(db)
            let action: UndoAction
            if let id {
                guard let found = try Self.action(id, db) else {
                    throw CatalogError(
                        .noSuchRecord, "no action #\(id) in the history",
                        hint: "`bowties log` lists the actions that can be undone.")
                }
                guard !found.isUndone else {
                    throw CatalogError(
                        .conflict, "action #\(id) \"\(found.title)\" is already undone",
                        hint: "`bowties redo` applies it again.")
                }
                action = found
            } else {
                guard
                    let latest = try StoreRow.fetchOne(
                        db,
                        sql: """
                            SELECT "id", "title", "date", "undone" FROM "undo_action"
                            WHERE "undone" = 0 ORDER BY "id" DESC LIMIT 1
                            """
                    ).map(Self.action)
                else {
                    throw CatalogError(.noSuchRecord, "nothing to undo")
                }
                action = latest
            }
            return try revert(action, undoing: true, db, changes)
        }
    }

    /// Applies again the action undone most recently.
    ///
    /// - Throws: ``CatalogError`` `.noSuchRecord` when nothing was undone
    ///   (or a change made since dropped it); `.conflict` when a record
    ///   has changed since the undo.
    public func redo() throws -> UndoReport {
        return try withLargeCache { try redoAction() }
    }

    /// The page cache an undo or a redo takes, in KiB: an undo may touch
    /// as many rows as the import it reverts. Smaller than the import's
    /// (``importCacheKiB``): the undo's report sorts in memory as large as
    /// the cache, on top of it, all through the undo.
    static let undoCacheKiB = 4096

    /// Runs `body` with a larger page cache (``undoCacheKiB``).
    private func withLargeCache<T>(_ body: () throws -> T) throws -> T {
        try store.withCacheSize(kibibytes: Self.undoCacheKiB, body)
    }

    private func redoAction() throws -> UndoReport {
        try write { db, changes in
            try requireHistory(db)
            guard
                let action = try StoreRow.fetchOne(
                    db,
                    sql: """
                        SELECT "id", "title", "date", "undone" FROM "undo_action"
                        WHERE "undone" > 0 ORDER BY "undone" DESC LIMIT 1
                        """
                ).map(Self.action)
            else {
                throw CatalogError(.noSuchRecord, "nothing to redo")
            }
            return try revert(action, undoing: false, db, changes)
        }
    }

    private func requireHistory(_ db: any StoreSession) throws {
        guard try UndoHistory.exists(db) else {
            throw CatalogError(.storeIO, "this catalog keeps no undo history yet; a change to it starts one")
        }
    }

    /// Reverts the changes an action's current list holds (phase 0 after
    /// it was done, phase 1 after it was undone), recording what that
    /// does as its new list.
    private func revert(_ action: UndoAction, undoing: Bool, _ db: any StoreSession, _ changes: PhotoChanges) throws
        -> UndoReport
    {
        let phase = undoing ? 0 : 1
        // The ranges of added rows, few: the entries inside them go with them.
        let ranges = try entries(of: action, phase: phase, before: .max, rangesOnly: true, db)
        func insideRange(_ entry: UndoEntry) -> Bool {
            entry.operation != "range"
                && ranges.contains { $0.table == entry.table && entry.row >= $0.row && entry.row <= ($0.lastRow ?? 0) }
        }
        let tables = Set(model.tableNames)
        var columns: [String: [String]] = [:]
        for table in tables { columns[table] = model.storedColumns(ofTable: table).map(\.name) }
        // Newest first, a batch at a time: memory stays flat however many
        // rows the action changed. First every check, then every change.
        var before = Int64.max
        // Whether every change of the list is a range or a row inside one:
        // then the undo may set the ranges' tables aside whole.
        var onlyRanges = true
        while true {
            let batch = try entries(of: action, phase: phase, before: before, rangesOnly: false, db)
            guard let last = batch.last else { break }
            before = last.seq
            for entry in batch where !insideRange(entry) {
                if entry.operation != "range" { onlyRanges = false }
                guard let names = columns[entry.table] else {
                    throw CatalogError(
                        .storeDamaged, "the undo history names a table the catalog does not have: \(entry.table)")
                }
                try checkUnchanged(entry, columns: names, of: action, phase: phase, db)
            }
        }
        // Rows go back in any order within the transaction; foreign keys
        // are checked at its end.
        try db.execute(sql: db.dialect.deferForeignKeys)
        let photosBefore = try UndoHistory.photosReferred(
            byChangesWhere: "\"action\" = \(action.id) AND \"phase\" = \(phase)", model: model, db)
        let firstNewSeq = (try Int64.fetchOne(db, sql: "SELECT max(seq) FROM \"undo_change\"") ?? 0) + 1
        // A whole catalog's import is set aside whole, and put back so
        // (SQLite; see UndoHistory+HeldTables.swift).
        let setAside =
            undoing && onlyRanges && !isOnPostgreSQL
            ? try UndoHistory.setAsidePlan(
                ranges.map { ($0.table, $0.row, $0.lastRow ?? $0.row) }, model: model, db)
            : nil
        let held = undoing || isOnPostgreSQL ? [] : try UndoHistory.heldTables(of: action.id, phase: phase, db)
        var setAsideCounts: [String: Int64]?
        if let setAside {
            setAsideCounts = try UndoHistory.setAside(setAside, action: action.id, phase: 1 - phase, model: model, db)
        } else if !held.isEmpty {
            guard
                let counts = try UndoHistory.restore(
                    held, action: action.id, phase: 1 - phase, model: model, cacheKiB: Self.undoCacheKiB, db)
            else {
                throw CatalogError(
                    .conflict,
                    "cannot redo #\(action.id) \"\(action.title)\": "
                        + "the catalog has records it did not have after the undo, added outside bowties' history; nothing was changed",
                    hint: "`bowties log` lists the history; `bowties check` looks at the catalog.")
            }
            setAsideCounts = counts
        } else {
            try db.execute(
                sql: "UPDATE \"undo_recording\" SET \"action\" = ?, \"phase\" = ?, \"inserts\" = 1",
                arguments: [action.id, 1 - phase])
            before = .max
            while true {
                // The changes being made are logged under the other phase, so
                // they never come up here.
                let batch = try entries(of: action, phase: phase, before: before, rangesOnly: false, db)
                guard let last = batch.last else { break }
                before = last.seq
                for entry in batch where !insideRange(entry) {
                    try apply(inverseOf: entry, columns: columns[entry.table] ?? [], db)
                }
            }
            try db.execute(sql: "UPDATE \"undo_recording\" SET \"action\" = NULL, \"phase\" = 0, \"inserts\" = 1")
        }
        try UndoHistory.deleteChanges(where: "\"action\" = \(action.id) AND \"phase\" = \(phase)", db)
        try db.execute(
            sql: """
                UPDATE "undo_action" SET "undone" = \
                CASE WHEN ?2 THEN (SELECT coalesce(max("undone"), 0) + 1 FROM "undo_action") ELSE 0 END
                WHERE "id" = ?1
                """,
            arguments: [action.id, undoing])
        // Photos only the old list needed (the new one keeps what it
        // refers to).
        for sha256 in photosBefore.sorted() { try releaseBlob(sha256, db, changes) }
        var done = action
        done.isUndone = undoing
        if let setAsideCounts {
            return try report(of: done, wholeTables: setAsideCounts, removed: undoing, db)
        }
        return try report(of: done, changesFrom: firstNewSeq, db)
    }

    /// Up to 1,000 entries of an action's list, newest first, older than
    /// `seq` (or its ranges only).
    private func entries(of action: UndoAction, phase: Int, before seq: Int64, rangesOnly: Bool, _ db: any StoreSession)
        throws -> [UndoEntry]
    {
        try StoreRow.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT "seq", "tableName", "operation", "row", "lastRow" FROM "undo_change"
                    WHERE "action" = ? AND "phase" = ? AND "seq" < ? \(rangesOnly ? "AND \"operation\" = 'range'" : "")
                    ORDER BY "seq" DESC LIMIT 1000
                    """),
            arguments: [action.id, phase, seq]
        ).map {
            UndoEntry(
                seq: try $0.decode(Int64.self, atIndex: 0), table: try $0.decode(String.self, atIndex: 1),
                operation: try $0.decode(String.self, atIndex: 2), row: try $0.decode(Int64.self, atIndex: 3),
                lastRow: try $0.decode(Int64?.self, atIndex: 4))
        }
    }

    /// Refuses to revert `entry` when its row is no longer as the action
    /// left it, naming the later action that changed it.
    private func checkUnchanged(
        _ entry: UndoEntry, columns names: [String], of action: UndoAction, phase: Int, _ db: any StoreSession
    ) throws {
        let columns = names.map { "\"\($0)\"" }.joined(separator: ", ")
        let shadow = ObjectModel.undoImageTable(entry.table)
        var unchanged = true
        switch entry.operation {
        case "insert", "update":
            // Cached statements: an undo of an import runs these once a row.
            let current = try StoreRow.fetchOne(
                db.cachedStatement(sql: "SELECT \(columns) FROM \"\(entry.table)\" WHERE \(db.dialect.rowNumber) = ?"),
                arguments: [entry.row])
            let image = try StoreRow.fetchOne(
                db.cachedStatement(sql: "SELECT \(columns) FROM \"\(shadow)\" WHERE seq = ? AND side = 1"),
                arguments: [entry.seq])
            unchanged = current != nil && current == image
        case "delete":
            unchanged =
                try !(Bool.fetchOne(
                    db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM \"\(entry.table)\" WHERE \(db.dialect.rowNumber) = ?)"),
                    arguments: [entry.row])
                    ?? false)
        default:
            break
        }
        // A row as the action left it is safe to revert, whatever touched
        // it since; a range is not compared row by row, so any later
        // action on it stands in the way.
        if unchanged && entry.operation != "range" { return }
        // A later change in the same list answers for the row: an undo of
        // an import deletes a tie's wears (whose triggers update the tie)
        // and then the tie, so the update's image is not the row's last
        // state, and need not be. Asked only when the row differs.
        if entry.operation == "insert" || entry.operation == "update",
            try Bool.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT EXISTS (SELECT 1 FROM "undo_change" WHERE "tableName" = ? AND "row" = ? \
                        AND "action" = ? AND "phase" = ? AND "seq" > ?)
                        """),
                arguments: [entry.table, entry.row, action.id, phase, entry.seq]) ?? false
        {
            return
        }
        let later = try laterAction(touching: entry, after: action, db)
        if let later, !action.isUndone {
            throw CatalogError(
                .conflict,
                "cannot undo #\(action.id) \"\(action.title)\": #\(later.id) \"\(later.title)\" changed the same records since; nothing was changed",
                hint: "Undo #\(later.id) first (`bowties undo \(later.id)`), then this one.")
        }
        guard unchanged else {
            throw CatalogError(
                .conflict,
                "cannot \(action.isUndone ? "redo" : "undo") #\(action.id) \"\(action.title)\": "
                    + "its records were changed since, outside bowties' history; nothing was changed",
                hint: "`bowties log` lists the history; `bowties check` looks at the catalog.")
        }
    }

    /// The latest action after `action`, not undone, that changed a row
    /// of `entry` (or added it, in a range).
    private func laterAction(touching entry: UndoEntry, after action: UndoAction, _ db: any StoreSession) throws
        -> UndoAction?
    {
        let select = """
            SELECT a."id", a."title", a."date", a."undone" FROM "undo_change" AS c
            JOIN "undo_action" AS a ON a."id" = c."action"
            WHERE c."tableName" = ?1 AND c."action" > ?2 AND a."undone" = 0
            """
        let arguments: StoreArguments = [entry.table, action.id, entry.row, entry.lastRow ?? entry.row]
        let rows = try StoreRow.fetchOne(
            db, sql: select + " AND c.\"row\" BETWEEN ?3 AND ?4 ORDER BY a.\"id\" DESC LIMIT 1", arguments: arguments)
        let ranges = try StoreRow.fetchOne(
            db,
            sql: select
                + " AND c.\"operation\" = 'range' AND c.\"row\" <= ?4 AND c.\"lastRow\" >= ?3 ORDER BY a.\"id\" DESC LIMIT 1",
            arguments: arguments)
        return try [rows, ranges].compactMap { try $0.map { try Self.action($0) } }.max { $0.id < $1.id }
    }

    /// Puts back what `entry` changed.
    private func apply(inverseOf entry: UndoEntry, columns: [String], _ db: any StoreSession) throws {
        let table = "\"\(entry.table)\""
        let shadow = "\"\(ObjectModel.undoImageTable(entry.table))\""
        switch entry.operation {
        case "insert":
            try db.cachedStatement(sql: "DELETE FROM \(table) WHERE \(db.dialect.rowNumber) = ?").execute(arguments: [entry.row])
        case "range":
            try UndoHistory.removeRange(
                of: entry.table, from: entry.row, through: entry.lastRow ?? entry.row, model: model,
                setsIndexesAside: !isOnPostgreSQL, cacheKiB: Self.undoCacheKiB, db)
        case "delete":
            // A table whose key is an integer keeps its rowid in that
            // column (SQLite's `pk INTEGER PRIMARY KEY`; PostgreSQL's `pk`
            // is generated from `rowid` and takes no value): the row gets
            // its number back, and the key with it. (The cast types the
            // value where PostgreSQL would take it for text.)
            let keyIsRowid = rowidIsColumn(entry.table)
            let list = columns.filter { !keyIsRowid || $0 != "pk" }.map { "\"\($0)\"" }.joined(separator: ", ")
            try db.cachedStatement(
                sql: "INSERT INTO \(table) (\(db.dialect.rowNumber), \(list)) SELECT CAST(? AS BIGINT), \(list) FROM \(shadow) WHERE seq = ? AND side = 0"
            ).execute(arguments: [entry.row, entry.seq])
        case "update":
            let list = columns.map { "\"\($0)\"" }.joined(separator: ", ")
            let images = try StoreRow.fetchAll(
                db.cachedStatement(sql: "SELECT \(list) FROM \(shadow) WHERE seq = ? ORDER BY side"),
                arguments: [entry.seq])
            guard images.count == 2 else { return }
            let changed = columns.indices.filter { images[0][$0] as StoreValue != images[1][$0] as StoreValue }
            guard !changed.isEmpty else { return }
            let names = changed.map { "\"\(columns[$0])\"" }.joined(separator: ", ")
            try db.cachedStatement(
                sql: "UPDATE \(table) SET (\(names)) = (SELECT \(names) FROM \(shadow) WHERE seq = ? AND side = 0) WHERE \(db.dialect.rowNumber) = ?"
            ).execute(arguments: [entry.seq, entry.row])
        default:
            throw CatalogError(.storeDamaged, "the undo history holds an unknown change: \(entry.operation)")
        }
    }

    /// Whether the table's rowid is one of its columns (`pk INTEGER PRIMARY KEY`).
    private func rowidIsColumn(_ table: String) -> Bool {
        guard let entity = model.entities.first(where: { $0.tableName == table }) else { return false }
        return entity.primaryKeyAttribute == nil
    }

    /// The report of the changes recorded from `seq` on: per record, its
    /// first image before and last image after.
    private func report(of action: UndoAction, changesFrom seq: Int64, _ db: any StoreSession) throws -> UndoReport {
        var report = UndoReport(action: action, records: [], recordCount: 0, added: [:], removed: [:])
        for entity in model.entities {
            let table = entity.tableName
            let columns = model.storedColumns(ofTable: table).map(\.name)
            let list = columns.map { "i.\"\($0)\"" }.joined(separator: ", ")
            let shadow = ObjectModel.undoImageTable(table)
            // Per row: was it there before the first change, is it there
            // after the last, and its images then.
            let rows = try StoreRow.fetchCursor(
                db,
                sql: """
                    SELECT r."row", r."first", r."last",
                        (SELECT "operation" FROM "undo_change" WHERE "seq" = r."first"),
                        (SELECT "operation" FROM "undo_change" WHERE "seq" = r."last")
                    FROM (
                        SELECT "row", min("seq") AS "first", max("seq") AS "last" FROM "undo_change"
                        WHERE "seq" >= ? AND "tableName" = ? AND "operation" <> 'range' GROUP BY "row"
                    ) AS r
                    ORDER BY r."first"
                    """,
                arguments: [seq, table])
            guard let codec = codecs[entity.name] else { continue }
            while let row = try rows.next() {
                let first = try row.decode(Int64.self, atIndex: 1)
                let last = try row.decode(Int64.self, atIndex: 2)
                let existedBefore = try row.decode(String.self, atIndex: 3) != "insert"
                let existsAfter = try row.decode(String.self, atIndex: 4) != "delete"
                let kind: UndoReport.RecordChange.Kind
                switch (existedBefore, existsAfter) {
                case (false, false): continue
                case (false, true): kind = .added
                case (true, false): kind = .removed
                case (true, true): kind = .changed
                }
                if kind != .changed, report.records.count >= UndoReport.recordLimit {
                    // Counted, not described: no need for its images.
                    if kind == .added { report.added[entity.name, default: 0] += 1 }
                    if kind == .removed { report.removed[entity.name, default: 0] += 1 }
                    report.recordCount += 1
                    continue
                }
                let before =
                    existedBefore
                    ? try StoreRow.fetchOne(
                        db.cachedStatement(sql: "SELECT \(list) FROM \"\(shadow)\" AS i WHERE seq = ? AND side = 0"),
                        arguments: [first])
                    : nil
                let after =
                    existsAfter
                    ? try StoreRow.fetchOne(
                        db.cachedStatement(sql: "SELECT \(list) FROM \"\(shadow)\" AS i WHERE seq = ? AND side = 1"),
                        arguments: [last])
                    : nil
                let beforeRecord = try before.map { try codec.decodeImage($0, columns: columns, db) }
                let afterRecord = try after.map { try codec.decodeImage($0, columns: columns, db) }
                var fields: [FieldChange] = []
                if let beforeRecord, let afterRecord {
                    for (index, attribute) in entity.attributes.enumerated()
                    where beforeRecord.values[index] != afterRecord.values[index] {
                        fields.append(
                            FieldChange(
                                attribute: attribute, before: beforeRecord.values[index],
                                after: afterRecord.values[index]))
                    }
                    if fields.isEmpty { continue }
                }
                switch kind {
                case .added: report.added[entity.name, default: 0] += 1
                case .removed: report.removed[entity.name, default: 0] += 1
                case .changed: break
                }
                report.recordCount += 1
                if report.records.count < UndoReport.recordLimit {
                    let record = afterRecord ?? beforeRecord
                    let label =
                        entity.nameAttribute.flatMap { name in
                            if case .string(let text)? = record?[name] { text } else { nil }
                        } ?? record?.label ?? entity.name
                    report.records.append(.init(entity: entity, label: label, kind: kind, fields: fields))
                }
            }
        }
        try reportLinks(changesFrom: seq, into: &report, db)
        return report
    }

    /// The report of an undo that set whole tables aside (`removed`), or
    /// of the redo that put them back: each entity's rows counted, the
    /// first ``UndoReport/recordLimit`` named.
    private func report(of action: UndoAction, wholeTables counts: [String: Int64], removed: Bool, _ db: any StoreSession)
        throws -> UndoReport
    {
        var report = UndoReport(action: action, records: [], recordCount: 0, added: [:], removed: [:])
        let held = removed ? try UndoHistory.heldTables(of: action.id, phase: 1, db) : []
        for entity in model.entities {
            guard let count = counts[entity.tableName], count > 0, let codec = codecs[entity.name] else { continue }
            if removed { report.removed[entity.name] = Int(count) } else { report.added[entity.name] = Int(count) }
            report.recordCount += Int(count)
            let room = UndoReport.recordLimit - report.records.count
            guard room > 0 else { continue }
            let table = held.first { $0.table == entity.tableName }?.name ?? entity.tableName
            let names = model.storedColumns(ofTable: entity.tableName).map(\.name)
            let list = names.map { "\"\($0)\"" }.joined(separator: ", ")
            let rows = try StoreRow.fetchAll(
                db, sql: "SELECT \(list) FROM \"\(table)\" ORDER BY rowid LIMIT ?", arguments: [room])
            for row in rows {
                let record = try codec.decodeImage(row, columns: names, db)
                let label =
                    entity.nameAttribute.flatMap { name in
                        if case .string(let text)? = record[name] { text } else { nil }
                    } ?? record.label
                report.records.append(.init(entity: entity, label: label, kind: removed ? .removed : .added, fields: []))
            }
        }
        return report
    }

    /// Adds the links made or taken away (rows of join tables) to the
    /// report, as changes of the record that owns them: `tags +formal`.
    private func reportLinks(changesFrom seq: Int64, into report: inout UndoReport, _ db: any StoreSession) throws {
        for join in model.joinTables {
            let shadow = ObjectModel.undoImageTable(join.name)
            let rows = try StoreRow.fetchAll(
                db,
                sql: """
                    SELECT c."operation", i."\(join.ownerColumn)", i."\(join.otherColumn)" FROM "undo_change" AS c
                    JOIN "\(shadow)" AS i ON i."seq" = c."seq"
                    WHERE c."seq" >= ? AND c."tableName" = ? AND c."operation" IN ('insert', 'delete')
                    ORDER BY c."seq" LIMIT ?
                    """,
                arguments: [seq, join.name, UndoReport.recordLimit * 4])
            for row in rows {
                let added = try row.decode(String.self, atIndex: 0) == "insert"
                let owner = try name(of: join.owner.entity, key: row[1], db)
                let other = try name(of: join.other.entity, key: row[2], db)
                let link = (added ? "+" : "-") + other
                let relationship = join.owner.relationship.name
                if let index = report.records.firstIndex(where: {
                    $0.entity.name == join.owner.entity.name && $0.label == owner && $0.kind == .changed
                }) {
                    if let position = report.records[index].links.firstIndex(where: { $0.relationship == relationship }) {
                        report.records[index].links[position].names.append(link)
                    } else {
                        report.records[index].links.append((relationship, [link]))
                    }
                } else if report.records.count < UndoReport.recordLimit {
                    var change = UndoReport.RecordChange(
                        entity: join.owner.entity, label: owner, kind: .changed, fields: [])
                    change.links = [(relationship, [link])]
                    report.records.append(change)
                    report.recordCount += 1
                }
            }
        }
    }

    /// The name of the object of `entity` whose key is `key`: as stored,
    /// or as the history last saw it.
    private func name(of entity: EntityDescription, key: StoreValue, _ db: any StoreSession) throws -> String {
        guard let attribute = entity.nameAttribute.flatMap({ entity[$0] }) else { return "\(key)" }
        let column = "\"\(attribute.columnName)\""
        let keyColumn = "\"\(entity.primaryKeyColumn)\""
        if let name = try String.fetchOne(
            db, sql: "SELECT \(column) FROM \"\(entity.tableName)\" WHERE \(keyColumn) = ?", arguments: [key])
        {
            return name
        }
        return try String.fetchOne(
            db,
            sql: """
                SELECT \(column) FROM "\(ObjectModel.undoImageTable(entity.tableName))" WHERE \(keyColumn) = ?
                ORDER BY "seq" DESC LIMIT 1
                """,
            arguments: [key]) ?? "\(key)"
    }

    private static func action(_ row: StoreRow) throws -> UndoAction {
        UndoAction(
            id: try row.decode(Int64.self, atIndex: 0), title: try row.decode(String.self, atIndex: 1),
            date: Date(timeIntervalSince1970: try row.decode(Double.self, atIndex: 2)),
            isUndone: try row.decode(Int64.self, atIndex: 3) > 0)
    }

    private static func action(_ id: Int64, _ db: any StoreSession) throws -> UndoAction? {
        try StoreRow.fetchOne(
            db, sql: "SELECT \"id\", \"title\", \"date\", \"undone\" FROM \"undo_action\" WHERE \"id\" = ?",
            arguments: [id]
        ).map { try action($0) }
    }
}

/// One logged change of a row (or a range of added rows).
private struct UndoEntry {
    var seq: Int64
    var table: String
    var operation: String
    var row: Int64
    var lastRow: Int64?
}
