import Foundation

/// A Core Data SQLite store, opened for reading only.
///
///     let store = try CoreDataStore(path: "Model.sqlite")
///     store.uuid                      // "C9CB0B35-…"
///     store.model.entities.map(\.name) // ["Book", "GraphicNovel", …]
///     try store.forEachObject(of: nil) { object in … }
///
/// **Reads never write.** A store is never opened in place for writing,
/// and even SQLite's read-only open of a WAL-mode database rewrites the
/// `-shm` file, creates `-wal` and `-shm` when they are missing, and
/// fails in a folder the user cannot write. So:
/// - when the store has a non-empty `-wal` (rows Core Data has not yet
///   checkpointed into the `.sqlite`), the `.sqlite` and `-wal` are
///   copied into a private temporary folder and the copy is opened:
///   SQLite replays the WAL there, the user's files are only read;
/// - otherwise the file is opened in place with `immutable=1`: no lock,
///   no journal, nothing written.
/// The copy costs one read of the two files (a few milliseconds for
/// stores of megabytes); `immutable=1` on a store with a WAL would
/// silently miss its rows (the 5,000 rows of the SurfJournal store).
///
/// The model comes from `Z_MODELCACHE` when the store has one, otherwise
/// from `Z_PRIMARYKEY` and the tables (``CoreDataModel/Source``).
public final class CoreDataStore {
    /// The store's path as given.
    public let path: String
    /// The name errors give: the path as the user typed it.
    public let displayName: String
    /// `Z_METADATA.Z_UUID`.
    public let uuid: String
    public let metadata: Metadata
    public let model: CoreDataModel
    /// `Z_PRIMARYKEY`: entity name → `Z_ENT`.
    public let entityNumbers: [String: Int]
    /// `Z_ENT` → entity name (persistent-history entities included).
    public let entityNames: [Int: String]
    /// Frames in the `-wal` file not yet checkpointed, 0 without one.
    public let walFrames: Int
    /// Persistent-history tables present (`ATRANSACTION`, `ACHANGE`, …).
    public let historyTables: [String]

    let reader: SQLiteReader
    /// The tables, their columns and each column's declared type
    /// (table and column names upper-cased).
    let columns: [String: [String: String]]
    /// The temporary copy, removed with the store.
    private let temporaryFolder: URL?

    /// What `Z_METADATA.Z_PLIST` says.
    public struct Metadata: Sendable, Equatable {
        public var storeType: String?
        /// `NSPersistenceFrameworkVersion` (`1344`), as text.
        public var frameworkVersion: String?
        public var modelVersionIdentifiers: [String]
        /// `NSStoreModelVersionHashes`: the entities the store was made for.
        public var versionHashEntities: [String]
    }

    /// Opens the store at `path` for reading.
    /// - Parameters:
    ///   - path: The `.sqlite` file.
    ///   - displayName: The name errors give; `path` by default.
    /// - Throws: ``CoreDataError``: `.storeNotFound`, `.unreadable`,
    ///   `.notCoreData` or `.damaged`, naming the file and, inside it,
    ///   the table or blob at fault.
    public init(path: String, displayName: String? = nil) throws(CoreDataError) {
        let name = displayName ?? path
        self.path = path
        self.displayName = name
        try Self.checkFile(path, name: name)
        let wal = path + "-wal"
        let walSize = (try? FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int) ?? 0
        var temporary: URL?
        let reader: SQLiteReader
        if walSize > 32 {
            let folder = try Self.copyWithWAL(path, name: name)
            temporary = folder
            do throws(CoreDataError) {
                reader = try SQLiteReader(
                    path: folder.appendingPathComponent("store.sqlite").path, uri: false, readOnly: true, file: name)
            } catch {
                try? FileManager.default.removeItem(at: folder)
                throw error
            }
        } else {
            reader = try SQLiteReader(path: Self.immutableURI(path), uri: true, readOnly: true, file: name)
        }
        self.reader = reader
        temporaryFolder = temporary
        do throws(CoreDataError) {
            // Each page size is a power of two from 512; a frame is a
            // 24-byte header and a page.
            let pageSize = try reader.rows("PRAGMA page_size").first?.first?.int64 ?? 4096
            walFrames = walSize > 32 ? (walSize - 32) / (Int(pageSize) + 24) : 0

            var columns: [String: [String: String]] = [:]
            for row in try reader.rows("SELECT name FROM sqlite_master WHERE type = 'table'") {
                guard let table = row.first?.text else { continue }
                var types: [String: String] = [:]
                for column in try reader.rows("PRAGMA table_info(\(quotedIdentifier(table)))") {
                    if column.count > 2, let columnName = column[1].text {
                        types[columnName.uppercased()] = column[2].text?.uppercased() ?? ""
                    }
                }
                columns[table.uppercased()] = types
            }
            self.columns = columns
            guard columns["Z_METADATA"] != nil, columns["Z_PRIMARYKEY"] != nil else {
                throw CoreDataError(
                    .notCoreData,
                    "an SQLite database, but not a Core Data store: it has no Z_METADATA and Z_PRIMARYKEY tables",
                    file: name)
            }

            // Z_PRIMARYKEY
            var numbers: [String: Int] = [:]
            var names: [Int: String] = [:]
            var supers: [Int: Int] = [:]
            for row in try reader.rows("SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY ORDER BY Z_ENT") {
                guard row.count == 3, let number = row[0].int64, let entity = row[1].text else {
                    throw CoreDataError(.damaged, "a row without Z_ENT or Z_NAME", file: name, at: "Z_PRIMARYKEY")
                }
                numbers[entity] = Int(number)
                names[Int(number)] = entity
                supers[Int(number)] = Int(row[2].int64 ?? 0)
            }
            entityNames = names
            historyTables = names.filter { $0.key >= 16000 }.sorted { $0.key < $1.key }
                .map { "A" + $0.value.uppercased() }.filter { columns[$0] != nil }
            let persistentNumbers = numbers.filter { $0.value < 16000 }
            entityNumbers = persistentNumbers

            // Z_METADATA
            let metadataRows = try reader.rows("SELECT Z_UUID, Z_PLIST FROM Z_METADATA ORDER BY Z_VERSION LIMIT 1")
            guard let metadataRow = metadataRows.first, metadataRow.count == 2 else {
                throw CoreDataError(.damaged, "no metadata row", file: name, at: "Z_METADATA")
            }
            uuid = metadataRow[0].text ?? ""
            guard case .blob(let plist) = metadataRow[1] else {
                throw CoreDataError(.damaged, "Z_PLIST is not a binary property list", file: name, at: "Z_METADATA")
            }
            do {
                metadata = try Self.metadata(plist, file: name)
            } catch {
                throw error.located(in: "Z_METADATA", file: name)
            }

            // The model.
            var cache: Data?
            if columns["Z_MODELCACHE"] != nil,
                case .blob(let blob)? = try reader.rows("SELECT Z_CONTENT FROM Z_MODELCACHE LIMIT 1").first?.first
            {
                cache = blob
            }
            if let cache {
                model = try CoreDataModel.fromModelCache(cache, entityNumbers: persistentNumbers, file: name)
            } else {
                model = Self.modelFromTables(numbers: persistentNumbers, supers: supers, columns: columns)
            }
        } catch {
            if let temporary { try? FileManager.default.removeItem(at: temporary) }
            throw error
        }
    }

    deinit {
        if let temporaryFolder {
            try? FileManager.default.removeItem(at: temporaryFolder)
        }
    }

    /// The table that holds `entity`'s objects: `Z` and its root's
    /// upper-cased name.
    public func table(of entity: String) -> String? {
        let table = "Z" + model.root(of: entity).uppercased()
        return columns[table] != nil ? table : nil
    }

    /// Objects of exactly each entity (its own `Z_ENT`), by name.
    public func objectCounts() throws(CoreDataError) -> [String: Int] {
        var counts: [String: Int] = [:]
        var tables: Set<String> = []
        for entity in model.entities {
            guard let table = table(of: entity.name), tables.insert(table).inserted else { continue }
            for row in try reader.rows("SELECT Z_ENT, COUNT(*) FROM \(quotedIdentifier(table)) GROUP BY Z_ENT") {
                guard row.count == 2, let number = row[0].int64, let count = row[1].int64,
                    let entityName = entityNames[Int(number)]
                else { continue }
                counts[entityName, default: 0] += Int(count)
            }
        }
        return counts
    }

    /// The objectID Core Data gives the object `pk` of `entity`:
    /// `x-coredata://STORE-UUID/Entity/pN`.
    public func objectID(entity: String, pk: Int64) -> String {
        "x-coredata://\(uuid)/\(entity)/p\(pk)"
    }

    // MARK: - Opening

    private static func checkFile(_ path: String, name: String) throws(CoreDataError) {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw CoreDataError(.storeNotFound, "no such file", file: name)
        }
        guard !isFolder.boolValue else {
            throw CoreDataError(.unreadable, "a folder, not a store file", file: name)
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw CoreDataError(.unreadable, "cannot be read (permission denied?)", file: name)
        }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 100)) ?? Data()
        guard !header.isEmpty else {
            throw CoreDataError(.notCoreData, "an empty file, not a Core Data store", file: name)
        }
        let magic = Array("SQLite format 3\u{0}".utf8)
        guard header.prefix(magic.count).elementsEqual(magic.prefix(header.count)) else {
            throw CoreDataError(.notCoreData, "not an SQLite database, so not a Core Data store", file: name, at: "byte 0")
        }
        guard header.count >= 100 else {
            throw CoreDataError(
                .damaged, "truncated: \(header.count) bytes, shorter than an SQLite header", file: name,
                at: "byte \(header.count)")
        }
    }

    /// `file:PATH?immutable=1`, the path percent-encoded.
    private static func immutableURI(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%")
        let encoded = absolute.addingPercentEncoding(withAllowedCharacters: allowed) ?? absolute
        return "file:\(encoded)?immutable=1"
    }

    /// Copies `path` and its `-wal` into a new private folder.
    private static func copyWithWAL(_ path: String, name: String) throws(CoreDataError) -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "bowties-coredata-\(UUID().uuidString)", isDirectory: true)
        do {
            try FileManager.default.createDirectory(
                at: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            // The WAL first: a checkpoint that runs while we copy moves
            // frames into the .sqlite, which we then read after it.
            try FileManager.default.copyItem(atPath: path + "-wal", toPath: folder.appendingPathComponent("store.sqlite-wal").path)
            try FileManager.default.copyItem(atPath: path, toPath: folder.appendingPathComponent("store.sqlite").path)
            for file in ["store.sqlite", "store.sqlite-wal"] {
                try FileManager.default.setAttributes(
                    [.posixPermissions: 0o600], ofItemAtPath: folder.appendingPathComponent(file).path)
            }
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw CoreDataError(
                .unreadable, "cannot copy the store and its -wal to a temporary folder: \(error.localizedDescription)",
                file: name)
        }
        return folder
    }

    private static func metadata(_ data: Data, file: String) throws(CoreDataError) -> Metadata {
        let plist = try BinaryPlistObjects(data, file: file)
        guard let entries = try plist.stringKeyedDictionary(plist.top) else {
            throw CoreDataError(.damaged, "Z_PLIST's root is not a dictionary", file: file)
        }
        var metadata = Metadata(storeType: nil, frameworkVersion: nil, modelVersionIdentifiers: [], versionHashEntities: [])
        if let index = entries["NSStoreType"] { metadata.storeType = try plist.string(index) }
        if let index = entries["NSPersistenceFrameworkVersion"] {
            switch try plist.object(index) {
            case .integer(let value): metadata.frameworkVersion = String(value)
            case .real(let value): metadata.frameworkVersion = ValueText.double(value)
            case .string(let value): metadata.frameworkVersion = value
            default: break
            }
        }
        if let index = entries["NSStoreModelVersionIdentifiers"], case .array(let items) = try plist.object(index) {
            for item in items {
                if let text = try plist.string(item), !text.isEmpty { metadata.modelVersionIdentifiers.append(text) }
            }
        }
        if let index = entries["NSStoreModelVersionHashes"], let hashes = try plist.stringKeyedDictionary(index) {
            metadata.versionHashEntities = hashes.keys.sorted()
        }
        return metadata
    }

    /// The model a store without `Z_MODELCACHE` still shows: entities and
    /// their parents from `Z_PRIMARYKEY`; attributes from the columns
    /// (`ZLOCATION` → `location`, type from the declared type); to-one
    /// relationships from the `Z<n>_` entity columns and indexed integer
    /// columns named after an entity; many-to-many from join tables.
    static func modelFromTables(numbers: [String: Int], supers: [Int: Int], columns: [String: [String: String]])
        -> CoreDataModel
    {
        let names = Dictionary(numbers.map { ($0.value, $0.key) }, uniquingKeysWith: { first, _ in first })
        let upperNames = Dictionary(numbers.keys.map { ($0.uppercased(), $0) }, uniquingKeysWith: { first, _ in first })
        var entities: [CoreDataModel.Entity] = []
        for (name, number) in numbers.sorted(by: { $0.value < $1.value }) {
            var root = number
            var seen: Set<Int> = []
            while let parent = supers[root], parent != 0, seen.insert(root).inserted { root = parent }
            let parent = supers[number].flatMap { $0 == 0 ? nil : names[$0] }
            let table = "Z" + (names[root] ?? name).uppercased()
            var attributes: [CoreDataModel.Attribute] = []
            var relationships: [CoreDataModel.Relationship] = []
            let types = columns[table] ?? [:]
            for column in types.keys.sorted() where column.hasPrefix("Z") && !column.hasPrefix("Z_") {
                // Z1_BOOK: the entity column of a to-one relationship.
                if column.dropFirst().first?.isNumber == true { continue }
                let property = String(column.dropFirst()).lowercased()
                let declared = types[column] ?? ""
                if let destination = upperNames[String(column.dropFirst())], declared == "INTEGER" {
                    relationships.append(
                        CoreDataModel.Relationship(
                            name: property, destination: destination, isToMany: false, inverse: nil,
                            deleteRule: .nullify, isOrdered: false, maxCount: 1))
                    continue
                }
                attributes.append(CoreDataModel.Attribute(name: property, type: ColumnTypes.type(declared)))
            }
            entities.append(
                CoreDataModel.Entity(
                    name: name, parent: parent, isAbstract: false, attributes: attributes, relationships: relationships))
        }
        return CoreDataModel(source: .tables, entities: entities)
    }
}

/// Core Data's declared column types, for the table fallback.
enum ColumnTypes {
    static func type(_ declared: String) -> CoreDataModel.AttributeType {
        switch declared.uppercased() {
        case "INTEGER": .integer64
        case "FLOAT": .double
        case "DECIMAL": .decimal
        case "TIMESTAMP": .date
        case "VARCHAR": .string
        case "BLOB": .binary
        default: .undefined
        }
    }
}
