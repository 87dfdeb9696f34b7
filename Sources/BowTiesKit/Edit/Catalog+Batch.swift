import Foundation

/// One attribute of one tie, before and after a change.
public struct FieldChange: Sendable, Equatable {
    public var attribute: AttributeDescription
    public var before: AttributeValue?
    public var after: AttributeValue?

    /// `rating 3.5 → 4`, values as `bowties edit` writes them (`none`
    /// for no value).
    public var description: String {
        func text(_ value: AttributeValue?) -> String {
            let text = attribute.text(of: value)
            return text.isEmpty ? "none" : AttributeValue.abbreviated(text)
        }
        return "\(attribute.name) \(text(before)) → \(text(after))"
    }

    public static func == (lhs: FieldChange, rhs: FieldChange) -> Bool {
        lhs.attribute.name == rhs.attribute.name && lhs.before == rhs.before && lhs.after == rhs.after
    }
}

/// What a batch command will do to one tie: the tie as it was read, and
/// the attributes that change (none for a delete).
public struct PlannedChange: Sendable {
    public var tie: BowTie
    public var changes: [FieldChange]
}

/// A batch change planned from a query, to show (and ask about) before
/// it is applied with ``Catalog/apply(_:)``.
public struct BatchPlan: Sendable {
    public enum Kind: Sendable {
        /// Set these attributes (nil: no value).
        case set([(attribute: AttributeDescription, value: AttributeValue?)])
        case delete
        /// Record one wear of each tie.
        case wear(date: Date, note: String?)
        /// Add these tags to each tie.
        case tag([String])
        /// Take these tags off each tie that has them.
        case untag([String])
    }

    public var kind: Kind
    public var query: Query
    /// Every tie the query selects, in its order, with what changes.
    public var ties: [PlannedChange]

    /// `Set rating on 3 bow ties`, `Wear Classic Red Bow Tie`: the
    /// action's title in the undo history.
    public var actionTitle: String {
        let changing = self.changing
        let object =
            changing.count == 1
            ? changing[0].tie.name.map { AttributeValue.abbreviated($0) } ?? changing[0].tie.label
            : "\(changing.count) bow ties"
        switch kind {
        case .set(let values):
            let names = values.map(\.attribute.name).joined(separator: ", ")
            return "Set \(names) on \(object)"
        case .delete: return "Delete \(object)"
        case .wear: return "Wear \(object)"
        case .tag(let names): return "Tag \(object) " + names.map { "+" + $0 }.joined(separator: " ")
        case .untag(let names): return "Untag \(object) " + names.map { "-" + $0 }.joined(separator: " ")
        }
    }

    /// The ties that change (a set leaves alone ties that already hold
    /// the values).
    public var changing: [PlannedChange] {
        switch kind {
        case .delete, .wear, .tag: ties
        case .set: ties.filter { !$0.changes.isEmpty }
        case .untag(let names):
            ties.filter { planned in
                planned.tie.tags.contains { tag in names.contains { $0.caseInsensitiveCompare(tag) == .orderedSame } }
            }
        }
    }
}

extension Catalog {
    /// The attributes `set` may change: not the primary key, not a derived
    /// value (times worn follows the wear history: `wear`, `unwear`), not
    /// binary data (`photo --set`).
    public func settableAttribute(named name: String) throws -> AttributeDescription {
        let entity = bowTieCodec.entity
        guard let attribute = entity.attributes.first(where: { $0.name.lowercased() == name.lowercased() }) else {
            let names = entity.attributes.map(\.name).joined(separator: ", ")
            throw CatalogError(.invalidInput, "no attribute is called \"\(name)\"", hint: "The attributes: \(names).")
        }
        let reason: String? =
            if attribute.isPrimaryKey {
                "\(attribute.name) identifies the tie and cannot change"
            } else if let derivation = attribute.derivation {
                "\(attribute.name) follows the history of \(derivation.relationship): use `bowties wear` and `bowties unwear`"
            } else if attribute.type == .binaryData {
                "\(attribute.name) is set with `bowties photo KEY --set FILE`"
            } else {
                nil
            }
        if let reason { throw CatalogError(.invalidInput, reason) }
        return attribute
    }

    /// Plans setting `values` on every tie `query` selects: reads the ties,
    /// and for each says which attributes change. Changes nothing.
    ///
    /// - Throws: ``QueryError``, ``CatalogError``.
    public func planSet(
        _ query: Query, values: [(attribute: AttributeDescription, value: AttributeValue?)]
    ) throws -> BatchPlan {
        let ties = try bowTies(matching: query).map { tie -> PlannedChange in
            var changes: [FieldChange] = []
            for (attribute, value) in values where tie.record[attribute.name] != value {
                changes.append(FieldChange(attribute: attribute, before: tie.record[attribute.name], after: value))
            }
            return PlannedChange(tie: tie, changes: changes)
        }
        return BatchPlan(kind: .set(values), query: query, ties: ties)
    }

    /// Plans one wear of every tie `query` selects, on `date`: times worn
    /// + 1, and last worn when `date` is later. Changes nothing.
    public func planWear(_ query: Query, at date: Date, note: String?) throws -> BatchPlan {
        let entity = bowTieCodec.entity
        let ties = try bowTies(matching: query).map { tie -> PlannedChange in
            var changes: [FieldChange] = []
            if let attribute = entity["timesWorn"] {
                changes.append(
                    FieldChange(
                        attribute: attribute, before: .integer(Int64(tie.timesWorn)),
                        after: .integer(Int64(tie.timesWorn) + 1)))
            }
            if let attribute = entity["lastWorn"], (tie.lastWorn ?? .distantPast) < date {
                changes.append(FieldChange(attribute: attribute, before: tie.record["lastWorn"], after: .date(date)))
            }
            return PlannedChange(tie: tie, changes: changes)
        }
        return BatchPlan(kind: .wear(date: date, note: note), query: query, ties: ties)
    }

    /// Plans adding `names` to the tags of every tie `query` selects.
    /// Changes nothing.
    public func planTag(_ query: Query, with names: [String]) throws -> BatchPlan {
        BatchPlan(
            kind: .tag(names.map { $0.trimmingCharacters(in: .whitespaces) }), query: query,
            ties: try bowTies(matching: query).map { PlannedChange(tie: $0, changes: []) })
    }

    /// Plans taking `names` off the tags of every tie `query` selects
    /// (ignoring case). Ties without any of them are left alone.
    /// Changes nothing.
    public func planUntag(_ query: Query, removing names: [String]) throws -> BatchPlan {
        BatchPlan(
            kind: .untag(names.map { $0.trimmingCharacters(in: .whitespaces) }), query: query,
            ties: try bowTies(matching: query).map { PlannedChange(tie: $0, changes: []) })
    }

    /// Plans deleting every tie `query` selects. Changes nothing.
    public func planDelete(_ query: Query) throws -> BatchPlan {
        BatchPlan(
            kind: .delete, query: query,
            ties: try bowTies(matching: query).map { PlannedChange(tie: $0, changes: []) })
    }

    /// Applies a plan in one transaction, every tie validated as any save,
    /// or nothing.
    ///
    /// The plan was shown (and maybe asked about) before: if the query now
    /// selects other ties, or one of them changed meanwhile, nothing is
    /// applied.
    ///
    /// - Returns: The ties as stored (set), or as they were (delete).
    /// - Throws: ``CatalogError`` `.conflict` when the catalog changed
    ///   since the plan, ``ValidationError`` for a value the model refuses
    ///   (naming the tie); nothing is written.
    @discardableResult
    public func apply(_ plan: BatchPlan) throws -> [BowTie] {
        try write(action: plan.actionTitle) { db, changes in
            let now = try bowTies(matching: plan.query, db)
            guard now.map(\.id) == plan.ties.map(\.tie.id),
                zip(now, plan.ties).allSatisfy({ $0.record == $1.tie.record })
            else {
                throw CatalogError(
                    .conflict, "the catalog changed since the changes were listed; nothing was changed",
                    hint: "Run the command again to see what it would change now.")
            }
            var done: [BowTie] = []
            for planned in plan.changing {
                switch plan.kind {
                case .delete:
                    let tie = planned.tie
                    try RecordWriter(bowTieCodec).checkDeleteRules(of: tie.id.uuidString.storeValue, label: tie.label, db)
                    try db.execute(
                        sql: "DELETE FROM \"\(bowTieCodec.entity.tableName)\" WHERE id = ?",
                        arguments: [tie.id.uuidString])
                    if let photo = tie.photo { try releasePhoto(photo, db, changes) }
                    done.append(tie)
                case .tag(let names):
                    var tie = planned.tie
                    tie.tags += names
                    done.append(try save(tie, photo: .keep, replacing: planned.tie, db, changes))
                case .untag(let names):
                    var tie = planned.tie
                    tie.tags.removeAll { tag in names.contains { $0.caseInsensitiveCompare(tag) == .orderedSame } }
                    done.append(try save(tie, photo: .keep, replacing: planned.tie, db, changes))
                case .wear(let date, let note):
                    try addWear(to: planned.tie, at: date, note: note, db)
                    done.append(try fetchOne(id: planned.tie.id, db) ?? planned.tie)
                case .set:
                    var tie = planned.tie
                    for change in planned.changes { tie.record[change.attribute.name] = change.after }
                    done.append(try save(tie, photo: .keep, replacing: planned.tie, db, changes))
                }
            }
            return done
        }
    }
}
