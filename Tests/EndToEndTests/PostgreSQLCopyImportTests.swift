import Foundation
import Testing

/// An import into a PostgreSQL catalog goes through `COPY`, a batch of
/// records at a time (issue 24, point 6): what a user sees of it is what
/// the same import into an SQLite catalog shows (the catalog, the report,
/// the warnings in their order, the first error located at its record,
/// nothing written after an error), only faster.
///
/// The files hold more records than one batch (512), so that records
/// are staged across batches and an error sits in a later one.
@Suite("PostgreSQL imports through COPY")
struct PostgreSQLCopyImportTests {
    /// Records `0..<count` as JSON Lines: ids, names and search keys
    /// unique, 1 in 3 tagged, 1 in 50 with two wears. `change` rewrites a
    /// record's line before it is written (a duplicate, a broken value).
    static func lines(_ count: Int, change: (Int, String) -> String = { $1 }) -> String {
        (0..<count).map { index in
            var fields = [
                "\"id\": \"\(id(index))\"", "\"name\": \"Tie \(index)\"", "\"searchKey\": \"K\(index)\"",
                "\"rating\": \(Double(index % 21) / 4)", "\"isFavorite\": \(index % 10 == 0)",
                "\"timesWorn\": \(index % 7)",
            ]
            if index % 3 == 0 { fields.append("\"tags\": [\"t\(index % 11)\", \"Été\"]") }
            if index % 50 == 0 {
                fields.append(
                    "\"wears\": [{\"date\": \"2024-01-0\(index % 9 + 1)T10:00:00Z\", \"note\": \"n\(index)\"}, "
                        + "{\"date\": \"2025-03-04T00:00:00Z\"}]")
                fields[5] = "\"timesWorn\": \(index % 7 + 2)"
            }
            return change(index, "{" + fields.joined(separator: ", ") + "}")
        }.joined(separator: "\n") + "\n"
    }

    static func id(_ index: Int) -> String { String(format: "00000000-0000-4000-8000-%012d", index) }

    /// An SQLite catalog and a PostgreSQL database, side by side.
    struct Pair {
        let bowties: BowTiesRunner
        let server: PostgreSQLServer
        var address: String

        init() throws {
            server = try PostgreSQLServer()
            bowties = try BowTiesRunner()
            address = try server.createDatabase()
            // Photos inline in the SQLite file too, as PostgreSQL keeps them.
            let inline = try bowties.run("config", "--photo-threshold", "1000000000")
            try #require(inline.status == 0, "\(inline)")
        }

        var environment: [String: String?] {
            var environment = server.clientEnvironment
            environment["BOWTIES_STORE"] = address
            return environment
        }

        func sqlite(_ arguments: [String]) throws -> BowTiesResult { try bowties.run(arguments: arguments) }
        func postgresql(_ arguments: [String]) throws -> BowTiesResult {
            try bowties.run(arguments: arguments, environment: environment)
        }

        /// Runs `arguments` on both and expects the same status, output
        /// and errors, less the catalog's name (and, for an import, the
        /// line that says where photos went: files beside an SQLite
        /// catalog, the database on PostgreSQL).
        @discardableResult
        func expectSame(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws
            -> BowTiesResult
        {
            let fromFile = try sqlite(arguments)
            let fromServer = try postgresql(arguments)
            func named(_ text: String, _ catalog: String) -> String {
                text.replacingOccurrences(of: catalog, with: "CATALOG")
                    .replacing(/\n[0-9]+ (distinct )?photos?[^\n]* saved[^\n]*/, with: "\nPHOTOS")
            }
            let which = arguments.joined(separator: " ")
            #expect(fromFile.status == fromServer.status, "\(which)\n\(fromFile)\n\(fromServer)", sourceLocation: sourceLocation)
            #expect(
                named(fromFile.stdout, bowties.storeURL.path) == named(fromServer.stdout, address),
                "\(which)\n\(fromFile)\n\(fromServer)", sourceLocation: sourceLocation)
            #expect(
                named(fromFile.stderr, bowties.storeURL.path) == named(fromServer.stderr, address),
                "\(which)\n\(fromFile)\n\(fromServer)", sourceLocation: sourceLocation)
            return fromServer
        }

        /// Both catalogs anew: an empty file, a new database.
        mutating func renew() throws {
            for suffix in ["", "-wal", "-shm"] {
                try? FileManager.default.removeItem(atPath: bowties.storeURL.path + suffix)
            }
            try #require(try bowties.run("config", "--photo-threshold", "1000000000").status == 0)
            address = try server.createDatabase()
        }
    }

    @Test("every format (XML and binary plist, JSON, JSON Lines, CSV, TSV) gives the same catalog on both backends")
    func everyFormat() throws {
        var pair = try Pair()
        defer { pair.server.stop() }
        // The source: 5,000 generated ties and the sample's 7 with photos.
        let source = try pair.bowties.write(Self.lines(5_000), to: "source.jsonl")
        try #require(try pair.sqlite(["import", source.path]).status == 0)
        try #require(try pair.sqlite(["import", BowTiesRunner.sampleDataURL.path]).status == 0)
        var files: [URL] = []
        for format in ["plist", "json", "jsonl", "csv", "tsv"] {
            let file = pair.bowties.directory.appendingPathComponent("all.\(format)")
            let exported = try pair.sqlite(["export", "--format", format, "--photos", "inline", "--output", file.path])
            try #require(exported.status == 0, "\(exported)")
            files.append(file)
        }
        let binary = pair.bowties.directory.appendingPathComponent("all-binary.plist")
        let converted = Process()
        converted.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        converted.arguments = [
            "-c", "import plistlib,sys; plistlib.dump(plistlib.load(open(sys.argv[1],'rb')), open(sys.argv[2],'wb'), fmt=plistlib.FMT_BINARY)",
            files[0].path, binary.path,
        ]
        try converted.run()
        converted.waitUntilExit()
        try #require(converted.terminationStatus == 0)
        files.append(binary)
        for file in files {
            try pair.renew()
            let imported = try pair.expectSame(["import", file.path])
            #expect(imported.status == 0 && imported.stdout.contains("added 5007"), "\(file.lastPathComponent): \(imported)")
            try pair.expectSame(["export", "--format", "jsonl", "--photos", "inline"])
            try pair.expectSame(["tags"])
            try pair.expectSame(["history", "K4950"])
            try pair.expectSame(["check"])
            // Again: every record is stored already, every batch is
            // written one record at a time, and nothing changes.
            let again = try pair.expectSame(["import", file.path])
            #expect(again.stdout.contains("added 0, updated 0, unchanged 5007"), "\(again)")
        }
    }

    @Test("the first error is located at its record, as on SQLite, whichever batch it is in; nothing is written")
    func locatedErrors() throws {
        var pair = try Pair()
        defer { pair.server.stop() }
        let cases: [(String, [String], (Int, String) -> String)] = [
            // A later batch repeats the id of a record in the first.
            ("id-later-batch", [], { $0 == 4_000 ? $1.replacingOccurrences(of: Self.id(4_000), with: Self.id(10)) : $1 }),
            // A search key repeated in the same batch.
            ("key-same-batch", [], { $0 == 1_500 ? $1.replacingOccurrences(of: "\"K1500\"", with: "\"K1499\"") : $1 }),
            // A search key the catalog holds already (the sample's R).
            ("stored-key", [], { $0 == 3_000 ? $1.replacingOccurrences(of: "\"K3000\"", with: "\"R\"") : $1 }),
            // A repeated id, then a record that cannot be read: the first
            // error in the file is the one reported.
            (
                "dup-then-invalid", [],
                {
                    switch $0 {
                    case 100: $1.replacingOccurrences(of: Self.id(100), with: Self.id(50))
                    case 200: $1.replacingOccurrences(of: "\"rating\": 2.75", with: "\"rating\": 7")
                    default: $1
                    }
                }
            ),
            // A repeated id, then a line that is not JSON.
            ("dup-then-malformed", [], { $0 == 100 ? $1.replacingOccurrences(of: Self.id(100), with: Self.id(50)) : $0 == 300 ? "{broken" : $1 }),
            // --strict: a repeated id before the first warning.
            (
                "strict", ["--strict"],
                { $0 == 100 ? $1.replacingOccurrences(of: Self.id(100), with: Self.id(50)) : $0 == 300 ? $1.replacingOccurrences(of: "\"timesWorn\"", with: "\"colour\": 1, \"timesWorn\"") : $1 }
            ),
        ]
        for (name, options, change) in cases {
            try pair.renew()
            try pair.expectSame(["import", BowTiesRunner.sampleDataURL.path])
            let file = try pair.bowties.write(Self.lines(5_000, change: change), to: "\(name).jsonl")
            let failed = try pair.expectSame(["import", file.path] + options)
            #expect(failed.status == 65, "\(name): \(failed)")
            #expect(failed.stderr.hasPrefix("bowties: error: \(name).jsonl:"), "\(name): \(failed)")
            try pair.expectSame(["count"])
            try pair.expectSame(["tags"])
        }
    }

    @Test("untagged batches written while the next is read: errors located and ordered as on SQLite, photos between batches")
    func batchesInFlight() throws {
        var pair = try Pair()
        defer { pair.server.stop() }
        // No tags, no wears: each full batch is left in flight while the
        // next records are read. A photo given inline after a batch makes
        // its blob row wait for that batch.
        let photo = try Data(contentsOf: BowTiesRunner.sampleDataURL.deletingLastPathComponent()
            .appendingPathComponent("Images").appendingPathComponent("indigo.png")).base64EncodedString()
        func plain(_ index: Int, _ line: String) -> String {
            var line = line.replacing(/, "tags": \[[^\]]*\]/, with: "").replacing(/, "wears": \[[^\]]*\]/, with: "")
                .replacing(/"timesWorn": [0-9]+/, with: "\"timesWorn\": \(index % 7)")
            if index == 2_500 || index == 6_500 {
                line = line.replacingOccurrences(of: "{\"id\"", with: "{\"photo\": \"\(photo)\", \"id\"")
            }
            return line
        }
        let cases: [(String, (Int, String) -> String)] = [
            ("clean", { plain($0, $1) }),
            // The second batch repeats an id of the first: found when the
            // third batch is sent.
            ("id-in-flight", { plain($0, $0 == 3_000 ? $1.replacingOccurrences(of: Self.id(3_000), with: Self.id(10)) : $1) }),
            // A repeated search key in the second batch, then a line that
            // is not JSON in the third: the repeat is reported.
            (
                "key-then-malformed",
                { $0 == 5_000 ? "{broken" : plain($0, $0 == 2_100 ? $1.replacingOccurrences(of: "\"K2100\"", with: "\"K7\"") : $1) }
            ),
            // The last, partial batch repeats an id: found at the end.
            ("id-last-batch", { plain($0, $0 == 6_900 ? $1.replacingOccurrences(of: Self.id(6_900), with: Self.id(6_000)) : $1) }),
        ]
        for (name, change) in cases {
            try pair.renew()
            // A catalog to count in after a failed import.
            try pair.expectSame(["import", BowTiesRunner.sampleDataURL.path])
            let file = try pair.bowties.write(Self.lines(7_000, change: change), to: "\(name).jsonl")
            let imported = try pair.expectSame(["import", file.path])
            if name == "clean" {
                #expect(imported.status == 0 && imported.stdout.contains("added 7000,"), "\(imported)")
                try pair.expectSame(["export", "--format", "jsonl", "--photos", "hash"])
                try pair.expectSame(["check"])
                try pair.expectSame(["undo"])
            } else {
                #expect(imported.status == 65, "\(name): \(imported)")
                #expect(imported.stderr.hasPrefix("bowties: error: \(name).jsonl:"), "\(name): \(imported)")
            }
            try pair.expectSame(["count"])
        }
    }

    @Test("warnings come in file order, as on SQLite: missing photos of staged records before a later unknown key")
    func warningsInOrder() throws {
        let pair = try Pair()
        defer { pair.server.stop() }
        let file = try pair.bowties.write(
            Self.lines(3_000) { index, line in
                var line = line
                if index % 700 == 5 { line = line.replacingOccurrences(of: "{\"id\"", with: "{\"imageName\": \"gone\(index).png\", \"id\"") }
                if index == 1_200 { line = line.replacingOccurrences(of: "{\"id\"", with: "{\"colour\": \"red\", \"id\"") }
                return line
            }, to: "warned.jsonl")
        let imported = try pair.expectSame(["import", file.path, "--images", pair.bowties.directory.path])
        #expect(imported.status == 0, "\(imported)")
        let warnings = imported.stderr.split(separator: "\n").map(String.init)
        #expect(warnings.count == 6, "\(imported)")
        #expect(warnings.firstIndex { $0.contains("gone705.png") } ?? 9 < warnings.firstIndex { $0.contains("colour") } ?? 0, "\(imported)")
        try pair.expectSame(["export", "--format", "jsonl"])
    }

    @Test("20,000 ties import on PostgreSQL within twice the time SQLite takes (one INSERT per record took 3 times)")
    func speed() throws {
        var pair = try Pair()
        defer { pair.server.stop() }
        let file = try pair.bowties.write(
            (0..<20_000).map { "{\"name\": \"Tie \($0)\", \"searchKey\": \"K\($0)\", \"rating\": \($0 % 5)}" }
                .joined(separator: "\n") + "\n", to: "many.jsonl")
        var fromFile: [TimeInterval] = []
        var fromServer: [TimeInterval] = []
        // In turn, so that the machine's load weighs on both alike.
        for _ in 0..<2 {
            try pair.renew()
            var start = Date()
            let sqlite = try pair.sqlite(["import", file.path])
            fromFile.append(Date().timeIntervalSince(start))
            start = Date()
            let postgresql = try pair.postgresql(["import", file.path])
            fromServer.append(Date().timeIntervalSince(start))
            #expect(sqlite.status == 0 && postgresql.status == 0, "\(sqlite)\n\(postgresql)")
            #expect(postgresql.stdout.contains("added 20000"), "\(postgresql)")
        }
        let ratio = (fromServer.min() ?? 0) / max(fromFile.min() ?? 1, 0.001)
        #expect(ratio < 2, "PostgreSQL \(fromServer), SQLite \(fromFile): \(ratio)×")
    }
}
