import Foundation
import GRDB

/// What a save does to a record's photo.
public enum PhotoUpdate: Sendable {
    /// Leave the stored photo as it is.
    case keep
    /// Remove the photo (its file goes when nothing else uses it).
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
        try write { db, changes in
            let existing = try fetchOne(id: tie.id, db)
            return try save(tie, photo: photo, replacing: existing, db, changes, writeFiles: true)
        }
    }

    /// The save routine every change goes through, inside a transaction.
    func save(
        _ tie: BowTie, photo: PhotoUpdate, replacing existing: BowTie?, _ db: Database,
        _ changes: PhotoChanges, writeFiles: Bool
    ) throws -> BowTie {
        let resolved: ResolvedPhoto
        switch photo {
        case .keep: resolved = .keep
        case .remove: resolved = .remove
        case .set(let data):
            resolved = .store(
                try preparePhoto(data, threshold: Self.threshold(db), changes, writeFiles: writeFiles))
        }
        return try save(tie, photo: resolved, replacing: existing, db, changes)
    }

    /// A photo change whose bytes are already hashed and placed.
    enum ResolvedPhoto {
        case keep
        case remove
        case store(StoredPhoto)
    }

    func save(
        _ tie: BowTie, photo: ResolvedPhoto, replacing existing: BowTie?, _ db: Database,
        _ changes: PhotoChanges, checkSearchKey: Bool = true
    ) throws -> BowTie {
        var tie = tie
        var stored: StoredPhoto?
        switch photo {
        case .keep:
            tie.photo = existing?.photo
        case .remove:
            tie.photo = nil
        case .store(let photo):
            stored = photo
            tie.photo = photo.info
        }
        try BowTieModel.entity.validate(tie)
        if checkSearchKey { try checkSearchKeyIsFree(tie, db) }
        let fields = try tie.fieldArguments(transformers: transformers)
        if existing == nil {
            try db.cachedStatement(sql: BowTie.insertSQL).execute(
                arguments: [tie.id.uuidString] + fields + (stored?.arguments ?? StoredPhoto.none))
        } else {
            try db.cachedStatement(sql: BowTie.updateFieldsSQL).execute(arguments: fields + [tie.id.uuidString])
            if case .keep = photo {} else {
                try db.cachedStatement(sql: BowTie.updatePhotoSQL).execute(
                    arguments: (stored?.arguments ?? StoredPhoto.none) + [tie.id.uuidString])
            }
        }
        if let old = existing?.photo, old.storage == .external, old.sha256 != tie.photo?.sha256 {
            changes.released.insert(old.sha256)
        }
        return tie
    }

    /// Hashes a photo and decides where it goes; writes the external file
    /// (unless this is a dry run) while the transaction holds the write lock.
    func preparePhoto(
        _ data: Data, threshold: Int, _ changes: PhotoChanges, writeFiles: Bool, sha256: String? = nil
    ) throws -> StoredPhoto {
        let sha256 = sha256 ?? data.sha256Hex
        if data.count <= threshold {
            return StoredPhoto(info: PhotoInfo(byteCount: data.count, sha256: sha256, storage: .inline), inlineBytes: data)
        }
        if writeFiles, try photos.store(data, sha256: sha256) {
            changes.created.insert(sha256)
        }
        return StoredPhoto(info: PhotoInfo(byteCount: data.count, sha256: sha256, storage: .external), inlineBytes: nil)
    }

    private func checkSearchKeyIsFree(_ tie: BowTie, _ db: Database) throws {
        guard let key = tie.searchKey else { return }
        let holder = try String.fetchOne(
            db, sql: "SELECT id FROM \(BowTieModel.tableName) WHERE searchKey = ? AND id != ?",
            arguments: [key, tie.id.uuidString])
        if let holder {
            throw CatalogError(
                .conflict, "the search key \"\(key)\" is already used by the bow tie \(holder)",
                hint: "Search keys are unique in a catalog: choose another one.")
        }
    }

    func fetchOne(id: UUID, _ db: Database) throws -> BowTie? {
        let row = try Row.fetchOne(
            db.cachedStatement(sql: BowTie.selection + " WHERE id = ?"), arguments: [id.uuidString])
        return try row.map { try BowTie(row: $0, transformers: transformers) }
    }
}
