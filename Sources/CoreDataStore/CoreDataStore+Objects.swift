import Foundation

extension CoreDataStore {
    /// A property of an entity as the dump writes it.
    public struct Property: Sendable, Equatable {
        public enum Kind: Sendable, Equatable {
            case attribute(CoreDataModel.Attribute)
            case relationship(CoreDataModel.Relationship)
        }
        public var name: String
        public var kind: Kind
    }

    /// What is read for each object of an entity: stored attributes and
    /// relationships, by name (transient attributes are not stored).
    public func properties(of entity: CoreDataModel.Entity) -> [Property] {
        var result: [Property] = []
        for attribute in entity.attributes where !attribute.isTransient {
            result.append(Property(name: attribute.name, kind: .attribute(attribute)))
        }
        for relationship in entity.relationships {
            result.append(Property(name: relationship.name, kind: .relationship(relationship)))
        }
        return result.sorted { $0.name < $1.name }
    }

    /// Calls `body` with every object of `entities` (each with its
    /// sub-entities; every entity when `nil`), table by table in `Z_PK`
    /// order: one row in memory at a time.
    /// - Throws: ``CoreDataError`` for an unknown entity name, a damaged
    ///   page, or a value that cannot be decoded (located by table, row
    ///   and column); or what `body` throws.
    public func forEachObject(
        of entities: [String]?, _ body: (CoreDataObject) throws -> Void
    ) throws {
        var selected: Set<String> = []
        if let entities {
            for name in entities {
                guard model.entity(named: name) != nil else {
                    throw CoreDataError(
                        .noSuchEntity,
                        "no entity \"\(name)\"; the store has "
                            + model.entities.map(\.name).joined(separator: ", "),
                        file: displayName)
                }
                selected.formUnion(model.entityAndDescendants(name).map(\.name))
            }
        } else {
            selected = Set(model.entities.map(\.name))
        }
        var tables: [String] = []
        for entity in model.entities where selected.contains(entity.name) {
            if let table = table(of: entity.name), !tables.contains(table) { tables.append(table) }
        }
        for table in tables {
            try forEachObject(in: table, selected: selected, body)
        }
    }

    private func forEachObject(
        in table: String, selected: Set<String>, _ body: (CoreDataObject) throws -> Void
    ) throws {
        let statement = try reader.prepare("SELECT * FROM \(quotedIdentifier(table)) ORDER BY Z_PK")
        var columnIndex: [String: Int] = [:]
        for index in 0..<statement.columnCount {
            columnIndex[statement.columnName(index).uppercased()] = index
        }
        guard let pkColumn = columnIndex["Z_PK"], let entityColumn = columnIndex["Z_ENT"] else {
            throw CoreDataError(.damaged, "no Z_PK or Z_ENT column", file: displayName, at: "table \(table)")
        }
        // By Z_ENT: the entity and its plan, or nil when not selected;
        // looked up by number, so that no row hashes a name.
        var plans: [Int: (entity: CoreDataModel.Entity, plan: EntityPlan)?] = [:]
        let relationships = RelationshipReader(store: self)
        var values: [CoreDataValue] = []
        while try statement.step() {
            let number = Int(statement.int64(entityColumn))
            if plans[number] == nil {
                if let name = entityNames[number], selected.contains(name), let entity = model.entity(named: name) {
                    plans[number] = (entity, EntityPlan(properties: properties(of: entity), columnIndex: columnIndex))
                } else {
                    plans[number] = .some(nil)
                }
            }
            guard let found = plans[number], let (entity, plan) = found else { continue }
            let pk = statement.int64(pkColumn)
            // The same storage every row: the object passed to `body` is
            // gone when it returns, so nothing is reallocated.
            values.removeAll(keepingCapacity: true)
            for index in plan.slots.indices {
                switch plan.slots[index] {
                case .missing:
                    values.append(.null)
                case .attribute(let attribute, let column):
                    values.append(
                        try value(
                            of: attribute, statement.value(column),
                            at: "table \(table), row \(pk), column \(attribute.column)"))
                case .relationship(let relationship):
                    values.append(
                        try relationships.value(
                            of: relationship, entity: entity, pk: pk, statement: statement, columnIndex: columnIndex))
                }
            }
            try body(CoreDataObject(entity: entity.name, pk: pk, values: values))
        }
    }

    /// How each property of one entity is read from the table's rows.
    struct EntityPlan {
        /// A property and where its value is; an attribute's by reference,
        /// so that the row loop copies none of its strings.
        enum Slot {
            case missing
            case attribute(AttributeSlot, column: Int)
            case relationship(CoreDataModel.Relationship)
        }

        var slots: [Slot]

        init(properties: [Property], columnIndex: [String: Int]) {
            slots = properties.map { property in
                switch property.kind {
                case .attribute(let attribute):
                    guard let column = columnIndex[attribute.column] else { return .missing }
                    return .attribute(AttributeSlot(attribute), column: column)
                case .relationship(let relationship):
                    return .relationship(relationship)
                }
            }
        }
    }

    /// What reading an attribute's value needs, held by reference.
    final class AttributeSlot {
        let type: CoreDataModel.AttributeType
        let allowsExternalStorage: Bool?
        let column: String

        init(_ attribute: CoreDataModel.Attribute) {
            type = attribute.type
            allowsExternalStorage = attribute.allowsExternalStorage
            column = attribute.column
        }
    }

    /// An attribute's column value, typed by the model.
    func value(
        of attribute: AttributeSlot, _ stored: SQLiteValue, at place: @autoclosure () -> String
    ) throws(CoreDataError) -> CoreDataValue {
        if case .null = stored { return .null }
        switch attribute.type {
        case .integer16, .integer32, .integer64:
            if case .integer(let value) = stored { return .integer(value) }
        case .double, .float, .decimal:
            if let value = stored.double { return .real(value) }
        case .string:
            if let text = stored.text { return .string(text) }
        case .uri:
            if let text = stored.text { return .uri(text) }
        case .boolean:
            if let value = stored.int64 { return .bool(value != 0) }
        case .date:
            if let value = stored.double { return .date(value) }
        case .uuid:
            if case .blob(let bytes) = stored, bytes.count == 16 { return .uuid(UUID(uuid: UUIDBytes.tuple(bytes))) }
            if case .text(let text) = stored, let uuid = UUID(uuidString: text) { return .uuid(uuid) }
        case .binary, .transformable, .undefined, .objectID, .composite:
            break
        }
        switch stored {
        case .null: return .null
        case .integer(let value): return .integer(value)
        case .real(let value): return .real(value)
        case .text(let text): return .string(text)
        case .blob(let bytes):
            var data = bytes
            if let external = try externalValue(bytes, attribute: attribute) {
                guard case .external(_, let contents?) = external, attribute.type == .transformable else {
                    return external
                }
                data = contents
            } else if attribute.allowsExternalStorage == true, data.first == 0x01 {
                data = data.dropFirst()
            }
            if attribute.type == .transformable, data.starts(with: BinaryPlistObjects.magic) {
                do {
                    let archive = try KeyedArchive(data: data, file: displayName)
                    return .archived(try archive.decodeRoot(), raw: Data(data))
                } catch {
                    throw error.located(in: place(), file: displayName)
                }
            }
            return .binary(Data(data))
        }
    }

    /// The folder Core Data keeps external binary values in:
    /// `.<StoreName>_SUPPORT/_EXTERNAL_DATA/` beside the store.
    public var externalDataFolder: URL {
        let url = URL(fileURLWithPath: path)
        let storeName = url.deletingPathExtension().lastPathComponent
        return url.deletingLastPathComponent()
            .appendingPathComponent(".\(storeName)_SUPPORT", isDirectory: true)
            .appendingPathComponent("_EXTERNAL_DATA", isDirectory: true)
    }

    /// `0x02` and a UUID in ASCII (a NUL after it or not): the value lives
    /// in a file of ``externalDataFolder``. Recognised whatever the model
    /// says, since no other value of a Binary column has this shape.
    private func externalValue(_ bytes: Data, attribute: AttributeSlot) throws(CoreDataError) -> CoreDataValue? {
        guard attribute.allowsExternalStorage != false || attribute.type == .binary, bytes.first == 0x02,
            bytes.count == 37 || (bytes.count == 38 && bytes.last == 0)
        else { return nil }
        let name = String(decoding: bytes.dropFirst().prefix(36), as: UTF8.self)
        guard UUID(uuidString: name) != nil else { return nil }
        let file = externalDataFolder.appendingPathComponent(name)
        return .external(name: name, data: FileManager.default.contents(atPath: file.path))
    }
}

/// Reads relationships, with one prepared statement per relationship
/// kept for the whole dump.
final class RelationshipReader {
    private unowned let store: CoreDataStore
    private var statements: [String: SQLiteReader.Statement?] = [:]
    /// `Z<n>_<RELATIONSHIP>`'s index in the row, by relationship name.
    private var entityColumns: [String: Int?] = [:]

    init(store: CoreDataStore) {
        self.store = store
    }

    func value(
        of relationship: CoreDataModel.Relationship, entity: CoreDataModel.Entity, pk: Int64,
        statement: SQLiteReader.Statement, columnIndex: [String: Int]
    ) throws(CoreDataError) -> CoreDataValue {
        guard let destination = relationship.destination else { return .null }
        if !relationship.isToMany {
            // Z<RELATIONSHIP> holds the target's Z_PK; Z<n>_<RELATIONSHIP>
            // its Z_ENT when the destination has sub-entities.
            if let column = columnIndex[relationship.column] {
                guard !statement.isNull(column) else { return .null }
                let target = statement.int64(column)
                var targetEntity = destination
                if let entityColumn = entityColumn(of: relationship, in: columnIndex), !statement.isNull(entityColumn),
                    let name = store.entityNames[Int(statement.int64(entityColumn))]
                {
                    targetEntity = name
                }
                return .object(ObjectReference(entity: targetEntity, pk: target))
            }
            let found = try related(relationship, entity: entity, pk: pk, destination: destination)
            return found.first.map { .object($0) } ?? .null
        }
        return .objects(try related(relationship, entity: entity, pk: pk, destination: destination))
    }

    /// The column that holds a to-one's target entity (`Z1_BOOK`), when
    /// the destination has sub-entities; found once per relationship.
    private func entityColumn(of relationship: CoreDataModel.Relationship, in columnIndex: [String: Int]) -> Int? {
        if let known = entityColumns[relationship.name] { return known }
        let suffix = "_" + relationship.name.uppercased()
        let found = columnIndex.first { $0.key.hasSuffix(suffix) && $0.key.dropFirst().first?.isNumber == true }?.value
        entityColumns[relationship.name] = found
        return found
    }

    /// The objects a relationship without a column of its own reaches:
    /// through the inverse's column in the destination's table, or a
    /// many-to-many join table.
    private func related(
        _ relationship: CoreDataModel.Relationship, entity: CoreDataModel.Entity, pk: Int64, destination: String
    ) throws(CoreDataError) -> [ObjectReference] {
        let key = entity.name + "." + relationship.name
        if statements[key] == nil {
            statements[key] = try prepare(relationship, entity: entity, destination: destination)
        }
        guard let prepared = statements[key], let statement = prepared else { return [] }
        statement.reset()
        statement.bind(pk, at: 1)
        var result: [ObjectReference] = []
        while try statement.step() {
            let target = statement.int64(0)
            let name = store.entityNames[Int(statement.int64(1))] ?? destination
            result.append(ObjectReference(entity: name, pk: target))
        }
        return result
    }

    private func prepare(
        _ relationship: CoreDataModel.Relationship, entity: CoreDataModel.Entity, destination: String
    ) throws(CoreDataError) -> SQLiteReader.Statement? {
        guard let destinationTable = store.table(of: destination),
            let destinationColumns = store.columns[destinationTable]
        else { return nil }
        let inverse = relationship.inverse?.uppercased()
        let inverseEntity = store.model.entity(named: destination)
        let inverseIsToMany = relationship.inverse.flatMap { name in
            inverseEntity?.relationships.first { $0.name == name }?.isToMany
        } ?? false
        let quotedTable = quotedIdentifier(destinationTable)
        if let inverse, !inverseIsToMany, destinationColumns["Z" + inverse] != nil {
            // One-to-many: the destination's rows point back at us; an
            // ordered one keeps the order in Z_FOK_<INVERSE>.
            let order = destinationColumns["Z_FOK_" + inverse] != nil ? "Z_FOK_\(inverse), Z_PK" : "Z_PK"
            return try store.reader.prepare(
                "SELECT Z_PK, Z_ENT FROM \(quotedTable) WHERE \(quotedIdentifier("Z" + inverse)) = ?1 ORDER BY \(order)")
        }
        // Many-to-many: Z_<n><RELATIONSHIP> (or named from the other
        // side), with Z_<n><INVERSE> holding our Z_PK and
        // Z_<m><RELATIONSHIP> the destination's; Z_FOK_<m><RELATIONSHIP>
        // orders an ordered side.
        let name = relationship.name.uppercased()
        let ours = ancestry(entity.name)
        let theirs = ancestry(destination)
        guard let inverse else { return nil }
        for our in ours {
            for their in theirs {
                for table in ["Z_\(our)\(name)", "Z_\(their)\(inverse)"] {
                    guard let join = store.columns[table] else { continue }
                    let source = "Z_\(our)\(inverse)"
                    let target = "Z_\(their)\(name)"
                    guard join[source] != nil, join[target] != nil else { continue }
                    let fok = "Z_FOK_\(target.dropFirst(2))"
                    let order = join[fok] != nil ? "j.\(fok), j.\(target)" : "j.\(target)"
                    return try store.reader.prepare(
                        "SELECT t.Z_PK, t.Z_ENT FROM \(quotedIdentifier(table)) j JOIN \(quotedTable) t "
                            + "ON t.Z_PK = j.\(target) WHERE j.\(source) = ?1 ORDER BY \(order)")
                }
            }
        }
        return nil
    }

    /// The `Z_ENT`s of `entity` and its ancestors, itself first.
    private func ancestry(_ entity: String) -> [Int] {
        var result: [Int] = []
        var current: String? = entity
        while let name = current, let number = store.entityNumbers[name], !result.contains(number) {
            result.append(number)
            current = store.model.entity(named: name)?.parent
        }
        return result
    }
}
