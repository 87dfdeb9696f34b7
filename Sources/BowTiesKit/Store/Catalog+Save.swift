import Foundation

/// What a save does to a record's photo.
public enum PhotoUpdate: Sendable {
    /// Leave the stored photo as it is.
    case keep
    /// Remove the photo (its bytes go when nothing else uses them).
    case remove
    /// Store these bytes, inline or in a file depending on their size.
    case set(Data)
}

extension Catalog {
    /// Inserts or replaces a bow tie, validating it first.
    ///
    /// - Returns: The tie as stored (with its ``BowTie/photo`` description).
    /// - Throws: ``ValidationError`` (nothing is written),
    ///   ``CatalogError`` `.conflict` when the search key is taken.
    @discardableResult
    public func save(_ tie: BowTie, photo: PhotoUpdate = .keep) throws -> BowTie {
        try write(action: "Save") { db, changes in
            let existing = try fetchOne(id: tie.id, db)
            changes.actionTitle = Self.actionTitle(existing == nil ? "Add" : "Change", tie)
            return try save(tie, photo: resolve(photo, db, changes), replacing: existing, db, changes)
        }
    }

    /// Stores the bytes of a `.set` update, so the save can refer to them.
    func resolve(_ photo: PhotoUpdate, _ db: any StoreSession, _ changes: PhotoChanges) throws -> ResolvedPhoto {
        switch photo {
        case .keep: return .keep
        case .remove: return .remove
        case .set(let data):
            return .store(try storePhoto(data, threshold: Self.threshold(db), db, changes, writeFiles: true))
        }
    }

    /// A photo change whose bytes are already stored in the `blob` table.
    enum ResolvedPhoto {
        case keep
        case remove
        case store(PhotoInfo)
    }

    /// The save routine every change goes through, inside a transaction:
    /// validate, check unique values, write the row (and the links it
    /// carries), release the photo the record no longer uses.
    ///
    /// - Parameter baselines: Also set the baselines of derived attributes
    ///   (an import's counts) when the tie exists.
    func save(
        _ tie: BowTie, photo: ResolvedPhoto, replacing existing: BowTie?, _ db: any StoreSession,
        _ changes: PhotoChanges, checkUnique: Bool = true, baselines: Bool = false
    ) throws -> BowTie {
        var tie = tie
        switch photo {
        case .keep: tie.photo = existing?.photo
        case .remove: tie.photo = nil
        case .store(let info): tie.photo = info
        }
        try bowTieCodec.entity.validate(tie.record)
        if checkUnique { try checkUniqueValues(tie, db) }
        let saved = try RecordWriter(bowTieCodec).save(tie.record, isNew: existing == nil, baselines: baselines, db)
        if let old = existing?.photo, old.sha256 != tie.photo?.sha256 {
            try releasePhoto(old, db, changes)
        }
        // Read back: the store derives some values (times worn).
        return try fetchOne(id: tie.id, db) ?? BowTie(record: saved)
    }

    /// Makes sure the `blob` table holds `data`, and, when it is stored
    /// externally, the photo folder its file (written, unless `writeFiles`
    /// is false, while the transaction holds the write lock).
    ///
    /// Content already stored keeps its place; a missing external file is
    /// written again from these bytes.
    func storePhoto(
        _ data: Data, threshold: Int, _ db: any StoreSession, _ changes: PhotoChanges, writeFiles: Bool
    ) throws -> PhotoInfo {
        let info = try insertBlob(data, threshold: threshold, db).info
        if writeFiles { try writePhotoFile(data, of: info, changes) }
        return info
    }

    /// Makes sure the `blob` table holds `data`, once per content: inline
    /// up to `threshold` bytes, else as a reference to a file. Writes no
    /// file: an import stores the bytes before it knows whether a record
    /// will use them, and writes the file only once one does
    /// (``writePhotoFile(_:of:_:)``).
    ///
    /// - Returns: The photo's description (content already stored keeps
    ///   its place), and whether this call added the row.
    func insertBlob(_ data: Data, threshold: Int, _ db: any StoreSession) throws -> (info: PhotoInfo, isNew: Bool) {
        let sha256 = data.sha256Hex
        if let row = try StoreRow.fetchOne(
            db.cachedStatement(sql: "SELECT byteCount, external FROM \(Self.blobTable) WHERE sha256 = ?"),
            arguments: [sha256])
        {
            let external = try row.decode(Bool.self, atIndex: 1)
            return (PhotoInfo(byteCount: try row.decode(Int.self, atIndex: 0), sha256: sha256, storage: external ? .external : .inline), false)
        }
        let external = data.count > threshold
        try db.cachedStatement(
            sql: "INSERT INTO \(Self.blobTable) (sha256, byteCount, external, data) VALUES (?, ?, ?, ?)"
        ).execute(arguments: [sha256, data.count, external, external ? nil : data])
        return (PhotoInfo(byteCount: data.count, sha256: sha256, storage: external ? .external : .inline), true)
    }

    /// Writes the file of an external photo unless a file of that name and
    /// size is already in the photo folder; inline photos have none.
    ///
    /// - Returns: True when this call created the file. It is then in
    ///   `changes.created`, and removed again if the transaction fails.
    /// - Throws: ``CatalogError`` `.storeIO`.
    @discardableResult
    func writePhotoFile(_ data: Data, of photo: PhotoInfo, _ changes: PhotoChanges) throws -> Bool {
        guard photo.storage == .external, try photos.store(data, sha256: photo.sha256) else { return false }
        changes.created.insert(photo.sha256)
        return true
    }

    /// Drops the blob of bytes that were stored in this transaction but
    /// that no record came to use. Unlike ``releasePhoto(_:_:_:)`` it
    /// leaves the photo folder alone: no file was written for them.
    func dropUnusedBlob(_ sha256: String, _ db: any StoreSession) throws {
        try db.cachedStatement(sql: deleteUnusedBlobSQL(db)).execute(arguments: [sha256])
    }

    /// Deletes the blob `?1` unless a record refers to it, in any table.
    func deleteUnusedBlobSQL(_ db: any StoreSession) throws -> String {
        "DELETE FROM \(Self.blobTable) WHERE sha256 = ?1 AND NOT (\(try blobInUseSQL("?1", db)))"
    }

    /// An SQL condition true when a record refers to the blob whose
    /// SHA-256 is `sha256` (an SQL expression), in any table, or an
    /// action of the undo history still needs it.
    ///
    /// - Parameter history: Also count the actions of the undo history
    ///   (false: only records of the model).
    func blobInUseSQL(_ sha256: String, _ db: any StoreSession, history: Bool = true) throws -> String {
        var columns = model.blobColumns
        if history, try UndoHistory.exists(db) {
            columns += UndoHistory.blobImageColumns(model).map { (table: $0.shadow, column: $0.column) }
            // The tables an undo set aside whole, which a redo puts back.
            if !isOnPostgreSQL { columns += try UndoHistory.heldBlobColumns(db) }
        }
        let references = columns.map {
            "EXISTS (SELECT 1 FROM \"\($0.table)\" WHERE \"\($0.column)\" = \(sha256))"
        }
        return references.isEmpty ? "0" : references.joined(separator: " OR ")
    }

    /// Drops the blob `sha256` when no record and no action uses it any
    /// more; its external file goes after the commit.
    func releaseBlob(_ sha256: String, _ db: any StoreSession, _ changes: PhotoChanges) throws {
        let external = try Bool.fetchOne(
            db.cachedStatement(sql: "SELECT external FROM \(Self.blobTable) WHERE sha256 = ?"), arguments: [sha256])
        try db.cachedStatement(sql: deleteUnusedBlobSQL(db)).execute(arguments: [sha256])
        if external == true, db.changesCount > 0 { changes.released.insert(sha256) }
    }

    /// Drops a photo's blob when no record uses it any more (in the
    /// transaction); its external file goes after the commit.
    func releasePhoto(_ photo: PhotoInfo, _ db: any StoreSession, _ changes: PhotoChanges) throws {
        try db.cachedStatement(sql: deleteUnusedBlobSQL(db)).execute(arguments: [photo.sha256])
        if photo.storage == .external {
            changes.released.insert(photo.sha256)
        }
    }

    /// Refuses a value of a unique attribute (the search key) that
    /// another tie holds, naming that tie.
    private func checkUniqueValues(_ tie: BowTie, _ db: any StoreSession) throws {
        guard let conflict = try RecordWriter(bowTieCodec).uniqueConflict(tie.record, db) else { return }
        let name = conflict.attribute.displayName
        throw CatalogError(
            .conflict, "the \(name) \(conflict.value.messageText) is already used by \(conflict.holder)",
            hint: "\(name.prefix(1).uppercased() + name.dropFirst())s are unique in a catalog: choose another one.")
    }

    func fetchOne(id: UUID, _ db: any StoreSession) throws -> BowTie? {
        let codec = bowTieCodec
        let row = try StoreRow.fetchOne(
            db.cachedStatement(sql: codec.selection + " WHERE \"\(codec.entity.tableName)\".id = ?"),
            arguments: [id.uuidString])
        return try row.map { BowTie(record: try codec.decode($0)) }
    }
}
