import Foundation

/// One recorded wear of a tie.
public struct WearEntry: Sendable, Equatable {
    public var date: Date
    public var note: String?
}

/// A tie's wear history: what was recorded, and the baseline the counts
/// started from.
public struct WearHistory: Sendable {
    public var tie: BowTie
    /// Newest first.
    public var wears: [WearEntry]
    /// Times worn and last worn before the history began (what an import
    /// brought).
    public var baselineTimesWorn: Int64
    public var baselineLastWorn: Date?
}

/// A tag and how many ties carry it.
public struct TagCount: Sendable, Equatable {
    public var name: String
    public var count: Int
}

extension Catalog {
    /// Records that the tie was worn on `date`, with an optional note: a
    /// new object of the wear entity, linked to the tie. The store then
    /// derives `timesWorn` and `lastWorn` from the history.
    ///
    /// Read, change and save happen in one IMMEDIATE transaction, so
    /// concurrent `wear`s queue and none is lost.
    /// - Throws: ``CatalogError`` `.noSuchRecord`, ``ValidationError``
    ///   (1610 when timesWorn would no longer fit Int32, 1660 for a note
    ///   too long).
    @discardableResult
    public func wear(_ key: String, at date: Date = Date(), note: String? = nil) throws -> BowTie {
        try write(action: "Wear") { db, changes in
            let tie = try resolve(key, db)
            changes.actionTitle = Self.actionTitle("Wear", tie)
            try addWear(to: tie, at: date, note: note, db)
            return try fetchOne(id: tie.id, db) ?? tie
        }
    }

    /// One new wear of `tie`, validated, in the caller's transaction.
    func addWear(to tie: BowTie, at date: Date, note: String?, _ db: any StoreSession) throws {
        let codec = try wearCodec()
        guard tie.timesWorn < Int32.max else {
            throw ValidationError(
                code: .numberTooLarge, message: "timesWorn is too large.", attribute: "timesWorn",
                value: "\(Int64(tie.timesWorn) + 1)", record: tie.label)
        }
        var wear = Record(entity: codec.entity)
        wear["date"] = .date(date)
        wear["note"] = note.map(AttributeValue.string)
        wear.setLink("bowTie", to: .uuid(tie.id))
        do {
            try codec.entity.validate(wear)
        } catch var error as ValidationError {
            error.record = tie.label
            throw error
        }
        try RecordWriter(codec).save(wear, isNew: true, db)
    }

    /// Removes the latest recorded wear of the tie (the latest date; of
    /// equal dates, the one recorded last).
    ///
    /// - Returns: The tie afterwards, and the wear removed.
    /// - Throws: ``CatalogError`` `.noSuchRecord` when the tie has no
    ///   recorded wear (the counts an import brought are not wears).
    @discardableResult
    public func unwear(_ key: String) throws -> (tie: BowTie, removed: WearEntry) {
        try write(action: "Unwear") { db, changes in
            let tie = try resolve(key, db)
            changes.actionTitle = Self.actionTitle("Unwear", tie)
            let codec = try wearCodec()
            guard
                let latest = try StoreRow.fetchOne(
                    db,
                    sql: codec.selection + " WHERE \(try wearLinkCondition(codec)) ORDER BY date DESC, pk DESC LIMIT 1",
                    arguments: [tie.id.uuidString])
            else {
                throw CatalogError(
                    .noSuchRecord, "\(tie.label) has no recorded wear to remove",
                    hint: tie.timesWorn > 0
                        ? "Its \(tie.timesWorn) wear\(tie.timesWorn == 1 ? " was" : "s were") imported as a count, not recorded one by one."
                        : nil)
            }
            let wear = try codec.decode(latest)
            try db.execute(
                sql: "DELETE FROM \"\(codec.entity.tableName)\" WHERE pk = ?", arguments: [wear.rowKey])
            let entry = Self.wearEntry(wear)
            return (try fetchOne(id: tie.id, db) ?? tie, entry)
        }
    }

    /// The tie's wear history, newest first.
    public func history(_ key: String) throws -> WearHistory {
        try read { db in
            let tie = try resolve(key, db)
            let codec = try wearCodec()
            let wears = try StoreRow.fetchAll(
                db, sql: codec.selection + " WHERE \(try wearLinkCondition(codec)) ORDER BY date DESC, pk DESC",
                arguments: [tie.id.uuidString]
            ).map { Self.wearEntry(try codec.decode($0)) }
            let entity = bowTieCodec.entity
            let baseline = try StoreRow.fetchOne(
                db,
                sql: """
                    SELECT "\(entity["timesWorn"]?.baselineColumnName ?? "")", "\(entity["lastWorn"]?.baselineColumnName ?? "")" \
                    FROM "\(entity.tableName)" WHERE id = ?
                    """,
                arguments: [tie.id.uuidString])
            return WearHistory(
                tie: tie, wears: wears, baselineTimesWorn: baseline?[0] ?? 0,
                baselineLastWorn: (baseline?[1] as Double?).map(Date.init(timeIntervalSince1970:)))
        }
    }

    private static func wearEntry(_ wear: Record) -> WearEntry {
        var date = Date(timeIntervalSince1970: 0)
        if case .date(let stored)? = wear["date"] { date = stored }
        return WearEntry(date: date, note: wear["note"]?.text)
    }

    private func wearCodec() throws -> EntityCodec {
        guard let relationship = bowTieCodec.entity.relationship(named: "wears"),
            let codec = codecs[relationship.destination]
        else { throw CatalogError(.storeIO, "this catalog's model has no wear history") }
        return codec
    }

    /// `wear.bowTie_id = ?`, from the declaration.
    private func wearLinkCondition(_ codec: EntityCodec) throws -> String {
        guard let relationship = bowTieCodec.entity.relationship(named: "wears"),
            let link = model.linkColumn(inverseOf: relationship)
        else { throw CatalogError(.storeIO, "this catalog's model has no wear history") }
        return "\"\(codec.entity.tableName)\".\"\(link.name)\" = ?"
    }

    /// Sets the rating. Validation refuses values outside 0...5 and nothing
    /// changes.
    @discardableResult
    public func rate(_ key: String, _ rating: Double) throws -> BowTie {
        try change(key, action: "Rate") { $0.rating = rating }
    }

    /// Marks or unmarks the tie as a favourite.
    @discardableResult
    public func setFavorite(_ key: String, _ isFavorite: Bool) throws -> BowTie {
        try change(key, action: isFavorite ? "Favorite" : "Unfavorite") { $0.isFavorite = isFavorite }
    }

    /// Replaces (or with nil removes) the tie's photo. The old external
    /// file is removed once no record refers to it.
    @discardableResult
    public func setPhoto(_ key: String, data: Data?) throws -> BowTie {
        try change(key, action: data == nil ? "Remove photo of" : "Set photo of", photo: data.map(PhotoUpdate.set) ?? .remove)
        { _ in }
    }

    /// Adds tags to the tie, creating the ones that do not exist (a name
    /// that matches one ignoring case is that tag).
    ///
    /// - Throws: ``ValidationError`` for a name the tag entity refuses
    ///   (1680 for a comma, 1670 for an empty one); nothing changes.
    @discardableResult
    public func tag(_ key: String, with names: [String]) throws -> BowTie {
        try change(key, action: "Tag") { tie in
            tie.tags += names.map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }

    /// Removes tags from the tie. The tags stay in the catalog.
    ///
    /// - Throws: ``CatalogError`` `.noSuchRecord` when the tie does not
    ///   have one of them; nothing changes.
    @discardableResult
    public func untag(_ key: String, removing names: [String]) throws -> BowTie {
        try change(key, action: "Untag") { tie in
            var remaining = tie.tags
            for name in names.map({ $0.trimmingCharacters(in: .whitespaces) }) {
                guard let index = remaining.firstIndex(where: { $0.caseInsensitiveCompare(name) == .orderedSame })
                else {
                    throw CatalogError(
                        .noSuchRecord, "\(tie.label) has no tag \"\(AttributeValue.abbreviated(name))\"",
                        hint: tie.tags.isEmpty ? "It has no tags." : "Its tags: \(tie.tags.joined(separator: ", ")).")
                }
                remaining.remove(at: index)
            }
            tie.tags = remaining
        }
    }

    /// Every tag with the number of ties that carry it, sorted ignoring case.
    public func tags() throws -> [TagCount] {
        try read { db in
            let named = try tagsRelationship()
            let destination = named.destination
            let rows = try StoreRow.fetchAll(
                db,
                sql: """
                    SELECT d."\(named.nameColumn)", (SELECT count(*) FROM "\(named.table.name)" AS j \
                    WHERE j."\(named.far)" = d."\(destination.primaryKeyColumn)") FROM "\(destination.tableName)" AS d
                    """)
            return try rows.map {
                TagCount(name: try $0.decode(String.self, atIndex: 0), count: try $0.decode(Int.self, atIndex: 1))
            }.sorted {
                EntityCodec.namesInOrder($0.name, $1.name)
            }
        }
    }

    /// Deletes a tag; the ties that carried it stay.
    /// - Returns: The tag as it was, with its count.
    /// - Throws: ``CatalogError`` `.noSuchRecord` for an unknown name.
    @discardableResult
    public func deleteTag(_ name: String) throws -> TagCount {
        try write(action: "Delete tag \(name)") { db, _ in
            let named = try tagsRelationship()
            let destination = named.destination
            let trimmed = name.trimmingCharacters(in: .whitespaces)
            guard
                let row = try StoreRow.fetchOne(
                    db,
                    sql: """
                        SELECT d."\(destination.primaryKeyColumn)", d."\(named.nameColumn)", \
                        (SELECT count(*) FROM "\(named.table.name)" AS j WHERE j."\(named.far)" = d."\(destination.primaryKeyColumn)") \
                        FROM "\(destination.tableName)" AS d WHERE d."\(named.nameColumn)" = ?
                        """, arguments: [trimmed])
            else {
                throw CatalogError(
                    .noSuchRecord, "no tag is called \"\(AttributeValue.abbreviated(trimmed))\"",
                    hint: "`bowties tags` lists them.")
            }
            try db.execute(
                sql: "DELETE FROM \"\(destination.tableName)\" WHERE \"\(destination.primaryKeyColumn)\" = ?",
                arguments: [row[0] as StoreValue])
            return TagCount(name: try row.decode(String.self, atIndex: 1), count: try row.decode(Int.self, atIndex: 2))
        }
    }

    private func tagsRelationship() throws -> EntityCodec.NamedRelationship {
        guard let named = bowTieCodec.namedRelationships.first(where: { $0.relationship.name == "tags" }) else {
            throw CatalogError(.storeIO, "this catalog's model has no tags")
        }
        return named
    }

    /// Deletes the tie, and its photo file when no other tie uses it. The
    /// store applies the delete rules in the same transaction: its wears
    /// go (cascade), its tags lose it (nullify).
    /// - Returns: The deleted tie.
    @discardableResult
    public func delete(_ key: String) throws -> BowTie {
        try write(action: "Delete") { db, changes in
            let tie = try resolve(key, db)
            changes.actionTitle = Self.actionTitle("Delete", tie)
            try RecordWriter(bowTieCodec).checkDeleteRules(of: tie.id.uuidString.storeValue, label: tie.label, db)
            try db.execute(
                sql: "DELETE FROM \(bowTieCodec.entity.tableName) WHERE id = ?", arguments: [tie.id.uuidString])
            if let photo = tie.photo {
                try releasePhoto(photo, db, changes)
            }
            return tie
        }
    }

    /// Reads, changes, validates and saves one tie in one transaction.
    private func change(
        _ key: String, action: String, photo: PhotoUpdate = .keep, _ body: (inout BowTie) throws -> Void
    ) throws -> BowTie {
        try write(action: action) { db, changes in
            let existing = try resolve(key, db)
            changes.actionTitle = Self.actionTitle(action, existing)
            var tie = existing
            try body(&tie)
            return try save(tie, photo: resolve(photo, db, changes), replacing: existing, db, changes)
        }
    }

    /// `Wear Classic Red Bow Tie`: an action on one tie, for the undo
    /// history, by the tie's name (its label when it has none).
    static func actionTitle(_ verb: String, _ tie: BowTie) -> String {
        "\(verb) \(tie.name.map { AttributeValue.abbreviated($0) } ?? tie.label)"
    }
}
