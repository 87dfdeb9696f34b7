import Foundation
import GRDB

extension Catalog {
    /// Records that the tie was worn: `timesWorn + 1`, `lastWorn = date`.
    ///
    /// Read, change and save happen in one IMMEDIATE transaction, so
    /// concurrent `wear`s queue and none is lost.
    /// - Throws: ``CatalogError`` `.noSuchRecord`, ``ValidationError``
    ///   (1610 when timesWorn would no longer fit Int32).
    @discardableResult
    public func wear(_ key: String, at date: Date = Date()) throws -> BowTie {
        try change(key) { tie in
            let (count, overflow) = tie.timesWorn.addingReportingOverflow(1)
            if overflow {
                throw ValidationError(
                    code: .numberTooLarge, message: "timesWorn is too large.", attribute: "timesWorn",
                    value: "\(Int64(tie.timesWorn) + 1)", record: tie.label)
            }
            tie.timesWorn = count
            tie.lastWorn = date
        }
    }

    /// Sets the rating. Validation refuses values outside 0...5 and nothing
    /// changes.
    @discardableResult
    public func rate(_ key: String, _ rating: Double) throws -> BowTie {
        try change(key) { $0.rating = rating }
    }

    /// Marks or unmarks the tie as a favourite.
    @discardableResult
    public func setFavorite(_ key: String, _ isFavorite: Bool) throws -> BowTie {
        try change(key) { $0.isFavorite = isFavorite }
    }

    /// Replaces (or with nil removes) the tie's photo. The old external
    /// file is removed once no record refers to it.
    @discardableResult
    public func setPhoto(_ key: String, data: Data?) throws -> BowTie {
        try change(key, photo: data.map(PhotoUpdate.set) ?? .remove) { _ in }
    }

    /// Deletes the tie, and its photo file when no other tie uses it.
    /// - Returns: The deleted tie.
    @discardableResult
    public func delete(_ key: String) throws -> BowTie {
        try write { db, changes in
            let tie = try resolve(key, db)
            try db.execute(sql: "DELETE FROM \(BowTieModel.tableName) WHERE id = ?", arguments: [tie.id.uuidString])
            if let photo = tie.photo {
                try releasePhoto(photo, db, changes)
            }
            return tie
        }
    }

    /// Reads, changes, validates and saves one tie in one transaction.
    private func change(
        _ key: String, photo: PhotoUpdate = .keep, _ body: (inout BowTie) throws -> Void
    ) throws -> BowTie {
        try write { db, changes in
            let existing = try resolve(key, db)
            var tie = existing
            try body(&tie)
            return try save(tie, photo: resolve(photo, db, changes), replacing: existing, db, changes)
        }
    }
}
