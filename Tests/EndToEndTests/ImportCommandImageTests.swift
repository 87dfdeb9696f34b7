import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A small property list written by hand: fixed ids, so that the same
/// records can be imported again, and the line of each `imageName` known.
private enum TiesFile {
    /// One record, two tabs of indentation for its values (so a value's
    /// column is 3), the image name last when there is one.
    static func record(
        _ key: String, _ name: String, index: Int, imageName: String? = nil, extra: [String] = []
    ) -> String {
        var lines = [
            "\t<dict>",
            "\t\t<key>id</key>",
            "\t\t<string>\(id(index))</string>",
            "\t\t<key>name</key>",
            "\t\t<string>\(name)</string>",
            "\t\t<key>searchKey</key>",
            "\t\t<string>\(key)</string>",
        ]
        lines += extra
        if let imageName {
            lines += ["\t\t<key>imageName</key>", "\t\t<string>\(imageName)</string>"]
        }
        return (lines + ["\t</dict>"]).joined(separator: "\n")
    }

    static func id(_ index: Int) -> String {
        String(format: "00000000-0000-4000-8000-%012d", index)
    }

    static func document(_ records: [String]) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0">
        <array>
        \(records.joined(separator: "\n"))
        </array>
        </plist>

        """
    }

    /// The 1-based line of the first line of `text` that contains `fragment`.
    static func line(of fragment: String, in text: String) -> Int? {
        text.components(separatedBy: "\n").firstIndex { $0.contains(fragment) }.map { $0 + 1 }
    }
}

/// Image names refused on their own: the same verdict, exit 65 with a
/// located message, whatever the store holds and whatever the flags.
@Suite("bowties import: refused image names")
struct ImportCommandRefusedImageTests {
    /// The forms of a name that must never be followed.
    enum RefusedName: String, CaseIterable, CustomTestStringConvertible {
        case absolute, dotDot, subfolder, symlinkOutside

        var testDescription: String { rawValue }

        /// The name as the file writes it; `workspace` is where `in/`
        /// lives (the absolute form names a file that exists).
        func name(in workspace: URL) -> String {
            switch self {
            case .absolute: workspace.appendingPathComponent("secret.png").path
            case .dotDot: "../secret.png"
            // Exists: only the rule on names refuses it.
            case .subfolder: "a/b.png"
            case .symlinkOutside: "escape.png"
            }
        }

        /// What the message must say.
        var reason: String {
            switch self {
            case .absolute: "is absolute"
            case .dotDot: "leaves the images folder"
            case .subfolder: "contains a path separator"
            case .symlinkOutside: "outside the images folder"
            }
        }
    }

    /// How the import is run, and on what.
    enum Scenario: CaseIterable {
        /// No store yet.
        case fresh
        /// A store that holds these records already (imported from the same
        /// file without its imageName).
        case stored
        case storedUpdate
        case storedDryRun
        case freshDryRun

        var hasStore: Bool { self != .fresh && self != .freshDryRun }
        var flags: [String] {
            switch self {
            case .fresh, .stored: []
            case .storedUpdate: ["--update"]
            case .storedDryRun, .freshDryRun: ["--dry-run"]
            }
        }
    }

    @Test(
        "a refused image name: exit 65, file:line, record and field, store untouched",
        arguments: RefusedName.allCases)
    func refusedEverywhere(_ form: RefusedName) throws {
        for scenario in Scenario.allCases {
            let bowties = try BowTiesRunner()
            let folder = bowties.directory.appendingPathComponent("in", isDirectory: true)
            let images = folder.appendingPathComponent("Images", isDirectory: true)
            try FileManager.default.createDirectory(
                at: images.appendingPathComponent("a"), withIntermediateDirectories: true)
            let photo = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data("a photo".utf8)
            try photo.write(to: images.appendingPathComponent("a/b.png"))
            try photo.write(to: images.appendingPathComponent("ok.png"))
            try photo.write(to: folder.appendingPathComponent("secret.png"))
            try photo.write(to: bowties.directory.appendingPathComponent("secret.png"))
            try FileManager.default.createSymbolicLink(
                atPath: images.appendingPathComponent("escape.png").path,
                withDestinationPath: folder.appendingPathComponent("secret.png").path)

            let name = form.name(in: bowties.directory)
            let records = [
                TiesFile.record("A", "Fine", index: 1, imageName: "ok.png"),
                TiesFile.record("R", "Red", index: 2, imageName: name),
            ]
            let text = TiesFile.document(records)
            let file = folder.appendingPathComponent("ties.plist")
            try Data(text.utf8).write(to: file)
            let line = try #require(TiesFile.line(of: "<string>\(name)</string>", in: text))

            var before: StoreSnapshot?
            if scenario.hasStore {
                // The same records, the second without its image name.
                let plain = folder.appendingPathComponent("plain.plist")
                try Data(
                    TiesFile.document([records[0], TiesFile.record("R", "Red", index: 2)]).utf8
                ).write(to: plain)
                let seeded = try bowties.run("import", plain.path)
                try #require(seeded.status == 0, "\(seeded)")
                before = try StoreSnapshot(storeURL: bowties.storeURL)
            }

            let result = try bowties.run(arguments: ["import", file.path] + scenario.flags)
            let context = "\(form) / \(scenario): \(result)"
            #expect(result.status == 65, "\(context)")
            #expect(result.stdout.isEmpty, "\(context)")
            #expect(
                result.stderr.hasPrefix("bowties: error: ties.plist:\(line):3: record 2 (R \"Red\"), imageName: "),
                "\(context)")
            #expect(result.stderr.contains(form.reason), "\(context)")

            if let before {
                let after = try StoreSnapshot(storeURL: bowties.storeURL)
                #expect(after == before, "\(form) / \(scenario): \(after.difference(from: before))")
            } else {
                #expect(!FileManager.default.fileExists(atPath: bowties.storeURL.path), "\(context)")
                #expect(bowties.supportFiles().isEmpty, "\(context)")
            }
        }
    }
}

/// An image file that is not an image: refused where it is named.
@Suite("bowties import: image files that are not images")
struct ImportCommandNotAnImageTests {
    @Test("a text file or an empty file named as a photo: exit 65, file:line, record and field; nothing imported")
    func refused() throws {
        for (name, bytes, reason) in [
            ("notes.txt", Data("hello world\n".utf8), "is not an image (it starts with \"hello wo\")"),
            ("empty.png", Data(), "is empty, not an image"),
        ] {
            let bowties = try BowTiesRunner()
            let folder = bowties.directory.appendingPathComponent("in", isDirectory: true)
            let images = folder.appendingPathComponent("Images", isDirectory: true)
            try FileManager.default.createDirectory(at: images, withIntermediateDirectories: true)
            try bytes.write(to: images.appendingPathComponent(name))
            let text = TiesFile.document([
                TiesFile.record("A", "Fine", index: 1), TiesFile.record("R", "Red", index: 2, imageName: name),
            ])
            let file = folder.appendingPathComponent("ties.plist")
            try Data(text.utf8).write(to: file)
            let line = try #require(TiesFile.line(of: "<string>\(name)</string>", in: text))
            let result = try bowties.run("import", file.path)
            #expect(result.status == 65, "\(result)")
            #expect(
                result.stderr == """
                    bowties: error: ties.plist:\(line):3: record 2 (R "Red"), imageName: image \
                    \(images.appendingPathComponent(name).path) \(reason); \
                    A photo is a PNG, JPEG, GIF, WebP or HEIC image file.

                    """, "\(result)")
            #expect(!FileManager.default.fileExists(atPath: bowties.storeURL.path), "\(result)")
        }
    }
}

/// Warnings: the first 20 one by one, in file order, then a line per kind.
@Suite("bowties import: bounded warnings")
struct ImportCommandWarningTests {
    @Test("1,000 records without their photos: 20 warning lines, then one summary line; --json the same")
    func thousandMissingPhotos() throws {
        let bowties = try BowTiesRunner()
        // No Images folder beside the file: every photo is missing.
        let file = bowties.directory.appendingPathComponent("Many.plist")
        try GeneratedPlist.write(to: file, records: 1_000, keyPrefix: "M", photo: { "photo\($0).png" })
        let images = bowties.directory.appendingPathComponent("Images").path
        let summary = "… and 980 more records whose photo file is not in \(images)"

        let result = try bowties.run("import", file.path)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("added 1000, updated 0, unchanged 0"), "\(result)")
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 21, "\(result)")
        for (index, line) in lines.prefix(20).enumerated() {
            #expect(line.hasPrefix("bowties: warning: Many.plist:"), "\(line)")
            #expect(line.contains("record \(index + 1) (M\(index) "), "\(line)")
            #expect(line.contains("image \"photo\(index).png\" not found"), "\(line)")
        }
        #expect(lines.last == "bowties: warning: " + summary, "\(result)")

        let other = bowties.directory.appendingPathComponent("other/catalog.sqlite")
        let json = try bowties.run("import", file.path, "--json", "--store", other.path)
        #expect(json.status == 0, "\(json)")
        let report = try #require(try json.json() as? [String: Any], "\(json)")
        let warnings = try #require(report["warnings"] as? [String], "\(json)")
        #expect(warnings.count == 20)
        #expect(warnings.first?.contains("record 1 (M0 ") == true, "\(warnings)")
        let more = try #require(report["moreWarnings"] as? [[String: Any]], "\(json)")
        #expect(more.count == 1, "\(json)")
        #expect(more.first?["kind"] as? String == "missingImage")
        #expect(more.first?["count"] as? Int == 980)
        #expect(more.first?["exact"] as? Bool == true)
        #expect(more.first?["message"] as? String == summary)
        // Standard error says the same on the JSON run.
        #expect(json.stderr.split(separator: "\n").count == 21, "\(json)")
    }

    @Test("warnings of every kind share the 20 lines in file order; a summary per kind follows")
    func kindsInFileOrder() throws {
        let bowties = try BowTiesRunner()
        let records = (1...30).map { index in
            TiesFile.record(
                "K\(index)", "Tie \(index)", index: index, imageName: "none\(index)",
                extra: ["\t\t<key>fabric\(index)</key>", "\t\t<string>silk</string>"])
        }
        let file = try bowties.write(TiesFile.document(records), to: "Mixed.plist")
        let result = try bowties.run("import", file.path)
        #expect(result.status == 0, "\(result)")
        let lines = result.stderr.split(separator: "\n").map(String.init)
        try #require(lines.count == 22, "\(result)")
        for record in 1...10 {
            let unknown = lines[(record - 1) * 2]
            let missing = lines[(record - 1) * 2 + 1]
            #expect(unknown.hasSuffix("unknown key \"fabric\(record)\" ignored"), "\(unknown)")
            #expect(missing.contains("record \(record) (K\(record) "), "\(missing)")
            #expect(missing.contains("image \"none\(record)\" not found"), "\(missing)")
        }
        // Record 11's unknown key is the first not shown.
        #expect(lines[20] == "bowties: warning: … and 20 more unknown keys ignored", "\(result)")
        #expect(
            lines[21]
                == "bowties: warning: … and 20 more records whose photo file is not in \(bowties.directory.path)/Images",
            "\(result)")
    }

    /// Peak memory must not follow the number of warnings: before, each
    /// missing photo kept its warning. At 30,000 records (debug build)
    /// that was 6.5 MiB more than the same import with its photos; now it
    /// is about 4 MiB less, as the photos' bytes are never read. The 2 MiB
    /// bound is the bench's 5 MiB at 400,000 records (`bench/run`), scaled
    /// down and kept clear of the old figure.
    @Test("peak memory of an import whose every photo is missing does not grow with its warnings")
    func warningsKeepMemoryFlat() throws {
        let bowties = try BowTiesRunner()
        let file = bowties.directory.appendingPathComponent("in/Many.plist")
        try FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        let names = ["red.png", "orange.png", "yellow.png", "green.png", "blue.png", "indigo.png", "violet.png"]
        try GeneratedPlist.write(to: file, records: 30_000, keyPrefix: "W", photo: { names[$0 % names.count] })
        let binary = try BowTiesRunner.executableURL()
        func peak(_ arguments: [String], store: String) throws -> MeasuredProcess {
            let run = try MeasuredProcess.run(
                binary,
                ["import", file.path, "--store", bowties.directory.appendingPathComponent(store).path] + arguments,
                environment: bowties.environment, in: bowties.directory, timeout: 300)
            try #require(run.status == 0, "exit \(run.status): \(run.stderr.prefix(2_000))")
            return run
        }
        let with = try peak(["--images", BowTiesRunner.sampleImagesURL.path], store: "with/catalog.sqlite")
        let without = try peak([], store: "without/catalog.sqlite")
        #expect(without.stderr.split(separator: "\n").count == 21)
        #expect(
            without.peakMemoryMiB - with.peakMemoryMiB <= 2,
            "without photos \(without.peakMemoryMiB) MiB, with \(with.peakMemoryMiB) MiB")
    }
}

/// "N photos saved; M new files in DIR": M is the files the import added,
/// and a photo already on disk, or already written by this import, is not
/// written again.
@Suite("bowties import: photo files written once")
struct ImportCommandPhotoFileTests {
    /// The photo files in the folder, by name, with their inode: a file
    /// rewritten (written to a temporary name and renamed) gets a new one.
    private func photoFiles(_ bowties: BowTiesRunner) -> [String: UInt64] {
        let folder = bowties.externalDataURL
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        var files: [String: UInt64] = [:]
        for name in names where !name.hasPrefix(".") {
            var info = stat()
            if lstat(folder.appendingPathComponent(name).path, &info) == 0 { files[name] = UInt64(info.st_ino) }
        }
        return files
    }

    /// `M` in "…; M new files in DIR.", or nil when no such line.
    private func newFiles(_ result: BowTiesResult) -> Int? {
        for line in result.stdoutLines {
            guard let range = line.range(of: "; "), line.contains(" new file") else { continue }
            return Int(line[range.upperBound...].prefix { $0.isNumber })
        }
        return nil
    }

    /// Runs an import and checks that its count of new files is what the
    /// folder gained, and that no file already there was rewritten.
    @discardableResult
    private func importChecked(
        _ bowties: BowTiesRunner, _ arguments: [String], expectedNew: Int, _ comment: String
    ) throws -> BowTiesResult {
        let before = photoFiles(bowties)
        let result = try bowties.run(arguments: ["import"] + arguments)
        try #require(result.status == 0, "\(comment): \(result)")
        let after = photoFiles(bowties)
        let added = Set(after.keys).subtracting(before.keys).count
        #expect(Set(before.keys).isSubset(of: Set(after.keys)), "\(comment): a file went away")
        for (name, inode) in before {
            #expect(after[name] == inode, "\(comment): \(name) was written again")
        }
        #expect(added == expectedNew, "\(comment): \(added) files added\n\(result)")
        if arguments.contains("--json") {
            let report = try #require(try result.json() as? [String: Any], "\(result)")
            #expect(report["photoFilesWritten"] as? Int == added, "\(comment): \(result)")
        } else {
            // No photo line when no record written has a photo.
            #expect((newFiles(result) ?? 0) == added, "\(comment): the summary says otherwise\n\(result)")
        }
        return result
    }

    @Test("the count of new photo files equals the files added: new, re-imported, unchanged and updated records")
    func countsEqualFilesAdded() throws {
        let bowties = try BowTiesRunner()
        let images = bowties.directory.appendingPathComponent("Images", isDirectory: true)
        // Over the 100 KiB threshold: files. small.png stays inline.
        for (index, name) in ["big1", "big2", "big3"].enumerated() {
            try GeneratedPlist.writePhoto(
                named: "\(name).png", bytes: 150_000 + index * 1_000, seed: UInt64(index + 1), in: images)
        }
        try GeneratedPlist.writePhoto(named: "small.png", bytes: 2_000, seed: 9, in: images)
        func file(_ name: String, _ records: [String]) throws -> String {
            try bowties.write(TiesFile.document(records), to: name).path
        }

        // New records; two share big1.
        let first = try file(
            "First.plist",
            [
                TiesFile.record("A1", "One", index: 1, imageName: "big1.png"),
                TiesFile.record("A2", "Two", index: 2, imageName: "big1"),
                TiesFile.record("A3", "Three", index: 3, imageName: "small.png"),
                TiesFile.record("A4", "Four", index: 4),
            ])
        let result = try importChecked(bowties, [first], expectedNew: 1, "first import")
        #expect(result.stdout.contains("2 distinct photos for 3 ties saved; 1 new file in"), "\(result)")

        // The same file again: every record unchanged, every photo stored.
        try importChecked(bowties, [first, "--json"], expectedNew: 0, "re-import, unchanged")

        // Records stored without photos, then named with photos: left
        // unchanged without --update, so big2 must not reach the disk.
        let unchanged = [
            TiesFile.record("U1", "Plain One", index: 11, imageName: "big2.png"),
            TiesFile.record("U2", "Plain Two", index: 12, imageName: "big2.png"),
        ]
        let plain = try file(
            "Plain.plist",
            [TiesFile.record("U1", "Plain One", index: 11), TiesFile.record("U2", "Plain Two", index: 12)])
        try importChecked(bowties, [plain], expectedNew: 0, "records without photos")
        try importChecked(
            bowties, [try file("Unchanged.plist", unchanged), "--json"], expectedNew: 0, "only unchanged records")

        // Unchanged records naming big2 first, then new records: one with a
        // photo new to the store (big3), one with a stored one (big1).
        let mixed = try file(
            "Mixed.plist",
            unchanged + [
                TiesFile.record("N1", "New One", index: 21, imageName: "big3"),
                TiesFile.record("N2", "New Two", index: 22, imageName: "big1.png"),
            ])
        let mixedResult = try importChecked(bowties, [mixed], expectedNew: 1, "unchanged and new records")
        #expect(mixedResult.stdout.contains("added 2, updated 0, unchanged 2"), "\(mixedResult)")
        #expect(mixedResult.stdout.contains("2 photos saved; 1 new file in"), "\(mixedResult)")

        // A re-import into a store that has every photo: new records only.
        try importChecked(
            bowties,
            [
                try file(
                    "Again.plist",
                    [
                        TiesFile.record("M1", "More One", index: 31, imageName: "big1"),
                        TiesFile.record("M2", "More Two", index: 32, imageName: "big3.png"),
                    ])
            ], expectedNew: 0, "new records, stored photos")

        // --update gives U1 and U2 big2: now it is written, once.
        let updated = try importChecked(bowties, [mixed, "--update"], expectedNew: 1, "--update")
        #expect(updated.stdout.contains("updated 2"), "\(updated)")
        #expect(photoFiles(bowties).count == 3)
    }
}
