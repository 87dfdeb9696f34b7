import Foundation
import Testing

/// Every export imports back (issue 20, items 2 and 3): each format
/// (`csv`, `tsv`, `json`, `jsonl`, `plist`) with each photo mode (`none`,
/// `hash`, `inline`), into a fresh catalog and into the same one, with
/// the wear history and the counts from before it (the baselines).
@Suite("export → import: every format and photo mode comes back")
struct ExportRoundTripTests {
    static let formats = ["csv", "tsv", "json", "jsonl", "plist"]
    static let photoModes = ["none", "hash", "inline"]

    /// The sample catalog (R's photo inside the store, B's and V's as
    /// files), with a history whose notes need quoting in every format,
    /// tags and a second favourite.
    static func sampleCatalog() throws -> CatalogWorkspace {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        for arguments in [
            ["wear", "R", "--on", "2026-11-20", "--note", "wedding, \"the\" big\tday\nand night \\o/"],
            ["wear", "R", "--on", "2026-11-22"],
            ["wear", "B", "--on", "2025-01-02", "--note", "[{\"date\": \"not a wear\"}]"],
            ["tag", "R", "formal", "wedding"],
            ["tag", "B", "formal"],
            ["favorite", "R"],
        ] {
            let result = try workspace.run(arguments: arguments)
            try #require(result.status == 0, "\(result)")
        }
        return workspace
    }

    /// The JSON export of the store, photos hashed, with the photo
    /// folder's path (which differs between two stores) written `PHOTOS/`.
    static func json(_ workspace: CatalogWorkspace, store: URL, fields: String? = nil) throws -> String {
        let result = try workspace.run(
            arguments: ["export", "--format", "json", "--store", store.path] + (fields.map { ["--fields", $0] } ?? []))
        try #require(result.status == 0, "\(result)")
        let folder = store.deletingLastPathComponent().appendingPathComponent(".catalog_SUPPORT/_EXTERNAL_DATA/").path
        return result.stdout.replacingOccurrences(of: folder + "/", with: "PHOTOS/")
    }

    @Test(
        "export, import into a fresh catalog: the same catalog; into the same: all unchanged",
        arguments: formats, photoModes)
    func roundTrip(format: String, photos: String) throws {
        let workspace = try Self.sampleCatalog()
        let file = workspace.outputDirectory.appendingPathComponent("ties.\(format)")
        let export = try workspace.run("export", "--format", format, "--photos", photos, "--output", file.path)
        try #require(export.status == 0, "\(export)")
        if photos == "none" {
            #expect(
                export.stderr.contains("Without photos (--photos none): importing it restores none"), "\(export)")
        } else {
            #expect(!export.stderr.contains("Without photos"), "\(export)")
        }

        // A fresh catalog: inline photos need nothing; hashes are found
        // among the images the catalog was made from.
        let fresh = workspace.runner.directory.appendingPathComponent("fresh/catalog.sqlite")
        let images = photos == "hash" ? ["--images", BowTiesRunner.sampleImagesURL.path] : []
        let imported = try workspace.run(arguments: ["import", file.path, "--store", fresh.path] + images)
        #expect(imported.status == 0, "\(imported)")
        #expect(imported.stdout.contains("added 7, updated 0, unchanged 0."), "\(imported)")
        #expect(imported.stderr.isEmpty, "no warning at all: \(imported)")
        let original = workspace.storeURL
        if photos == "none" {
            // No photo comes back, and nothing is said per record.
            #expect(!imported.stdout.contains("photo"), "\(imported)")
            let fields =
                "id,name,searchKey,rating,timesWorn,lastWorn,isFavorite,url,tintColor,tags,"
                + "timesWornBefore,lastWornBefore,wears"
            #expect(
                try Self.json(workspace, store: fresh, fields: fields)
                    == Self.json(workspace, store: original, fields: fields))
            let photoless = try Self.json(workspace, store: fresh, fields: "photo")
            #expect(!photoless.contains("sha256"), "\(photoless)")
        } else {
            #expect(imported.stdout.contains("7 photos saved; 2 new files"), "\(imported)")
            #expect(try Self.json(workspace, store: fresh) == Self.json(workspace, store: original))
        }
        // The history and the counts before it, exactly.
        for store in [original, fresh] {
            let history = try workspace.run("history", "R", "--store", store.path)
            #expect(
                history.stdout.contains("14 times worn: 2 recorded, 12 before the history began."), "\(history)")
        }

        // The same catalog: nothing changes, no photo is saved again.
        let before = try workspace.snapshot()
        let again = try workspace.run(arguments: ["import", file.path, "--update"] + images)
        #expect(again.status == 0, "\(again)")
        #expect(again.stdout.contains("added 0, updated 0, unchanged 7."), "\(again)")
        #expect(!again.stdout.contains("photo"), "\(again)")
        #expect(again.stderr.isEmpty, "\(again)")
        let after = try workspace.snapshot()
        let changed = after.rows.filter { !before.rows.contains($0) && !$0.hasPrefix("undo_") }
        #expect(changed.isEmpty, "\(after.difference(from: before))")
        #expect(after.files == before.files)
    }

    @Test("a wear, export JSON, import --update: unchanged; unwear then finds the date from before the history")
    func baselineSurvivesReimport() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        #expect(try workspace.run("wear", "R", "--on", "2026-11-20").status == 0)
        let file = workspace.outputDirectory.appendingPathComponent("e.json")
        #expect(try workspace.run("export", "--format", "json", "--output", file.path).status == 0)
        let exported = try String(contentsOf: file, encoding: .utf8)
        #expect(exported.contains("\"timesWornBefore\":12,\"lastWornBefore\":\"2014-06-19T18:15:24Z\""), "\(exported)")

        let update = try workspace.run("import", file.path, "--update")
        #expect(update.status == 0, "\(update)")
        #expect(update.stdout.contains("added 0, updated 0, unchanged 7."), "\(update)")
        #expect(!update.stdout.contains("photo saved"), "\(update)")

        let fresh = workspace.runner.directory.appendingPathComponent("fresh/catalog.sqlite")
        let restored = try workspace.run("import", file.path, "--store", fresh.path)
        #expect(restored.status == 0, "\(restored)")

        for store in [workspace.storeURL, fresh] {
            let history = try workspace.run("history", "R", "--json", "--store", store.path)
            let json = try #require(try history.json() as? [String: Any], "\(history)")
            let baseline = try #require(json["baseline"] as? [String: Any], "\(history)")
            #expect(baseline["timesWorn"] as? Int == 12, "\(history)")
            #expect(baseline["lastWorn"] as? String == "2014-06-19T18:15:24Z", "\(history)")

            let unwear = try workspace.run("unwear", "R", "--store", store.path)
            #expect(unwear.status == 0, "\(unwear)")
            let show = try workspace.run("show", "R", "--store", store.path)
            #expect(show.stdout.contains("Last worn: 2014-06-19 18:15:24 UTC"), "\(show)")
            #expect(show.stdout.contains("# times worn: 12"), "\(show)")
        }
    }

    @Test("a wear recorded now (with a fraction of a second) is the same wear when its export comes back")
    func wearNowIsUnchanged() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        #expect(try workspace.run("wear", "R").status == 0)
        for format in ["json", "csv", "plist"] {
            let file = workspace.outputDirectory.appendingPathComponent("now.\(format)")
            #expect(try workspace.run("export", "--format", format, "--output", file.path).status == 0)
            let update = try workspace.run("import", file.path, "--update")
            #expect(update.stdout.contains("added 0, updated 0, unchanged 7."), "\(format): \(update)")
        }
    }

    @Test("a total that its baseline and history do not make is refused, located, naming the three")
    func inconsistentTotal() throws {
        let workspace = try CatalogWorkspace()
        let file = try workspace.writeInput(
            """
            [{"name": "Red", "searchKey": "R", "timesWorn": 15, "timesWornBefore": 12, \
            "wears": [{"date": "2026-11-20T00:00:00Z", "note": null}]}]

            """, to: "bad.json")
        let result = try workspace.run("import", file.path)
        #expect(result.status == 65, "\(result)")
        #expect(
            result.stderr.contains(
                "bad.json:1:2: record 1 (R \"Red\"), timesWorn: timesWorn is 15, but timesWornBefore 12 plus the 1 listed in wears make 13"
            ), "\(result)")
    }

    @Test("a baseline without its history is the count: a CSV without the wears column imports as the counts say")
    func baselineWithoutHistory() throws {
        let workspace = try CatalogWorkspace()
        let file = try workspace.writeInput(
            "name,searchKey,timesWorn,timesWornBefore,lastWornBefore\r\nRed,R,3,3,2020-01-02T03:04:05Z\r\n",
            to: "ties.csv")
        let result = try workspace.run("import", file.path)
        #expect(result.status == 0, "\(result)")
        let history = try workspace.run("history", "R")
        #expect(history.stdout.contains("3 times worn: 0 recorded, 3 before the history began."), "\(history)")
        let show = try workspace.run("show", "R")
        #expect(show.stdout.contains("Last worn: 2020-01-02 03:04:05 UTC"), "\(show)")
    }

    @Test("a wears cell that is not JSON is refused at the cell, saying what it should hold")
    func badWearsCell() throws {
        let workspace = try CatalogWorkspace()
        let file = try workspace.writeInput(
            "name,searchKey,wears\r\nRed,R,\"[{\"\"date\"\":\"\"2026-11-20T00:00:00Z\"\"},\"\r\n", to: "ties.csv")
        let result = try workspace.run("import", file.path)
        #expect(result.status == 65, "\(result)")
        #expect(
            result.stderr.hasPrefix(
                "bowties: error: ties.csv:2:40: the wears cell is not JSON text (as export writes it: "
                    + "[{\"date\": ...}]): the cell ends where a value should be"), "\(result)")
    }
}
