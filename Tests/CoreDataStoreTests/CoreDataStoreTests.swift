import CoreDataStore
import Foundation
import Testing

/// The real stores of `Tests/EndToEndTests/Fixtures/CoreData` (see its
/// README), copied to a temporary folder before each test opens one.
enum Stores {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let folder = packageRoot.appendingPathComponent("Tests/EndToEndTests/Fixtures/CoreData", isDirectory: true)
    static let archives = packageRoot.appendingPathComponent("fuzz/corpus/archive", isDirectory: true)

    /// A copy of fixture folder `name` in a new temporary folder; the
    /// store file's URL in it.
    static func copy(_ name: String, store: String) throws -> URL {
        let target = FileManager.default.temporaryDirectory
            .appendingPathComponent("coredata-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.copyItem(at: folder.appendingPathComponent(name), to: target)
        return target.appendingPathComponent(store)
    }

    static func archive(_ name: String) throws -> Data {
        try Data(contentsOf: archives.appendingPathComponent(name))
    }
}

@Suite("Core Data stores: model and objects")
struct CoreDataStoreTests {
    @Test("The model cache of SampleModel2: entities in Z_ENT order, types, inheritance, relationships")
    func modelCache() throws {
        let url = try Stores.copy("coredataplus-samplemodel2", store: "SampleModel2_V1.sqlite")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let store = try CoreDataStore(path: url.path)
        #expect(store.model.source == .modelCache)
        #expect(store.uuid == "C9CB0B35-ED6A-4042-BE5C-1B911AC00B2A")
        #expect(store.metadata.frameworkVersion == "1344")
        #expect(store.model.entities.map(\.name) == ["Book", "GraphicNovel", "Feedback", "Page", "Writer", "Author"])
        #expect(store.historyTables == ["ACHANGE", "ATRANSACTION", "ATRANSACTIONSTRING"])
        let book = try #require(store.model.entity(named: "Book"))
        let types = Dictionary(uniqueKeysWithValues: book.attributes.map { ($0.name, $0.type.name) })
        #expect(
            types == [
                "cover": "Transformable", "pagesCount": "Integer 64", "price": "Decimal", "publishedAt": "Date",
                "title": "String", "uniqueID": "UUID",
            ])
        let title = try #require(book.attributes.first { $0.name == "title" })
        #expect(title.minimum == "3" && title.maximum == "50")
        #expect(book.attributes.first { $0.name == "cover" }?.transformerName == "CoverTransformer")
        let pages = try #require(book.relationships.first { $0.name == "pages" })
        #expect(pages.isToMany && pages.destination == "Page" && pages.inverse == "book" && pages.deleteRule == .cascade)
        let novel = try #require(store.model.entity(named: "GraphicNovel"))
        #expect(novel.parent == "Book")
        #expect(novel.ownAttributes.map(\.name) == ["isBlackAndWhite"])
        #expect(store.model.entity(named: "Writer")?.isAbstract == true)
        let counts = try store.objectCounts()
        #expect(counts["Book"] == 51 && counts["GraphicNovel"] == 1 && counts["Page"] == 4970 && counts["Author"] == 2)
        #expect(counts["Writer"] == nil)
    }

    @Test("A store without Z_MODELCACHE: the model from Z_PRIMARYKEY and the columns; rows in the -wal are seen")
    func tablesAndWAL() throws {
        let url = try Stores.copy("surfjournal-wal", store: "SurfJournalModel.sqlite")
        let folder = url.deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: folder) }
        let before = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        let sqlite = try Data(contentsOf: url)
        let wal = try Data(contentsOf: URL(fileURLWithPath: url.path + "-wal"))
        do {
            let store = try CoreDataStore(path: url.path)
            #expect(store.model.source == .tables)
            #expect(store.walFrames > 0)
            let entry = try #require(store.model.entity(named: "JournalEntry"))
            #expect(
                entry.attributes.map { "\($0.name):\($0.type.name)" } == [
                    "date:Date", "height:String", "location:String", "period:String", "rating:Integer 64", "wind:String",
                ])
            var count = 0
            var first: CoreDataObject?
            try store.forEachObject(of: nil) { object in
                count += 1
                if first == nil { first = object }
            }
            #expect(count == 5000)
            #expect(first?.entity == "JournalEntry" && first?.pk == 1)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == before)
        #expect(try Data(contentsOf: url) == sqlite)
        #expect(try Data(contentsOf: URL(fileURLWithPath: url.path + "-wal")) == wal)
    }

    @Test("Relationships: to-one with the target's sub-entity, to-many, many-to-many with order")
    func relationships() throws {
        let url = try Stores.copy("coredataplus-samplemodel2", store: "SampleModel2_V1.sqlite")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let store = try CoreDataStore(path: url.path)
        var page: CoreDataObject?
        try store.forEachObject(of: ["Page"]) { object in
            if page == nil { page = object }
        }
        let properties = store.properties(of: try #require(store.model.entity(named: "Page")))
        let book = try #require(properties.firstIndex { $0.name == "book" })
        #expect(page?.values[book] == .object(ObjectReference(entity: "Book", pk: 34)))
        let content = try #require(properties.firstIndex { $0.name == "content" })
        if case .archived(let value, _)? = page?.values[content] {
            #expect(value == .object(className: "Content"))
        } else {
            Issue.record("content is not an archived value: \(String(describing: page?.values[content]))")
        }
        var author: CoreDataObject?
        try store.forEachObject(of: ["Author"]) { object in
            if author == nil { author = object }
        }
        let authorProperties = store.properties(of: try #require(store.model.entity(named: "Author")))
        let books = try #require(authorProperties.firstIndex { $0.name == "books" })
        if case .objects(let references)? = author?.values[books] {
            #expect(references.count > 0)
            #expect(references.contains { $0.entity == "GraphicNovel" } || references.allSatisfy { $0.entity == "Book" })
        } else {
            Issue.record("books is not a to-many value")
        }
    }
}

@Suite("Keyed archives (NSKeyedArchiver) without Foundation's unarchiver")
struct KeyedArchiveTests {
    /// fuzz/Sources/FuzzKeyedArchive's framing: `bplist00`, the input, and
    /// a trailer whose offset and reference sizes come from its first two
    /// bytes; nil for an input that already has the header.
    static func framed(_ data: Data) -> Data? {
        guard !data.starts(with: Array("bplist00".utf8)), data.count >= 2 else { return nil }
        var framed = Data("bplist00".utf8)
        framed.append(data)
        let sizes = (Int(data[data.startIndex]) % 8 + 1, Int(data[data.startIndex + 1]) % 4 + 1)
        let objects = max(1, min(data.count / 4, 64))
        let tableOffset = max(9, 8 + data.count - objects * sizes.0)
        var trailer = Data(count: 6)
        trailer.append(UInt8(sizes.0))
        trailer.append(UInt8(sizes.1))
        for value in [UInt64(objects), 0, UInt64(tableOffset)] {
            withUnsafeBytes(of: value.bigEndian) { trailer.append(contentsOf: $0) }
        }
        framed.append(trailer)
        return framed
    }

    @Test("UIColor (UIRed…) and NSColor (NSRGB) decode to their components")
    func colors() throws {
        let ui = try KeyedArchive(data: Stores.archive("uicolor.bplist"), file: "uicolor").decodeRoot()
        guard case .color(let red, let green, let blue, let alpha) = ui else {
            Issue.record("not a colour: \(ui)")
            return
        }
        #expect(ArchivedValue.hexColor(red: red, green: green, blue: blue) == "#CC1A33" && alpha == 1)
        let ns = try KeyedArchive(data: Stores.archive("nscolor.bplist"), file: "nscolor").decodeRoot()
        #expect(ns == .color(red: 0, green: 0.5, blue: 1, alpha: 1))
    }

    @Test("Dictionaries, arrays, dates, URLs and UUIDs")
    func foundationValues() throws {
        let value = try KeyedArchive(data: Stores.archive("mixed.bplist"), file: "mixed").decodeRoot()
        let uuid = try #require(UUID(uuidString: "C4637490-BD7F-4428-B093-63A1720E17D2"))
        #expect(
            value
                == .dictionary([
                    .init(key: .string("tags"), value: .array([.string("silk"), .integer(42), .uuid(uuid)])),
                    .init(key: .string("when"), value: .date(-31_536_000.5)),
                    .init(key: .string("link"), value: .url("https://example.com/ties")),
                ]))
        #expect(ValueText.iso8601(-31_536_000.5) == "2000-01-01T23:59:59.5Z")
        #expect(ValueText.iso8601(0) == "2001-01-01T00:00:00Z")
        #expect(ValueText.iso8601(737_057_646.843063) == "2024-05-10T18:14:06.843063Z")
    }

    @Test("A cycle and a UID past $objects are located errors, not crashes", arguments: [
        "finding-cycle.bplist", "finding-missing-class.bplist",
    ])
    func hostile(_ name: String) throws {
        #expect(throws: CoreDataError.self) {
            _ = try KeyedArchive(data: Stores.archive(name), file: name).decodeRoot()
        }
    }

    @Test("The committed corpus: each input decodes or fails with a CoreDataError naming it")
    func corpus() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Stores.archives.path).sorted()
        #expect(names.count >= 8)
        for name in names {
            let data = try Stores.archive(name)
            // As the fuzz target reads it: whole, and (when it has no
            // header) framed by a header and a trailer made from its bytes.
            for input in [data, Self.framed(data)].compactMap({ $0 }) {
                do {
                    _ = try KeyedArchive(data: input, file: name).decodeRoot()
                    _ = try? CoreDataModelDecoding.model(fromArchive: input, file: name)
                } catch {
                    #expect(error.kind == .malformedArchive && error.file == name, "\(name): \(error)")
                }
            }
        }
    }
}

@Suite("Core Data stores: the pull cursor")
struct CoreDataCursorTests {
    @Test("objects(of:) yields what forEachObject(of:) calls with, sub-entities included, in the same order")
    func cursorMatchesForEach() throws {
        let url = try Stores.copy("coredataplus-samplemodel2", store: "SampleModel2_V1.sqlite")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let store = try CoreDataStore(path: url.path)
        var called: [String] = []
        try store.forEachObject(of: ["Book"]) { called.append("\($0.entity) \($0.pk) \($0.values)") }
        var pulled: [String] = []
        let cursor = try store.objects(of: "Book")
        while let object = try cursor.next() { pulled.append("\(object.entity) \(object.pk) \(object.values)") }
        #expect(pulled.count == 52)
        #expect(pulled == called)
        #expect(throws: CoreDataError.self) { _ = try store.objects(of: "Hat") }
    }
}
