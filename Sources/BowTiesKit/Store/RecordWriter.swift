import Foundation

/// Writes records through their entity's codec, in the caller's
/// transaction: inserts and updates with their named to-many links, the
/// objects those names create, and the checks only the stored rows can
/// answer (unique values, deny delete rules, relationship counts).
///
/// ```swift
/// let saved = try RecordWriter(codec).save(record, isNew: true, db)
/// ```
///
/// ``EntityCodec`` turns rows into records and back; this is what puts
/// them in the store.
struct RecordWriter: Sendable {
    let codec: EntityCodec

    init(_ codec: EntityCodec) { self.codec = codec }

    /// Inserts or updates `record` and the links of its named to-many
    /// relationships it carries (``Record/names``), in the caller's
    /// transaction.
    ///
    /// - Parameter baselines: On an update, also set the baselines of
    ///   derived attributes from the record's values.
    /// - Returns: The record as stored (an codec.entity numbered by the store
    ///   gets its ``Record/rowKey``).
    @discardableResult
    func save(_ record: Record, isNew: Bool, baselines: Bool = false, _ db: any StoreSession) throws -> Record {
        var record = record
        if isNew {
            try db.cachedStatement(sql: codec.insertSQL).execute(arguments: codec.insertArguments(record))
            if codec.entity.primaryKeyAttribute == nil { record.rowKey = db.lastInsertedRowID }
        } else {
            try db.cachedStatement(sql: baselines ? codec.updateWithBaselinesSQL : codec.updateSQL)
                .execute(arguments: codec.updateArguments(record, baselines: baselines))
        }
        for named in codec.namedRelationships {
            guard let names = record.names[named.relationship.name], let key = record.primaryKey else { continue }
            try Self.checkCount(Set(names.map { $0.lowercased() }).count, of: named.relationship, record: record.label)
            // One save: no cache to keep.
            record.names[named.relationship.name] = try setNames(names, of: codec.linkValue(key), named, isNew: isNew, db)
        }
        return record
    }

    /// Makes the object `key` linked to exactly the objects named `names`
    /// through `named`, creating the ones that do not exist yet (each
    /// validated as a new object of the destination codec.entity).
    ///
    /// - Returns: The names as stored (an existing object keeps its spelling).
    ///
    /// - Parameter cache: Objects already found by name in this
    ///   transaction (an import's), so that a name met again costs no query.
    func setNames(
        _ names: [String], of key: StoreValue, _ named: EntityCodec.NamedRelationship, isNew: Bool, _ db: any StoreSession,
        cache: inout NameCache
    ) throws -> [String] {
        let (keys, stored) = try resolve(names, named, db, cache: &cache)
        let table = named.table.name
        if !isNew {
            let current = try StoreValue.fetchAll(
                db.cachedStatement(sql: "SELECT \"\(named.far)\" FROM \"\(table)\" WHERE \"\(named.near)\" = ?"),
                arguments: [key])
            for old in current where !keys.contains(old) {
                try db.cachedStatement(
                    sql: "DELETE FROM \"\(table)\" WHERE \"\(named.near)\" = ? AND \"\(named.far)\" = ?"
                ).execute(arguments: [key, old])
            }
        }
        for destinationKey in keys {
            try db.cachedStatement(
                sql:
                    "INSERT INTO \"\(table)\" (\"\(named.near)\", \"\(named.far)\") VALUES (?, ?) ON CONFLICT DO NOTHING"
            ).execute(arguments: [key, destinationKey])
        }
        return EntityCodec.sortedNames(stored)
    }

    /// The keys of the objects named `names` through `named`, each once,
    /// with their names as stored (an existing object keeps its
    /// spelling), creating the ones that do not exist yet (each validated
    /// as a new object of the destination entity). What
    /// ``setNames(_:of:_:isNew:_:cache:)`` links; a bulk load stages the
    /// links instead (``BulkLinkStage``).
    func resolve(
        _ names: [String], _ named: EntityCodec.NamedRelationship, _ db: any StoreSession, cache: inout NameCache
    ) throws -> (keys: [StoreValue], names: [String]) {
        var keys: [StoreValue] = []
        var stored: [String] = []
        for name in names {
            let destinationKey: StoreValue
            let spelling: String
            if let known = cache.entries[named.relationship.name + "\u{1F}" + name] {
                (destinationKey, spelling) = known
            } else {
                (destinationKey, spelling) = try findOrCreate(name, named, db)
                cache.insert((destinationKey, spelling), for: named.relationship.name + "\u{1F}" + name)
            }
            if !keys.contains(destinationKey) {
                keys.append(destinationKey)
                stored.append(spelling)
            }
        }
        return (keys, stored)
    }

    /// ``setNames(_:of:_:isNew:_:cache:)`` without a cache: one change.
    func setNames(
        _ names: [String], of key: StoreValue, _ named: EntityCodec.NamedRelationship, isNew: Bool, _ db: any StoreSession
    ) throws -> [String] {
        var cache = NameCache()
        return try setNames(names, of: key, named, isNew: isNew, db, cache: &cache)
    }

    /// Refuses a to-many that holds fewer or more objects than its
    /// declaration allows (1580, 1590).
    ///
    /// `record` (its label, for the message) is evaluated only for a
    /// count out of bounds: an import checks every record's tags.
    static func checkCount(
        _ count: Int, of relationship: RelationshipDescription, record: @autoclosure () -> String
    ) throws {
        if count < relationship.minCount {
            throw ValidationError(
                code: .relationshipLacksMinimumCount,
                message: "\(relationship.name) must hold at least \(relationship.minCount).",
                attribute: relationship.name, value: String(count), record: record())
        }
        if let maximum = relationship.maxCount, count > maximum {
            throw ValidationError(
                code: .relationshipExceedsMaximumCount, message: "\(relationship.name) may hold at most \(maximum).",
                attribute: relationship.name, value: String(count), record: record())
        }
    }

    /// Refuses to delete the object `key` while a relationship whose
    /// delete rule is deny still leads somewhere (1600). The store's
    /// `RESTRICT` would refuse it too; this says why, in Core Data's words.
    func checkDeleteRules(of key: StoreValue, label: String, _ db: any StoreSession) throws {
        for relationship in codec.entity.relationships where relationship.deleteRule == .deny {
            let count: Int
            if let link = codec.model.linkColumn(inverseOf: relationship), let destination = codec.model[relationship.destination] {
                count =
                    try Int.fetchOne(
                        db, sql: "SELECT count(*) FROM \"\(destination.tableName)\" WHERE \"\(link.name)\" = ?",
                        arguments: [key]) ?? 0
            } else if let table = codec.model.joinTable(for: relationship, of: codec.entity) {
                let (near, _) = table.columns(from: relationship, of: codec.entity)
                count =
                    try Int.fetchOne(
                        db, sql: "SELECT count(*) FROM \"\(table.name)\" WHERE \"\(near)\" = ?", arguments: [key]) ?? 0
            } else {
                continue
            }
            if count > 0 {
                throw ValidationError(
                    code: .relationshipDeniedDelete,
                    message:
                        "\(label) cannot be deleted while its \(relationship.name) holds \(count) object\(count == 1 ? "" : "s").",
                    attribute: relationship.name, value: String(count), record: label)
            }
        }
    }

    /// The first unique attribute (other than the primary key) whose value
    /// in `record` another stored object already holds, with that
    /// object's rowid and label.
    func uniqueConflict(_ record: Record, _ db: any StoreSession)
        throws -> (attribute: AttributeDescription, value: AttributeValue, rowid: Int64, holder: String)?
    {
        let table = "\"\(codec.entity.tableName)\""
        let key = record.primaryKey.map(\.storeValue) ?? .null
        let labelColumns = [codec.entity.keyAttribute, codec.entity.nameAttribute].map { $0.map { "\"\($0)\"" } ?? "NULL" }
        for (index, attribute) in codec.entity.attributes.enumerated() where attribute.isUnique && !attribute.isPrimaryKey {
            guard let value = record.values[index] else { continue }
            let row = try StoreRow.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT \(db.dialect.rowNumber), \(labelColumns.listed(separator: ", ")), "\(codec.entity.primaryKeyColumn)" FROM \(table) \
                        WHERE "\(attribute.columnName)" = ? AND "\(codec.entity.primaryKeyColumn)" IS NOT ?
                        """),
                arguments: [try codec.storeValue(value, at: index), key])
            guard let row else { continue }
            // Named by what the two do not share: the holder's key is the
            // value in conflict when the key is the unique attribute.
            let holder = Record.label(
                key: attribute.name == codec.entity.keyAttribute ? nil : row[1] as String?, name: row[2] as String?,
                fallback: "\(row[3] as StoreValue)")
            return (attribute, value, try row.decode(Int64.self, atIndex: 0), holder)
        }
        return nil
    }

    /// The destination object called `name` (matched as its name
    /// attribute compares), created when there is none.
    /// - Throws: ``ValidationError`` when a new one would be invalid.
    func findOrCreate(_ name: String, _ named: EntityCodec.NamedRelationship, _ db: any StoreSession)
        throws -> (key: StoreValue, name: String)
    {
        let destination = named.destination
        let keyColumn = destination.primaryKeyColumn
        // As the declaration compares names (SQLite's column is NOCASE
        // already; PostgreSQL folds both sides).
        let ignoresCase = destination.nameAttribute.flatMap { destination[$0] }?.isCaseInsensitive == true
        let matches =
            ignoresCase ? db.dialect.equalsIgnoringCase("\"\(named.nameColumn)\"") : "\"\(named.nameColumn)\" = ?"
        if let row = try StoreRow.fetchOne(
            db.cachedStatement(
                sql:
                    "SELECT \"\(keyColumn)\", \"\(named.nameColumn)\" FROM \"\(destination.tableName)\" WHERE \(matches)"
            ), arguments: [name])
        {
            return (row[0], try row.decode(String.self, atIndex: 1))
        }
        var object = Record(entity: destination)
        if let nameAttribute = destination.nameAttribute { object[nameAttribute] = .string(name) }
        if let id = destination.primaryKeyAttribute, id.type == .uuid { object[id.name] = .uuid(UUID()) }
        try destination.validate(object)
        let writer = RecordWriter(try EntityCodec(destination, in: codec.model, transformers: codec.registry, dialect: codec.dialect))
        let saved = try writer.save(object, isNew: true, db)
        return (writer.codec.linkValue(saved.primaryKey), name)
    }
}

/// Objects found by name within one transaction, by relationship and
/// name: bounded, so that a file naming a million different tags keeps
/// memory flat (past the limit it starts again).
struct NameCache {
    static let limit = 4096
    private(set) var entries: [String: (StoreValue, String)] = [:]

    mutating func insert(_ entry: (StoreValue, String), for key: String) {
        if entries.count >= Self.limit { entries.removeAll(keepingCapacity: true) }
        entries[key] = entry
    }
}
