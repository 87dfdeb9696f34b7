import Foundation

/// Where an export goes.
public enum ExportDestination: Sendable {
    case standardOutput
    /// A file, written atomically: it appears whole or not at all.
    case file(URL)
}

extension Catalog {
    /// The CSV header: one column per attribute in declaration order (the
    /// photo becomes its size and SHA-256), one per relationship imported
    /// by name (`tags`), one per derived attribute's baseline
    /// (`timesWornBefore`, `lastWornBefore`), then one per list of owned
    /// objects (`wears`, as JSON text).
    public var csvColumns: [String] { Self.csvColumns(of: bowTieCodec.entity, in: model) }

    /// The CSV header of the bow-tie model (``BowTieModel``).
    public static var csvColumns: [String] { csvColumns(of: BowTieModel.entity, in: BowTieModel.model) }

    static func csvColumns(of entity: EntityDescription, in model: ObjectModel) -> [String] {
        entity.attributes.flatMap { attribute -> [String] in
            attribute.type == .binaryData
                ? [attribute.exportName + "Bytes", attribute.exportName + "SHA256"] : [attribute.exportName]
        } + model.namedRelationships(of: entity).map { $0.importKey ?? $0.name }
            + entity.attributes.filter { $0.derivation != nil }.map(\.baselineExportName)
            + entity.relationships.filter { $0.isToMany && model.linkColumn(inverseOf: $0) != nil }.map {
                $0.importKey ?? $0.name
            }
    }

    /// Every field `--fields` may name, in the order JSON writes them: the
    /// attributes' export names, then `tags`, then `wears`.
    public static let exportFieldNames: [String] =
        // Names only: the codec's SQL never runs, so any dialect does.
        (try? EntityCodec(BowTieModel.entity, in: BowTieModel.model, transformers: .shared, dialect: .sqlite))?
        .allExportFields.map(\.name) ?? []

    /// Writes the catalog as CSV: ``export(to:query:options:)`` with the
    /// default options.
    ///
    /// - Returns: The number of ties written.
    @discardableResult
    public func exportCSV(to destination: ExportDestination, query: Query? = nil, spreadsheetSafe: Bool = false)
        throws -> Int
    {
        try export(to: destination, query: query, options: ExportOptions(spreadsheetSafe: spreadsheetSafe)).count
    }

    /// Writes the ties `query` selects in `options.format`, streamed: one
    /// statement reads every field of each row (names and objects of
    /// to-many relationships included) from one consistent snapshot, and
    /// each row goes straight to a 64 KiB buffer (``ExportBuffer``) without
    /// a ``Record`` per row, so memory does not grow with the catalog.
    ///
    /// What each format writes: ``DelimitedRecordWriter`` (CSV, TSV),
    /// ``JSONRecordWriter`` (JSON, JSON Lines), ``PropertyListRecordWriter``.
    /// Every format writes fields from the declaration: attributes by
    /// ``AttributeDescription/exportName``, then `tags`, then the counts
    /// before the history (`timesWornBefore`, `lastWornBefore`), then
    /// `wears` (oldest first; in CSV and TSV one cell of JSON text), so
    /// that every format imports back as the same records.
    ///
    /// - Parameters:
    ///   - query: Only the ties it selects, in its order (default: all,
    ///     in the order they were added).
    ///   - options: Format, photos, fields, whether to reverse the order.
    /// - Returns: How many ties were written, and how many characters a
    ///   property list could not hold.
    /// - Throws: ``ExportFieldError`` for `options.fields` the format
    ///   cannot write (before anything is written); ``CatalogError``
    ///   `.cannotCreateOutput` when the output cannot be written (a file
    ///   is then left out entirely), `.outputClosed` when standard
    ///   output's reader went away, `.photoUnavailable` when
    ///   `--photos inline` meets a missing or damaged photo, `.storeIO`
    ///   for a colour the transformer refuses; ``QueryError`` for a query
    ///   of another entity.
    @discardableResult
    public func export(to destination: ExportDestination, query: Query? = nil, options: ExportOptions) throws
        -> ExportSummary
    {
        let codec = bowTieCodec
        let fields = try codec.exportFields(options.fields, format: options.format)
        let (selection, columns) = codec.exportSelection(fields, photoBytes: options.photos == .inline)
        let (sql, arguments) = try selectSQL(
            matching: query ?? .all(of: codec.entity), reverse: options.reverse, selection: selection)
        let output = try ExportOutput(destination)
        // No external photo without a folder: the path is then never used.
        let folder = photos.directory?.path ?? ""
        let summary: ExportSummary
        switch options.format {
        case .csv, .tsv:
            var writer = DelimitedRecordWriter(
                output: output, fields: fields, attributes: codec.entity.attributes, photos: options.photos,
                tabs: options.format == .tsv, spreadsheetSafe: options.spreadsheetSafe)
            summary = try export(sql, arguments, fields, columns, options.photos, &writer)
        case .json, .jsonl:
            var writer = JSONRecordWriter(
                output: output, fields: fields, photoFolder: folder, lines: options.format == .jsonl)
            summary = try export(sql, arguments, fields, columns, options.photos, &writer)
        case .plist:
            var writer = PropertyListRecordWriter(output: output, fields: fields, photoFolder: folder)
            summary = try export(sql, arguments, fields, columns, options.photos, &writer)
        }
        try output.commit()
        return summary
    }

    private func export<Writer: RecordStreamWriter & ~Copyable>(
        _ sql: String, _ arguments: [StoreValue], _ fields: [ExportField], _ columns: [Int32],
        _ photos: PhotoExport, _ writer: inout Writer
    ) throws -> ExportSummary {
        try writer.begin()
        let count = try read { db in
            try writeRecords(
                db, sql: sql, arguments: arguments, fields: fields, columns: columns, photos: photos,
                into: &writer)
        }
        try writer.finish()
        return ExportSummary(count: count, replacedCharacters: writer.replacedCharacters)
    }

    /// One record per row, fields in order, read with ``RawRowCursor``
    /// from the codec's export selection (its column encodings, without a
    /// ``Record`` per row).
    func writeRecords<Writer: RecordStreamWriter & ~Copyable>(
        _ db: any StoreSession, sql: String, arguments: [StoreValue], fields: [ExportField], columns: [Int32],
        photos: PhotoExport, into writer: inout Writer
    ) throws -> Int {
        let codec = bowTieCodec
        let cursor = try db.rawCursor(sql: sql, arguments: arguments)
        // Types only: iterating the declarations themselves would copy
        // each (and its strings) for every row. Names are looked up for
        // error messages alone.
        let types = codec.entity.attributes.map(\.type)
        let sources = fields.map(\.source)
        let lists = codec.objectLists
        // The names of each set of names met, sorted, by the text SQLite
        // joins them into: a catalog has few distinct sets (of tags), and
        // sorting ignoring case goes through Foundation, the largest cost
        // of a row with several. Bounded, so memory stays flat.
        var sortedNames: [String: [String]] = [:]
        var count = 0
        while try cursor.step() {
            writer.beginRecord()
            for field in sources.indices {
                let column = columns[field]
                switch sources[field] {
                case .attribute(let index), .baseline(let index):
                    try writeAttribute(cursor, column, field, types[index], index, row: count + 1, photos, &writer)
                case .names:
                    guard let joined = cursor.text(column) else {
                        writer.names(field, [])
                        continue
                    }
                    let text = String(decoding: joined, as: UTF8.self)
                    if let sorted = sortedNames[text] {
                        writer.names(field, sorted)
                        continue
                    }
                    // One name (U+001F joins several) needs no sorting.
                    let sorted =
                        joined.contains(0x1F)
                        ? EntityCodec.sortedNames(text.split(separator: "\u{1F}").map(String.init)) : [text]
                    if sortedNames.count >= Self.sortedNamesLimit { sortedNames.removeAll(keepingCapacity: true) }
                    sortedNames[text] = sorted
                    writer.names(field, sorted)
                case .objects(let index):
                    guard let joined = cursor.text(column) else {
                        writer.objects(field, [])
                        continue
                    }
                    writer.objects(field, codec.decodeObjects(joined, of: lists[index]))
                }
            }
            try writer.endRecord()
            count += 1
        }
        return count
    }

    /// How many sets of names an export keeps sorted (``writeRecords``).
    static let sortedNamesLimit = 1024

    /// One attribute's value from its column(s).
    @inline(__always)
    private func writeAttribute<Writer: RecordStreamWriter & ~Copyable>(
        _ cursor: any RawRows, _ column: Int32, _ field: Int, _ type: AttributeType, _ index: Int,
        row: Int, _ photos: PhotoExport, _ writer: inout Writer
    ) throws {
        switch type {
        case .string, .uri, .uuid:
            guard let text = cursor.text(column) else { return writer.null(field) }
            writer.text(field, text)
        case .double:
            guard let number = cursor.double(column) else { return writer.null(field) }
            writer.real(field, number)
        case .integer32:
            guard let number = cursor.int64(column) else { return writer.null(field) }
            writer.integer(field, number)
        case .date:
            guard let seconds = cursor.double(column) else { return writer.null(field) }
            writer.date(field, secondsSince1970: seconds)
        case .boolean:
            guard let flag = cursor.int64(column) else { return writer.null(field) }
            writer.bool(field, flag != 0)
        case .transformable:
            guard let bytes = cursor.blob(column) else { return writer.null(field) }
            let value: AttributeValue
            do {
                value = try bowTieCodec.transformer(at: index).reverseTransformedValue(bytes: bytes)
            } catch let error as TransformerError {
                let name = bowTieCodec.entity.attributes[index].name
                throw CatalogError(.storeIO, "cannot read the \(name) of row \(row): \(error)")
            }
            guard case .color(let color) = value else { return writer.null(field) }
            writer.color(field, color)
        case .binaryData:
            guard photos != .none else { return try writer.photo(field, .notExported) }
            guard let sha256 = cursor.text(column), let size = cursor.int64(column + 1) else {
                return try writer.photo(field, .missing)
            }
            let external = cursor.int64(column + 2) ?? 0 != 0
            guard photos == .inline else {
                return try writer.photo(
                    field, .described(byteCount: size, sha256: sha256, external: external, data: nil))
            }
            let data = try photoBytes(
                cursor, column, sha256: sha256, size: size, external: external,
                name: bowTieCodec.entity.attributes[index].name, row: row)
            try data.withUnsafeBytes { bytes in
                try writer.photo(field, .described(byteCount: size, sha256: sha256, external: external, data: bytes))
            }
        }
    }

    /// A photo's bytes for `--photos inline`: from the row or from its
    /// file, checked against the SHA-256 the row records.
    /// - Throws: ``CatalogError`` `.photoUnavailable`.
    private func photoBytes(
        _ cursor: any RawRows, _ column: Int32, sha256: UnsafeBufferPointer<UInt8>, size: Int64, external: Bool,
        name: String, row: Int
    ) throws -> Data {
        let info = PhotoInfo(
            byteCount: Int(size), sha256: String(decoding: sha256, as: UTF8.self),
            storage: external ? .external : .inline)
        let result: Result<Data, PhotoProblem>
        if external {
            result = self.photos.read(info)
        } else if let bytes = cursor.blob(column + 3) {
            let data = Data(bytes)
            result = PhotoProblem.verify(data, against: info, file: nil).map { .failure($0) } ?? .success(data)
        } else {
            result = .failure(PhotoProblem(.damagedInline, detail: "its bytes are missing"))
        }
        switch result {
        case .success(let data): return data
        case .failure(let problem):
            throw CatalogError(
                .photoUnavailable, "cannot export the \(name) of row \(row) (\(info.sha256)): \(problem)",
                hint: problem.hint)
        }
    }
}
