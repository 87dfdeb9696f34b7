import Foundation
import GRDB

/// The one codec between an entity's declaration and its table: the
/// columns a query selects, how a row becomes a ``Record`` and a record
/// the arguments of an `INSERT` or `UPDATE`, and the links of its
/// relationships. Everything is derived from the declaration by
/// attribute name when the codec is made; nothing else knows a column's
/// position.
///
/// Encodings: UUIDs as upper-case text, dates as seconds since 1970,
/// Booleans as 0/1, transformable values through their named transformer,
/// binary data as the SHA-256 of a `blob` row (inline bytes or a file).
/// A derived attribute is written with its baseline when an object is
/// inserted, and after that only by the store's triggers.
struct EntityCodec: Sendable {
    let model: ObjectModel
    let entity: EntityDescription
    let registry: ValueTransformerRegistry
    /// The transformer of each attribute, by position (nil for none).
    let transformers: [(any AttributeValueTransformer)?]
    /// The to-one relationships stored as columns, by position in
    /// ``EntityDescription/relationships``.
    let links: [(index: Int, column: LinkColumn)]
    /// The to-many relationships to a named destination, whose names a
    /// selected row carries.
    let namedRelationships: [NamedRelationship]
    /// `SELECT ... FROM table LEFT JOIN blob ...`: every value of a
    /// record, never a photo's bytes; the table's name qualifies its
    /// columns (`bowtie.rowid`), so callers may add `WHERE` and `ORDER BY`.
    let selection: String
    /// The `FROM` clause of ``selection`` and its joins: what other
    /// selections of the same rows (exports) start from, so that a
    /// query's condition means the same.
    let fromClause: String
    /// Where each attribute's column is in ``selection``, by attribute
    /// position (binary data: its SHA-256, then the blob's size and place).
    let selectedAttributeColumns: [Int32]
    /// Where each named relationship's names are in ``selection``, in the
    /// order of ``namedRelationships``: the names joined by U+001F.
    let selectedNameColumns: [Int32]
    let insertSQL: String
    /// Every stored attribute but the primary key and derived ones.
    let updateSQL: String
    /// The same, and the baselines of derived attributes (an import sets
    /// them: the counts a file brings are the baseline).
    let updateWithBaselinesSQL: String

    /// A to-many relationship whose objects have names (`tags`).
    struct NamedRelationship: Sendable {
        var relationship: RelationshipDescription
        var table: JoinTable
        var destination: EntityDescription
        var nameColumn: String
        /// The join table's column naming this entity's object, and the
        /// destination's.
        var near: String
        var far: String
    }

    init(_ entity: EntityDescription, in model: ObjectModel, transformers registry: ValueTransformerRegistry) throws {
        self.model = model
        self.entity = entity
        self.registry = registry
        // A transformer that is not registered fails when a value needs it
        // (``transformer(at:)``), not when the store opens: a catalog
        // without colours still works.
        transformers = entity.attributes.map { attribute in
            attribute.valueTransformerName.flatMap { try? registry.transformer(named: $0) }
        }
        let linkColumns = model.linkColumns(of: entity)
        links = linkColumns.compactMap { column in
            entity.relationships.firstIndex(where: { $0.name == column.relationship.name }).map { ($0, column) }
        }
        namedRelationships = model.namedRelationships(of: entity).compactMap { relationship in
            guard let destination = model[relationship.destination],
                let name = destination.nameAttribute.flatMap({ destination[$0] }),
                let table = model.joinTable(for: relationship, of: entity)
            else { return nil }
            let (near, far) = table.columns(from: relationship, of: entity)
            return NamedRelationship(
                relationship: relationship, table: table, destination: destination, nameColumn: name.columnName,
                near: near, far: far)
        }

        let table = entity.tableName
        var selected: [String] = []
        var joins: [String] = []
        var attributeColumns: [Int32] = []
        if entity.primaryKeyAttribute == nil { selected.append("\"\(table)\".\"pk\"") }
        for attribute in entity.attributes {
            attributeColumns.append(Int32(selected.count))
            selected.append("\"\(table)\".\"\(attribute.columnName)\"")
            if attribute.type == .binaryData {
                let alias = "\(attribute.name)_blob"
                selected += ["\(alias).byteCount", "\(alias).external"]
                joins.append(
                    "LEFT JOIN \(Catalog.blobTable) AS \(alias) ON \(alias).sha256 = \"\(table)\".\"\(attribute.columnName)\""
                )
            }
        }
        for (_, link) in links { selected.append("\"\(table)\".\"\(link.name)\"") }
        let key = "\"\(table)\".\"\(entity.primaryKeyColumn)\""
        var nameColumns: [Int32] = []
        for named in namedRelationships {
            nameColumns.append(Int32(selected.count))
            selected.append(Self.namesSubquery(named, key: key))
        }
        selectedAttributeColumns = attributeColumns
        selectedNameColumns = nameColumns
        fromClause = " FROM \"\(table)\" " + joins.joined(separator: " ")
        selection = "SELECT " + selected.joined(separator: ", ") + fromClause

        var insertColumns: [String] = []
        var updateColumns: [String] = []
        var baselineColumns: [String] = []
        for attribute in entity.attributes {
            insertColumns.append(attribute.columnName)
            if attribute.derivation != nil {
                baselineColumns.append(attribute.baselineColumnName)
            } else if !attribute.isPrimaryKey {
                updateColumns.append(attribute.columnName)
            }
        }
        insertColumns += links.map(\.column.name)
        updateColumns += links.map(\.column.name)
        insertColumns += baselineColumns
        func quoted(_ columns: [String]) -> String { columns.map { "\"\($0)\"" }.joined(separator: ", ") }
        insertSQL =
            "INSERT INTO \"\(table)\" (\(quoted(insertColumns))) VALUES ("
            + Array(repeating: "?", count: insertColumns.count).joined(separator: ", ") + ")"
        func update(_ columns: [String]) -> String {
            "UPDATE \"\(table)\" SET " + columns.map { "\"\($0)\" = ?" }.joined(separator: ", ")
                + " WHERE \"\(entity.primaryKeyColumn)\" = ?"
        }
        updateSQL = update(updateColumns)
        updateWithBaselinesSQL = update(updateColumns + baselineColumns)
    }

    /// The names of `named`'s objects for the row whose primary key is
    /// `key` (a qualified column), joined by U+001F (names cannot hold
    /// control characters).
    static func namesSubquery(_ named: NamedRelationship, key: String) -> String {
        """
        (SELECT group_concat(d."\(named.nameColumn)", char(31)) FROM "\(named.table.name)" AS j \
        JOIN "\(named.destination.tableName)" AS d ON d."\(named.destination.primaryKeyColumn)" = j."\(named.far)" \
        WHERE j."\(named.near)" = \(key))
        """
    }

    // MARK: - Rows to records

    /// Decodes a row selected with ``selection``.
    /// - Throws: `DatabaseError` for unreadable columns, ``CatalogError``
    ///   `.storeIO` for values no save could have written.
    func decode(_ row: Row) throws -> Record {
        var record = Record(entity: entity, values: Array(repeating: nil, count: entity.attributes.count))
        var column = 0
        if entity.primaryKeyAttribute == nil {
            record.rowKey = try row.decode(Int64?.self, atIndex: column)
            column += 1
        }
        for (index, attribute) in entity.attributes.enumerated() {
            defer { column += 1 }
            let value = row[column] as DatabaseValue
            if attribute.type == .binaryData {
                defer { column += 2 }
                guard let sha256 = String.fromDatabaseValue(value) else { continue }
                guard let size = try row.decode(Int?.self, atIndex: column + 1),
                    let external = try row.decode(Bool?.self, atIndex: column + 2)
                else {
                    throw CatalogError(
                        .storeIO, "the \(attribute.name) of \(record.label) refers to a blob the store does not have")
                }
                record.values[index] = .blob(
                    PhotoInfo(byteCount: size, sha256: sha256, storage: external ? .external : .inline))
                continue
            }
            if value.isNull { continue }
            record.values[index] = try decode(value, attribute, index, label: { record.label })
        }
        for (index, link) in links {
            let value = row[column] as DatabaseValue
            column += 1
            if value.isNull { continue }
            record.links[index] =
                link.destination.primaryKeyAttribute?.type == .uuid
                ? String.fromDatabaseValue(value).flatMap(UUID.init(uuidString:)).map(AttributeValue.uuid)
                : Int64.fromDatabaseValue(value).map(AttributeValue.integer)
        }
        for named in namedRelationships {
            let joined = String.fromDatabaseValue(row[column] as DatabaseValue)
            column += 1
            record.names[named.relationship.name] = Self.sortedNames(
                joined.map { $0.split(separator: "\u{1F}", omittingEmptySubsequences: false).map(String.init) } ?? [])
        }
        return record
    }

    /// Decodes a row image of the undo history: the table's stored
    /// columns, named by `columns`. Binary data is described by its
    /// blob (which the history keeps while an image refers to it).
    func decodeImage(_ row: Row, columns: [String], _ db: Database) throws -> Record {
        var record = Record(entity: entity, values: Array(repeating: nil, count: entity.attributes.count))
        var positions: [String: Int] = [:]
        for (position, column) in columns.enumerated() { positions[column] = position }
        if entity.primaryKeyAttribute == nil, let position = positions["pk"] {
            record.rowKey = try row.decode(Int64?.self, atIndex: position)
        }
        for (index, attribute) in entity.attributes.enumerated() {
            guard let position = positions[attribute.columnName] else { continue }
            let value = row[position] as DatabaseValue
            if value.isNull { continue }
            if attribute.type == .binaryData {
                guard let sha256 = String.fromDatabaseValue(value) else { continue }
                let blob = try Row.fetchOne(
                    db.cachedStatement(sql: "SELECT byteCount, external FROM \(Catalog.blobTable) WHERE sha256 = ?"),
                    arguments: [sha256])
                record.values[index] = .blob(
                    PhotoInfo(
                        byteCount: blob?[0] ?? 0, sha256: sha256,
                        storage: (blob?[1] as Bool?) == true ? .external : .inline))
                continue
            }
            record.values[index] = try decode(value, attribute, index, label: { record.label })
        }
        return record
    }

    /// Names in the order people read lists of them: ignoring case.
    static func sortedNames(_ names: [String]) -> [String] {
        names.sorted(by: namesInOrder)
    }

    /// Whether `first` comes before `second` ignoring case (then by code
    /// point, so that the order is total).
    static func namesInOrder(_ first: String, _ second: String) -> Bool {
        let order = first.compare(second, options: [.caseInsensitive])
        return order == .orderedSame ? first < second : order == .orderedAscending
    }

    private func decode(_ value: DatabaseValue, _ attribute: AttributeDescription, _ index: Int, label: () -> String)
        throws -> AttributeValue
    {
        func invalid() -> CatalogError {
            CatalogError(.storeIO, "the store holds an invalid \(attribute.name) for \(label()): \(value)")
        }
        switch attribute.type {
        case .string:
            guard let text = String.fromDatabaseValue(value) else { throw invalid() }
            return .string(text)
        case .uri:
            guard let text = String.fromDatabaseValue(value) else { throw invalid() }
            return .uri(text)
        case .uuid:
            guard let text = String.fromDatabaseValue(value), let id = UUID(uuidString: text) else { throw invalid() }
            return .uuid(id)
        case .double:
            guard let number = Double.fromDatabaseValue(value) else { throw invalid() }
            return .double(number)
        case .integer32:
            guard let number = Int64.fromDatabaseValue(value) else { throw invalid() }
            return .integer(number)
        case .boolean:
            guard let flag = Bool.fromDatabaseValue(value) else { throw invalid() }
            return .bool(flag)
        case .date:
            guard let seconds = Double.fromDatabaseValue(value) else { throw invalid() }
            return .date(Date(timeIntervalSince1970: seconds))
        case .transformable:
            guard let data = Data.fromDatabaseValue(value) else { throw invalid() }
            let transformer = try transformer(at: index)
            do {
                return try transformer.reverseTransformedValue(data)
            } catch let error as TransformerError {
                throw CatalogError(.storeIO, "cannot read the \(attribute.name) of \(label()): \(error)")
            }
        case .binaryData:
            throw invalid()  // decoded with its blob, above
        }
    }

    /// The transformer of the attribute at `index`.
    /// - Throws: ``TransformerError/unknownTransformer(_:)`` when the one it
    ///   names is not registered.
    func transformer(at index: Int) throws -> any AttributeValueTransformer {
        if let transformer = transformers[index] { return transformer }
        let name = entity.attributes[index].valueTransformerName ?? entity.attributes[index].name
        throw TransformerError.unknownTransformer(name)
    }

    // MARK: - Records to rows

    /// The stored form of one attribute's value.
    /// - Throws: ``TransformerError`` when its transformer refuses it.
    func databaseValue(_ value: AttributeValue?, at index: Int) throws -> DatabaseValue {
        guard let value else { return .null }
        switch value {
        case .string(let text), .uri(let text): return text.databaseValue
        case .uuid(let id): return id.uuidString.databaseValue
        case .double(let number): return number.databaseValue
        case .integer(let number): return number.databaseValue
        case .bool(let flag): return flag.databaseValue
        case .date(let date): return date.timeIntervalSince1970.databaseValue
        case .blob(let info): return info.sha256.databaseValue
        case .color:
            return try transformer(at: index).transformedValue(value).databaseValue
        }
    }

    private func linkValue(_ value: AttributeValue?) -> DatabaseValue {
        value?.databaseValue ?? .null
    }

    /// The arguments of ``insertSQL``.
    func insertArguments(_ record: Record) throws -> StatementArguments {
        var values: [DatabaseValue] = []
        var baselines: [DatabaseValue] = []
        for index in entity.attributes.indices {
            let value = try databaseValue(record.values[index], at: index)
            values.append(value)
            if entity.attributes[index].derivation != nil { baselines.append(value) }
        }
        values += links.map { linkValue(record.links[$0.index]) }
        return StatementArguments(values + baselines)
    }

    /// The arguments of ``updateSQL`` or ``updateWithBaselinesSQL``.
    func updateArguments(_ record: Record, baselines: Bool) throws -> StatementArguments {
        var values: [DatabaseValue] = []
        var baselineValues: [DatabaseValue] = []
        for (index, attribute) in entity.attributes.enumerated() where !attribute.isPrimaryKey {
            let value = try databaseValue(record.values[index], at: index)
            if attribute.derivation != nil {
                baselineValues.append(value)
            } else {
                values.append(value)
            }
        }
        values += links.map { linkValue(record.links[$0.index]) }
        if baselines { values += baselineValues }
        guard let key = record.primaryKey else {
            throw CatalogError(.storeIO, "cannot update \(record.label): it has no primary key")
        }
        return StatementArguments(values + [linkValue(key)])
    }

    /// Inserts or updates `record` and the links of its named to-many
    /// relationships it carries (``Record/names``), in the caller's
    /// transaction.
    ///
    /// - Parameter baselines: On an update, also set the baselines of
    ///   derived attributes from the record's values.
    /// - Returns: The record as stored (an entity numbered by the store
    ///   gets its ``Record/rowKey``).
    @discardableResult
    func save(_ record: Record, isNew: Bool, baselines: Bool = false, _ db: Database) throws -> Record {
        var record = record
        if isNew {
            try db.cachedStatement(sql: insertSQL).execute(arguments: insertArguments(record))
            if entity.primaryKeyAttribute == nil { record.rowKey = db.lastInsertedRowID }
        } else {
            try db.cachedStatement(sql: baselines ? updateWithBaselinesSQL : updateSQL)
                .execute(arguments: updateArguments(record, baselines: baselines))
        }
        for named in namedRelationships {
            guard let names = record.names[named.relationship.name], let key = record.primaryKey else { continue }
            try Self.checkCount(Set(names.map { $0.lowercased() }).count, of: named.relationship, record: record.label)
            // One save: no cache to keep.
            record.names[named.relationship.name] = try setNames(names, of: linkValue(key), named, isNew: isNew, db)
        }
        return record
    }

    /// Makes the object `key` linked to exactly the objects named `names`
    /// through `named`, creating the ones that do not exist yet (each
    /// validated as a new object of the destination entity).
    ///
    /// - Returns: The names as stored (an existing object keeps its spelling).
    ///
    /// - Parameter cache: Objects already found by name in this
    ///   transaction (an import's), so that a name met again costs no query.
    func setNames(
        _ names: [String], of key: DatabaseValue, _ named: NamedRelationship, isNew: Bool, _ db: Database,
        cache: inout NameCache
    ) throws -> [String] {
        var keys: [DatabaseValue] = []
        var stored: [String] = []
        for name in names {
            let destinationKey: DatabaseValue
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
        let table = named.table.name
        if !isNew {
            let current = try DatabaseValue.fetchAll(
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
        return Self.sortedNames(stored)
    }

    /// ``setNames(_:of:_:isNew:_:cache:)`` without a cache: one change.
    func setNames(
        _ names: [String], of key: DatabaseValue, _ named: NamedRelationship, isNew: Bool, _ db: Database
    ) throws -> [String] {
        var cache = NameCache()
        return try setNames(names, of: key, named, isNew: isNew, db, cache: &cache)
    }

    /// The stored baselines of the derived attributes of the object whose
    /// primary key is `key`, by attribute position (nil elsewhere, and for
    /// an object not stored).
    func baselines(of key: DatabaseValue, _ db: Database) throws -> [AttributeValue?] {
        var baselines = [AttributeValue?](repeating: nil, count: entity.attributes.count)
        var columns: [String] = []
        var positions: [Int] = []
        for index in entity.attributes.indices where entity.attributes[index].derivation != nil {
            columns.append("\"\(entity.attributes[index].baselineColumnName)\"")
            positions.append(index)
        }
        if columns.isEmpty { return baselines }
        let sql =
            "SELECT \(columns.joined(separator: ", ")) FROM \"\(entity.tableName)\" "
            + "WHERE \"\(entity.primaryKeyColumn)\" = ?"
        guard let row = try Row.fetchOne(db, sql: sql, arguments: [key]) else { return baselines }
        for column in positions.indices {
            let value: DatabaseValue = row[column]
            if value.isNull { continue }
            let index = positions[column]
            baselines[index] = try decode(value, entity.attributes[index], index, label: { "" })
        }
        return baselines
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
    func checkDeleteRules(of key: DatabaseValue, label: String, _ db: Database) throws {
        for relationship in entity.relationships where relationship.deleteRule == .deny {
            let count: Int
            if let link = model.linkColumn(inverseOf: relationship), let destination = model[relationship.destination] {
                count =
                    try Int.fetchOne(
                        db, sql: "SELECT count(*) FROM \"\(destination.tableName)\" WHERE \"\(link.name)\" = ?",
                        arguments: [key]) ?? 0
            } else if let table = model.joinTable(for: relationship, of: entity) {
                let (near, _) = table.columns(from: relationship, of: entity)
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
    func uniqueConflict(_ record: Record, _ db: Database)
        throws -> (attribute: AttributeDescription, value: AttributeValue, rowid: Int64, holder: String)?
    {
        let table = "\"\(entity.tableName)\""
        let key = record.primaryKey.map(\.databaseValue) ?? .null
        let labelColumns = [entity.keyAttribute, entity.nameAttribute].map { $0.map { "\"\($0)\"" } ?? "NULL" }
        for (index, attribute) in entity.attributes.enumerated() where attribute.isUnique && !attribute.isPrimaryKey {
            guard let value = record.values[index] else { continue }
            let row = try Row.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT rowid, \(labelColumns.joined(separator: ", ")), "\(entity.primaryKeyColumn)" FROM \(table) \
                        WHERE "\(attribute.columnName)" = ? AND "\(entity.primaryKeyColumn)" IS NOT ?
                        """),
                arguments: [try databaseValue(value, at: index), key])
            guard let row else { continue }
            // Named by what the two do not share: the holder's key is the
            // value in conflict when the key is the unique attribute.
            let holder = Record.label(
                key: attribute.name == entity.keyAttribute ? nil : row[1] as String?, name: row[2] as String?,
                fallback: "\(row[3] as DatabaseValue)")
            return (attribute, value, row[0], holder)
        }
        return nil
    }

    /// The destination object called `name` (matched as its name
    /// attribute compares), created when there is none.
    /// - Throws: ``ValidationError`` when a new one would be invalid.
    func findOrCreate(_ name: String, _ named: NamedRelationship, _ db: Database)
        throws -> (key: DatabaseValue, name: String)
    {
        let destination = named.destination
        let keyColumn = destination.primaryKeyColumn
        if let row = try Row.fetchOne(
            db.cachedStatement(
                sql:
                    "SELECT \"\(keyColumn)\", \"\(named.nameColumn)\" FROM \"\(destination.tableName)\" WHERE \"\(named.nameColumn)\" = ?"
            ), arguments: [name])
        {
            return (row[0] as DatabaseValue, row[1] as String)
        }
        var object = Record(entity: destination)
        if let nameAttribute = destination.nameAttribute { object[nameAttribute] = .string(name) }
        if let id = destination.primaryKeyAttribute, id.type == .uuid { object[id.name] = .uuid(UUID()) }
        try destination.validate(object)
        let codec = try EntityCodec(destination, in: model, transformers: registry)
        let saved = try codec.save(object, isNew: true, db)
        return (codec.linkValue(saved.primaryKey), name)
    }
}

extension AttributeValue {
    /// The stored form of a primary key's value (a UUID as upper-case
    /// text, a number as itself).
    var databaseValue: DatabaseValue {
        switch self {
        case .uuid(let id): id.uuidString.databaseValue
        case .integer(let number): number.databaseValue
        case .string(let text), .uri(let text): text.databaseValue
        default: .null
        }
    }
}

/// Objects found by name within one transaction, by relationship and
/// name: bounded, so that a file naming a million different tags keeps
/// memory flat (past the limit it starts again).
struct NameCache {
    static let limit = 4096
    private(set) var entries: [String: (DatabaseValue, String)] = [:]

    mutating func insert(_ entry: (DatabaseValue, String), for key: String) {
        if entries.count >= Self.limit { entries.removeAll(keepingCapacity: true) }
        entries[key] = entry
    }
}
