import CoreDataStore
import Foundation
import PropertyList

/// The objects of one entity of a Core Data store as records: each
/// object becomes a dictionary of its attributes, located at the store,
/// the entity and the object's `Z_PK` (`BowTies.sqlite: BowTie p3`), for
/// ``RecordDecoder`` to read with ``ValueSyntax/propertyList`` like any
/// property list's record. Validation, verdicts, dry run, `--update` and
/// undo are the importer's, unchanged.
///
/// - Keys: the attribute's name, or what `--map attribute=field` says;
///   a name the catalog declares in another case (`searchkey`, as a
///   store without `Z_MODELCACHE` spells its columns) is the catalog's
///   (`searchKey`); the photo attribute's name (`photoData`) gives its
///   bytes. Any other name is the importer's unknown key: a warning.
/// - Values: dates from the Apple epoch (seconds since 2001) to
///   `<date>`; a UUID to its text; a colour archived with NSKeyedArchiver
///   (`UIColor`'s `UIRed`… or `NSColor`'s `NSRGB`) to its red, green,
///   blue (0-255) and alpha; Binary bytes inline (`0x01` + bytes). A
///   photo kept in `_EXTERNAL_DATA` is given as an `imageName`, that
///   folder being the import's default images folder: the importer reads
///   it with its checks, and a missing file is its usual warning (another
///   attribute's external value is given as bytes). Null values are left
///   out. Relationships are not read.
/// - A store whose model comes from its tables (no `Z_MODELCACHE`) only
///   says `BLOB` or `INTEGER`: the value is read as the catalog's field
///   wants it, a 16-byte blob as a UUID, 0 or 1 as a Boolean, a
///   `bplist00` blob as an archived colour.
///
/// One object in memory at a time (``CoreDataStore/ObjectCursor``).
final class CoreDataRecordSource: RecordSource {
    /// The entity imported without `--entity`: the BowTies app's.
    static let defaultEntity = "BowTie"

    private let store: CoreDataStore
    private let cursor: CoreDataStore.ObjectCursor
    /// Per property of an entity, in the store's order: the key and the
    /// catalog field it feeds, or nil for a relationship (not read). By
    /// entity: a sub-entity's objects have properties of their own.
    private var slots: [String: [Slot?]] = [:]
    private let map: [String: String]
    /// The catalog's fields by lower-cased name, import key and export
    /// name.
    private let fields: [String: AttributeDescription]
    /// `BowTies.sqlite: BowTie`, by entity: each object of a
    /// sub-entity is located under its own entity's name.
    private var fileNames: [String: SourceLocation.FileName] = [:]
    private let size: Int
    private var done = false

    private struct Slot {
        var key: String
        /// The catalog's attribute the key names, when it names one.
        var field: AttributeDescription?
        /// What the store declares (`Date`, `Binary`...).
        var type: CoreDataModel.AttributeType
    }

    /// - Parameters:
    ///   - entityName: `--entity`; ``defaultEntity`` when nil.
    ///   - map: `--map`: the store's attribute name → the catalog's field.
    ///   - entity: The catalog's entity records are read as.
    ///   - size: The store file's size, for progress.
    /// - Throws: ``ImportError`` when the store has no such entity, or
    ///   `--map` names an attribute it does not have.
    init(
        store: CoreDataStore, entityName: String?, map: [String: String], entity: EntityDescription, size: Int
    ) throws {
        self.store = store
        self.size = size
        let name = entityName ?? Self.defaultEntity
        let entities = store.model.entities.map(\.name)
        guard let storeEntity = store.model.entity(named: name) else {
            throw ImportError(
                location: nil,
                message: "\(store.displayName): the Core Data store has no entity \"\(name)\"; its entities: "
                    + (entities.isEmpty ? "none" : entities.joined(separator: ", ")),
                hint: entityName == nil
                    ? "bowties imports the BowTies app's BowTie entity; --entity NAME imports another, and "
                        + "--map attribute=field names the field each attribute fills."
                    : "`bowties coredata inspect \(store.displayName)` lists the entities and their attributes.")
        }
        let properties = store.properties(of: storeEntity)
        for source in map.keys.sorted() where !properties.contains(where: { $0.name == source }) {
            let names = properties.compactMap { property -> String? in
                if case .attribute = property.kind { return property.name }
                return nil
            }
            throw ImportError(
                location: nil,
                message:
                    "--map \(source)=\(map[source] ?? ""): \(name) has no attribute \"\(source)\"; its attributes: "
                    + names.joined(separator: ", "),
                hint: "--map takes the store's attribute name, then = and the catalog's field (title=name).")
        }
        // The catalog's fields by name, in any case: the key a record
        // gives them (the photo's bytes go under its export name).
        var fields: [String: AttributeDescription] = [:]
        for attribute in entity.attributes {
            for key in [attribute.name, attribute.importKey, attribute.exportName] {
                fields[key.lowercased()] = fields[key.lowercased()] ?? attribute
            }
        }
        self.fields = fields
        self.map = map
        cursor = try store.objects(of: name)
    }

    /// The store is read by SQLite, not byte by byte: progress counts it
    /// at the end.
    var bytesConsumed: Int { done ? size : 0 }

    func next() throws -> PropertyListItem? {
        guard let object = try cursor.next() else {
            done = true
            return nil
        }
        let fileName = fileNames[object.entity] ?? SourceLocation.FileName("\(store.displayName): \(object.entity)")
        fileNames[object.entity] = fileName
        let location = SourceLocation(fileName: fileName, objectNumber: Int(object.pk))
        let slots = try slots(of: object.entity)
        var entries: [PropertyListDictionary.Entry] = []
        entries.reserveCapacity(slots.count)
        for (slot, value) in zip(slots, object.values) {
            guard let slot else { continue }
            // A photo in _EXTERNAL_DATA (the import's images folder) goes
            // by its file's name, as an imageName does: read from there,
            // and a missing file is the usual warning.
            if case .external(let name, _) = value, let field = slot.field, field.type == .binaryData {
                entries.append(
                    .init(key: field.importKey, keyLocation: location, item: .init(.string(name), at: location)))
                continue
            }
            let item: PropertyListValue?
            do {
                item = try Self.item(value, for: slot, file: store.displayName, at: location)
            } catch let error as CoreDataError {
                // The archive's own place (a byte offset) after the object's.
                throw ImportError(
                    location: location, field: slot.key,
                    message: (error.location.map { "\($0): " } ?? "") + error.message)
            }
            guard let item else { continue }
            entries.append(.init(key: slot.key, keyLocation: location, item: .init(item, at: location)))
        }
        return PropertyListItem(.dictionary(PropertyListDictionary(entries: entries)), at: location)
    }

    /// What each of `entity`'s properties gives, made once per entity.
    private func slots(of entity: String) throws -> [Slot?] {
        if let known = slots[entity] { return known }
        guard let description = store.model.entity(named: entity) else { return [] }
        let made = store.properties(of: description).map { property -> Slot? in
            guard case .attribute(let attribute) = property.kind else { return nil }
            let target = map[property.name] ?? property.name
            guard let field = fields[target.lowercased()] else {
                return Slot(key: target, field: nil, type: attribute.type)
            }
            let key = field.type == .binaryData ? field.exportName : field.name
            return Slot(key: key, field: field, type: attribute.type)
        }
        slots[entity] = made
        return made
    }

    /// A stored value as a record's value; nil for none.
    private static func item(
        _ value: CoreDataValue, for slot: Slot, file: String, at location: SourceLocation
    ) throws -> PropertyListValue? {
        let wanted = slot.field?.type
        switch value {
        case .null, .object, .objects:
            return nil
        case .integer(let number):
            if wanted == .boolean, number == 0 || number == 1 { return .bool(number == 1) }
            if wanted == .date { return .date(Date(timeIntervalSinceReferenceDate: Double(number))) }
            return .integer(number)
        case .real(let number):
            if wanted == .date { return .date(Date(timeIntervalSinceReferenceDate: number)) }
            return .real(number)
        case .string(let text), .uri(let text):
            return .string(text)
        case .bool(let flag):
            return .bool(flag)
        case .date(let seconds):
            return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case .uuid(let id):
            return .string(id.uuidString)
        case .external(let name, let data):
            guard let data else {
                throw CoreDataError(
                    .damaged,
                    "the value is stored outside the database, in _EXTERNAL_DATA/\(name), and that file is missing",
                    file: file)
            }
            return .data(data)
        case .archived(let archived, _):
            return plistValue(archived, at: location)
        case .binary(var bytes):
            if wanted == .uuid, bytes.count == 16 {
                return .string(UUID(uuid: bytes.withUnsafeBytes { $0.loadUnaligned(as: uuid_t.self) }).uuidString)
            }
            if wanted == .transformable, bytes.starts(with: Array("bplist00".utf8)) {
                return plistValue(try KeyedArchive(data: bytes, file: file).decodeRoot(), at: location)
            }
            // Inline external-storage bytes keep their marker when the
            // model does not say the attribute allows external storage.
            if wanted == .binaryData, bytes.first == 0x01 { bytes.removeFirst() }
            return .data(bytes)
        }
    }

    /// An archived value as a property-list value: a colour as the
    /// `<dict>` of red, green, blue (0-255) and alpha the importer reads.
    /// Nested values have no place of their own: they are located at
    /// their object.
    private static func plistValue(_ value: ArchivedValue, at location: SourceLocation) -> PropertyListValue? {
        func items(_ values: [ArchivedValue]) -> [PropertyListItem] {
            values.compactMap { value in plistValue(value, at: location).map { PropertyListItem($0, at: location) } }
        }
        switch value {
        case .null: return nil
        case .bool(let flag): return .bool(flag)
        case .integer(let number): return .integer(number)
        case .real(let number): return .real(number)
        case .string(let text), .url(let text): return .string(text)
        case .data(let bytes): return .data(bytes)
        case .date(let seconds): return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case .uuid(let id): return .string(id.uuidString)
        case .object(let className): return .string(className)
        case .array(let values), .set(let values): return .array(items(values))
        case .dictionary(let pairs):
            var entries: [PropertyListDictionary.Entry] = []
            for pair in pairs {
                guard let item = plistValue(pair.value, at: location) else { continue }
                let key: String
                switch pair.key {
                case .string(let text): key = text
                default: key = "\(pair.key)"
                }
                entries.append(.init(key: key, keyLocation: location, item: .init(item, at: location)))
            }
            return .dictionary(PropertyListDictionary(entries: entries))
        case .color(let red, let green, let blue, let alpha):
            func byte(_ component: Double) -> Int64 {
                component.isFinite ? Int64((min(max(component, 0), 1) * 255).rounded()) : 0
            }
            var entries: [PropertyListDictionary.Entry] = [
                .init(key: "red", keyLocation: location, item: .init(.integer(byte(red)), at: location)),
                .init(key: "green", keyLocation: location, item: .init(.integer(byte(green)), at: location)),
                .init(key: "blue", keyLocation: location, item: .init(.integer(byte(blue)), at: location)),
            ]
            if alpha.isFinite, alpha < 1 {
                entries.append(
                    .init(key: "alpha", keyLocation: location, item: .init(.real(max(alpha, 0)), at: location)))
            }
            return .dictionary(PropertyListDictionary(entries: entries))
        }
    }
}
