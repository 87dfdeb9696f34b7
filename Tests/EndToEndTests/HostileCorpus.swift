import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The hostile-input corpus: `Fixtures/Hostile/manifest.json` and the
/// small fixtures beside it. The manifest's `about` explains its fields;
/// large inputs are generated at test time (``HostileCase/Generator``),
/// never committed.
enum HostileCorpus {
    /// `Fixtures/Hostile` in the test bundle.
    static func folderURL() throws -> URL {
        let url = Bundle.module.url(forResource: "Hostile", withExtension: nil, subdirectory: "Fixtures")
        return try #require(url, "Fixtures/Hostile is missing from the test bundle")
    }

    /// The manifest, with each case's limits filled in from its defaults.
    static func manifest() throws -> HostileManifest {
        let data = try Data(contentsOf: try folderURL().appendingPathComponent("manifest.json"))
        var manifest = try JSONDecoder().decode(HostileManifest.self, from: data)
        for index in manifest.cases.indices {
            manifest.cases[index].memoryLimitMiB = manifest.cases[index].memoryLimitMiB ?? manifest.memoryLimitMiB
            manifest.cases[index].maxStderrBytes = manifest.cases[index].maxStderrBytes ?? manifest.maxStderrBytes
        }
        return manifest
    }

    static func cases() throws -> [HostileCase] {
        try manifest().cases
    }
}

/// `manifest.json`.
struct HostileManifest: Decodable {
    /// What the fields mean and how outcomes were decided.
    var about: [String]
    /// The default bound on a child's peak resident memory.
    var memoryLimitMiB: Double
    /// The default bound on what a child writes to standard error: a
    /// hostile value must never be echoed whole.
    var maxStderrBytes: Int
    var cases: [HostileCase]
}

/// One hostile input and the outcome the manifest documents for it.
struct HostileCase: Decodable, Sendable, CustomTestStringConvertible {
    /// Unique; generated inputs are written as `<name>.plist`.
    var name: String
    /// Why the input is hostile, and why the outcome is the right one.
    var about: String

    // MARK: Input: exactly one of fixture, records, generate

    /// A file in `Fixtures/Hostile`. `@SECRET_URL@` and `@EVIL_DTD_URL@`
    /// become file URLs of a secret and of a DTD that declares an entity
    /// reading it, both outside the images folder.
    var fixture: String?
    /// Records written from a template: each dictionary replaces the XML
    /// of the template's values by key (`"(absent)"` leaves the key out;
    /// other keys are added after the template's).
    var records: [[String: String]]?
    var generate: Generator?
    /// Whether `Images/` beside the input holds the hostile entries (see
    /// ``HostileWorkspace/makeHostileImages()``).
    var images: Bool?
    /// Arguments added after `import FILE --store STORE`.
    var arguments: [String]?

    // MARK: Outcome

    var status: Int32
    /// A Core Data validation code (`1610`) or an error kind
    /// (`forbiddenDeclaration`, `ImportError`...): see ``CodeCheck``.
    var code: String?
    /// What the error starts with after `bowties: error: `
    /// (`File.plist:12:3:`).
    var location: String?
    /// `record 2 (S "Second Tie")`.
    var record: String?
    /// The property-list key the error names.
    var field: String?
    /// Fragments standard error must hold.
    var message: [String]?
    /// Fragments standard output must hold.
    var stdout: [String]?
    /// Accepted inputs that add or update a tie; every other case must
    /// leave the store's rows exactly as they were.
    var storeChanges: Bool?
    /// Commands run afterwards against the store, and what they print.
    var after: [AfterCheck]?
    var memoryLimitMiB: Double?
    var maxStderrBytes: Int?

    var testDescription: String { name }

    /// Inputs too large to commit, written at test time.
    enum Generator: String, Decodable, Sendable {
        /// 10,000 nested `<array>`s.
        case nesting10000
        /// A 50 MiB `<string>` as the name.
        case string50MiB
        /// A 100 MiB Base64 `<data>` under an unknown key.
        case data100MiB
        /// One `<dict>` with 100,000 unknown keys.
        case keys100000
        /// The same, then its first key again.
        case keys100000Duplicate
        /// A 9,000,000-character name: under libxml2's 10 MB text limit,
        /// so validation must refuse it, in a message of bounded size.
        case name9MB
        /// The file to import is a FIFO that nobody writes to.
        case fifoInput
        /// An image name of 5,000 bytes.
        case longImageName
        /// 10,000 nested JSON arrays in a record.
        case jsonNesting10000
        /// A 50 MiB JSON string as the name.
        case jsonString50MiB
        /// A 50 MiB CSV field as the name.
        case csvField50MiB
        /// A rating of a million digits, in JSON.
        case jsonNumber1MiB
        /// A million `[` and nothing else: a root array nested a million
        /// deep, never closed.
        case jsonNesting1M
        /// One JSON record with three 15 MiB strings, a member a line.
        case jsonRecordStrings45MiB
        /// One JSON Lines record whose `tags` (on line 2) hold 300,000
        /// numbers.
        case jsonlRecordValues300000
        /// A JSON Lines name of 100 MiB.
        case jsonlString100MiB
        /// A CSV row of three 15 MiB fields after the name and search key.
        case csvRow45MiB
    }

    struct AfterCheck: Decodable, Sendable {
        /// A `bowties` command line; `--store STORE` is added.
        var arguments: [String]
        var status: Int32?
        var stdout: [String]?
        var stderr: [String]?
    }
}

/// What a ``HostileCase/code`` means in terms of what the CLI prints.
///
/// Validation codes appear in messages (`NSValidationNumberTooLargeError
/// 1610`); the other kinds are recognised by the words their messages
/// always use.
enum CodeCheck {
    static func matches(_ code: String, stderr: String) -> Bool? {
        if Int(code) != nil {
            return stderr.contains("Error \(code)")
        }
        switch code {
        case "forbiddenDeclaration": return stderr.contains(" refused")
        case "malformedXML": return stderr.contains(": malformed XML: ")
        case "tooDeeplyNested": return stderr.contains("nesting deeper than 512 levels")
        case "binaryPropertyList": return stderr.contains("binary property lists are not supported yet")
        case "duplicateKey": return stderr.contains(": duplicate key ")
        case "unexpectedElement": return stderr.contains("expected ") && stderr.contains(", found ")
        case "invalidValue": return stderr.contains(": invalid ") || stderr.contains(" must be ")
        case "unreadable": return stderr.contains(": cannot read file: ")
        case "ImportError": return stderr.contains(": record ")
        case "damagedStore":
            // A Core Data store SQLite cannot read, or an object in it.
            return stderr.contains("the database is damaged") || stderr.contains(": BowTie p")
        case "malformedBinary":
            return stderr.contains(": byte ")
                && ["cycle", "outside", "offset", "trailer", "reference", "count"].contains(where: stderr.contains)
        case "malformedText":
            return [
                "the file ends", "invalid UTF-8", "NUL ", "lone surrogate", "out of range", "expected ",
                "the row has", "longer than", "quote", "null is not", "only UTF-8 is read", "backslash",
                "holds more than",
            ].contains(where: stderr.contains)
        default: return nil
        }
    }
}

/// A temporary folder for one case: the store (with the sample imported),
/// the input, a secret and an evil DTD outside the input's folder.
///
/// ```
/// <folder>/store/catalog.sqlite     (and .catalog_SUPPORT/)
/// <folder>/input/<case>.plist       (and Images/ when the case asks)
/// <folder>/secret.txt, evil.dtd
/// ```
///
/// Not `Sendable`: one case, one workspace.
final class HostileWorkspace {
    let runner: BowTiesRunner
    let storeURL: URL
    let inputDirectory: URL
    let secret = "TOP-SECRET-\(UUID().uuidString)"
    let secretURL: URL
    let evilDTDURL: URL

    init() throws {
        runner = try BowTiesRunner()
        storeURL = runner.directory.appendingPathComponent("store/catalog.sqlite")
        inputDirectory = runner.directory.appendingPathComponent("input", isDirectory: true)
        secretURL = runner.directory.appendingPathComponent("secret.txt")
        evilDTDURL = runner.directory.appendingPathComponent("evil.dtd")
        try FileManager.default.createDirectory(at: inputDirectory, withIntermediateDirectories: true)
        try Data((secret + "\n").utf8).write(to: secretURL)
        try Data("<!ENTITY leak SYSTEM \"\(secretURL.absoluteString)\">\n".utf8).write(to: evilDTDURL)
    }

    /// Imports the sample data and its photos (two of them external files)
    /// into a fresh store.
    func importSampleData() throws {
        let result = try runner.run(
            "import", BowTiesRunner.sampleDataURL.path, "--images", BowTiesRunner.sampleImagesURL.path,
            "--store", storeURL.path)
        try #require(result.status == 0, "\(result)")
    }

    /// Writes the case's input and returns its URL.
    func materialise(_ hostile: HostileCase) throws -> URL {
        if hostile.images == true {
            try makeHostileImages()
        }
        if let fixture = hostile.fixture {
            let url = inputDirectory.appendingPathComponent(fixture)
            var data = try Data(contentsOf: try HostileCorpus.folderURL().appendingPathComponent(fixture))
            data = Self.replacing("@SECRET_URL@", with: secretURL.absoluteString, in: data)
            data = Self.replacing("@EVIL_DTD_URL@", with: evilDTDURL.absoluteString, in: data)
            try data.write(to: url)
            return url
        }
        let url = inputDirectory.appendingPathComponent("\(hostile.name).plist")
        if let records = hostile.records {
            try Data(Self.document(records).utf8).write(to: url)
            return url
        }
        let generator = try #require(hostile.generate, "\(hostile.name): no fixture, records or generate")
        try Self.generate(generator, at: url)
        return url
    }

    /// Runs `bowties import FILE --store STORE ...` and measures it.
    func importMeasured(_ input: URL, arguments: [String]) throws -> MeasuredProcess {
        try MeasuredProcess.run(
            try BowTiesRunner.executableURL(),
            ["import", input.path, "--store", storeURL.path] + arguments,
            environment: runner.environment, in: runner.directory)
    }

    /// `input/Images/`, where image names resolve, holding what an image
    /// name must never reach:
    ///
    /// - `escape.png`: a symbolic link to the secret, outside the folder;
    /// - `escape-dir`: a symbolic link to the workspace, outside too;
    /// - `folder`, `sub`: directories;
    /// - `pipe`: a FIFO nobody writes to (reading it would hang);
    /// - `huge.png`: a 2 GiB sparse file (reading it would take 2 GiB).
    func makeHostileImages() throws {
        let images = inputDirectory.appendingPathComponent("Images", isDirectory: true)
        let manager = FileManager.default
        try manager.createDirectory(at: images.appendingPathComponent("folder"), withIntermediateDirectories: true)
        try manager.createDirectory(at: images.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try manager.createSymbolicLink(
            atPath: images.appendingPathComponent("escape.png").path, withDestinationPath: secretURL.path)
        try manager.createSymbolicLink(
            atPath: images.appendingPathComponent("escape-dir").path, withDestinationPath: runner.directory.path)
        try #require(mkfifo(images.appendingPathComponent("pipe").path, 0o600) == 0)
        let huge = images.appendingPathComponent("huge.png")
        try #require(manager.createFile(atPath: huge.path, contents: nil))
        let handle = try FileHandle(forWritingTo: huge)
        try handle.truncate(atOffset: 2 * 1024 * 1024 * 1024)
        try handle.close()
    }

    // MARK: - Writing inputs

    /// The template's keys, in the order they are written.
    static let templateOrder = [
        "id", "name", "searchKey", "rating", "timesWorn", "lastWorn", "isFavorite", "url", "tintColor",
        "imageName",
    ]

    /// A valid tie; each case changes what it needs. The values sit on the
    /// odd lines from 7 on: id 7, name 9, searchKey 11, rating 13,
    /// timesWorn 15, lastWorn 17, isFavorite 19, url 21, tintColor 23.
    static let template: [String: String] = [
        "id": "<string>5E1F0A3C-7B2D-4C8E-9F61-2A4B6C8D0E13</string>",
        "name": "<string>Hostile Tie</string>",
        "searchKey": "<string>H</string>",
        "rating": "<real>2.5</real>",
        "timesWorn": "<integer>3</integer>",
        "lastWorn": "<date>2020-01-02T03:04:05Z</date>",
        "isFavorite": "<false/>",
        "url": "<string>https://example.com/ties/hostile</string>",
        "tintColor": "<string>#112233</string>",
    ]

    static func document(_ records: [[String: String]]) -> String {
        var lines = [
            #"<?xml version="1.0" encoding="UTF-8"?>"#,
            #"<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">"#,
            #"<plist version="1.0">"#,
            "<array>",
        ]
        for overrides in records {
            let fields = template.merging(overrides) { _, new in new }
            let keys =
                templateOrder.filter { fields[$0] != nil } + fields.keys.filter { !templateOrder.contains($0) }.sorted()
            lines.append("\t<dict>")
            for key in keys {
                guard let value = fields[key], value != "(absent)" else { continue }
                lines += ["\t\t<key>\(key)</key>", "\t\t\(value)"]
            }
            lines.append("\t</dict>")
        }
        lines += ["</array>", "</plist>", ""]
        return lines.joined(separator: "\n")
    }

    /// Writes a generated input piece by piece: none is ever whole in
    /// memory.
    static func generate(_ generator: HostileCase.Generator, at url: URL) throws {
        if generator == .fifoInput {
            try #require(mkfifo(url.path, 0o600) == 0)
            return
        }
        try #require(FileManager.default.createFile(atPath: url.path, contents: nil))
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        func write(_ text: String) throws { try handle.write(contentsOf: Data(text.utf8)) }
        func repeated(_ piece: String, totalBytes: Int) throws {
            let chunk = Data(String(repeating: piece, count: max(1, (1 << 20) / piece.utf8.count)).utf8)
            var written = 0
            while written + chunk.count <= totalBytes {
                try handle.write(contentsOf: chunk)
                written += chunk.count
            }
            let rest = (totalBytes - written) / piece.utf8.count
            try write(String(repeating: piece, count: rest))
        }
        // Lines 1-4; the name is on line 6 and the search key on line 8.
        let start = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n<array>\n\t<dict>\n"
        let name = "\t\t<key>name</key>\n\t\t<string>Hostile Tie</string>\n"
        let searchKey = "\t\t<key>searchKey</key>\n\t\t<string>H</string>\n"
        let end = "\t</dict>\n</array>\n</plist>\n"

        switch generator {
        case .nesting10000:
            try write("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n")
            try repeated("<array>", totalBytes: 7 * 10_000)
            try repeated("</array>", totalBytes: 8 * 10_000)
            try write("\n</plist>\n")
        case .string50MiB, .name9MB:
            try write(start + "\t\t<key>name</key>\n\t\t<string>")
            if generator == .string50MiB {
                try repeated("A", totalBytes: 50 << 20)
            } else {
                try repeated("x", totalBytes: 9_000_000)
            }
            try write("</string>\n" + searchKey + end)
        case .data100MiB:
            // 76 Base64 characters a line, as plutil writes them.
            let line = Data(repeating: 0xA5, count: 57).base64EncodedString() + "\n"
            try write(start + name + searchKey + "\t\t<key>photo</key>\n\t\t<data>\n")
            try repeated(line, totalBytes: 100 << 20)
            try write("\t\t</data>\n" + end)
        case .keys100000, .keys100000Duplicate:
            try write(start + name + searchKey)
            var block = ""
            for index in 0..<100_000 {
                block += "\t\t<key>k\(index)</key>\n\t\t<integer>\(index)</integer>\n"
                if block.utf8.count > 1 << 20 {
                    try write(block)
                    block = ""
                }
            }
            if generator == .keys100000Duplicate {
                block += "\t\t<key>k0</key>\n\t\t<integer>0</integer>\n"
            }
            try write(block + end)
        case .longImageName:
            try write(
                start + name + searchKey + "\t\t<key>imageName</key>\n\t\t<string>"
                    + String(repeating: "a", count: 5_000) + "</string>\n" + end)
        case .fifoInput:
            break
        case .jsonNesting10000:
            try write("[{\"tags\": ")
            try repeated("[", totalBytes: 10_000)
            try repeated("]", totalBytes: 10_000)
            try write("}]\n")
        case .jsonString50MiB:
            try write("[{\"name\": \"")
            try repeated("A", totalBytes: 50 << 20)
            try write("\", \"searchKey\": \"H\"}]\n")
        case .csvField50MiB:
            try write("name,searchKey\r\n")
            try repeated("A", totalBytes: 50 << 20)
            try write(",H\r\n")
        case .jsonNumber1MiB:
            try write("[{\"name\": \"Hostile Tie\", \"searchKey\": \"H\", \"rating\": ")
            try repeated("9", totalBytes: 1 << 20)
            try write("}]\n")
        case .jsonNesting1M:
            try repeated("[", totalBytes: 1_000_000)
        case .jsonRecordStrings45MiB:
            try write("[{\"name\": \"A\", \"searchKey\": \"A\",\n")
            for key in ["a", "b", "c"] {
                try write("\"\(key)\": \"")
                try repeated("A", totalBytes: 15 << 20)
                try write(key == "c" ? "\"}]\n" : "\",\n")
            }
        case .jsonlRecordValues300000:
            try write("{\"name\": \"A\", \"searchKey\": \"A\", \"tags\":\n[")
            try repeated("1,", totalBytes: 2 * 299_999)
            try write("1]}\n")
        case .jsonlString100MiB:
            try write("{\"name\": \"")
            try repeated("A", totalBytes: 100 << 20)
            try write("\", \"searchKey\": \"H\"}\n")
        case .csvRow45MiB:
            try write("name,searchKey,a,b,c\r\nA,A")
            for _ in 0..<3 {
                try write(",")
                try repeated("A", totalBytes: 15 << 20)
            }
            try write("\r\n")
        }
    }

    /// `data` with `placeholder` replaced by `value`, in UTF-8 or, for a
    /// document that starts with a UTF-16LE byte-order mark, in UTF-16LE.
    static func replacing(_ placeholder: String, with value: String, in data: Data) -> Data {
        let isUTF16 = data.starts(with: [0xFF, 0xFE])
        func encoded(_ text: String) -> Data {
            isUTF16 ? Data(text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }) : Data(text.utf8)
        }
        let (target, replacement) = (encoded(placeholder), encoded(value))
        var result = data
        while let range = result.range(of: target) {
            result.replaceSubrange(range, with: replacement)
        }
        return result
    }
}
