import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A real Core Data store (`Fixtures/CoreData`, see its README) copied
/// into a runner's folder, with the checksums of every file beside it.
struct CoreDataFixture {
    let runner: BowTiesRunner
    /// The folder holding the store (and its -wal).
    let folder: URL
    let store: URL

    /// Copies fixture folder `name` (holding `file`) into a new runner.
    init(_ name: String, file: String) throws {
        runner = try BowTiesRunner()
        let source = try #require(
            Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Fixtures/CoreData"),
            "Fixtures/CoreData/\(name) is missing")
        folder = runner.directory.appendingPathComponent("stores", isDirectory: true)
        try FileManager.default.copyItem(at: source, to: folder)
        store = folder.appendingPathComponent(file)
    }

    /// Every file of the store's folder with its size and SHA-256 (the
    /// `.sqlite` and `-wal` included, `-shm` left out).
    func checksums() throws -> [String] {
        try StoreSnapshot.checksums(of: folder)
    }

    /// Every name in the store's folder, `-shm` included.
    func names() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    }

    func run(_ arguments: String...) throws -> BowTiesResult {
        try runner.run(arguments: arguments)
    }

    static let surfJournal = ("surfjournal-wal", "SurfJournalModel.sqlite")
    static let sampleModel2 = ("coredataplus-samplemodel2", "SampleModel2_V1.sqlite")
    static let sampleModel = ("coredataplus-samplemodel", "SampleModel_V1.sqlite")
    static let contentful = ("contentful-m2m-empty", "Test.sqlite")
}

@Suite("bowties coredata inspect and dump on real Core Data stores")
struct CoreDataCommandTests {
    @Test("inspect --json: the JSON shape, the model from Z_MODELCACHE, counts per exact entity")
    func inspectJSON() throws {
        let fixture = try CoreDataFixture(CoreDataFixture.sampleModel2.0, file: CoreDataFixture.sampleModel2.1)
        let before = try fixture.checksums()
        let result = try fixture.run("coredata", "inspect", fixture.store.path, "--json")
        #expect(result.status == 0, "\(result)")
        let json = try #require(try result.json() as? [String: Any])
        #expect(json["uuid"] as? String == "C9CB0B35-ED6A-4042-BE5C-1B911AC00B2A")
        #expect(json["frameworkVersion"] as? String == "1344")
        #expect(json["modelSource"] as? String == "modelcache")
        #expect(json["historyTables"] as? [String] == ["ACHANGE", "ATRANSACTION", "ATRANSACTIONSTRING"])
        let entities = try #require(json["entities"] as? [[String: Any]])
        #expect(entities.map { $0["name"] as? String } == ["Book", "GraphicNovel", "Feedback", "Page", "Writer", "Author"])
        for entity in entities {
            #expect(
                Set(entity.keys) == ["name", "parent", "abstract", "table", "count", "attributes", "relationships"],
                "\(entity)")
        }
        let book = try #require(entities.first { $0["name"] as? String == "Book" })
        #expect(book["count"] as? Int == 51 && book["table"] as? String == "ZBOOK" && book["abstract"] as? Bool == false)
        let attributes = try #require(book["attributes"] as? [[String: Any]])
        let title = try #require(attributes.first { $0["name"] as? String == "title" })
        #expect(title["type"] as? String == "String" && title["min"] as? String == "3" && title["max"] as? String == "50")
        #expect(attributes.first { $0["name"] as? String == "uniqueID" }?["type"] as? String == "UUID")
        #expect(attributes.first { $0["name"] as? String == "price" }?["type"] as? String == "Decimal")
        let relationships = try #require(book["relationships"] as? [[String: Any]])
        let pages = try #require(relationships.first { $0["name"] as? String == "pages" })
        #expect(
            Set(pages.keys) == ["name", "destination", "toMany", "inverse", "deleteRule", "ordered"]
                && pages["destination"] as? String == "Page" && pages["toMany"] as? Bool == true
                && pages["inverse"] as? String == "book" && pages["deleteRule"] as? String == "Cascade")
        let novel = try #require(entities.first { $0["name"] as? String == "GraphicNovel" })
        #expect(novel["parent"] as? String == "Book" && novel["count"] as? Int == 1)
        let writer = try #require(entities.first { $0["name"] as? String == "Writer" })
        #expect(writer["abstract"] as? Bool == true && writer["count"] as? Int == 0)
        #expect(try fixture.checksums() == before)
    }

    @Test("--json before the command names reaches the subcommand: bowties --json coredata inspect STORE")
    func sharedOptionBeforeNestedCommand() throws {
        let fixture = try CoreDataFixture(CoreDataFixture.sampleModel2.0, file: CoreDataFixture.sampleModel2.1)
        let first = try fixture.run("--json", "coredata", "inspect", fixture.store.path)
        let last = try fixture.run("coredata", "inspect", fixture.store.path, "--json")
        #expect(first.status == 0, "\(first)")
        #expect(first.stdout == last.stdout && first.stdout.hasPrefix("{"), "\(first)")
    }

    @Test("inspect on a store whose rows are all in its -wal: 5,000 objects, the files unchanged, no -shm made")
    func inspectWAL() throws {
        let fixture = try CoreDataFixture(CoreDataFixture.surfJournal.0, file: CoreDataFixture.surfJournal.1)
        let before = try fixture.checksums()
        let names = try fixture.names()
        let result = try fixture.run("coredata", "inspect", fixture.store.path)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("JournalEntry (5,000 objects, table ZJOURNALENTRY)"), "\(result)")
        #expect(result.stdout.contains("from the tables"), "\(result)")
        #expect(result.stdout.contains("not yet in the .sqlite file"), "\(result)")
        #expect(result.stdoutLines.contains { $0.wholeMatch(of: /\ \ rating +Integer 64/) != nil }, "\(result)")
        #expect(try fixture.checksums() == before)
        #expect(try fixture.names() == names)
    }

    @Test("dump --format jsonl: one object a line, objectIDs, dates in ISO 8601, every row of the -wal")
    func dumpJSONLines() throws {
        let fixture = try CoreDataFixture(CoreDataFixture.surfJournal.0, file: CoreDataFixture.surfJournal.1)
        let before = try fixture.checksums()
        let result = try fixture.run("coredata", "dump", fixture.store.path, "--format", "jsonl")
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdoutLines.filter { !$0.isEmpty }
        #expect(lines.count == 5000)
        let first = try #require(
            try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        #expect(first["entity"] as? String == "JournalEntry")
        #expect(first["objectID"] as? String == "x-coredata://D246D1F7-4A2D-462D-AE31-1A41C47E7B6C/JournalEntry/p1")
        let date = try #require(first["date"] as? String)
        #expect(date.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/) != nil, "\(date)")
        #expect(lines[0].hasPrefix("{\"entity\":\"JournalEntry\",\"objectID\":"))
        #expect(try fixture.checksums() == before)
    }

    @Test("dump: sub-entities carry their own name, UUIDs as text, to-one and to-many as objectIDs")
    func dumpInheritance() throws {
        let fixture = try CoreDataFixture(CoreDataFixture.sampleModel.0, file: CoreDataFixture.sampleModel.1)
        let before = try fixture.checksums()
        let result = try fixture.run("coredata", "dump", fixture.store.path)
        #expect(result.status == 0, "\(result.stderr)")
        let objects = try #require(try result.json() as? [[String: Any]])
        let byEntity = Dictionary(grouping: objects) { $0["entity"] as? String ?? "" }
        #expect(byEntity["Car"]?.count == 115 && byEntity["SportCar"]?.count == 5 && byEntity["ExpensiveSportCar"]?.count == 5)
        let person = try #require(byEntity["Person"]?.first)
        #expect(person["objectID"] as? String == "x-coredata://753753D3-A961-4901-AB05-8CC48B1D3853/Person/p1")
        #expect(person["id"] as? String == "FEFE4176-912D-429F-9C83-662FFF641115")
        #expect(person["isDriving"] == nil, "a transient attribute is not stored")
        #expect(person["cars"] as? [String] == [])
        // Every owned car is in its owner's cars, and the other way round.
        let people = Dictionary(uniqueKeysWithValues: (byEntity["Person"] ?? []).map { ($0["objectID"] as? String ?? "", $0) })
        var owned = 0
        for car in objects where car["owner"] is String {
            let owner = try #require(people[car["owner"] as? String ?? ""])
            #expect((owner["cars"] as? [String])?.contains(car["objectID"] as? String ?? "") == true)
            owned += 1
        }
        #expect(owned > 0)
        #expect(owned == people.values.map { ($0["cars"] as? [String])?.count ?? 0 }.reduce(0, +))
        #expect(try fixture.checksums() == before)
    }

    @Test("dump --entity: the entity and its sub-entities; transformables of an app's class by name and bytes")
    func dumpEntity() throws {
        let fixture = try CoreDataFixture(CoreDataFixture.sampleModel2.0, file: CoreDataFixture.sampleModel2.1)
        let result = try fixture.run("coredata", "dump", fixture.store.path, "--entity", "Book", "--binary", "base64")
        #expect(result.status == 0, "\(result.stderr)")
        let objects = try #require(try result.json() as? [[String: Any]])
        #expect(objects.count == 52)
        #expect(objects.filter { $0["entity"] as? String == "GraphicNovel" }.count == 1)
        let book = try #require(objects.first)
        #expect(book["uniqueID"] as? String == "C4637490-BD7F-4428-B093-63A1720E17D2")
        #expect(book["price"] as? Double == 10.11)
        #expect(book["publishedAt"] as? String == "2024-05-10T18:14:06.843063Z")
        let cover = try #require(book["cover"] as? [String: Any])
        #expect(cover["class"] as? String == "CoreDataPlus_Tests.Cover" && cover["size"] as? Int == 277)
        let base64 = try #require(cover["base64"] as? String)
        #expect(Data(base64Encoded: base64)?.starts(with: Array("bplist00".utf8)) == true)
        #expect((book["author"] as? String)?.contains("/Author/p") == true)
        #expect((book["pages"] as? [String])?.isEmpty == false)
        #expect(!result.stdout.contains("ACHANGE") && !result.stdout.contains("TRANSACTION"))
    }

    @Test("dump --format csv: a header of every property, one line an object")
    func dumpCSV() throws {
        let fixture = try CoreDataFixture(CoreDataFixture.sampleModel2.0, file: CoreDataFixture.sampleModel2.1)
        let result = try fixture.run("coredata", "dump", fixture.store.path, "--entity", "Feedback", "--format", "csv")
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(lines.first == "entity,objectID,authorAlias,bookID,comment,rating")
        #expect(lines.count == 445)
        #expect(lines[1].hasPrefix("Feedback,x-coredata://C9CB0B35-ED6A-4042-BE5C-1B911AC00B2A/Feedback/p1,Andrea,"))
    }

    @Test("An empty store with many-to-many and ordered relationships: inspect shows them, dump writes []")
    func emptyStore() throws {
        let fixture = try CoreDataFixture(CoreDataFixture.contentful.0, file: CoreDataFixture.contentful.1)
        let inspect = try fixture.run("coredata", "inspect", fixture.store.path, "--json")
        #expect(inspect.status == 0, "\(inspect)")
        let entities = try #require((try inspect.json() as? [String: Any])?["entities"] as? [[String: Any]])
        let post = try #require(entities.first { $0["name"] as? String == "Post" })
        let authors = try #require((post["relationships"] as? [[String: Any]])?.first { $0["name"] as? String == "authors" })
        #expect(authors["ordered"] as? Bool == true && authors["toMany"] as? Bool == true)
        let dump = try fixture.run("coredata", "dump", fixture.store.path)
        #expect(dump.status == 0 && dump.stdout == "[]\n", "\(dump)")
    }

    @Test("A store in a folder the user cannot write: inspect and dump read it, rows of the -wal included")
    func unwritableFolder() throws {
        let fixture = try CoreDataFixture(CoreDataFixture.surfJournal.0, file: CoreDataFixture.surfJournal.1)
        let before = try fixture.checksums()
        let names = try fixture.names()
        if UnwritableCatalog.isRoot {
            try UnwritableCatalog.setTree(fixture.runner.directory, owner: 0, folderMode: 0o755, fileMode: 0o644)
            let binary = try BowTiesRunner.executableURL()
            if !UnwritableCatalog.reachableByOthers(binary) {
                let copy = fixture.runner.directory.appendingPathComponent("bin/bowties")
                try FileManager.default.createDirectory(
                    at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
                try FileManager.default.copyItem(at: binary, to: copy)
                #expect(chmod(copy.path, 0o755) == 0)
                #expect(chmod(copy.deletingLastPathComponent().path, 0o755) == 0)
                fixture.runner.executable = copy
            }
            fixture.runner.launcher = UnwritableCatalog.launcher
        } else {
            try UnwritableCatalog.setTree(fixture.folder, owner: nil, folderMode: 0o555, fileMode: 0o444)
        }
        defer { try? UnwritableCatalog.setTree(fixture.folder, owner: nil, folderMode: 0o755, fileMode: 0o644) }
        let result = try fixture.run("coredata", "dump", fixture.store.path, "--format", "jsonl", "--binary", "none")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutLines.filter { !$0.isEmpty }.count == 5000)
        let inspect = try fixture.run("coredata", "inspect", fixture.store.path, "--json")
        #expect(inspect.status == 0, "\(inspect)")
        #expect(try fixture.checksums() == before)
        #expect(try fixture.names() == names)
    }
}

@Suite("bowties coredata on hostile files: located errors, never a crash")
struct CoreDataHostileTests {
    /// A hostile store made from a real one by `change`, then read with
    /// inspect and dump: each must exit `status` with an error that
    /// starts with `prefix`.
    func check(
        _ name: String, status: Int32, prefix: String, contains: String? = nil,
        base: (String, String) = CoreDataFixture.sampleModel2, _ change: (URL) throws -> Void
    ) throws {
        let fixture = try CoreDataFixture(base.0, file: base.1)
        try change(fixture.store)
        let before = try fixture.checksums()
        for command in ["inspect", "dump"] {
            let result = try fixture.run("coredata", command, fixture.store.path)
            #expect(result.status == status, "\(name): \(result)")
            #expect(result.signal == nil, "\(name): \(result)")
            #expect(result.stderr.hasPrefix("bowties: error: \(prefix)"), "\(name): \(result)")
            if let contains { #expect(result.stderr.contains(contains), "\(name): \(result)") }
            #expect(result.stderr.utf8.count < 2000, "\(name): \(result)")
        }
        #expect(try fixture.checksums() == before, "\(name): the file changed")
    }

    @Test("No such file: 66")
    func missing() throws {
        try check("missing", status: 66, prefix: "", contains: "no such file") { url in
            try FileManager.default.removeItem(at: url)
        }
    }

    @Test("An empty file, a text file: not a Core Data store, 65")
    func notSQLite() throws {
        try check("empty", status: 65, prefix: "", contains: "empty file") { url in
            try Data().write(to: url)
        }
        try check("text", status: 65, prefix: "", contains: "byte 0: not an SQLite database") { url in
            try Data("name,rating\nRed,4\n".utf8).write(to: url)
        }
    }

    @Test("A truncated store: 65, located")
    func truncated() throws {
        try check("50 bytes", status: 65, prefix: "", contains: "truncated") { url in
            try Data(try Data(contentsOf: url).prefix(50)).write(to: url)
        }
        try check("half", status: 65, prefix: "", contains: "damaged") { url in
            let data = try Data(contentsOf: url)
            try Data(data.prefix(data.count / 2)).write(to: url)
        }
    }

    @Test("SQLite, but not Core Data: 65")
    func plainSQLite() throws {
        try check("plain", status: 65, prefix: "", contains: "not a Core Data store") { url in
            try SQLiteLibrary().execute("DROP TABLE Z_METADATA; DROP TABLE Z_PRIMARYKEY", in: url.path)
        }
    }

    @Test("A damaged model cache and a damaged metadata blob: 65, located at the table")
    func damagedBlobs() throws {
        try check("modelcache", status: 65, prefix: "", contains: "Z_MODELCACHE: ") { url in
            try SQLiteLibrary().execute("UPDATE Z_MODELCACHE SET Z_CONTENT = substr(Z_CONTENT, 1, 100)", in: url.path)
        }
        try check("metadata", status: 65, prefix: "", contains: "Z_METADATA: ") { url in
            try SQLiteLibrary().execute("UPDATE Z_METADATA SET Z_PLIST = X'62706C6973743030FFFF'", in: url.path)
        }
    }

    @Test("A damaged transformable: dump names its table, row and column")
    func damagedTransformable() throws {
        let fixture = try CoreDataFixture(CoreDataFixture.sampleModel2.0, file: CoreDataFixture.sampleModel2.1)
        // A header, then a trailer of zeros: offsets of no size.
        try SQLiteLibrary().execute(
            "UPDATE ZBOOK SET ZCOVER = CAST(X'62706C6973743030' || zeroblob(40) AS BLOB) WHERE Z_PK = 3", in: fixture.store.path)
        let result = try fixture.run("coredata", "dump", fixture.store.path, "--entity", "Book")
        #expect(result.status == 65, "\(result)")
        #expect(result.stderr.contains("table ZBOOK, row 3, column ZCOVER: "), "\(result)")
    }

    @Test("--entity naming no entity: a usage error that lists the entities")
    func unknownEntity() throws {
        let fixture = try CoreDataFixture(CoreDataFixture.sampleModel.0, file: CoreDataFixture.sampleModel.1)
        let result = try fixture.run("coredata", "dump", fixture.store.path, "--entity", "Bike")
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.contains("no entity 'Bike'") && result.stderr.contains("Car, SportCar"), "\(result)")
    }
}

@Suite("bowties model --format xcdatamodel")
struct XcodeModelCommandTests {
    /// `<attribute …/>` lines of the BowTie entity, by name, as field → value.
    static func attributes(_ xml: String) -> [String: [String: String]] {
        guard let start = xml.range(of: "<entity name=\"BowTie\""), let end = xml[start.upperBound...].range(of: "</entity>")
        else { return [:] }
        var result: [String: [String: String]] = [:]
        for line in xml[start.upperBound..<end.lowerBound].split(separator: "\n") where line.contains("<attribute ") {
            var fields: [String: String] = [:]
            for match in line.matches(of: /(\w+)="([^"]*)"/) {
                fields[String(match.1)] = String(match.2)
            }
            if let name = fields["name"] { result[name] = fields }
        }
        return result
    }

    @Test("BowTie agrees with the sample's model (REFERENCE §1) attribute by attribute, but where --help says")
    func bowTieAgreesWithTheSample() throws {
        let bowties = try BowTiesRunner()
        let result = try bowties.run("model", "--format", "xcdatamodel")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n<model "))
        #expect(result.stdout.hasSuffix("</model>\n"))
        let attributes = Self.attributes(result.stdout)
        // The sample's model: name, Core Data type, and its rules.
        let sample: [(String, String)] = [
            ("name", "String"), ("isFavorite", "Boolean"), ("lastWorn", "Date"), ("rating", "Double"),
            ("searchKey", "String"), ("timesWorn", "Integer 32"), ("id", "UUID"), ("url", "URI"),
            ("photoData", "Binary"), ("tintColor", "Transformable"),
        ]
        #expect(Set(attributes.keys) == Set(sample.map(\.0)))
        for (name, type) in sample {
            #expect(attributes[name]?["attributeType"] == type, "\(name): \(attributes[name] ?? [:])")
        }
        #expect(attributes["rating"]?["minValueString"] == "0" && attributes["rating"]?["maxValueString"] == "5")
        #expect(attributes["photoData"]?["allowsExternalBinaryDataStorage"] == "YES")
        #expect(attributes["tintColor"]?["valueTransformerName"] == "ColorAttributeTransformer")
        // Optional in the sample, as in ours: the rest is said in --help.
        for name in ["lastWorn", "searchKey", "url", "photoData", "tintColor"] {
            #expect(attributes[name]?["optional"] == "YES", "\(name)")
        }
        let help = try bowties.run("model", "--help")
        let text = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(text.contains("except where bowties' declaration deliberately differs: id, name, rating, timesWorn and isFavorite are required"), "\(help)")
        #expect(!FileManager.default.fileExists(atPath: bowties.storeURL.path))
    }

    @Test("Relationships and uniqueness as Xcode writes them")
    func relationships() throws {
        let result = try BowTiesRunner().run("model", "--format", "xcdatamodel")
        #expect(
            result.stdout.contains(
                "<relationship name=\"wears\" optional=\"YES\" toMany=\"YES\" deletionRule=\"Cascade\" "
                    + "destinationEntity=\"Wear\" inverseName=\"bowTie\" inverseEntity=\"Wear\"/>"), "\(result)")
        #expect(
            result.stdout.contains(
                "<relationship name=\"bowTie\" maxCount=\"1\" deletionRule=\"Nullify\" destinationEntity=\"BowTie\" "
                    + "inverseName=\"wears\" inverseEntity=\"BowTie\"/>"), "\(result)")
        #expect(result.stdout.contains("<constraint value=\"searchKey\"/>"), "\(result)")
    }
}

@Suite("bowties coredata dump: colours and external binary data")
struct CoreDataValueTests {
    @Test("An archived UIColor or NSColor is #RRGGBB; a custom transformer's bytes stay binary")
    func colors() throws {
        let fixture = try CoreDataFixture(CoreDataFixture.sampleModel.0, file: CoreDataFixture.sampleModel.1)
        // The keyed archives of fuzz/corpus/archive, as hex, put in rows
        // of the real store.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("fuzz/corpus/archive")
        func hex(_ name: String) throws -> String {
            try Data(contentsOf: root.appendingPathComponent(name)).map { String(format: "%02X", $0) }.joined()
        }
        try SQLiteLibrary().execute(
            "UPDATE ZCAR SET ZCOLOR = X'\(try hex("uicolor.bplist"))' WHERE Z_PK = 1; "
                + "UPDATE ZCAR SET ZCOLOR = X'\(try hex("nscolor.bplist"))' WHERE Z_PK = 2; "
                + "UPDATE ZCAR SET ZCOLOR = X'00FF00' WHERE Z_PK = 3",
            in: fixture.store.path)
        let result = try fixture.run("coredata", "dump", fixture.store.path, "--entity", "Car", "--binary", "base64")
        #expect(result.status == 0, "\(result.stderr)")
        let cars = try #require(try result.json() as? [[String: Any]])
        #expect(cars[0]["color"] as? String == "#CC1A33")
        #expect(cars[1]["color"] as? String == "#0080FF")
        let raw = try #require(cars[2]["color"] as? [String: Any])
        #expect(raw["size"] as? Int == 3 && raw["base64"] as? String == "AP8A")
    }

    @Test("A Binary value in _EXTERNAL_DATA is read from there; a missing file is said, not fatal")
    func externalData() throws {
        let fixture = try CoreDataFixture(CoreDataFixture.contentful.0, file: CoreDataFixture.contentful.1)
        let name = "0A1B2C3D-4E5F-4071-8293-A4B5C6D7E8F9"
        let missing = "11111111-2222-4333-8444-555555555555"
        let folder = fixture.folder.appendingPathComponent(".Test_SUPPORT/_EXTERNAL_DATA", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("tags kept outside".utf8).write(to: folder.appendingPathComponent(name))
        func marker(_ uuid: String, nul: Bool) -> String {
            "X'02" + Data(uuid.utf8).map { String(format: "%02X", $0) }.joined() + (nul ? "00'" : "'")
        }
        try SQLiteLibrary().execute(
            "INSERT INTO ZPOST (Z_PK, Z_ENT, Z_OPT, ZTITLE, ZTAGS) VALUES (1, 4, 1, 'kept', \(marker(name, nul: true))), "
                + "(2, 4, 1, 'lost', \(marker(missing, nul: false)))",
            in: fixture.store.path)
        let before = try fixture.checksums()
        let result = try fixture.run("coredata", "dump", fixture.store.path, "--entity", "Post", "--binary", "base64")
        #expect(result.status == 0, "\(result.stderr)")
        let posts = try #require(try result.json() as? [[String: Any]])
        let kept = try #require(posts.first?["tags"] as? [String: Any])
        #expect(kept["external"] as? String == name && kept["size"] as? Int == 17)
        #expect(kept["base64"] as? String == Data("tags kept outside".utf8).base64EncodedString())
        let lost = try #require(posts.last?["tags"] as? [String: Any])
        #expect(lost["external"] as? String == missing && lost["missing"] as? Bool == true)
        #expect(try fixture.checksums() == before)
    }
}
