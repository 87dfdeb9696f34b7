import Foundation

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
    /// How the backend spells the SQL the codec prepares.
    let dialect: SQLDialect
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
    /// The columns of ``insertSQL``, in its order (a batched insert names
    /// the same ones).
    let insertColumns: [String]
    /// Every stored attribute but the primary key and derived ones.
    let updateSQL: String
    /// The same, and the baselines of derived attributes (an import sets
    /// them: the counts a file brings are the baseline).
    let updateWithBaselinesSQL: String
    /// The columns ``updateWithBaselinesSQL`` sets, in its order (a
    /// batched update names the same ones).
    let updateWithBaselinesColumns: [String]

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

    init(
        _ entity: EntityDescription, in model: ObjectModel, transformers registry: ValueTransformerRegistry,
        dialect: SQLDialect
    ) throws {
        self.model = model
        self.dialect = dialect
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
            selected.append(Self.namesSubquery(named, key: key, dialect))
        }
        selectedAttributeColumns = attributeColumns
        selectedNameColumns = nameColumns
        fromClause = " FROM \"\(table)\" " + joins.listed(separator: " ")
        selection = "SELECT " + selected.listed(separator: ", ") + fromClause

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
        self.insertColumns = insertColumns
        func quoted(_ columns: [String]) -> String { columns.map { "\"\($0)\"" }.listed(separator: ", ") }
        insertSQL =
            "INSERT INTO \"\(table)\" (\(quoted(insertColumns))) VALUES ("
            + Array(repeating: "?", count: insertColumns.count).listed(separator: ", ") + ")"
        func update(_ columns: [String]) -> String {
            "UPDATE \"\(table)\" SET " + columns.map { "\"\($0)\" = ?" }.listed(separator: ", ")
                + " WHERE \"\(entity.primaryKeyColumn)\" = ?"
        }
        updateSQL = update(updateColumns)
        updateWithBaselinesSQL = update(updateColumns + baselineColumns)
        updateWithBaselinesColumns = updateColumns + baselineColumns
    }

    /// The names of `named`'s objects for the row whose primary key is
    /// `key` (a qualified column), joined by U+001F (names cannot hold
    /// control characters).
    static func namesSubquery(_ named: NamedRelationship, key: String, _ dialect: SQLDialect) -> String {
        dialect.joined(
            "d.\"\(named.nameColumn)\"", dialect.character(31),
            """
            FROM "\(named.table.name)" AS j \
            JOIN "\(named.destination.tableName)" AS d ON d."\(named.destination.primaryKeyColumn)" = j."\(named.far)" \
            WHERE j."\(named.near)" = \(key)
            """, nil)
    }

    // MARK: - Rows to records

    /// Decodes a row selected with ``selection``.
    /// - Throws: `DatabaseError` for unreadable columns, ``CatalogError``
    ///   `.storeIO` for values no save could have written.
    func decode(_ row: StoreRow) throws -> Record {
        var record = Record(entity: entity, values: Array(repeating: nil, count: entity.attributes.count))
        var column = 0
        if entity.primaryKeyAttribute == nil {
            record.rowKey = try row.decode(Int64?.self, atIndex: column)
            column += 1
        }
        for (index, attribute) in entity.attributes.enumerated() {
            defer { column += 1 }
            let value = row[column] as StoreValue
            if attribute.type == .binaryData {
                defer { column += 2 }
                guard let sha256 = String.fromStoreValue(value) else { continue }
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
            let value = row[column] as StoreValue
            column += 1
            if value.isNull { continue }
            record.links[index] =
                link.destination.primaryKeyAttribute?.type == .uuid
                // By hand first, as for attributes below: `UUID(uuidString:)`
                // parses with `sscanf` (0.8 M instructions for `history`'s
                // 50 wears).
                ? String.fromStoreValue(value).flatMap { UUID(parsing: $0) ?? UUID(uuidString: $0) }
                    .map(AttributeValue.uuid)
                : Int64.fromStoreValue(value).map(AttributeValue.integer)
        }
        for named in namedRelationships {
            let joined = String.fromStoreValue(row[column] as StoreValue)
            column += 1
            record.names[named.relationship.name] = Self.sortedNames(
                joined.map { $0.split(separator: "\u{1F}", omittingEmptySubsequences: false).map(String.init) } ?? [])
        }
        return record
    }

    /// Decodes a row image of the undo history: the table's stored
    /// columns, named by `columns`. Binary data is described by its
    /// blob (which the history keeps while an image refers to it).
    func decodeImage(_ row: StoreRow, columns: [String], _ db: any StoreSession) throws -> Record {
        var record = Record(entity: entity, values: Array(repeating: nil, count: entity.attributes.count))
        var positions: [String: Int] = [:]
        for (position, column) in columns.enumerated() { positions[column] = position }
        if entity.primaryKeyAttribute == nil, let position = positions["pk"] {
            record.rowKey = try row.decode(Int64?.self, atIndex: position)
        }
        for (index, attribute) in entity.attributes.enumerated() {
            guard let position = positions[attribute.columnName] else { continue }
            let value = row[position] as StoreValue
            if value.isNull { continue }
            if attribute.type == .binaryData {
                guard let sha256 = String.fromStoreValue(value) else { continue }
                let blob = try StoreRow.fetchOne(
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

    private func decode(_ value: StoreValue, _ attribute: AttributeDescription, _ index: Int, label: () -> String)
        throws -> AttributeValue
    {
        func invalid() -> CatalogError {
            CatalogError(.storeIO, "the store holds an invalid \(attribute.name) for \(label()): \(value)")
        }
        switch attribute.type {
        case .string:
            guard let text = String.fromStoreValue(value) else { throw invalid() }
            return .string(text)
        case .uri:
            guard let text = String.fromStoreValue(value) else { throw invalid() }
            return .uri(text)
        case .uuid:
            // The canonical form by hand first: `UUID(uuidString:)` costs
            // 17,000 instructions a call (`sscanf`), and `history` reads
            // one a wear.
            guard let text = String.fromStoreValue(value), let id = UUID(parsing: text) ?? UUID(uuidString: text)
            else { throw invalid() }
            return .uuid(id)
        case .double:
            guard let number = Double.fromStoreValue(value) else { throw invalid() }
            return .double(number)
        case .integer32:
            guard let number = Int64.fromStoreValue(value) else { throw invalid() }
            return .integer(number)
        case .boolean:
            guard let flag = Bool.fromStoreValue(value) else { throw invalid() }
            return .bool(flag)
        case .date:
            guard let seconds = Double.fromStoreValue(value) else { throw invalid() }
            return .date(Date(timeIntervalSince1970: seconds))
        case .transformable:
            guard let data = Data.fromStoreValue(value) else { throw invalid() }
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
    func storeValue(_ value: AttributeValue?, at index: Int) throws -> StoreValue {
        guard let value else { return .null }
        switch value {
        case .string(let text), .uri(let text): return text.storeValue
        case .uuid(let id): return id.uuidString.storeValue
        case .double(let number): return number.storeValue
        case .integer(let number): return number.storeValue
        case .bool(let flag): return flag.storeValue
        case .date(let date): return date.timeIntervalSince1970.storeValue
        case .blob(let info): return info.sha256.storeValue
        case .color:
            return try transformer(at: index).transformedValue(value).storeValue
        }
    }

    func linkValue(_ value: AttributeValue?) -> StoreValue {
        value?.storeValue ?? .null
    }

    /// The arguments of ``insertSQL``.
    func insertArguments(_ record: Record) throws -> StoreArguments {
        var values: [StoreValue] = []
        var baselines: [StoreValue] = []
        for index in entity.attributes.indices {
            let value = try storeValue(record.values[index], at: index)
            values.append(value)
            if entity.attributes[index].derivation != nil { baselines.append(value) }
        }
        values += links.map { linkValue(record.links[$0.index]) }
        return StoreArguments(values + baselines)
    }

    /// The arguments of ``updateSQL`` or ``updateWithBaselinesSQL``.
    func updateArguments(_ record: Record, baselines: Bool) throws -> StoreArguments {
        var values: [StoreValue] = []
        var baselineValues: [StoreValue] = []
        for (index, attribute) in entity.attributes.enumerated() where !attribute.isPrimaryKey {
            let value = try storeValue(record.values[index], at: index)
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
        return StoreArguments(values + [linkValue(key)])
    }

    /// The stored baselines of the derived attributes of the object whose
    /// primary key is `key`, by attribute position (nil elsewhere, and for
    /// an object not stored).
    func baselines(of key: StoreValue, _ db: any StoreSession) throws -> [AttributeValue?] {
        if baselineColumns.isEmpty { return [AttributeValue?](repeating: nil, count: entity.attributes.count) }
        let sql =
            "SELECT \(baselineColumns.joined(separator: ", ")) FROM \"\(entity.tableName)\" "
            + "WHERE \"\(entity.primaryKeyColumn)\" = ?"
        guard let row = try StoreRow.fetchOne(db, sql: sql, arguments: [key]) else {
            return [AttributeValue?](repeating: nil, count: entity.attributes.count)
        }
        return try baselines(from: row, at: 0)
    }

    /// The baseline columns of the derived attributes, quoted, in
    /// attribute order: what ``baselines(from:at:)`` reads.
    var baselineColumns: [String] {
        entity.attributes.filter { $0.derivation != nil }.map { "\"\($0.baselineColumnName)\"" }
    }

    /// The baselines ``baselineColumns`` selected, from `row`'s column
    /// `first` on, by attribute position (nil elsewhere).
    func baselines(from row: StoreRow, at first: Int) throws -> [AttributeValue?] {
        var baselines = [AttributeValue?](repeating: nil, count: entity.attributes.count)
        var column = first
        for index in entity.attributes.indices where entity.attributes[index].derivation != nil {
            defer { column += 1 }
            let value: StoreValue = row[column]
            if value.isNull { continue }
            baselines[index] = try decode(value, entity.attributes[index], index, label: { "" })
        }
        return baselines
    }
}

extension AttributeValue {
    /// The stored form of a primary key's value (a UUID as upper-case
    /// text, a number as itself).
    var storeValue: StoreValue {
        switch self {
        case .uuid(let id): id.uuidString.storeValue
        case .integer(let number): number.storeValue
        case .string(let text), .uri(let text): text.storeValue
        default: .null
        }
    }
}
