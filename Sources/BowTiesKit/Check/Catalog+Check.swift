import Crypto
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

extension Catalog {
    /// Checks the whole store and reports every problem, with the records
    /// it concerns. Changes nothing.
    ///
    /// ```swift
    /// let report = try Catalog(url: url, mode: .inspect).check()
    /// for problem in report.problems { print(problem) }
    /// ```
    ///
    /// It checks, in this order:
    /// - SQLite's `PRAGMA integrity_check` and `PRAGMA foreign_key_check`;
    /// - the schema: every migration known to this version and applied (a
    ///   store from a newer version is reported, and only SQLite's checks
    ///   run on it), and the bow-tie table as ``BowTieModel`` declares it;
    /// - every record against ``BowTieModel`` (the validation every save
    ///   runs), and that the photo it refers to is in the catalog;
    /// - every photo: inline bytes and external files re-hashed against
    ///   their SHA-256, sizes against the recorded size, and photos no
    ///   record uses;
    /// - the photo folder: anything in it that no record uses, such as the
    ///   temporary file of a write that was interrupted.
    ///
    /// The expensive part (hashing every photo) reads a snapshot and blocks
    /// no other command. A command writing meanwhile may create or remove
    /// photo files, so the file problems the snapshot shows are confirmed
    /// on a new snapshot taken once no write is under way (see
    /// ``waitForWriters()``): the check never takes the write lock, and
    /// works on a catalog opened read-only.
    ///
    /// - Throws: ``CatalogError`` when the store cannot be read at all
    ///   (`.storeIO`, `.notAStore`) or stays busy (`.storeBusy`).
    public func check() throws -> CheckReport {
        let snapshot = try read { db in try inspect(db) }
        let suspects = Set(snapshot.problems.compactMap { $0.file?.lastPathComponent })
        guard !suspects.isEmpty else { return snapshot }
        // A file no row refers to may belong to a write still under way:
        // once every writer has finished, a new snapshot shows its row.
        // Waiting instead of taking the write lock keeps the check
        // read-only.
        try waitForWriters()
        var report = snapshot
        let confirmed = try read { db in try fileProblems(db, only: suspects).problems }
        report.problems = snapshot.problems.filter { $0.file == nil } + confirmed
        return report
    }

    /// Repairs what ``check()`` finds and can fix, in one IMMEDIATE
    /// transaction under the write lock, then checks again.
    ///
    /// It never deletes a record. It removes unused files from the photo
    /// folder and unused photos from the catalog, sets the photo of records
    /// whose photo is missing or damaged to none, corrects recorded sizes,
    /// and, last, applies pending migrations, all in that one transaction.
    /// Invalid records, SQLite damage, a schema that differs from the
    /// declaration and stores from newer versions are reported but left
    /// alone.
    ///
    /// As with every change, files whose photo the transaction forgot are
    /// removed after the commit, again under the write lock.
    ///
    /// - Parameter announce: Called with the problems found, under the
    ///   lock, before anything changes: to say what will be done.
    /// - Returns: What was found, what was repaired and a fresh check.
    /// - Throws: ``CatalogError``; on failure nothing in the catalog changed.
    public func repair(announce: (CheckReport) throws -> Void) throws -> RepairReport {
        var repaired: [StoreProblem] = []
        var action: Int64?
        let found = try write(action: "Repair the catalog") { db, changes in
            action = try UndoHistory.recordingAction(db)
            let report = try inspect(db)
            try announce(report)
            for problem in report.problems {
                if let repair = problem.repair, try apply(repair, db, changes) {
                    repaired.append(problem)
                }
            }
            // Last, once photos that no longer exist are forgotten: the
            // migrator's foreign-key check sees the repaired rows.
            if repaired.contains(where: { $0.repair == .applyMigrations }) {
                try store.migrateSchema(db)
            }
            return report
        }
        // The action is filed only when a repair it logged changed a row
        // (and the history keeps actions at all).
        let undoAction = try action.flatMap { id in try undoHistory(limit: 1).first { $0.id == id } }
        return RepairReport(found: found, repaired: repaired, undoAction: undoAction, after: try check())
    }

    // MARK: - Inspection

    /// The whole check, in whatever transaction `db` is in.
    func inspect(_ db: any StoreSession) throws -> CheckReport {
        var report = CheckReport(store: url)
        do {
            report.problems += try integrityProblems(db)
            let schema = try schemaProblems(db)
            report.problems += schema.problems
            report.olderSchema = schema.olderSchema
            guard !schema.isNewer else { return report }
            report.problems += try foreignKeyProblems(db)
            if schema.isReady {
                report.problems += try linkProblems(db)
                report.problems += try recordProblems(db, count: &report.bowTieCount)
                report.problems += try photoProblems(db, count: &report.photoCount)
            }
            let files = try fileProblems(db, only: nil)
            report.photoFolderEntries = files.entries
            report.problems += files.problems
        } catch let error where store.failureMessage(error) != nil {
            report.problems.append(
                StoreProblem(
                    .integrity, "the store cannot be read: \(store.failureMessage(error) ?? "\(error)")",
                    advice: "Restore the catalog from a backup; the sqlite3 shell's .recover can save what is left."))
        }
        return report
    }

    private func integrityProblems(_ db: any StoreSession) throws -> [StoreProblem] {
        let lines = try store.integrityCheck(db)
        guard lines != ["ok"] else { return [] }
        return lines.map {
            StoreProblem(
                .integrity, $0,
                advice: "Restore the catalog from a backup; the sqlite3 shell's .recover can save what is left.")
        }
    }

    private struct SchemaFindings {
        var problems: [StoreProblem] = []
        var isNewer = false
        var isReady = false
        var olderSchema: SchemaVersions?
    }

    private func schemaProblems(_ db: any StoreSession) throws -> SchemaFindings {
        var findings = SchemaFindings()
        let message: String
        let pending: [String]
        switch try store.schemaState(db) {
        case .newer(let unknown):
            findings.isNewer = true
            findings.problems.append(
                StoreProblem(
                    .newerSchema,
                    "\(SchemaMigrationError.newerSchema(unknown: unknown)); only SQLite's checks were run",
                    advice: "Upgrade bowties and check again."))
            return findings
        case .current:
            findings.isReady = true
            findings.problems += try schemaMismatchProblems(db)
            return findings
        case .uncreated:
            message = "the store has no schema yet (a command was interrupted before it could create it)"
            pending = store.migrationIdentifiers
        case .outdated where olderSchema != nil:
            // An earlier release's store, read through the read shims as
            // every command that reads does: not a problem, the next
            // change upgrades it.
            findings.isReady = true
            findings.olderSchema = olderSchema
            return findings
        case .outdated(let identifiers):
            message = "the store's schema is older than this version's"
            pending = identifiers
        }
        findings.problems.append(
            StoreProblem(
                .migrationsPending, message + "; pending: " + pending.map { "\"\($0)\"" }.joined(separator: ", "),
                repair: .applyMigrations))
        return findings
    }

    /// Where the tables and triggers of an up-to-date store differ from
    /// what the declaration requires: a migration that does not match
    /// the model (a bug), or a schema changed by hand.
    private func schemaMismatchProblems(_ db: any StoreSession) throws -> [StoreProblem] {
        try store.schemaDifferences(db).map {
            StoreProblem(
                .schemaMismatch, $0,
                advice: "This version of bowties expects another schema: report it as a bug, with this output.")
        }
    }

    /// Broken references other than photos (those are
    /// ``StoreProblem/Kind/danglingPhoto``, found with their records): a
    /// wear of a tie that is gone, a link to a tag that is gone.
    private func foreignKeyProblems(_ db: any StoreSession) throws -> [StoreProblem] {
        let photoTables = Set(model.blobColumns.map(\.table))
        return try store.foreignKeyViolations(db).compactMap { violation in
            let (table, parent, rowid) = (violation.table, violation.parent, violation.rowid)
            guard !(photoTables.contains(table) && parent == Self.blobTable) else { return nil }
            let isModelTable = model.tableNames.contains(table)
            return StoreProblem(
                .foreignKey,
                "row \(rowid.map(String.init) ?? "?") of \(table) refers to a row of \(parent) that does not exist",
                repair: isModelTable ? rowid.map { .removeDanglingRow(table: table, rowid: $0) } : nil,
                advice: isModelTable ? nil : "Restore the catalog from a backup.")
        }
    }

    /// Pairs linked more than once, and derived values that disagree with
    /// their history.
    private func linkProblems(_ db: any StoreSession) throws -> [StoreProblem] {
        var problems: [StoreProblem] = []
        for table in model.joinTables {
            let duplicates = try Int.fetchOne(
                db,
                sql: """
                    SELECT count(*) FROM (SELECT 1 FROM "\(table.name)" \
                    GROUP BY "\(table.ownerColumn)", "\(table.otherColumn)" HAVING count(*) > 1) AS pairs
                    """) ?? 0
            if duplicates > 0 {
                problems.append(
                    StoreProblem(
                        .duplicateLink,
                        "\(duplicates) pair\(duplicates == 1 ? " is" : "s are") linked more than once in \(table.name)",
                        repair: .removeDuplicateLinks(table: table.name)))
            }
        }
        for query in model.derivedMismatchQueries {
            let rows = try StoreRow.fetchAll(db, sql: query.sql + " LIMIT \(StoreProblem.maximumRecordsListed + 1)")
            for row in rows.prefix(StoreProblem.maximumRecordsListed) {
                let id = String.fromStoreValue(row[0]) ?? "\(row[0] as StoreValue)"
                let reference = RecordReference(
                    id: id, searchKey: String.fromStoreValue(row[3]), name: String.fromStoreValue(row[4]))
                problems.append(
                    StoreProblem(
                        .derivedMismatch,
                        "\(query.attribute) is \(Self.sqlText(row[1])), its history makes it \(Self.sqlText(row[2]))",
                        records: [reference], repair: .recomputeDerived))
            }
            if rows.count > StoreProblem.maximumRecordsListed {
                problems.append(
                    StoreProblem(
                        .derivedMismatch, "\(query.attribute) of more \(query.entity.name) records disagrees with their history",
                        repair: .recomputeDerived))
            }
        }
        // The counts the wear triggers keep (SQLite, from schema v6; an
        // older store read as it is has none).
        if !isOnPostgreSQL && store.olderSchema == nil {
            for table in model.derivedCountTables {
                let rows = try StoreRow.fetchAll(
                    db, sql: table.mismatchSQL + " LIMIT \(StoreProblem.maximumRecordsListed + 1)")
                for row in rows.prefix(StoreProblem.maximumRecordsListed) {
                    let key = String.fromStoreValue(row[0]) ?? "\(row[0] as StoreValue)"
                    problems.append(
                        StoreProblem(
                            .derivedMismatch,
                            "\(table.name) counts \(Self.sqlText(row[1])) \(table.source) rows for \(key), "
                                + "\(table.source) has \(Self.sqlText(row[2]))",
                            repair: .recomputeDerived))
                }
                if rows.count > StoreProblem.maximumRecordsListed {
                    problems.append(
                        StoreProblem(
                            .derivedMismatch, "\(table.name) disagrees with \(table.source) for more records",
                            repair: .recomputeDerived))
                }
            }
        }
        return problems
    }

    /// Records that break the model's rules or refer to photos the catalog
    /// does not hold.
    private func recordProblems(_ db: any StoreSession, count: inout Int) throws -> [StoreProblem] {
        var problems: [StoreProblem] = []
        let (table, photo) = photoColumn
        let dangling = try String.fetchAll(
            db,
            sql: """
                SELECT DISTINCT \(photo) FROM \(table)
                WHERE \(photo) IS NOT NULL
                AND NOT EXISTS (SELECT 1 FROM \(Self.blobTable) WHERE sha256 = \(photo))
                ORDER BY \(photo)
                """)
        for sha256 in dangling {
            let (records, recordCount) = try records(usingPhoto: sha256, db)
            problems.append(
                StoreProblem(
                    .danglingPhoto, "the catalog has no photo with SHA-256 \(sha256)", records: records,
                    recordCount: recordCount, sha256: sha256, repair: .clearPhoto(sha256: sha256)))
        }
        for codec in model.entities.compactMap({ codecs[$0.name] }) {
            try validateRecords(codec, db, dangling: Set(dangling), count: &count, into: &problems)
        }
        return problems
    }

    /// Validates every record of one entity, as a save would.
    private func validateRecords(
        _ codec: EntityCodec, _ db: any StoreSession, dangling danglingSet: Set<String>, count: inout Int,
        into problems: inout [StoreProblem]
    ) throws {
        let isBowTie = codec.entity.name == bowTieCodec.entity.name
        let photoIndex = codec.entity.attributes.firstIndex { $0.type == .binaryData }
        let rows = try StoreRow.fetchCursor(db, sql: codec.selection + " ORDER BY \"\(codec.entity.tableName)\".\(db.dialect.rowNumber)")
        while let row = try rows.next() {
            if isBowTie { count += 1 }
            let failure: String
            var label: String?
            // A key stored before keys had to read as words: `set` renames it.
            var queryKey = false
            do {
                let record = try codec.decode(row)
                label = record.label
                try codec.entity.validate(record)
                continue
            } catch let error as ValidationError {
                // On one line, without the record: the problem names it.
                var error = error
                error.record = nil
                failure = error.description.replacingOccurrences(of: "\n  - ", with: "; ")
                queryKey = ([error] + error.errors).contains {
                    $0.code == .stringPatternMatching && $0.attribute != nil
                        && $0.attribute == codec.entity.keyAttribute
                }
            } catch let error as CatalogError {
                failure = error.message
            } catch {
                failure = "it cannot be read: \(error)"
            }
            if let photoIndex,
                let sha256 = String.fromStoreValue(row[Int(codec.selectedAttributeColumns[photoIndex])]),
                danglingSet.contains(sha256)
            {
                continue
            }
            guard isBowTie else {
                problems.append(
                    StoreProblem(.invalidRecord, "\(codec.entity.name) \(label ?? "?"): \(failure)"))
                continue
            }
            let entity = codec.entity
            func text(_ column: String?) -> String? { column.flatMap { String.fromStoreValue(row[$0]) } }
            let id = text(entity.primaryKeyColumn) ?? "\(row[entity.primaryKeyColumn] as StoreValue? ?? .null)"
            let reference = RecordReference(id: id, searchKey: text(entity.keyAttribute), name: text(entity.nameAttribute))
            problems.append(
                StoreProblem(
                    .invalidRecord, failure, records: [reference],
                    advice: queryKey
                        ? "Give it a search key that reads as a word with "
                            + "`bowties set searchKey:=KEY searchKey=NEW`, or delete it with "
                            + "`bowties delete searchKey:=KEY`."
                        : "Correct it with `bowties rate`, `favorite` or `photo`, re-import it with "
                            + "`bowties import --update`, or delete it with `bowties delete`."))
        }
    }

    /// A stored value as a message shows it: numbers as numbers, dates
    /// (seconds since 1970) as ISO 8601 when the attribute is a date.
    private static func sqlText(_ value: StoreValue) -> String {
        switch value {
        case .null: "none"
        case .integer(let number): String(number)
        case .real(let seconds): ISO8601.string(from: Date(timeIntervalSince1970: seconds))
        case .text(let text): text
        case .blob(let data): "\(data.count) bytes"
        }
    }

    /// The bow-tie table and its photo column (the binary attribute).
    private var photoColumn: (table: String, column: String) {
        let entity = bowTieCodec.entity
        return (entity.tableName, entity.attributes.first { $0.type == .binaryData }?.columnName ?? "NULL")
    }

    /// Inline photos that no longer match their hash or size, and photos
    /// no record uses.
    private func photoProblems(_ db: any StoreSession, count: inout Int) throws -> [StoreProblem] {
        var problems: [StoreProblem] = []
        count = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(Self.blobTable)") ?? 0
        // A photo only the undo history holds (a repair set it to none)
        // is kept as it was, damage and all, so that undo can put it
        // back; it goes when the history forgets that action.
        let rows = try StoreRow.fetchCursor(
            db,
            sql: """
                SELECT sha256, byteCount, data FROM \(Self.blobTable) AS blob
                WHERE NOT external AND NOT (\(try heldOnlyByHistorySQL("blob.sha256", db)))
                ORDER BY sha256
                """)
        while let row = try rows.next() {
            let sha256 = try row.decode(String.self, atIndex: 0)
            let byteCount = try row.decode(Int.self, atIndex: 1)
            let data = Data.fromStoreValue(row[2])
            let problem: (String, StoreProblem.Repair)
            if let data, data.sha256Hex == sha256 {
                guard data.count != byteCount else { continue }
                problem = (
                    "the photo \(sha256) has \(data.count) bytes but is recorded as \(byteCount)",
                    .fixByteCount(sha256: sha256, byteCount: data.count)
                )
            } else {
                let what = data.map { "its bytes have SHA-256 \($0.sha256Hex)" } ?? "its bytes are missing"
                problem = (
                    "the photo stored in the catalog as \(sha256) is damaged: \(what)", .clearPhoto(sha256: sha256)
                )
            }
            let (records, recordCount) = try records(usingPhoto: sha256, db)
            problems.append(
                StoreProblem(
                    problem.1 == .clearPhoto(sha256: sha256) ? .damagedInlinePhoto : .photoSizeMismatch, problem.0,
                    records: records, recordCount: recordCount, sha256: sha256, repair: problem.1))
        }
        let unused = try StoreRow.fetchAll(
            db,
            sql: """
                SELECT sha256, byteCount, external FROM \(Self.blobTable)
                WHERE NOT (\(try blobInUseSQL("blob.sha256", db)))
                ORDER BY sha256
                """)
        for row in unused {
            let sha256 = try row.decode(String.self, atIndex: 0)
            let byteCount = try row.decode(Int.self, atIndex: 1)
            let external = try row.decode(Bool.self, atIndex: 2)
            problems.append(
                StoreProblem(
                    .orphanPhoto,
                    "no bow tie uses the photo \(sha256) (\(byteCount) bytes, \(external ? "in a file" : "inside the catalog"))",
                    sha256: sha256, repair: .removePhoto(sha256: sha256)))
        }
        return problems
    }

    /// An SQL condition true when only the undo history needs the blob
    /// `sha256` (an SQL expression): no record uses it, an action may
    /// bring it back.
    private func heldOnlyByHistorySQL(_ sha256: String, _ db: any StoreSession) throws -> String {
        "((\(try blobInUseSQL(sha256, db))) AND NOT (\(try blobInUseSQL(sha256, db, history: false))))"
    }

    /// External photo files that are missing, damaged or the wrong size,
    /// and entries of the photo folder that no record uses.
    ///
    /// The file of a photo only the undo history holds is neither checked
    /// nor unused: it is kept as it is for undo.
    ///
    /// - Parameter only: File names (hashes) to look at; nil for all.
    private func fileProblems(_ db: any StoreSession, only: Set<String>?) throws -> (problems: [StoreProblem], entries: Int) {
        var externals: [String: Int] = [:]
        var heldForUndo: Set<String> = []
        if try db.tableExists(Self.blobTable) {
            let select = """
                SELECT sha256, byteCount, \(try heldOnlyByHistorySQL("blob.sha256", db)) \
                FROM \(Self.blobTable) AS blob WHERE external
                """
            let rows =
                if let only {
                    try only.compactMap {
                        try StoreRow.fetchOne(db, sql: select + " AND sha256 = ?", arguments: [$0])
                    }
                } else {
                    try StoreRow.fetchAll(db, sql: select)
                }
            for row in rows {
                let sha256 = try row.decode(String.self, atIndex: 0)
                if try row.decode(Bool.self, atIndex: 2) {
                    heldForUndo.insert(sha256)
                } else {
                    externals[sha256] = try row.decode(Int.self, atIndex: 1)
                }
            }
        }
        // A store that keeps no files has no external photo to check.
        guard let directory = photos.directory else { return ([], 0) }
        let listing = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        let entries = listing.filter { only?.contains($0) ?? true }
        var problems: [StoreProblem] = []
        for (sha256, byteCount) in externals.sorted(by: { $0.key < $1.key }) {
            let file = directory.appendingPathComponent(sha256, isDirectory: false)
            let failure: String
            var repair = StoreProblem.Repair.clearPhoto(sha256: sha256)
            var kind = StoreProblem.Kind.damagedPhotoFile
            switch Self.hashFile(file) {
            case .missing:
                kind = .missingPhotoFile
                failure = "\(file.path) does not exist"
            case .notRegular:
                failure = "\(file.path) is not a regular file"
            case .unreadable(let reason):
                failure = "\(file.path) cannot be read: \(reason)"
            case .hashed(let actual, let size):
                if actual != sha256 {
                    failure = "\(file.path) has SHA-256 \(actual), expected \(sha256)"
                } else if size != byteCount {
                    kind = .photoSizeMismatch
                    failure = "\(file.path) has \(size) bytes but is recorded as \(byteCount)"
                    repair = .fixByteCount(sha256: sha256, byteCount: size)
                } else {
                    continue
                }
            }
            let (records, recordCount) = try records(usingPhoto: sha256, db)
            problems.append(
                StoreProblem(
                    kind, failure, records: records, recordCount: recordCount, file: file, sha256: sha256,
                    repair: repair))
        }
        for name in entries.sorted() where externals[name] == nil && !heldForUndo.contains(name) {
            let file = directory.appendingPathComponent(name)
            var info = stat()
            guard lstat(file.path, &info) == 0 else { continue }  // gone meanwhile
            if (info.st_mode & S_IFMT) == S_IFDIR {
                problems.append(
                    StoreProblem(
                        .orphanFile, "\(file.path) is a folder, which the photo folder should not hold", file: file,
                        advice: "Move it away if you need it, else remove it."))
                continue
            }
            let why =
                name.hasPrefix(".") && name.contains(".tmp-")
                ? "a temporary file left by an interrupted write" : "no bow tie uses it"
            problems.append(StoreProblem(.orphanFile, "\(file.path): \(why)", file: file, repair: .removeFile(file)))
        }
        return (problems, listing.count)
    }

    /// Up to ``StoreProblem/maximumRecordsListed`` records that use a
    /// photo, and how many do.
    private func records(usingPhoto sha256: String, _ db: any StoreSession) throws -> ([RecordReference], Int) {
        let (table, photo) = photoColumn
        let rows = try StoreRow.fetchAll(
            db,
            sql: "SELECT \(referenceColumns) FROM \(table) WHERE \(photo) = ? ORDER BY \(db.dialect.rowNumber) LIMIT ?",
            arguments: [sha256, StoreProblem.maximumRecordsListed])
        let count =
            rows.count < StoreProblem.maximumRecordsListed
            ? rows.count
            : try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table) WHERE \(photo) = ?", arguments: [sha256]) ?? 0
        return (rows.map(Self.reference), count)
    }

    /// The columns a ``RecordReference`` is made of: the bow tie's primary
    /// key, key and name, as the declaration names them, in that order.
    private var referenceColumns: String {
        let entity = bowTieCodec.entity
        return [entity.primaryKeyColumn, entity.keyAttribute, entity.nameAttribute]
            .map { $0.map { "\"\($0)\"" } ?? "NULL" }.joined(separator: ", ")
    }

    /// A record as the user knows it, from a row that starts with
    /// ``referenceColumns``.
    private static func reference(_ row: StoreRow) -> RecordReference {
        let id = String.fromStoreValue(row[0]) ?? "\(row[0] as StoreValue? ?? .null)"
        return RecordReference(
            id: id, searchKey: String.fromStoreValue(row[1]), name: String.fromStoreValue(row[2]))
    }

    private enum FileHash {
        case missing
        case notRegular
        case unreadable(String)
        case hashed(sha256: String, size: Int)
    }

    /// Re-hashes a file, a megabyte at a time.
    private static func hashFile(_ url: URL) -> FileHash {
        var info = stat()
        guard lstat(url.path, &info) == 0 else {
            return errno == ENOENT ? .missing : .unreadable(String(cString: strerror(errno)))
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return .notRegular }
        do {
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            var hasher = SHA256()
            var size = 0
            while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                hasher.update(data: chunk)
                size += chunk.count
            }
            return .hashed(sha256: hasher.finalize().hexString, size: size)
        } catch {
            return .unreadable(error.localizedDescription)
        }
    }

    // MARK: - Repair

    /// Applies one repair inside the repair transaction.
    /// - Returns: False when it could not be done (a file that cannot be
    ///   removed); the re-check then reports it again.
    private func apply(_ repair: StoreProblem.Repair, _ db: any StoreSession, _ changes: PhotoChanges) throws -> Bool {
        switch repair {
        case .applyMigrations:
            return true  // after every other repair: see repair(announce:)
        case .clearPhoto(let sha256):
            let exists = "SELECT EXISTS (SELECT 1 FROM \(Self.blobTable) WHERE sha256 = ?)"
            let stored = try Bool.fetchOne(db, sql: exists, arguments: [sha256]) ?? false
            // Undo puts the reference back, so the photo stays (damaged
            // as it is) while the history needs it: releaseBlob keeps it.
            // A reference to a photo the catalog does not hold cannot be
            // put back (its foreign key would fail): that part is not
            // logged.
            try UndoHistory.withoutImages(of: stored ? nil : UndoHistory.recordingAction(db), db) {
                for (table, column) in model.blobColumns {
                    try db.execute(
                        sql: "UPDATE \(table) SET \(column) = NULL WHERE \(column) = ?", arguments: [sha256])
                }
            }
            try releaseBlob(sha256, db, changes)
        case .removePhoto(let sha256):
            guard try !(Bool.fetchOne(db, sql: "SELECT \(try blobInUseSQL("?1", db))", arguments: [sha256]) ?? false)
            else { return false }
            try forgetPhoto(sha256, db, changes)
        case .fixByteCount(let sha256, let byteCount):
            try db.execute(
                sql: "UPDATE \(Self.blobTable) SET byteCount = ? WHERE sha256 = ?", arguments: [byteCount, sha256])
        case .removeFile(let file):
            // No record refers to it and, under the write lock, no command
            // is writing it: it can go now.
            guard unlink(file.path) == 0 || errno == ENOENT else { return false }
            syncDirectory(file.deletingLastPathComponent())
        case .removeDanglingRow(let table, let rowid):
            guard model.tableNames.contains(table) else { return false }
            // Not logged: undo could not put back a row whose parent is gone.
            try UndoHistory.withoutImages(of: UndoHistory.recordingAction(db), db) {
                try db.execute(sql: "DELETE FROM \"\(table)\" WHERE \(db.dialect.rowNumber) = ?", arguments: [rowid])
            }
        case .removeDuplicateLinks(let table):
            guard let join = model.joinTables.first(where: { $0.name == table }) else { return false }
            // Not logged: undo could not put back a pair its key refuses.
            try UndoHistory.withoutImages(of: UndoHistory.recordingAction(db), db) {
                try db.execute(
                    sql: """
                        DELETE FROM "\(table)" WHERE \(db.dialect.rowNumber) NOT IN (SELECT min(\(db.dialect.rowNumber)) FROM "\(table)" \
                        GROUP BY "\(join.ownerColumn)", "\(join.otherColumn)")
                        """)
            }
        case .recomputeDerived:
            if !isOnPostgreSQL {
                for statement in model.recountDerivedSQL { try db.execute(sql: statement) }
            }
            for statement in model.recomputeDerivedSQL { try db.execute(sql: statement) }
        }
        return true
    }

    /// Deletes a photo's row; its file, if any, goes after the commit.
    private func forgetPhoto(_ sha256: String, _ db: any StoreSession, _ changes: PhotoChanges) throws {
        let external = try Bool.fetchOne(
            db, sql: "SELECT external FROM \(Self.blobTable) WHERE sha256 = ?", arguments: [sha256])
        try db.execute(sql: "DELETE FROM \(Self.blobTable) WHERE sha256 = ?", arguments: [sha256])
        if external == true { changes.released.insert(sha256) }
    }
}

