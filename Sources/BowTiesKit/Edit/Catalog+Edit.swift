import Foundation

extension Catalog {
    /// Adds a new tie, validated by the model, with its photo and tags, in
    /// one transaction.
    ///
    /// ```swift
    /// var tie = BowTie(name: "Paisley", searchKey: "P")
    /// tie.tags = ["formal"]
    /// let stored = try catalog.add(tie, photo: try Catalog.readPhotoFile(at: url))
    /// ```
    ///
    /// - Parameters:
    ///   - tie: The tie, with a new ``BowTie/id``.
    ///   - photo: Bytes to store as its photo, as every photo is stored
    ///     (inline or in a file, by size).
    /// - Returns: The tie as stored.
    /// - Throws: ``ValidationError`` (nothing is stored), ``CatalogError``
    ///   `.conflict` when the search key (or id) is taken, naming the tie
    ///   that holds it.
    @discardableResult
    public func add(_ tie: BowTie, photo: Data? = nil) throws -> BowTie {
        try write(action: Self.actionTitle("Add", tie)) { db, changes in
            if let holder = try fetchOne(id: tie.id, db) {
                throw CatalogError(.conflict, "the id \(tie.id.uuidString) is already used by \(holder.label)")
            }
            let update = photo.map(PhotoUpdate.set) ?? .keep
            return try save(tie, photo: resolve(update, db, changes), replacing: nil, db, changes)
        }
    }

    /// Saves what a person changed in a copy of a tie (`bowties edit`),
    /// in one transaction: the fields where `edited` differs from
    /// `original` are applied to the tie as it is now, so that a change
    /// another command made meanwhile to another field stays.
    ///
    /// - Parameters:
    ///   - original: The tie as it was read before editing.
    ///   - edited: The same tie with the person's changes.
    /// - Returns: The tie as stored, and whether anything changed.
    /// - Throws: ``ValidationError`` or ``CatalogError`` (`.conflict` for
    ///   a taken search key, `.noSuchRecord` when the tie was deleted
    ///   meanwhile); nothing is written.
    public func applyEdit(of original: BowTie, to edited: BowTie) throws -> (tie: BowTie, changed: Bool) {
        try write(action: Self.actionTitle("Edit", original)) { db, changes in
            guard let current = try fetchOne(id: original.id, db) else {
                throw CatalogError(.noSuchRecord, "\(original.label) was deleted while it was being edited")
            }
            var merged = current
            for index in edited.record.values.indices where edited.record.values[index] != original.record.values[index]
            {
                merged.record.values[index] = edited.record.values[index]
            }
            func normalized(_ names: [String]?) -> [String] { (names ?? []).map { $0.lowercased() }.sorted() }
            for (name, names) in edited.record.names where normalized(names) != normalized(original.record.names[name])
            {
                merged.record.names[name] = names
            }
            guard merged != current else { return (current, false) }
            return (try save(merged, photo: .keep, replacing: current, db, changes), true)
        }
    }
}
