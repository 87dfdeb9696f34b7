import Foundation
import PropertyList

/// The state of one import transaction.
///
/// Each record first takes the fast path: one prepared `INSERT` that
/// does nothing when the id is already stored. Only records that are
/// not simply new (stored already, repeated in the file, holding a taken
/// search key) pay for the queries that decide what to do and say why.
///
/// What a file says about itself is judged before the store is asked
/// anything: a refused image name stops the import whether its record is
/// new, already stored or updated, and in a dry run too.
struct RecordImporter {
    let catalog: Catalog
    let db: any StoreSession
    let changes: PhotoChanges
    let images: ImageResolver
    let options: ImportOptions
    let threshold: Int
    /// Rows above this rowid were added by this import: how a duplicate id
    /// or search key within the file is told from one already stored,
    /// without keeping every id in memory.
    let firstNewRowID: Int64
    let codec: EntityCodec
    let insert: any RecordInserter
    var decoder: RecordDecoder
    var report = ImportReport()
    /// The first warnings and a count of the rest: memory stays flat
    /// however many records warn.
    var warnings = ImportWarningLog()
    var number = 0
    /// The stored records this import updated: on disk, not in memory.
    var updatedIDs = UpdatedRecordLog()
    /// What each SHA-256 a file gives for a photo (an export's
    /// `--photos hash`) stands for in the store, bounded likewise.
    var photoByHash: [String: NamedPhoto] = [:]
    /// The files of the images folder by the SHA-256 of their bytes,
    /// hashed the first time a photo given by its hash is in neither the
    /// catalog nor a file named by the hash (restoring an export of
    /// another catalog).
    var photoFilesByHash: [String: String]?
    /// The action the import is recorded as in the undo history (nil for
    /// a store without one).
    let undoAction: Int64?
    /// What each image name resolved to: records often share photos, and
    /// each is then resolved, read and hashed once per import. Bounded,
    /// so that a file naming a million photos keeps memory flat.
    var photoByName: [String: NamedPhoto] = [:]
    static let photoCacheLimit = 4096
    /// Photos whose `blob` row this import added. One that no written
    /// record came to use (its records were left unchanged) is dropped at
    /// the end; no file was ever written for it.
    var insertedPhotos: Set<String> = []
    /// The photos of the records written. The first record written with a
    /// photo is when its external file is written, so a photo goes to disk
    /// once, and only when something uses it.
    var photosUsed: Set<String> = []
    /// Where the photos that no record written uses yet were read from,
    /// by SHA-256: the first record that uses one may need its bytes again.
    /// (Kept here rather than in ``NamedPhoto``, which every record with a
    /// photo copies.)
    var unusedPhotoPaths: [String: String] = [:]
    /// Tags (and other named objects) found or made by this import.
    var names = NameCache()
    /// Indexes dropped for a bulk load, created again by ``finish(dryRun:)``.
    var deferredIndexes: [SecondaryIndex] = []
    /// The batched insert, where the store has one (PostgreSQL's `COPY`)
    /// and the import only adds (not `--update`, whose records may
    /// change stored photos that later records look up as they are read).
    let batch: (any RecordBatchInserter)?
    /// `--update`'s batched lookup and writes, where the store has them
    /// (PostgreSQL: ``RecordImporter/flushUpdates()``). Its records wait
    /// in ``pending`` too.
    let updates: (any RecordBatchUpdater)?
    /// The primary keys of the records in ``pending`` for ``updates``: a
    /// record that repeats one waits for the first's outcome.
    var pendingKeys: Set<String> = []
    /// The records staged in ``batch``, in file order, waiting for
    /// ``flushPending()`` to send them.
    var pending: [StagedRecord] = []
    /// The records of the batch sent last, while the server writes them
    /// and this import reads the next ones: ``concludeInFlight()`` learns
    /// whether they were written before any other statement is run.
    var inFlight: [StagedRecord] = []
    /// The photo bytes the staged records hold.
    var pendingPhotoBytes = 0
    /// Whether a staged record will warn once written (its photo is
    /// missing): a record that warns as it is read must then wait for it.
    var pendingWarns = false
    /// A batch is written when it holds this many records, or
    /// ``batchBytes`` of rows and photos: memory stays flat. Two batches
    /// are held at once (one staged, one the server is writing), and a
    /// staged record with what it needs afterwards is about 1.7 KB: at
    /// 2,048 a batch the two were 5 MB more of a PostgreSQL import's
    /// peak than at 512, which takes 196 `COPY`s per 100,000 ties where
    /// 2,048 took 49 (bench/results/postgres.md, "Session 13").
    static let batchSize = 512
    static let batchBytes = 1 << 20

    /// A record read and staged, with what writing it needs afterwards.
    struct StagedRecord {
        var record: DecodedRecord
        var named: NamedPhoto?
        var readData: Data?
        var number: Int
    }
    /// The id's unique index while a bulk load has it dropped: built by
    /// ``finish(dryRun:)``, or before the first statement that needs it
    /// (``buildKeyIndex()``). Nil when the index is there.
    var bulkKey: BulkKeyLoad?
    /// Where each record of a bulk load starts, for the error about a
    /// repeated id found when the key index is built.
    let locations = RecordLocationLog()
    /// The tag links and wears of a bulk load's records, waiting for the
    /// key index they refer through (``buildKeyIndex(restoringCache:)``
    /// inserts them): a file with tags or wears stays a bulk load.
    var staged = BulkLinkStage()

    /// An image name's outcome, shared by every record that names it.
    enum NamedPhoto {
        /// In the `blob` table.
        case stored(PhotoInfo)
        case missing(tried: [String])
        case refused(String)
    }

    init(
        catalog: Catalog, db: any StoreSession, changes: PhotoChanges, images: ImageResolver, options: ImportOptions,
        syntax: ValueSyntax
    ) throws {
        self.catalog = catalog
        self.db = db
        self.changes = changes
        self.images = images
        self.options = options
        threshold = try Catalog.threshold(db)
        codec = catalog.bowTieCodec
        decoder = RecordDecoder(entity: codec.entity, model: catalog.model, syntax: syntax)
        decoder.defersMissingValues = options.update
        firstNewRowID = (try Int64.fetchOne(db, sql: "SELECT max(\(db.dialect.rowNumber)) FROM \(codec.entity.tableName)") ?? 0) + 1
        undoAction = try UndoHistory.recordingAction(db)
        if firstNewRowID == 1 && !catalog.isOnPostgreSQL {  // max(rowid) is NULL: the table is empty
            // A first import into an empty catalog is a bulk load: build
            // the lookup-only indexes and the id's unique index once at
            // the end, in this transaction (SQLite's indexes: PostgreSQL's
            // stay), except those whose keys are few, which are kept as
            // rows go in (`SecondaryIndex.staysDuringBulkLoad`).
            deferredIndexes = catalog.model.indexes(of: codec.entity).filter { !$0.staysDuringBulkLoad }
            for index in deferredIndexes {
                try db.execute(sql: index.dropSQL)
            }
            bulkKey = try BulkKeyLoad.begin(codec.entity, model: catalog.model, db)
        }
        insert = try bulkKey?.inserter(codec, db) ?? db.recordInserter(codec)
        batch = options.update ? nil : try db.recordBatchInserter(codec)
        updates = options.update ? try db.recordBatchUpdater(codec) : nil
    }

    mutating func importRecord(_ item: PropertyListItem) throws {
        number += 1
        var record: DecodedRecord
        if pendingWarns {
            // Warnings come in file order: if this record warns as it is
            // read, the staged records' warnings (written first) go
            // before its own, so it is read again after them.
            let (savedDecoder, savedWarnings) = (decoder, warnings)
            record = try decoder.decode(item, number: number, warnings: &warnings)
            if warnings.changes != savedWarnings.changes {
                (decoder, warnings) = (savedDecoder, savedWarnings)
                try flushPending()
                record = try decoder.decode(item, number: number, warnings: &warnings)
            }
        } else {
            record = try decoder.decode(item, number: number, warnings: &warnings)
        }
        if bulkKey?.isBuilt == false { locations.append(record.location) }
        if record.children != nil || !record.baselines.isEmpty { try baselines(beside: &record) }
        var named: NamedPhoto?
        var readData: Data?
        switch record.photo?.source {
        case .name(let name)?:
            (named, readData) = try photo(named: name, at: record.photo?.location ?? record.location, record)
        case .inline(let bytes)?:
            (named, readData) = try photo(inline: bytes, record)
        case .hash(let sha256)?:
            (named, readData) = try photo(hash: sha256, record)
        case nil:
            break
        }
        // Set in the record itself: on a copy, the first change copies
        // the values array (2 % of the storing thread).
        switch named {
        case .stored(let info)?:
            record.tie.photo = info
        case .refused(let message)?:
            // Whatever the store holds: the same file, the same verdict.
            throw imageError(message, record)
        case .missing?, nil:
            if record.tie.photo != nil { record.tie.photo = nil }
        }
        if updates != nil, try stageUpdate(record, named, readData) { return }
        if record.missingValues != nil { return try importAlone(record, named, readData) }
        let tie = record.tie
        if let batch {
            var stageable = true
            if case .missing? = named {
                // --strict stops at the first warning, which must be this
                // record's, before any later record is read.
                stageable = !options.strict
            }
            if stageable, try batch.stage(tie.record) {
                pending.append(StagedRecord(record: record, named: named, readData: readData, number: number))
                pendingPhotoBytes += readData?.count ?? 0
                if case .missing? = named { pendingWarns = true }
                if batch.stagedCount >= Self.batchSize || batch.stagedBytes + pendingPhotoBytes >= Self.batchBytes {
                    try flushPending(overlapping: true)
                }
                return
            }
            // This record goes alone, after those read before it.
            try flushPending()
        }
        try insertOne(record, named, readData)
    }

    /// A record through the one-record path: a record that leaves values
    /// out (an update's) must be stored already; else ``insertOne(_:_:_:)``.
    mutating func importAlone(_ record: DecodedRecord, _ named: NamedPhoto?, _ readData: Data?) throws {
        if let missing = record.missingValues {
            // Left out by an update: the stored record gives them, and a
            // new one must have them.
            try buildKeyIndex()
            let stored = try Bool.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT EXISTS (SELECT 1 FROM "\(codec.entity.tableName)" \
                        WHERE "\(codec.entity.primaryKeyColumn)" = ?)
                        """),
                arguments: [record.tie.record.primaryKey?.storeValue ?? .null]) ?? false
            guard stored else { throw missing }
            return try importRecordNotNew(record, named, readData)
        }
        try insertOne(record, named, readData)
    }

    /// Inserts a record through the one-record path: the fast `INSERT`,
    /// else the queries that decide what to do and say why.
    mutating func insertOne(_ record: DecodedRecord, _ named: NamedPhoto?, _ readData: Data?) throws {
        guard try insert.insert(record.tie.record) == .inserted else {
            return try importRecordNotNew(record, named, readData)
        }
        try recordInserted(record, named, readData)
    }

    /// Sends the staged records (``batch``); then, once the server has
    /// written them, what each needs beside its row (tags, wears, counts,
    /// warnings), in file order (``concludeInFlight()``). When the batch
    /// could not be written whole (a record in it is stored already, or
    /// breaks a constraint), nothing of it was, and each record goes
    /// through ``insertOne(_:_:_:)``, which says which record is at
    /// fault exactly as an import one record at a time does.
    ///
    /// With `overlapping` (a full batch, more records to come), a batch
    /// whose records need nothing more (no tags, no wears, no warning)
    /// is left in flight: the server writes it while the next records
    /// are read and encoded, and it is concluded before the next
    /// statement (the next batch, a photo's row, the end).
    mutating func flushPending(overlapping: Bool = false) throws {
        if updates != nil { return try flushUpdates() }
        try concludeInFlight()
        guard let batch, !pending.isEmpty else { return }
        swap(&inFlight, &pending)
        let warns = pendingWarns
        pendingPhotoBytes = 0
        pendingWarns = false
        try batch.send()
        if !overlapping || warns
            || inFlight.contains(where: { !$0.record.tie.record.names.isEmpty || $0.record.children != nil })
        {
            try concludeInFlight()
        }
    }

    /// Waits for the batch in flight (``flushPending()``) and finishes
    /// its records.
    mutating func concludeInFlight() throws {
        guard let batch, !inFlight.isEmpty else { return }
        let written = try batch.finish()
        var staged: [StagedRecord] = []
        swap(&staged, &inFlight)
        let current = number
        defer { number = current }
        for record in staged {
            number = record.number
            if written {
                try recordInserted(record.record, record.named, record.readData)
            } else {
                try insertOne(record.record, record.named, record.readData)
            }
        }
    }

    /// Before an import fails with `error` (about its input: a record, a
    /// malformed file, `--strict`), writes the records staged before the
    /// one at fault: an error among them comes first in the file, and is
    /// the one to report. A store's error is reported as it is: the
    /// transaction cannot go on.
    mutating func flushBeforeFailing(_ error: any Error) throws {
        guard !pending.isEmpty || !inFlight.isEmpty, !(error is CatalogError), catalog.store.failureMessage(error) == nil else { return }
        try flushPending()
    }

    /// What follows the insert of a new record's row: its tags, its
    /// wears, the counts and its photo's first use.
    mutating func recordInserted(_ record: DecodedRecord, _ named: NamedPhoto?, _ readData: Data?) throws {
        let tie = record.tie
        if !tie.record.names.isEmpty {
            try linkNames(tie.record, record)
        }
        if record.children != nil, bulkKey?.isBuilt == false {
            try stageChildren(of: record)
        } else if record.children != nil {
            // Undo deletes this record and its objects by the ranges of
            // rows this import added. The images the update triggers would
            // log of the record's row (twice for each wear, as the wear
            // triggers bring its timesWorn and lastWorn up to date) are
            // never used: eight pages in the statement journal per wear.
            try UndoHistory.withoutImages(of: undoAction, db) { try insertChildren(of: record) }
        }
        report.added += 1
        switch named {
        case .stored(let info)?:
            report.photos += 1
            if photosUsed.insert(info.sha256).inserted { try firstUse(info, readData, record) }
        case .missing(let tried)?:
            warnMissingImage(record, tried: tried)
        case .refused?, nil: break
        }
    }

    /// Links a record the fast path inserted to the objects its file names
    /// (its tags), creating those that do not exist.
    private mutating func linkNames(_ stored: Record, _ record: DecodedRecord) throws {
        guard let key = stored.primaryKey else { return }
        for named in codec.namedRelationships {
            guard let names = stored.names[named.relationship.name] else { continue }
            do {
                try RecordWriter.checkCount(
                    Set(names.map { $0.lowercased() }).count, of: named.relationship, record: record.tie.label)
                // A new record has no links to remove: no names, nothing
                // to write (an export writes an empty tags array).
                guard !names.isEmpty else { continue }
                guard bulkKey?.isBuilt == false else {
                    _ = try RecordWriter(codec).setNames(names, of: key.storeValue, named, isNew: true, db, cache: &self.names)
                    continue
                }
                // The tags are found or made now (a bad name fails here,
                // at this record); the links wait for the key index.
                for tag in try RecordWriter(codec).resolve(names, named, db, cache: &self.names).keys {
                    try staged.insert(
                        into: named.table.name, columns: [named.near, named.far], [key.storeValue, tag],
                        ignoringConflicts: true, db)
                }
            } catch let error as ValidationError {
                throw ImportError(
                    location: record.location, recordNumber: number, record: record.tie.label,
                    field: named.relationship.importKey, message: error.description, validation: error)
            }
        }
    }

    /// A record the fast path did not insert: already stored (left alone,
    /// or updated with `--update`), or in conflict with another record.
    mutating func importRecordNotNew(
        _ record: DecodedRecord, _ named: NamedPhoto?, _ readData: Data?
    ) throws {
        // Every way on looks the record up by its id.
        try buildKeyIndex()
        var tie = record.tie
        let recordNumber = number
        func failure(_ message: String, field: String? = nil, at location: SourceLocation? = nil) -> ImportError {
            ImportError(
                location: location ?? record.location, recordNumber: recordNumber, record: tie.label, field: field,
                message: message)
        }

        let table = codec.entity.tableName
        let existing = try StoreRow.fetchOne(
            db.cachedStatement(sql: "SELECT \(db.dialect.rowNumber) FROM \(table) WHERE id = ?"),
            arguments: [tie.id.uuidString]
        ).map { try $0.decode(Int64.self, atIndex: 0) }
        if let rowid = existing, try rowid >= firstNewRowID || updatedIDs.contains(tie.id, db) {
            throw failure("the id \(tie.id.uuidString) appears more than once in this file", field: "id")
        }
        if existing != nil && !options.update {
            report.unchanged += 1
            return
        }
        if let conflict = try RecordWriter(codec).uniqueConflict(tie.record, db) {
            let what = "the \(conflict.attribute.displayName) \(conflict.value.messageText)"
            throw failure(
                conflict.rowid >= firstNewRowID
                    ? "\(what) appears more than once in this file"
                    : "\(what) is already used in the catalog by \(conflict.holder)",
                field: conflict.attribute.importKey)
        }

        let resolved: Catalog.ResolvedPhoto
        switch named {
        case nil:
            // No image name in the file: an update leaves the photo as
            // stored, as it does every attribute the file leaves out.
            resolved = existing != nil ? .keep : .remove
        case .stored(let info)?:
            resolved = .store(info)
        case .refused(let message)?:
            // importRecord refuses it first; kept so that no path can
            // write a record whose image name was refused.
            throw imageError(message, record)
        case .missing(let tried)?:
            warnMissingImage(record, tried: tried)
            resolved = .keep
        }
        let previous = try existing.flatMap { _ in try catalog.fetchOne(id: tie.id, db) }
        var historyChanged = false
        if let previous {
            historyChanged = try historyDiffers(record, previous)
            let baselines = try codec.baselines(of: previous.record.primaryKey?.storeValue ?? .null, db)
            let candidate: BowTie
            (tie, candidate) = merged(record, resolved, previous: previous, baselines: baselines)
            if candidate == previous && !historyChanged {
                report.unchanged += 1
                return
            }
        }
        do {
            _ = try catalog.save(
                tie, photo: resolved, replacing: previous, db, changes, checkUnique: false, baselines: true)
        } catch let error as ValidationError {
            throw failure(error.description)
        }
        if previous != nil {
            if record.children != nil { try deleteChildren(of: record) }
            try insertChildren(of: record)
            report.updated += 1
            try updatedIDs.insert(tie.id, db)
        } else {
            try insertChildren(of: record)
            report.added += 1
        }
        if case .stored(let info)? = named {
            report.photos += 1
            if photosUsed.insert(info.sha256).inserted { try firstUse(info, readData, record) }
        }
    }

    /// What an update makes of the stored record `previous` from the
    /// file's `record`: the tie to save (what the file leaves out taken
    /// from the stored record, counts as baselines), and the candidate to
    /// compare with `previous` (equal: the record is unchanged).
    ///
    /// - Parameter baselines: The stored baselines of `previous`'s derived
    ///   attributes (``EntityCodec/baselines(of:_:)``).
    func merged(
        _ record: DecodedRecord, _ resolved: Catalog.ResolvedPhoto, previous: BowTie, baselines: [AttributeValue?]
    ) -> (tie: BowTie, candidate: BowTie) {
        var tie = record.tie
        // What the file leaves out stays: the attributes its <dict>
        // has no key for (a derived one keeps its stored baseline,
        // which the save below writes back), and the links it does
        // not name.
        for (index, attribute) in codec.entity.attributes.enumerated()
        where !record.gives(index) && !record.givesBaseline(index) && attribute.type != .binaryData {
            tie.record.values[index] =
                attribute.derivation != nil ? baselines[index] : previous.record.values[index]
        }
        for (name, names) in previous.record.names where tie.record.names[name] == nil {
            tie.record.names[name] = names
        }
        // A file without the history (an export's CSV) gives the
        // totals: one equal to the stored total means the stored
        // baseline, so that an export imported back changes nothing.
        for index in baselines.indices
        where codec.entity.attributes[index].derivation != nil && record.gives(index) && record.children == nil
            && !record.givesBaseline(index)
            && Self.sameToTheSecond(tie.record.values[index], previous.record.values[index])
        {
            tie.record.values[index] = baselines[index]
        }
        var candidate = tie
        switch resolved {
        case .keep: candidate.photo = previous.photo
        case .remove: candidate.photo = nil
        case .store(let info): candidate.photo = info
        }
        // The file's counts are baselines: compared with the stored
        // baselines, the store's totals stand for them.
        for index in baselines.indices where codec.entity.attributes[index].derivation != nil {
            if Self.sameToTheSecond(candidate.record.values[index], baselines[index]) {
                candidate.record.values[index] = previous.record.values[index]
            }
        }
        candidate.record.names = candidate.record.names.mapValues {
            EntityCodec.sortedNames($0.reduce(into: [String]()) { names, name in
                if !names.contains(where: { $0.caseInsensitiveCompare(name) == .orderedSame }) { names.append(name) }
            })
        }
        return (tie, candidate)
    }

    /// Equal, dates to the whole second: files write dates in whole
    /// seconds, and a wear's date has a fraction.
    static func sameToTheSecond(_ a: AttributeValue?, _ b: AttributeValue?) -> Bool {
        if case .date(let first)? = a, case .date(let second)? = b {
            return first.timeIntervalSince1970.rounded(.down) == second.timeIntervalSince1970.rounded(.down)
        }
        return a == b
    }

    /// The photo an image name refers to: resolved, read, hashed and
    /// placed in the `blob` table the first time the name is met. Its
    /// file, if it has one, waits until a record written uses it.
    ///
    /// - Returns: The outcome, and the bytes when they were read for this
    ///   record (nil when the name was met before).
    /// - Throws: ``ImportError`` when the file cannot be read.
    private mutating func photo(
        named name: String, at location: SourceLocation, _ record: DecodedRecord
    ) throws -> (NamedPhoto, Data?) {
        if let known = photoByName[name] { return (known, nil) }
        let named: NamedPhoto
        var data: Data?
        do {
            switch try images.resolve(name) {
            case .missing(let tried):
                named = .missing(tried: tried)
            case .found(let path):
                let bytes: Data
                do {
                    bytes = try ImageResolver.read(path)
                } catch {
                    throw ImportError(
                        location: location, recordNumber: number, record: record.tie.label, field: "imageName",
                        message: error.message)
                }
                // A text file or an empty one named as a photo is a
                // mistake to show, as `photo --set` shows it.
                if let refusal = ImageFormat.refusal(of: bytes) {
                    throw ImportError(
                        location: location, recordNumber: number, record: record.tie.label, field: "imageName",
                        message: "image \(path) \(refusal); \(ImageFormat.acceptedHint)")
                }
                try concludeInFlight()  // before any other statement
                let (info, isNew) = try catalog.insertBlob(bytes, threshold: threshold, db)
                if isNew { addedPhoto(info.sha256) }
                if !photosUsed.contains(info.sha256) { unusedPhotoPaths[info.sha256] = path }
                named = .stored(info)
                data = bytes
            }
        } catch let refusal as ImageRefusal {
            named = .refused(refusal.message)
        }
        if photoByName.count >= Self.photoCacheLimit { photoByName.removeAll(keepingCapacity: true) }
        photoByName[name] = named
        return (named, data)
    }

    /// The first record written with `info` (it was just added to
    /// ``photosUsed``): writes the photo's external file, unless the
    /// photo folder has it already. A photo goes to disk once, and only
    /// when a record uses it.
    ///
    /// - Parameters:
    ///   - data: The photo's bytes if this record read them; else they
    ///     are read again from where they were found (the name was met
    ///     first by records left unchanged) and must still have the same
    ///     SHA-256.
    mutating func firstUse(_ info: PhotoInfo, _ data: Data?, _ record: DecodedRecord) throws {
        let path = unusedPhotoPaths.removeValue(forKey: info.sha256)
        guard info.storage == .external, !options.dryRun else { return }
        // A photo found by its hash in the catalog was stored before this
        // import: its file is there already.
        if case .hash? = record.photo?.source, !insertedPhotos.contains(info.sha256) { return }
        let bytes: Data
        if let data {
            bytes = data
        } else {
            guard let path else {
                throw imageError("the file of photo \(info.sha256) is no longer known", record)
            }
            do {
                bytes = try ImageResolver.read(path)
            } catch {
                throw imageError(error.message, record)
            }
            guard bytes.sha256Hex == info.sha256 else {
                throw imageError("image \(path) changed while it was being imported", record)
            }
        }
        try catalog.writePhotoFile(bytes, of: info, changes)
    }

    /// An error about the record's `imageName`, located at its value.
    func imageError(_ message: String, _ record: DecodedRecord) -> ImportError {
        ImportError(
            location: record.photo?.location ?? record.location, recordNumber: number,
            record: record.tie.label, field: record.photo?.key, message: message)
    }

    mutating func warnMissingImage(_ record: DecodedRecord, tried: [String]) {
        let number = number
        let update = options.update
        let what: String
        if case .hash(let sha256)? = record.photo?.source {
            what = "photo \(sha256.prefix(12))… is not in this catalog nor in \(images.directory.path)"
        } else {
            what = "image \"\(record.imageName?.name ?? "")\" not found (tried \(tried.joined(separator: ", ")))"
        }
        warnings.add(
            .missingImage, at: record.photo?.location,
            "record \(number) (\(record.tie.label)): \(what); "
                + (update ? "keeping the stored photo, if any" : "imported without a photo"))
    }

    /// Bytes given in the file: stored in the `blob` table (once per
    /// distinct photo); the file, if any, is written by the first record
    /// written that uses them.
    private mutating func photo(inline bytes: Data, _ record: DecodedRecord) throws -> (NamedPhoto, Data?) {
        guard bytes.count <= ImageResolver.maximumPhotoSize else {
            throw imageError(
                "the photo is \(bytes.count) bytes, more than the \(ImageResolver.maximumPhotoSize / 1_048_576) MiB a photo may have",
                record)
        }
        try concludeInFlight()  // before any other statement
        let (info, isNew) = try catalog.insertBlob(bytes, threshold: threshold, db)
        if isNew { addedPhoto(info.sha256) }
        return (.stored(info), bytes)
    }

    /// A `blob` row this import added: dropped at the end if no record
    /// written uses it, and no longer missing for records naming its hash.
    private mutating func addedPhoto(_ sha256: String) {
        insertedPhotos.insert(sha256)
        photoByHash[sha256] = nil
    }

    /// "The photo with this SHA-256": the catalog's, if it holds it;
    /// else a file of the images folder with those bytes (named by the
    /// hash, as a catalog's photo folder names them, or any name: see
    /// ``photoFilesByHash``), stored as an image name's would be;
    /// otherwise missing (a warning, as for a missing image file).
    ///
    /// Records share photos, so each hash is looked up once
    /// (``photoByHash``); a photo this import adds clears what was known.
    ///
    /// - Returns: The outcome, and the bytes when they were read for this
    ///   record.
    private mutating func photo(hash sha256: String, _ record: DecodedRecord) throws -> (NamedPhoto, Data?) {
        if let known = photoByHash[sha256] { return (known, nil) }
        try concludeInFlight()  // before any other statement
        var named: NamedPhoto
        var data: Data?
        if let row = try StoreRow.fetchOne(
            db.cachedStatement(sql: "SELECT byteCount, external FROM \(Catalog.blobTable) WHERE sha256 = ?"),
            arguments: [sha256])
        {
            let external = try row.decode(Bool.self, atIndex: 1)
            named = .stored(PhotoInfo(byteCount: try row.decode(Int.self, atIndex: 0), sha256: sha256, storage: external ? .external : .inline))
        } else if let path = photoFile(sha256) {
            let bytes: Data
            do {
                bytes = try ImageResolver.read(path)
            } catch {
                throw imageError(error.message, record)
            }
            guard bytes.sha256Hex == sha256 else {
                throw imageError("image \(path) changed while it was being imported", record)
            }
            let (info, isNew) = try catalog.insertBlob(bytes, threshold: threshold, db)
            if isNew { addedPhoto(info.sha256) }
            if !photosUsed.contains(info.sha256) { unusedPhotoPaths[info.sha256] = path }
            named = .stored(info)
            data = bytes
        } else {
            named = .missing(tried: [])
        }
        if photoByHash.count >= Self.photoCacheLimit { photoByHash.removeAll(keepingCapacity: true) }
        photoByHash[sha256] = named
        return (named, data)
    }

    /// The file of the images folder whose bytes have this SHA-256: the
    /// one named by the hash (a catalog's photo folder), else one found
    /// by ``photoFilesByHash``.
    private mutating func photoFile(_ sha256: String) -> String? {
        if case .found(let path)? = try? images.resolve(sha256) { return path }
        if photoFilesByHash == nil { photoFilesByHash = images.filesByHash() }
        return photoFilesByHash?[sha256]
    }

    // MARK: Owned objects (the wear history)

    /// Turns the totals of the attributes derived from the record's
    /// history (`timesWorn`, `lastWorn`) into the baselines the store
    /// keeps beside it.
    ///
    /// A baseline the record gives (`timesWornBefore`, `lastWornBefore`,
    /// as exports write them) is taken as it is; with the history beside
    /// it, the record's total must be what the two make. Otherwise (a
    /// file from before exports wrote baselines): the total less the
    /// history's count; the latest date only when it is later than the
    /// history's. A record without the total counts its history only.
    ///
    /// - Throws: ``ImportError`` when a count is smaller than its history,
    ///   or a total is not what its baseline and history make.
    private mutating func baselines(beside record: inout DecodedRecord) throws {
        let attributes = codec.entity.attributes
        for (index, attribute) in attributes.enumerated() {
            guard let derivation = attribute.derivation else { continue }
            let history = record.children?[derivation.relationship]
            if let given = record.baselines.first(where: { $0.index == index })?.value {
                if let history, record.gives(index) { try checkTotal(of: index, in: record, given, history) }
                record.tie.record.values[index] = given
                continue
            }
            guard let history else { continue }
            switch derivation {
            case .count:
                guard record.gives(index), case .integer(let total)? = record.tie.record.values[index] else {
                    record.tie.record.values[index] = attribute.defaultValue
                    continue
                }
                guard total >= Int64(history.count) else {
                    throw ImportError(
                        location: record.location, recordNumber: number, record: record.tie.label,
                        field: attribute.exportName,
                        message: "\(attribute.name) is \(total), less than the \(history.count) \(derivation.relationship) the record lists")
                }
                record.tie.record.values[index] = .integer(total - Int64(history.count))
            case .latest(_, let name):
                var latest: Date?
                for child in history {
                    if case .date(let date)? = child[name], latest.map({ date > $0 }) ?? true { latest = date }
                }
                if case .date(let date)? = record.tie.record.values[index], let latest, date <= latest {
                    record.tie.record.values[index] = nil
                }
            }
        }
    }

    /// Checks that the total a record gives for the derived attribute at
    /// `index` is what its baseline and history make (dates to the whole
    /// second, as files write them).
    /// - Throws: ``ImportError`` naming the three.
    private func checkTotal(
        of index: Int, in record: DecodedRecord, _ baseline: AttributeValue, _ history: [Record]
    ) throws {
        let attribute = codec.entity.attributes[index]
        let total = record.tie.record.values[index]
        let expected: AttributeValue?
        switch attribute.derivation {
        case .count?:
            guard case .integer(let count) = baseline else { return }
            expected = .integer(count + Int64(history.count))
        case .latest(_, let name)?:
            var latest: Date?
            if case .date(let date) = baseline { latest = date }
            for child in history {
                if case .date(let date)? = child[name], latest.map({ date > $0 }) ?? true { latest = date }
            }
            expected = latest.map(AttributeValue.date)
        case nil:
            return
        }
        guard !Self.sameToTheSecond(total, expected) else { return }
        let relationship = attribute.derivation.map { $0.relationship } ?? ""
        let before = "\(attribute.baselineExportName) \(baseline.messageText)"
        let made: String
        if case .count? = attribute.derivation {
            made = "\(before) plus the \(history.count) listed in \(relationship) make"
        } else {
            made = "the latest of \(before) and the dates in \(relationship) is"
        }
        throw ImportError(
            location: record.location, recordNumber: number, record: record.tie.label,
            field: attribute.exportName,
            message: "\(attribute.name) is \(total.map(\.messageText) ?? "none"), but \(made) "
                + (expected.map(\.messageText) ?? "none"))
    }

    /// Stores the record's owned objects, linked to it.
    private mutating func insertChildren(of record: DecodedRecord) throws {
        guard let children = record.children else { return }
        // A wear refers to its record by id: SQLite checks that through
        // the id's unique index.
        if children.values.contains(where: { !$0.isEmpty }) { try buildKeyIndex() }
        for (name, objects) in children {
            guard let (childCodec, link) = childCodec(name) else { continue }
            for var object in objects {
                object.setLink(link, to: .uuid(record.tie.id))
                _ = try RecordWriter(childCodec).save(object, isNew: true, db)
            }
        }
    }

    /// A bulk load's ``insertChildren(of:)``: the objects wait in
    /// ``staged`` for the key index, already validated (as the record was
    /// decoded), so nothing about them can fail later.
    private mutating func stageChildren(of record: DecodedRecord) throws {
        guard let children = record.children else { return }
        for (name, objects) in children {
            guard let (childCodec, link) = childCodec(name) else { continue }
            for var object in objects {
                object.setLink(link, to: .uuid(record.tie.id))
                try staged.insert(
                    into: childCodec.entity.tableName, columns: childCodec.insertColumns,
                    childCodec.insertArguments(object), db)
            }
        }
    }

    /// Removes the stored owned objects the record's file replaces.
    private func deleteChildren(of record: DecodedRecord) throws {
        guard let children = record.children else { return }
        for name in children.keys {
            guard let relationship = codec.entity.relationship(named: name),
                let childCodec = catalog.codecs[relationship.destination],
                let column = catalog.model.linkColumn(inverseOf: relationship)
            else { continue }
            try db.execute(
                sql: "DELETE FROM \"\(childCodec.entity.tableName)\" WHERE \"\(column.name)\" = ?",
                arguments: [record.tie.id.uuidString])
        }
    }

    /// Whether the record's history differs from the stored one (same
    /// objects in any order count as the same).
    private func historyDiffers(_ record: DecodedRecord, _ previous: BowTie) throws -> Bool {
        guard let children = record.children else { return false }
        for (name, objects) in children {
            guard let relationship = codec.entity.relationship(named: name),
                let childCodec = catalog.codecs[relationship.destination],
                let column = catalog.model.linkColumn(inverseOf: relationship)
            else { continue }
            let stored = try StoreRow.fetchAll(
                db,
                sql: childCodec.selection
                    + " WHERE \"\(childCodec.entity.tableName)\".\"\(column.name)\" = ?",
                arguments: [previous.id.uuidString]
            ).map { try childCodec.decode($0).values.map(Self.secondsText) }
            let given = objects.map { $0.values.map(Self.secondsText) }
            func key(_ values: [String]) -> String { values.joined(separator: "\u{1F}") }
            if stored.map(key).sorted() != given.map(key).sorted() { return true }
        }
        return false
    }

    /// A value as text for ``historyDiffers(_:_:)``; a date to the whole
    /// second, as files write it (a wear recorded now has a fraction).
    private static func secondsText(_ value: AttributeValue?) -> String {
        guard let value else { return "" }
        if case .date(let date) = value {
            return "\(Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down)))"
        }
        return "\(value)"
    }

    private func childCodec(_ name: String) -> (EntityCodec, String)? {
        guard let relationship = codec.entity.relationship(named: name),
            let childCodec = catalog.codecs[relationship.destination],
            let inverse = catalog.model.inverse(of: relationship)
        else { return nil }
        return (childCodec, inverse.name)
    }

    mutating func finish(dryRun: Bool) throws -> ImportReport {
        try flushPending()
        try batch?.endImport()
        try updatedIDs.finish(db)
        // The staged links and wears go in with the import's page cache.
        try buildKeyIndex(restoringCache: !staged.isEmpty)
        if !deferredIndexes.isEmpty {
            // With a smaller page cache: the builds' sorts take as much
            // memory again.
            try db.execute(sql: SecondaryIndex.bulkBuildSQL(deferredIndexes))
        }
        // Bytes stored for records that were then left unchanged.
        for sha256 in insertedPhotos where !photosUsed.contains(sha256) {
            try catalog.dropUnusedBlob(sha256, db)
        }
        let folder = images.directory.path
        (report.warnings, report.moreWarnings) = warnings.finish { kind, count, plural in
            switch kind {
            case .missingImage:
                "… and \(count) more record\(plural ? "s" : "") whose photo file is not in \(folder)"
            case .unknownKey:
                "… and \(count) more unknown key\(plural ? "s" : "") ignored"
            }
        }
        report.distinctPhotos = photosUsed.count
        // Every file this transaction created is used by a record it
        // wrote, so none is removed at the commit: the count is exact.
        report.photoFilesWritten = dryRun ? 0 : changes.created.count
        report.dryRun = dryRun
        return report
    }
}

extension RecordImporter {
    /// Builds the id's unique index if a bulk load dropped it: at the end,
    /// or before the first statement that needs it (a lookup by id, a row
    /// that refers to a record by its id), after which the load goes on
    /// with the index, as any import does.
    ///
    /// - Parameter restoringCache: Set the import's page cache again
    ///   after the build (false at the end: the deferred indexes are built
    ///   next, with the same small cache).
    /// - Throws: ``ImportError`` for the first record whose id an earlier
    ///   record has, as the insert of that record would have thrown it.
    mutating func buildKeyIndex(restoringCache: Bool = true) throws {
        guard var key = bulkKey, !key.isBuilt else { return }
        let built = try key.build(
            db, cacheKiB: SecondaryIndex.bulkBuildCacheKiB, restoring: restoringCache ? Catalog.importCacheKiB : nil)
        bulkKey = key
        if !built, let error = try repeatedIDError() { throw error }
        if !staged.isEmpty {
            // Set-wise, in the order staged; no undo images of the ties
            // the wear triggers update (see recordInserted).
            try UndoHistory.withoutImages(of: undoAction, db) { try staged.flush(db) }
        }
    }

    /// While a bulk load's key index is not built: the error for the
    /// first record that repeats an earlier record's id, located at the
    /// repeat, with the words the import uses when the index finds it at
    /// once; nil when no id repeats.
    ///
    /// The import asks this before it reports any other failure: a
    /// repeated id earlier in the file is the error the user would have
    /// got first.
    func repeatedIDError() throws -> ImportError? {
        guard let key = bulkKey, !key.isBuilt, let repeated = try key.firstRepeat(db) else { return nil }
        let table = codec.entity.tableName
        let row = try StoreRow.fetchOne(
            db.cachedStatement(sql: codec.selection + " WHERE \"\(table)\".\(db.dialect.rowNumber) = ?"),
            arguments: [repeated.rowid])
        let label = try row.map { try codec.decode($0).label }
        let number = Int(repeated.rowid)
        return ImportError(
            location: locations.location(ofRecord: number), recordNumber: number, record: label, field: "id",
            message: "the id \(repeated.key) appears more than once in this file")
    }
}
