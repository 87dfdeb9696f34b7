import Foundation
import Testing

/// How a test damages a photo of the sample catalog, as a faulty disk, a
/// careless hand or another tool would.
enum PhotoDamage: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// B's external file is deleted.
    case missingFile
    /// B's external file keeps only its first 100,000 bytes.
    case truncatedFile
    /// One byte in the middle of B's external file is flipped: the same
    /// size, another SHA-256.
    case alteredFile
    /// R's inline photo, changed in SQLite directly: as many bytes, all
    /// zero.
    case alteredInline

    var testDescription: String {
        switch self {
        case .missingFile: "a missing file"
        case .truncatedFile: "a truncated file"
        case .alteredFile: "a file with other bytes of the same size"
        case .alteredInline: "inline bytes that fail their SHA-256"
        }
    }

    /// The tie whose photo is damaged.
    var key: String { self == .alteredInline ? "R" : "B" }

    /// How bowties' messages name that tie.
    var label: String { self == .alteredInline ? "R \"Classic Red Bow Tie\"" : "B \"Midnight Blue Silk\"" }

    var image: String { self == .alteredInline ? "red.png" : "blue.png" }

    /// Damages the photo.
    ///
    /// - Returns: The words every command must use for what is wrong.
    func apply(to bowties: BowTiesRunner) throws -> String {
        let sha256 = try PhotoCommandTests.sampleImage(image).sha256Hex
        let file = bowties.externalDataURL.appendingPathComponent(sha256)
        switch self {
        case .missingFile:
            try FileManager.default.removeItem(at: file)
            return "missing file \(file.path)"
        case .truncatedFile:
            let data = try Data(contentsOf: file)
            try Self.overwrite(file, with: data.prefix(100_000))
            return "damaged file \(file.path): truncated, 100000 of 242697 bytes"
        case .alteredFile:
            var data = try Data(contentsOf: file)
            data[data.count / 2] ^= 0xFF
            try Self.overwrite(file, with: data)
            return "damaged file \(file.path): SHA-256 does not match"
        case .alteredInline:
            try SQLiteLibrary().execute(
                "UPDATE blob SET data = zeroblob(length(data)) WHERE sha256 = '\(sha256)'",
                in: bowties.storeURL.path)
            return "damaged photo inside the catalog: SHA-256 does not match"
        }
    }

    /// Photo files are read-only (0444): make it writable first.
    private static func overwrite(_ file: URL, with data: Data) throws {
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
        try data.write(to: file)
    }
}

@Suite("damaged photos degrade gracefully")
struct DamagedPhotoTests {
    /// The sample catalog, one photo damaged.
    struct Damaged {
        var bowties: BowTiesRunner
        var damage: PhotoDamage
        /// What every command must say about the photo.
        var words: String

        /// The photo line of `show` and `photo`.
        var photoLine: String { "Photo: \(words) (run `bowties check --repair`)" }

        /// The first line of the warning (and, with `error`, of the error).
        var message: String { "the photo of \(damage.label): \(words)" }
    }

    /// Imports the sample catalog, runs `before` on it while it is intact,
    /// then damages the photo.
    static func damaged<Before>(
        _ damage: PhotoDamage, before: (BowTiesRunner) throws -> Before
    ) throws -> (Damaged, Before) {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let healthy = try before(bowties)
        let words = try damage.apply(to: bowties)
        return (Damaged(bowties: bowties, damage: damage, words: words), healthy)
    }

    /// Checks that stderr is exactly the warning for the damaged photo:
    /// its words, then a hint that names `bowties check --repair`.
    static func expectWarning(_ result: BowTiesResult, _ damaged: Damaged) {
        let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 3, "\(result)")  // warning, hint, final newline
        #expect(lines.first == "bowties: warning: \(damaged.message)"[...], "\(result)")
        #expect(lines.dropFirst().first?.hasPrefix("hint: ") == true, "\(result)")
        #expect(lines.dropFirst().first?.contains("`bowties check --repair`") == true, "\(result)")
    }

    /// A parsed JSON value as text with sorted keys, to compare two.
    static func canonical(_ value: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys]), as: UTF8.self)
    }

    /// `show`'s lines, the day count of `Last worn` left out (a test may
    /// run across midnight).
    static func showLines(_ result: BowTiesResult) -> [String] {
        result.stdoutLines.map { $0.hasPrefix("Last worn: ") ? String($0.prefix(while: { $0 != "(" })) : $0 }
    }

    @Test(
        "show: exit 0, every other field as before, the problem on the photo line and a warning",
        arguments: PhotoDamage.allCases)
    func show(damage: PhotoDamage) throws {
        let (damaged, before) = try Self.damaged(damage) { try $0.run("show", damage.key) }
        try #require(before.status == 0, "\(before)")
        let healthyLines = Self.showLines(before)
        try #require(healthyLines.contains { $0.hasPrefix("Photo: PNG image, ") }, "\(before)")

        let result = try damaged.bowties.run("show", damage.key)
        #expect(result.status == 0, "\(result)")
        let expected = healthyLines.map { $0.hasPrefix("Photo: ") ? damaged.photoLine : $0 }
        #expect(Self.showLines(result) == expected, "\(result)")
        Self.expectWarning(result, damaged)
    }

    @Test("show --json: exit 0, every field as before, photoProblem in the same words", arguments: PhotoDamage.allCases)
    func showJSON(damage: PhotoDamage) throws {
        let (damaged, before) = try Self.damaged(damage) { try $0.run("show", damage.key, "--json") }
        var healthy = try #require(try before.json() as? [String: Any], "\(before)")
        #expect(healthy["photoProblem"] is NSNull, "an intact photo has photoProblem null\n\(before)")

        let result = try damaged.bowties.run("show", damage.key, "--json")
        #expect(result.status == 0, "\(result)")
        var tie = try #require(try result.json() as? [String: Any], "\(result)")
        #expect(tie["photoProblem"] as? String == damaged.words, "\(result)")
        // The photo as the catalog records it; its type needs its bytes.
        var photo = try #require(healthy["photo"] as? [String: Any], "\(before)")
        photo["type"] = nil
        #expect(try Self.canonical(tie["photo"] ?? NSNull()) == (try Self.canonical(photo)), "\(result)")
        for key in ["photo", "photoProblem"] {
            healthy[key] = nil
            tie[key] = nil
        }
        #expect(try Self.canonical(tie) == (try Self.canonical(healthy)), "\(result)")
        Self.expectWarning(result, damaged)
    }

    @Test("photo KEY (and --json) describes the problem, exit 0", arguments: PhotoDamage.allCases)
    func describe(damage: PhotoDamage) throws {
        let (damaged, _) = try Self.damaged(damage) { _ in () }
        let sha256 = try PhotoCommandTests.sampleImage(damage.image).sha256Hex

        let result = try damaged.bowties.run("photo", damage.key)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "\(damaged.photoLine)\nSHA-256: \(sha256)\n", "\(result)")
        Self.expectWarning(result, damaged)

        let json = try damaged.bowties.run("photo", damage.key, "--json")
        #expect(json.status == 0, "\(json)")
        let tie = try #require(try json.json() as? [String: Any], "\(json)")
        #expect(tie["photoProblem"] as? String == damaged.words, "\(json)")
        #expect((tie["photo"] as? [String: Any])?["sha256"] as? String == sha256, "\(json)")
        Self.expectWarning(json, damaged)
    }

    @Test("photo KEY --output FILE or -: exit 74 in the same words, and no file", arguments: PhotoDamage.allCases)
    func output(damage: PhotoDamage) throws {
        let (damaged, _) = try Self.damaged(damage) { _ in () }
        let bowties = damaged.bowties
        let listing = try FileManager.default.contentsOfDirectory(atPath: bowties.directory.path).sorted()
        let file = bowties.directory.appendingPathComponent("out.png")

        let result = try bowties.run("photo", damage.key, "--output", file.path)
        #expect(result.status == 74, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        #expect(result.stderr.hasPrefix("bowties: error: \(damaged.message)\nhint: "), "\(result)")
        #expect(result.stderr.contains("`bowties check --repair`"), "\(result)")
        #expect(!FileManager.default.fileExists(atPath: file.path), "\(result)")
        // No temporary file left behind either.
        #expect(try FileManager.default.contentsOfDirectory(atPath: bowties.directory.path).sorted() == listing)

        let piped = try bowties.run("photo", damage.key, "--output", "-")
        #expect(piped.status == 74, "\(piped)")
        #expect(piped.stdoutData.isEmpty, "\(piped)")
        #expect(piped.stderr == result.stderr, "\(piped)")

        // The error and the warning of `photo KEY` say the same.
        let describe = try bowties.run("photo", damage.key)
        #expect(
            describe.stderr.replacingOccurrences(of: "bowties: warning: ", with: "bowties: error: ") == result.stderr,
            "\(describe)")
    }

    @Test("list and export show the tie as before, without reading photo files", arguments: PhotoDamage.allCases)
    func listAndExport(damage: PhotoDamage) throws {
        let commands = [["list"], ["list", "--json"], ["export"], ["export", "--json"]]
        let (damaged, before) = try Self.damaged(damage) { bowties in
            try commands.map { try bowties.run(arguments: $0) }
        }
        for (healthy, command) in zip(before, commands) {
            try #require(healthy.status == 0, "\(healthy)")
            #expect(healthy.stdout.contains(damage.key == "R" ? "Classic Red Bow Tie" : "Midnight Blue Silk"))
            let result = try damaged.bowties.run(arguments: command)
            #expect(result.status == 0, "\(result)")
            #expect(result.stderr.isEmpty, "\(result)")
            #expect(result.stdout == healthy.stdout, "\(result)")
        }
    }

    @Test(
        "check finds the damage, and after check --repair show has no photo and no warning",
        arguments: PhotoDamage.allCases)
    func repair(damage: PhotoDamage) throws {
        let (damaged, before) = try Self.damaged(damage) { try $0.run("show", damage.key) }
        let bowties = damaged.bowties
        let check = try bowties.run("check")
        #expect(check.status == 65, "\(check)")
        #expect(check.stdout.contains(damage.label), "\(check)")
        let repair = try bowties.run("check", "--repair")
        #expect(repair.status == 0, "\(repair)")

        let result = try bowties.run("show", damage.key)
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.isEmpty, "\(result)")
        let expected = Self.showLines(before).map { $0.hasPrefix("Photo: ") ? "Photo: none" : $0 }
        #expect(Self.showLines(result) == expected, "\(result)")
    }

    @Test("an intact photo: photoProblem null from show and photo, absent from list and export")
    func intact() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        for arguments in [["show", "B", "--json"], ["photo", "R", "--json"]] {
            let result = try bowties.run(arguments: arguments)
            #expect(result.status == 0, "\(result)")
            #expect(result.stderr.isEmpty, "\(result)")
            let tie = try #require(try result.json() as? [String: Any], "\(result)")
            #expect(tie["photoProblem"] is NSNull, "\(result)")
        }
        // A tie without a photo: nothing is wrong with it either.
        #expect(try bowties.run("photo", "V", "--remove").status == 0)
        let none = try bowties.run("show", "V", "--json")
        #expect(none.status == 0, "\(none)")
        #expect(try #require(try none.json() as? [String: Any], "\(none)")["photoProblem"] is NSNull, "\(none)")
        for arguments in [["list", "--json"], ["export", "--json"]] {
            let result = try bowties.run(arguments: arguments)
            #expect(result.status == 0, "\(result)")
            #expect(!result.stdout.contains("photoProblem"), "\(result)")
        }
    }
}
