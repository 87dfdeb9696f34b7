import Foundation

extension Catalog {
    /// Writes a report (``HTMLReport``) of the ties `query` selects to `url`,
    /// all at once or not at all (a temporary file renamed into place).
    ///
    /// - Parameters:
    ///   - query: Which ties, in which order (the gallery takes the first ones).
    ///   - url: The HTML file to write.
    ///   - limits: How many cards and photo bytes the page may hold.
    ///   - now: The moment the report is made (figures count back from it).
    /// - Returns: What went into the page.
    /// - Throws: ``CatalogError`` when the store cannot be read
    ///   (`.storeIO`) or the file cannot be written (`.cannotCreateOutput`).
    public func writeReport(
        matching query: Query, to url: URL, limits: HTMLReport.Limits = .init(), now: Date = Date()
    ) throws -> HTMLReport.Outcome {
        let output = try ExportOutput(file: url)
        let outcome = try writeReport(matching: query, to: output, limits: limits, now: now)
        try output.commit()
        return outcome
    }

    /// Writes the report's page to `output` (a file, or standard output)
    /// as it reads the ties, from one snapshot of the store.
    ///
    /// Memory does not grow with the catalog: the figures are SQL
    /// aggregates, the gallery holds at most ``HTMLReport/Limits/cards``
    /// ties, and the table's rows go out 64 KiB at a time as they are
    /// read. The caller commits `output`.
    ///
    /// - Throws: ``CatalogError`` (`.storeIO`, `.cannotCreateOutput`,
    ///   `.outputClosed`), ``QueryError``.
    public func writeReport(
        matching query: Query, to output: ExportOutput, limits: HTMLReport.Limits = .init(), now: Date = Date()
    ) throws -> HTMLReport.Outcome {
        return try read { db in
            let summary = try summary(matching: query, now: now, db)
            let cards = try bowTies(matching: query, limit: max(0, limits.cards), db)
            let report = HTMLReport(
                summary: summary, cards: cards, now: now, limits: limits,
                selection: query.terms.joined(separator: " "),
                rows: { body in try self.forEachReportRow(matching: query, db, body) },
                readPhoto: { tie in try self.readPhoto(of: tie, db) })
            var buffer = ExportBuffer(output: output)
            let outcome = try report.render { text in
                buffer.appendText(text)
                try buffer.flushIfFull()
            }
            try buffer.flush()
            return outcome
        }
    }

    /// The figures of the ties `query` selects, from SQL aggregates.
    ///
    /// - Throws: ``QueryError``, ``CatalogError``.
    public func summary(matching query: Query, now: Date = Date()) throws -> CatalogSummary {
        return try read { db in try summary(matching: query, now: now, db) }
    }

    func summary(matching query: Query, now: Date, _ db: any StoreSession) throws -> CatalogSummary {
        let codec = bowTieCodec
        let compiled = try QueryCompiler(codec: codec, dialect: store.dialect).compile(query)
        let table = "\"\(codec.entity.tableName)\""
        func column(_ name: String) -> String {
            // The bow-tie entity declares these; a missing one counts as NULL.
            codec.entity[name].map { "\(table).\"\($0.columnName)\"" } ?? "NULL"
        }
        let worn = column("timesWorn")
        let photo = column("photoData")
        let condition = compiled.whereSQL.map { "(\($0))" } ?? "1 = 1"
        let arguments = StoreArguments(compiled.arguments)
        let cutoff = now.addingTimeInterval(-Double(CatalogSummary.staleDays) * 86_400).timeIntervalSince1970
        let figures = try StoreRow.fetchOne(
            db,
            sql: """
                SELECT count(*), coalesce(sum(CASE WHEN \(column("isFavorite")) THEN 1 ELSE 0 END), 0), \
                coalesce(sum(CASE WHEN \(worn) = 0 THEN 1 ELSE 0 END), 0), \
                coalesce(sum(CASE WHEN \(column("lastWorn")) IS NULL OR \(column("lastWorn")) < \(cutoff) THEN 1 ELSE 0 END), 0), \
                count(\(photo)), \
                max(\(worn)), min(CASE WHEN \(worn) > 0 THEN \(worn) END) \
                FROM \(table) WHERE \(condition)
                """, arguments: arguments)
        guard let figures else { throw CatalogError(.storeIO, "cannot count the ties") }
        let photoBytes =
            try Int.fetchOne(
                db,
                sql: """
                    SELECT coalesce(sum(byteCount), 0) FROM \(Self.blobTable) WHERE sha256 IN \
                    (SELECT \(photo) FROM \(table) WHERE \(condition) AND \(photo) IS NOT NULL)
                    """, arguments: arguments) ?? 0

        /// The first tie in the query's order worn `times` times, and how
        /// many others were.
        func standout(_ times: Int64?) throws -> CatalogSummary.Standout? {
            guard let times else { return nil }
            var sql =
                codec.selection + " WHERE \(condition) AND \(worn) = \(times) ORDER BY \(compiled.orderSQL) LIMIT 1"
            guard let row = try StoreRow.fetchOne(db, sql: sql, arguments: arguments) else { return nil }
            sql = "SELECT count(*) FROM \(table) WHERE \(condition) AND \(worn) = \(times)"
            let count = try Int.fetchOne(db, sql: sql, arguments: arguments) ?? 1
            return CatalogSummary.Standout(
                tie: BowTie(record: try codec.decode(row)), timesWorn: Int32(clamping: times), others: count - 1)
        }
        return CatalogSummary(
            ties: figures[0] ?? 0, favourites: figures[1] ?? 0, mostWorn: try standout(figures[5]),
            leastWorn: try standout(figures[6]), neverWorn: figures[2] ?? 0, notWornRecently: figures[3] ?? 0,
            withPhoto: figures[4] ?? 0, photoBytes: photoBytes)
    }

    /// The first `limit` bow ties `query` selects, in its order.
    func bowTies(matching query: Query, limit: Int, _ db: any StoreSession) throws -> [BowTie] {
        let codec = bowTieCodec
        let (sql, arguments) = try selectSQL(matching: query)
        return try StoreRow.fetchAll(db, sql: sql + " LIMIT \(limit)", arguments: StoreArguments(arguments)).map {
            BowTie(record: try codec.decode($0))
        }
    }

    /// Calls `body` with the table row of each tie `query` selects, read
    /// in place by a ``RawRowCursor`` (one row in memory at a time).
    func forEachReportRow(matching query: Query, _ db: any StoreSession, _ body: (HTMLReport.TableRow) throws -> Void)
        throws
    {
        let codec = bowTieCodec
        func exported(_ name: String) -> String { codec.entity[name]?.exportName ?? name }
        let names = ["searchKey", "name", "rating", "timesWorn", "lastWorn", "isFavorite", "tags", "tintColor"]
        let fields = try codec.exportFields(names.map(exported), format: .csv)
        let (selection, columns) = codec.exportSelection(fields, photoBytes: false)
        let (sql, arguments) = try selectSQL(matching: query, selection: selection)
        let cursor = try db.rawCursor(sql: sql, arguments: arguments)
        let row = FieldRow(cursor: cursor, columns: columns, codec: codec, fields: fields)
        // Found by name once, then read on every row by place.
        let key = try row.field(exported("searchKey"))
        let name = try row.field(exported("name"))
        let rating = try row.field(exported("rating"))
        let timesWorn = try row.field(exported("timesWorn"))
        let lastWorn = try row.field(exported("lastWorn"))
        let isFavorite = try row.field(exported("isFavorite"))
        let tagNames = try row.field(exported("tags"))
        let tintColor = try row.field(exported("tintColor"))
        while try cursor.step() {
            let tags = row.text(tagNames).map {
                EntityCodec.sortedNames($0.split(separator: "\u{1F}").map(String.init))
            }
            var colour = ""
            if case .color(let color)? = try row.value(tintColor) { colour = color.hexString }
            try body(
                HTMLReport.TableRow(
                    key: row.text(key) ?? "", name: row.text(name) ?? "", rating: row.number(rating) ?? 0,
                    timesWorn: row.integer(timesWorn) ?? 0, lastWorn: row.date(lastWorn),
                    isFavorite: row.flag(isFavorite) ?? false, tags: tags ?? [], colour: colour))
        }
    }
}
