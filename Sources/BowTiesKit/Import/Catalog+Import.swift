import Foundation
import GRDB
import PropertyList

/// How an import treats the file and the catalog.
public struct ImportOptions: Sendable {
    /// Where image names resolve; by default `Images/` beside the file.
    public var imagesDirectory: URL?
    /// Overwrite records that already exist (matched by id) with the file's
    /// values. Without it, existing records are left untouched, so a
    /// re-import never resets what was worn or rated.
    public var update = false
    /// Do everything but write: report what would happen.
    public var dryRun = false

    public init(imagesDirectory: URL? = nil, update: Bool = false, dryRun: Bool = false) {
        self.imagesDirectory = imagesDirectory
        self.update = update
        self.dryRun = dryRun
    }
}

extension Catalog {
    /// Imports the bow ties of an XML property list, all or nothing.
    ///
    /// The file is streamed (one record in memory at a time) inside one
    /// transaction. Any invalid record aborts the import with a located
    /// ``ImportError``: nothing is written and no photo file is left behind.
    ///
    /// - Returns: Counts of records added, updated and unchanged, and the
    ///   warnings (unknown keys, missing images).
    /// - Throws: `PropertyListError` for malformed or unsafe documents,
    ///   ``ImportError`` for invalid records, ``CatalogError``.
    @discardableResult
    public func importPropertyList(at url: URL, options: ImportOptions = ImportOptions()) throws -> ImportReport {
        let reader = try PropertyListReader(contentsOf: url)
        let images = try ImageResolver(
            directory: options.imagesDirectory
                ?? url.deletingLastPathComponent().appendingPathComponent("Images", isDirectory: true),
            explicit: options.imagesDirectory != nil)
        var report = ImportReport()
        try write(commit: !options.dryRun) { db, changes in
            var importer = try RecordImporter(
                catalog: self, db: db, changes: changes, images: images, options: options)
            if !reader.rootIsArray {
                // A root <dict> is a single record; anything else is refused
                // by the decoder with its location.
                if let item = try reader.next() { try importer.importRecord(item) }
            } else {
                while let item = try reader.next() {
                    try importer.importRecord(item)
                }
            }
            report = importer.finish(dryRun: options.dryRun)
        }
        return report
    }
}

/// The state of one import transaction.
private struct RecordImporter {
    let catalog: Catalog
    let db: Database
    let changes: PhotoChanges
    let images: ImageResolver
    let options: ImportOptions
    let threshold: Int
    /// Rows above this rowid were added by this import: how a duplicate id
    /// or search key within the file is told from one already stored,
    /// without keeping every id in memory.
    let firstNewRowID: Int64
    var decoder = BowTieDecoder()
    var report = ImportReport()
    var number = 0
    var updatedIDs: Set<UUID> = []
    /// Photos stored so far, by real path: records often share photos, and
    /// each is then read and hashed once per import.
    var photoCache: [String: PhotoInfo] = [:]

    init(catalog: Catalog, db: Database, changes: PhotoChanges, images: ImageResolver, options: ImportOptions) throws {
        self.catalog = catalog
        self.db = db
        self.changes = changes
        self.images = images
        self.options = options
        threshold = try Catalog.threshold(db)
        firstNewRowID = (try Int64.fetchOne(db, sql: "SELECT max(rowid) FROM \(BowTieModel.tableName)") ?? 0) + 1
    }

    mutating func importRecord(_ item: PropertyListItem) throws {
        number += 1
        let record = try decoder.decode(item, number: number)
        let tie = record.tie
        let recordNumber = number
        func failure(_ message: String, field: String? = nil, at location: SourceLocation? = nil) -> ImportError {
            ImportError(
                location: location ?? record.location, recordNumber: recordNumber, record: tie.label, field: field,
                message: message)
        }

        let existing = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT rowid FROM \(BowTieModel.tableName) WHERE id = ?"),
            arguments: [tie.id.uuidString]
        ).map { $0[0] as Int64 }
        if let rowid = existing, rowid >= firstNewRowID || updatedIDs.contains(tie.id) {
            throw failure("the id \(tie.id.uuidString) appears more than once in this file", field: "id")
        }
        if existing != nil && !options.update {
            report.unchanged += 1
            return
        }
        if let key = tie.searchKey,
            let holder = try Row.fetchOne(
                db.cachedStatement(
                    sql: "SELECT rowid, name FROM \(BowTieModel.tableName) WHERE searchKey = ? AND id != ?"),
                arguments: [key, tie.id.uuidString])
        {
            let rowid: Int64 = holder[0]
            throw failure(
                rowid >= firstNewRowID
                    ? "the search key \"\(key)\" appears more than once in this file"
                    : "the search key \"\(key)\" is already used in the catalog by \"\(holder[1] as String? ?? "?")\"",
                field: "searchKey")
        }

        let photo = try photo(for: record, failure)
        let previous = try existing.flatMap { _ in try catalog.fetchOne(id: tie.id, db) }
        if let previous {
            var candidate = tie
            switch photo {
            case .keep: candidate.photo = previous.photo
            case .remove: candidate.photo = nil
            case .store(let info): candidate.photo = info
            }
            if candidate == previous {
                report.unchanged += 1
                return
            }
        }
        do {
            _ = try catalog.save(tie, photo: photo, replacing: previous, db, changes, checkSearchKey: false)
        } catch let error as ValidationError {
            throw failure(error.description)
        }
        if previous != nil {
            report.updated += 1
            updatedIDs.insert(tie.id)
        } else {
            report.added += 1
        }
        if case .store = photo { report.photos += 1 }
    }

    /// The photo a record names: read (once per file), hashed, placed.
    private mutating func photo(
        for record: DecodedRecord, _ failure: (String, String?, SourceLocation?) -> ImportError
    ) throws -> Catalog.ResolvedPhoto {
        guard let (name, location) = record.imageName else { return .remove }
        let resolution: ImageResolver.Resolution
        do {
            resolution = try images.resolve(name)
        } catch {
            throw failure(error.message, "imageName", location)
        }
        switch resolution {
        case .missing(let tried):
            report.warnings.append(
                ImportWarning(
                    location: location,
                    message:
                        "record \(number) (\(record.tie.label)): image \"\(name)\" not found (tried \(tried.joined(separator: ", "))); "
                        + (options.update ? "keeping the stored photo, if any" : "imported without a photo")))
            return .keep
        case .found(let path):
            if let cached = photoCache[path] { return .store(cached) }
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: path))
            } catch {
                throw failure("cannot read image \(path): \(error.localizedDescription)", "imageName", location)
            }
            let filesBefore = changes.created.count
            let info = try catalog.storePhoto(data, threshold: threshold, db, changes, writeFiles: !options.dryRun)
            report.photoFilesWritten += changes.created.count - filesBefore
            photoCache[path] = info
            return .store(info)
        }
    }

    mutating func finish(dryRun: Bool) -> ImportReport {
        for (key, location) in decoder.unknownKeys {
            report.warnings.append(ImportWarning(location: location, message: "unknown key \"\(key)\" ignored"))
        }
        report.dryRun = dryRun
        return report
    }
}
