import Foundation

/// `import --update` a batch at a time, where the store looks records up
/// and writes them many at a time (``RecordBatchUpdater``: PostgreSQL).
///
/// Records are staged as they are read (``stageUpdate(_:_:_:)``), as an
/// import that only adds stages them for `COPY`. A full batch
/// (``flushUpdates()``) is looked up in one statement; each record is
/// then judged in file order with the decision the one-record path makes
/// (``merged(_:_:previous:baselines:)``: what the file leaves out kept,
/// counts as baselines, unchanged when nothing differs); the new ones
/// are inserted and the changed ones updated in a few statements; then
/// each record's tags, counts, photos and warnings follow in file order.
///
/// Whatever the one-record path would say something about goes through
/// it, the whole batch again from its first record, so that the record
/// at fault is named as it always was and nothing of the batch's writes
/// stays: an id this import added or updated already, a new record
/// that leaves values out, a changed unique value (the search key, which
/// the records before it in the file may have freed or taken), an
/// invalid record, a refused photo, a constraint the server enforces.
/// A record that lists its history (wears) and one whose photo is
/// missing under `--strict` go alone, after the batch before them.
extension RecordImporter {
    /// Stages `record` for the next batched update; false when it goes
    /// alone, through the one-record path (the batch before it is
    /// written first).
    mutating func stageUpdate(_ record: DecodedRecord, _ named: NamedPhoto?, _ readData: Data?) throws -> Bool {
        var stageable = record.children == nil
        if case .missing? = named, options.strict { stageable = false }
        guard stageable, let key = record.tie.record.primaryKey.flatMap({ String.fromStoreValue($0.storeValue) })
        else {
            try flushPending()
            return false
        }
        // A repeated id is judged after the first's outcome is written.
        if pendingKeys.contains(key) { try flushPending() }
        pending.append(StagedRecord(record: record, named: named, readData: readData, number: number))
        pendingKeys.insert(key)
        pendingPhotoBytes += readData?.count ?? 0
        if case .missing? = named { pendingWarns = true }
        if pending.count >= Self.batchSize || pendingPhotoBytes >= Self.batchBytes { try flushPending() }
        return true
    }

    /// Writes the staged records of an update (``stageUpdate(_:_:_:)``):
    /// in a batch when the store can (``writeUpdates(_:_:)``), else one
    /// at a time, in file order, exactly as without batches.
    mutating func flushUpdates() throws {
        guard let updates, !pending.isEmpty else { return }
        var staged: [StagedRecord] = []
        swap(&staged, &pending)
        pendingKeys.removeAll(keepingCapacity: true)
        pendingPhotoBytes = 0
        pendingWarns = false
        let current = number
        defer { number = current }
        if try writeUpdates(staged, updates) { return }
        for item in staged {
            number = item.number
            try importAlone(item.record, item.named, item.readData)
        }
    }

    /// What a batched update makes of one record.
    private enum UpdateOutcome {
        case added
        case unchanged
        case updated
    }

    /// Judges and writes a batch; false when something in it is for the
    /// one-record path to say (nothing of the batch is then written).
    private mutating func writeUpdates(_ staged: [StagedRecord], _ updates: any RecordBatchUpdater) throws -> Bool {
        let keys = staged.map { $0.record.tie.record.primaryKey.flatMap { String.fromStoreValue($0.storeValue) } ?? "" }
        let stored = try updates.stored(keys, updatedLog: updatedIDs.madeTable)
        var outcomes: [UpdateOutcome] = []
        var added: [Record] = []
        var changed: [(tie: BowTie, previous: BowTie)] = []
        for (item, key) in zip(staged, keys) {
            let record = item.record
            guard let found = stored[key] else {
                // New: it must give every value.
                guard record.missingValues == nil else { return false }
                added.append(record.tie.record)
                outcomes.append(.added)
                continue
            }
            // Added or updated earlier in this import: a repeated id.
            if found.rowid >= firstNewRowID || found.updated { return false }
            let resolved: Catalog.ResolvedPhoto
            switch item.named {
            case nil, .missing?: resolved = .keep
            case .stored(let info)?: resolved = .store(info)
            case .refused?: return false
            }
            let previous = BowTie(record: found.record)
            let merge = merged(record, resolved, previous: previous, baselines: found.baselines)
            var tie = merge.tie
            if merge.candidate == previous {
                outcomes.append(.unchanged)
                continue
            }
            switch resolved {
            case .keep: tie.photo = previous.photo
            case .remove: tie.photo = nil
            case .store(let info): tie.photo = info
            }
            for (index, attribute) in codec.entity.attributes.enumerated()
            where attribute.isUnique && !attribute.isPrimaryKey && tie.record.values[index] != previous.record.values[index] {
                return false
            }
            do {
                try codec.entity.validate(tie.record)
            } catch is ValidationError {
                return false
            }
            changed.append((tie, previous))
            outcomes.append(.updated)
        }
        if !changed.isEmpty { try updatedIDs.create(db) }
        try updates.begin()
        do {
            guard try added.isEmpty || updates.insert(added),
                try changed.isEmpty || updates.update(changed.map { $0.tie.record }, updatedLog: UpdatedRecordLog.table)
            else {
                try updates.rollback()
                return false
            }
            // What one record's save does beside its row: its tags when
            // they changed, the photo it no longer uses.
            for (tie, previous) in changed {
                let writer = RecordWriter(codec)
                for named in codec.namedRelationships {
                    guard let names = tie.record.names[named.relationship.name], let key = tie.record.primaryKey,
                        names != previous.record.names[named.relationship.name]
                    else { continue }
                    try RecordWriter.checkCount(
                        Set(names.map { $0.lowercased() }).count, of: named.relationship, record: tie.record.label)
                    _ = try writer.setNames(names, of: codec.linkValue(key), named, isNew: false, db, cache: &self.names)
                }
                if let old = previous.photo, old.sha256 != tie.photo?.sha256 {
                    try catalog.releasePhoto(old, db, changes)
                }
            }
        } catch is ValidationError {
            try updates.rollback()
            // Tags it made are taken back: none may be found again by name.
            names = NameCache()
            return false
        }
        try updates.commit()
        // Then each record's counts, tags and warnings, in file order.
        for (item, outcome) in zip(staged, outcomes) {
            number = item.number
            switch outcome {
            case .added:
                try recordInserted(item.record, item.named, item.readData)
            case .unchanged, .updated:
                if case .missing(let tried)? = item.named { warnMissingImage(item.record, tried: tried) }
                guard case .updated = outcome else {
                    report.unchanged += 1
                    continue
                }
                report.updated += 1
                if case .stored(let info)? = item.named {
                    report.photos += 1
                    if photosUsed.insert(info.sha256).inserted { try firstUse(info, item.readData, item.record) }
                }
            }
        }
        return true
    }
}
