import Foundation
import Testing

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
            let photo = Data("a photo".utf8)
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
