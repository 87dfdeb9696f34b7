import Foundation
import Testing

/// Moving a catalog from a file to a PostgreSQL server and back, as the
/// README's "Moving a catalog to PostgreSQL and back" shows it: one pipe,
/// `bowties export --format jsonl --photos inline | bowties import -`,
/// each way. What comes back is the same catalog: ids, counts, wears with
/// their notes, tags, favourites, ratings and photos, small ones (kept in
/// the file's store) and large ones (kept beside it, above the photo
/// threshold) alike. The undo history stays behind: it is each catalog's
/// own.
@Suite("PostgreSQL: moving a catalog there and back")
struct PostgreSQLMoveTests {
    /// Runs `export --format jsonl --photos inline --store FROM | import -
    /// --store TO` in bash (`pipefail`: either side's failure is the
    /// pipe's), the binary as both, `options` given to the import;
    /// returns the importer's output.
    static func move(
        _ bowties: BowTiesRunner, from source: String, to destination: String, options: [String] = [],
        environment: [String: String?]
    ) throws -> BowTiesResult {
        bowties.launcher = [
            "/bin/bash", "-o", "pipefail", "-c",
            #""$0" export --format jsonl --photos inline --store "$1" | "$0" import - --store "$2" "${@:3}""#,
        ]
        defer { bowties.launcher = [] }
        return try bowties.run(arguments: [source, destination] + options, environment: environment)
    }

    @Test("SQLite → PostgreSQL → SQLite: the JSONL exports (photos inline), list and show are byte for byte the same")
    func thereAndBack() throws {
        let server = try PostgreSQLServer()
        defer { server.stop() }
        let bowties = try BowTiesRunner()
        let environment = server.clientEnvironment
        let address = try server.createDatabase()
        let original = bowties.storeURL.path
        let back = bowties.directory.appendingPathComponent("back/catalog.sqlite").path

        // The sample catalog: five photos under the 102,400-byte threshold
        // (in the store), B's and V's above it (files beside it); wears
        // with notes that need quoting, tags, a favourite, a rating.
        try bowties.importSampleData()
        for arguments in [
            ["wear", "R", "--on", "2026-11-20", "--note", "wedding, \"the\" big\tday\nand night \\o/"],
            ["wear", "R", "--on", "2026-11-22"],
            ["wear", "B", "--on", "2025-01-02", "--note", "été"],
            ["tag", "R", "formal", "wedding"],
            ["tag", "B", "formal"],
            ["favorite", "V"],
            ["rate", "G", "2"],
        ] {
            let result = try bowties.run(arguments: arguments)
            try #require(result.status == 0, "\(result)")
        }
        let folder = bowties.directory.appendingPathComponent(".catalog_SUPPORT/_EXTERNAL_DATA")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        try #require(files.count == 2, "two photos above the threshold, as files: \(files)")

        // There: every photo into the database.
        let there = try Self.move(bowties, from: original, to: address, environment: environment)
        #expect(there.status == 0, "\(there)")
        #expect(
            there.stdout == "Imported stdin into \(address): added 7, updated 0, unchanged 0.\n"
                + "7 photos saved in the database.\n",
            "\(there)")
        #expect(!(there.stdout + there.stderr).contains(PostgreSQLServer.ownerPassword), "\(there)")

        // And back, into a new file: the large photos become files again.
        let returned = try Self.move(bowties, from: address, to: back, environment: environment)
        #expect(returned.status == 0, "\(returned)")
        #expect(
            returned.stdout == "Imported stdin into \(back): added 7, updated 0, unchanged 0.\n"
                + "7 photos saved; 2 new files in \(bowties.directory.path)/back/.catalog_SUPPORT/_EXTERNAL_DATA.\n",
            "\(returned)")

        // The same catalog in all three places, byte for byte.
        let stores = [original, address, back]
        for form: [String] in [
            ["export", "--format", "jsonl", "--photos", "inline"], ["export", "--format", "csv", "--photos", "inline"],
            ["list"], ["list", "--sort", "lastWorn"], ["show", "R"], ["history", "R"],
            ["tags"], ["count", "tag:formal"],
        ] {
            let outputs = try stores.map { store in
                try bowties.run(arguments: form + ["--store", store], environment: environment)
            }
            for (store, result) in zip(stores, outputs) {
                #expect(result.status == 0 && result.stderr.isEmpty, "\(store): \(result)")
                #expect(
                    result.stdout == outputs[0].stdout,
                    "\(form) differs at \(store):\n\(result.stdout)\n\(outputs[0].stdout)")
            }
        }
        // `show` says where each photo is kept: the two files alike (in
        // their own folders), the database every photo inline; the rest
        // is the same.
        func folderless(_ text: String, _ store: String) -> String {
            text.replacingOccurrences(
                of: URL(fileURLWithPath: store).deletingLastPathComponent().path + "/", with: "FOLDER/")
        }
        func inDatabase(_ text: String) -> String {
            text.replacing(/external file \S+/, with: "stored inline")
                .replacing(/\n *"file" : "[^"]*",/, with: "")
                .replacing(#""storage" : "external""#, with: #""storage" : "inline""#)
                .replacing(/"storage":"external","file":"[^"]*"/, with: #""storage":"inline""#)
        }
        for form: [String] in [
            ["show", "B"], ["show", "V", "--json"], ["list", "--format", "json", "--photos", "hash"],
        ] {
            let (first, there, returned) = (
                try bowties.run(arguments: form + ["--store", original]),
                try bowties.run(arguments: form + ["--store", address], environment: environment),
                try bowties.run(arguments: form + ["--store", back])
            )
            #expect(first.status == 0 && there.status == 0 && returned.status == 0, "\(first)\n\(there)\n\(returned)")
            #expect(first.stdout.contains("external"), "\(first)")
            #expect(folderless(returned.stdout, back) == folderless(first.stdout, original), "\(returned)\n\(first)")
            #expect(there.stdout == inDatabase(first.stdout), "\(there)\n\(first)")
        }
        let export = try bowties.run("export", "--format", "jsonl", "--photos", "inline")
        #expect(
            export.stdout.contains("wedding, \\\"the\\\" big\\tday\\nand night \\\\o/"), "\(export.stdout.prefix(2000))"
        )
        // The photos' bytes, in the file's folder as they were.
        let returnedFiles = try FileManager.default.contentsOfDirectory(
            atPath: bowties.directory.appendingPathComponent("back/.catalog_SUPPORT/_EXTERNAL_DATA").path)
        #expect(returnedFiles.sorted() == files.sorted())
        for name in files {
            let before = try Data(contentsOf: folder.appendingPathComponent(name))
            let after = try Data(
                contentsOf: bowties.directory.appendingPathComponent("back/.catalog_SUPPORT/_EXTERNAL_DATA/\(name)"))
            #expect(before == after, "\(name)")
        }

        // Moved again onto itself: nothing changes.
        let again = try Self.move(bowties, from: back, to: address, options: ["--update"], environment: environment)
        #expect(again.status == 0, "\(again)")
        #expect(again.stdout == "Imported stdin into \(address): added 0, updated 0, unchanged 7.\n", "\(again)")
    }
}
