import Foundation
import PropertyList

extension Catalog {
    /// The page cache an import may use, in KiB (SQLite's default is
    /// 2,000): within the 40 MiB the whole import may take. A bulk load
    /// builds its deferred indexes with 2,000 again
    /// (`SecondaryIndex.bulkBuildSQL`), since their sorts take as much
    /// memory as the cache on top of it. 6 MiB rather than 4 saved 15 % of
    /// the page reads and writes of a 400,000-record import, at the same
    /// peak (bench/README.md, "session 8").
    static let importCacheKiB = 6144

    /// Imports the bow ties of a file, all or nothing: an XML or binary
    /// property list, JSON, JSON Lines, CSV or TSV, or a Core Data store,
    /// told apart by content.
    ///
    /// The same as ``importRecords(from:format:options:)`` with a file.
    @discardableResult
    public func importPropertyList(at url: URL, options: ImportOptions = ImportOptions()) throws -> ImportReport {
        try importRecords(from: .file(url), options: options)
    }

    /// Imports the bow ties of a file or of standard input, all or
    /// nothing.
    ///
    /// The format is told from the content (``ImportFormat/detect(_:columns:file:)``)
    /// unless `format` names it. The file is streamed (one record in
    /// memory at a time; a binary property list is read whole) inside one
    /// transaction. Any invalid record aborts the import with a located
    /// error: nothing is written and no photo file is left behind.
    ///
    /// - Returns: Counts of records added, updated and unchanged, and the
    ///   warnings (unknown keys, missing images).
    /// - Throws: `PropertyListError` for malformed or unsafe documents
    ///   (whatever their format), ``ImportError`` for invalid records,
    ///   ``CatalogError``.
    @discardableResult
    public func importRecords(
        from input: ImportInput, format: ImportFormat? = nil, options: ImportOptions = ImportOptions()
    ) throws -> ImportReport {
        let opened = try ImportInput.Opened(input, format: format, columns: importColumns)
        defer { opened.close() }
        let images = try ImageResolver(
            directory: options.imagesDirectory ?? opened.defaultImagesDirectory,
            explicit: options.imagesDirectory != nil)
        let (source, syntax) = try openSource(opened, options: options)
        let totalBytes = opened.size
        var report = ImportReport()
        var analyze = false
        // A larger page cache for the import only: at a million records
        // the id and search-key indexes outgrow SQLite's default 2 MiB,
        // and every miss is a read and a write of the WAL. A store this
        // import created is filled through a rollback journal instead.
        try withImportStoreSettings {
            try write(action: "Import \(opened.displayName)", insertsAsRanges: true, commit: !options.dryRun) {
                db, changes in
                var importer = try RecordImporter(
                    catalog: self, db: db, changes: changes, images: images, options: options, syntax: syntax)
                do {
                    try importAll(from: source, into: &importer, options: options, totalBytes: totalBytes)
                } catch let error where !(error is CatalogError) {
                    // A bulk load finds a repeated id only when it builds
                    // the id's index; had the index been there, the repeat
                    // would have stopped the import first.
                    throw (try? importer.repeatedIDError()).flatMap { $0 } ?? error
                }
                report = try importer.finish(dryRun: options.dryRun)
                try checkInterruption()
                analyze =
                    !options.dryRun
                    && Self.changesStatistics(
                        written: report.added + report.updated, before: importer.firstNewRowID - 1)
            }
        }
        if analyze {
            // Committed already: a failure here (Ctrl-C, a lost
            // connection) leaves the statistics to the server's
            // autovacuum, and the import is reported as it went.
            try? store.refreshStatistics()
        }
        return report
    }

    /// Whether an import that wrote `written` records into a table that
    /// held rows numbered up to `before` changed it enough that the
    /// planner's statistics should be taken again
    /// (``CatalogStore/refreshStatistics()``): at least 1,000 records and
    /// a tenth of what was there, as PostgreSQL's autovacuum would judge
    /// (its default: 50 rows and a tenth), but at once. A few records
    /// into a large catalog change no plan, and analysing it would cost
    /// more than their import.
    static func changesStatistics(written: Int, before: Int64) -> Bool {
        written >= 1000 && Int64(written) * 10 >= before
    }

    /// The names a CSV header may use: what tells a CSV file by content.
    /// In the order errors list them: the export's columns first.
    private var importColumns: [String] {
        var names = csvColumns
        for attribute in bowTieCodec.entity.attributes {
            names.append(attribute.importKey)
            names.append(attribute.exportName)
        }
        return names
    }

    /// The reader for the opened input's format, and how it writes values.
    private func openSource(_ opened: ImportInput.Opened, options: ImportOptions) throws
        -> (RecordSource, ValueSyntax)
    {
        switch opened.format {
        case .coreData:
            guard let store = opened.coreDataStore else {
                throw CatalogError(.inputNotFound, "\(opened.displayName): no store to read")
            }
            let source = try CoreDataRecordSource(
                store: store, entityName: options.entity, map: options.fieldMap, entity: bowTieCodec.entity,
                size: opened.size ?? 0)
            return (source, .propertyList)
        case _ where options.entity != nil || !options.fieldMap.isEmpty:
            throw ImportError(
                location: nil,
                message: "\(opened.displayName): --entity and --map name a Core Data store's entity and "
                    + "attributes, and this file is read as \(opened.format.rawValue)",
                hint: "A file's keys are matched by name; `bowties import --help` lists them.")
        case .plist:
            let url = try opened.fileURL()
            if PropertyListFormat.detect(Data(opened.prefix)) == .binary {
                let reader = try BinaryPropertyListReader(contentsOf: url, displayName: opened.displayName)
                return (BinaryRecordSource(reader, size: opened.size ?? 0), .propertyList)
            }
            let reader = try PropertyListReader(contentsOf: url, displayName: opened.displayName)
            // Parsing runs on a second core, a bounded number of records
            // ahead; records still arrive in order, and a parse error after
            // every record before it.
            return (reader.rootIsArray ? PropertyListPrefetcher(reader) : reader, .propertyList)
        case .json, .jsonl:
            let layout: JSONReader.Layout = opened.format == .json ? .array : .lines
            let reader =
                try opened.descriptor.map {
                    JSONReader(descriptor: $0, displayName: opened.displayName, prefix: opened.prefix, layout: layout)
                } ?? JSONReader(contentsOf: try opened.fileURL(), displayName: opened.displayName, layout: layout)
            return (reader, .json)
        case .csv, .tsv:
            let dialect: CSVReader.Dialect = opened.format == .tsv ? .tsv : .csv
            let reader =
                try opened.descriptor.map {
                    CSVReader(descriptor: $0, displayName: opened.displayName, prefix: opened.prefix, dialect: dialect)
                }
                ?? CSVReader(contentsOf: try opened.fileURL(), displayName: opened.displayName, dialect: dialect)
            return (CSVRecordSource(reader, entity: bowTieCodec.entity, model: model), .text)
        }
    }

    /// Every record of `source`, through `importer`, with progress reports.
    /// (A plain method, not a closure in the loop: Swift 6.3's optimiser.)
    private func importAll(
        from source: RecordSource, into importer: inout RecordImporter, options: ImportOptions, totalBytes: Int?
    ) throws {
        do {
            while let item = try source.next() {
                try checkInterruption()
                try importer.importRecord(item)
                if options.strict, let warning = importer.warnings.shown.first {
                    throw Self.strictError(warning, record: importer.number)
                }
                if let progress = options.progress, importer.number % ImportProgress.interval == 0 {
                    progress(
                        ImportProgress(
                            records: importer.number, bytesRead: source.bytesConsumed,
                            totalBytes: totalBytes, isFinished: false))
                }
            }
        } catch {
            // Records staged for a batched insert were read before the
            // one at fault: one of them may be the first error.
            try importer.flushBeforeFailing(error)
            throw error
        }
        options.progress?(
            ImportProgress(
                records: importer.number, bytesRead: totalBytes ?? source.bytesConsumed,
                totalBytes: totalBytes, isFinished: true))
    }

    /// `import --strict`: the first warning, as an error. Its record is
    /// the one just read; what the warning says would have been done
    /// instead ("ignored", "imported without a photo") is left out, since
    /// nothing is.
    private static func strictError(_ warning: ImportWarning, record number: Int) -> ImportError {
        var message = warning.message
        for consequence in ["; imported without a photo", "; keeping the stored photo, if any"]
        where message.hasSuffix(consequence) {
            message.removeLast(consequence.count)
        }
        if warning.kind == .unknownKey { message = message.replacingOccurrences(of: "\" ignored", with: "\"") }
        // A missing photo's message names its record already.
        return ImportError(
            location: warning.location, recordNumber: warning.kind == .unknownKey ? number : nil, message: message,
            hint: "--strict refuses a file that gives any warning; nothing was imported.")
    }

    /// Throws once ``interrupt()`` was called: the import's transaction
    /// then rolls back and its photo files are removed.
    private func checkInterruption() throws {
        if isInterrupted { throw CatalogError(.interrupted, "interrupted") }
    }
}
