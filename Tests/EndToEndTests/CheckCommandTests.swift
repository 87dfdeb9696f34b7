import Foundation
import Testing

@Suite("bowties check")
struct CheckCommandTests {
    @Test("a healthy catalog: exit 0, what was checked, no problems")
    func healthy() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let result = try bowties.run("check")
        #expect(result.status == 0, "\(result)")
        #expect(
            result.stdout == """
                Checked \(bowties.storeURL.path): 7 bow ties, 7 photos, 2 entries in the photo folder.
                No problems found.

                """, "\(result)")
        #expect(result.stderr.isEmpty, "\(result)")

        let json = try bowties.run("check", "--json")
        #expect(json.status == 0, "\(json)")
        let report = try #require(try json.json() as? [String: Any], "\(json)")
        #expect(report["healthy"] as? Bool == true)
        #expect(report["bowTies"] as? Int == 7)
        #expect((report["problems"] as? [Any])?.isEmpty == true)
    }

    @Test("a damaged photo and a leftover temporary file: exit 65, each named; --repair fixes both, exit 0")
    func damagedThenRepaired() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let photo = try #require(bowties.run("photo", "B", "--json").json() as? [String: Any])
        let file = try #require((photo["photo"] as? [String: Any])?["file"] as? String)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
        try Data("scribbled over".utf8).write(to: URL(fileURLWithPath: file))
        let leftover = bowties.externalDataURL.appendingPathComponent(
            ".\(URL(fileURLWithPath: file).lastPathComponent).tmp-0BAD0BAD")
        try Data("half".utf8).write(to: leftover)

        let check = try bowties.run("check")
        #expect(check.status == 65, "\(check)")
        #expect(check.stdout.contains("2 problems:"), "\(check)")
        #expect(check.stdout.contains("- damaged photo file: \(file) has SHA-256 "), "\(check)")
        #expect(check.stdout.contains("record: B \"Midnight Blue Silk\" (id "), "\(check)")
        #expect(
            check.stdout.contains("- unused file: \(leftover.path): a temporary file left by an interrupted write"),
            "\(check)")
        #expect(
            check.stderr == """
                bowties: error: the catalog at \(bowties.storeURL.path) has 2 problems
                hint: `bowties check --repair` can repair 2 of them; see `bowties check --help`.

                """, "\(check)")

        let json = try #require(try bowties.run("check", "--json").json() as? [String: Any])
        let kinds = (json["problems"] as? [[String: Any]])?.compactMap { $0["kind"] as? String }
        #expect(kinds == ["damagedPhotoFile", "orphanFile"])

        let repair = try bowties.run("check", "--repair")
        #expect(repair.status == 0, "\(repair)")
        let lines = repair.stdoutLines
        #expect(lines.contains("Found 2 problems; repairing 2:"), "\(repair)")
        #expect(lines.contains("  repair: set the photo of the records that use it to none"), "\(repair)")
        #expect(lines.contains("  repair: remove the file"), "\(repair)")
        #expect(
            lines.suffix(4) == [
                "Repaired 2 problems.",
                "Undo: `bowties undo` takes back #2 \"Repair the catalog\"; 1 repair (remove the file) cannot be undone.",
                "A new check finds no problems.", "",
            ], "\(repair)")
        #expect(repair.stderr.isEmpty, "\(repair)")

        #expect(try bowties.tieCount() == 7)
        #expect(try bowties.run("show", "B").stdoutLines.contains("Photo: none"))
        #expect(!FileManager.default.fileExists(atPath: leftover.path))
        // Kept, damaged as it is, for `bowties undo`: it goes when the
        // history forgets the repair.
        #expect(FileManager.default.fileExists(atPath: file))
        #expect(try bowties.run("check").status == 0)
        #expect(try bowties.run("config", "--undo-limit", "0").status == 0)
        #expect(!FileManager.default.fileExists(atPath: file))
        #expect(try bowties.run("check").status == 0)
    }

    @Test(
        "check --repair of a damaged inline photo and a missing file is one action: undo puts both back, redo repairs"
    )
    func repairIsUndoable() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let inline = try PhotoDamage.alteredInline.apply(to: bowties)
        let missing = try PhotoDamage.missingFile.apply(to: bowties)
        let leftover = bowties.externalDataURL.appendingPathComponent(".stray.tmp-0BAD0BAD")
        try Data("half".utf8).write(to: leftover)
        let damaged = try bowties.run("export", "--format", "json")

        let repair = try bowties.run("check", "--repair")
        #expect(repair.status == 0, "\(repair)")
        let undoLine =
            "Undo: `bowties undo` takes back #2 \"Repair the catalog\"; 1 repair (remove the file) cannot be undone."
        #expect(repair.stdoutLines.contains(undoLine), "\(repair)")
        #expect(try bowties.run("show", "R").stdoutLines.contains("Photo: none"))

        // Before the fix: "FOREIGN KEY constraint failed", exit 74.
        let undo = try bowties.run("undo")
        #expect(undo.status == 0, "\(undo)")
        #expect(undo.stdout.hasPrefix("Undid \"Repair the catalog\":\n"), "\(undo)")
        #expect(undo.stdout.contains("Classic Red Bow Tie: photo none → 16,698 bytes"), "\(undo)")
        #expect(undo.stdout.contains("Midnight Blue Silk: photo none → 242,697 bytes"), "\(undo)")
        #expect(undo.stderr.isEmpty, "\(undo)")
        for (key, words) in [("R", inline), ("B", missing)] {
            let show = try bowties.run("show", key)
            #expect(show.stdoutLines.contains("Photo: \(words) (run `bowties check --repair`)"), "\(show)")
        }
        // The ties are as they were, photos included (the stray file is
        // not part of the catalog).
        #expect(try bowties.run("export", "--format", "json").stdout == damaged.stdout)
        let check = try bowties.run("check")
        #expect(check.status == 65, "\(check)")
        #expect(check.stdout.contains("2 problems:"), "\(check)")

        let redo = try bowties.run("redo")
        #expect(redo.status == 0, "\(redo)")
        #expect(redo.stdout.hasPrefix("Redid \"Repair the catalog\":\n"), "\(redo)")
        #expect(try bowties.run("show", "R").stdoutLines.contains("Photo: none"))
        #expect(try bowties.run("show", "B").stdoutLines.contains("Photo: none"))
        let after = try bowties.run("check")
        #expect(after.status == 0, "\(after)")
    }

    @Test("a repair that only removes a stray file is not in the undo history, and says what undo will undo")
    func strayFileRepairIsNotAnAction() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let leftover = bowties.externalDataURL.appendingPathComponent(".stray.tmp-0BAD0BAD")
        try Data("half".utf8).write(to: leftover)
        let repair = try bowties.run("check", "--repair")
        #expect(repair.status == 0, "\(repair)")
        #expect(
            repair.stdoutLines.contains(
                "Undo: this repair is not in the undo history (remove the file: not a change to the bow ties); "
                    + "`bowties undo` would undo #1 \"Import SampleData.plist\"."), "\(repair)")
        let log = try bowties.run("log")
        #expect(!log.stdout.contains("Repair"), "\(log)")
        try Data("half".utf8).write(to: leftover)
        let json = try #require(try bowties.run("check", "--repair", "--json").json() as? [String: Any])
        #expect((json["repaired"] as? [Any])?.count == 1)
        #expect(json["undoAction"] == nil)
    }

    @Test("a problem --repair cannot fix: it is reported, nothing is deleted, exit 65")
    func unrepairable() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        // A folder in the photo folder: no bow tie's photo, and not ours to delete.
        try FileManager.default.createDirectory(
            at: bowties.externalDataURL.appendingPathComponent("keep-me"), withIntermediateDirectories: false)
        let repair = try bowties.run("check", "--repair")
        #expect(repair.status == 65, "\(repair)")
        #expect(repair.stdout.contains("Found 1 problem; repairing 0:"), "\(repair)")
        #expect(repair.stdout.contains("  left to you: "), "\(repair)")
        #expect(repair.stderr.contains("`bowties check --repair` cannot repair it"), "\(repair)")
        #expect(FileManager.default.fileExists(atPath: bowties.externalDataURL.appendingPathComponent("keep-me").path))
    }

    @Test("no catalog: exit 66 with the usual hint, and nothing created")
    func noCatalog() throws {
        let bowties = try BowTiesRunner()
        let result = try bowties.run("check")
        #expect(result.status == 66, "\(result)")
        #expect(result.stderr.contains("hint: Create one with `bowties import`"), "\(result)")
        #expect(!FileManager.default.fileExists(atPath: bowties.storeURL.path))
        #expect(!FileManager.default.fileExists(atPath: bowties.storeURL.path + "-lock"))
    }

    @Test("--help explains what is checked, what --repair does and the exit statuses")
    func help() throws {
        let bowties = try BowTiesRunner()
        let result = try bowties.run("check", "--help")
        #expect(result.status == 0, "\(result)")
        let text = result.stdout.replacingOccurrences(of: "\n", with: " ").split(separator: " ").joined(separator: " ")
        for phrase in [
            "integrity check", "never deletes a bow tie", "one transaction",
            "Exit status: 0 when the catalog is healthy",
            "65 when problems remain",
        ] {
            #expect(text.contains(phrase), "\(phrase)\n\(result)")
        }
    }
}
