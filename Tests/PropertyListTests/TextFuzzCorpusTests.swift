import Foundation
import PropertyList
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Replays the JSON and CSV fuzzers' committed corpora (`fuzz/corpus/json/`
/// and `fuzz/corpus/csv/`: the seeds and what `fuzz/run json merge` and
/// `fuzz/run csv merge` keep, with every finding; see fuzz/README.md), so
/// that CI checks what the fuzzers found without running them.
///
/// Each input, in each layout or dialect, must read or throw a
/// `PropertyListError` located inside the document; the file path and the
/// descriptor path with a prefix (standard input) must agree; after an
/// error the reader returns nil.
@Suite("JSON and CSV fuzz corpus replay")
struct TextFuzzCorpusTests {
    static let corpora = FuzzCorpusTests.corpus.deletingLastPathComponent()

    static func inputs(_ corpus: String) -> [String] {
        let folder = corpora.appendingPathComponent(corpus, isDirectory: true)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted()
    }

    static let jsonInputs = inputs("json")
    static let csvInputs = inputs("csv")

    @Test("The corpora are present")
    func present() {
        #expect(Self.jsonInputs.count >= 20)
        #expect(Self.csvInputs.count >= 10)
    }

    @Test("Each JSON input reads or fails located, from a file and streamed alike", arguments: jsonInputs)
    func replayJSON(_ name: String) throws {
        let url = Self.corpora.appendingPathComponent("json/\(name)")
        let bytes = try [UInt8](Data(contentsOf: url))
        for layout: JSONReader.Layout? in [nil, .array, .lines] {
            let fromFile = Self.outcome(bytes) {
                try JSONReader(contentsOf: url, displayName: "fuzz.json", layout: layout)
            } next: {
                try $0.next().map { "\($0.location) \($0.value)" }
            }
            let streamed = try Self.streamed(url, bytes) { descriptor, prefix in
                JSONReader(descriptor: descriptor, displayName: "fuzz.json", prefix: prefix, layout: layout)
            } next: {
                try $0.next().map { "\($0.location) \($0.value)" }
            }
            #expect(fromFile == streamed, "\(name), layout \(String(describing: layout))")
        }
    }

    @Test("Each CSV input reads or fails located, from a file and streamed alike", arguments: csvInputs)
    func replayCSV(_ name: String) throws {
        let url = Self.corpora.appendingPathComponent("csv/\(name)")
        let bytes = try [UInt8](Data(contentsOf: url))
        for dialect in [CSVReader.Dialect.csv, .tsv] {
            let fromFile = Self.outcome(bytes) {
                try CSVReader(contentsOf: url, displayName: "fuzz.csv", dialect: dialect)
            } next: {
                try $0.nextRow().map { "\($0)" }
            }
            let streamed = try Self.streamed(url, bytes) { descriptor, prefix in
                CSVReader(descriptor: descriptor, displayName: "fuzz.csv", prefix: prefix, dialect: dialect)
            } next: {
                try $0.nextRow().map { "\($0)" }
            }
            #expect(fromFile == streamed, "\(name), \(dialect)")
        }
    }

    /// What a reader read (each record or row described), or its error.
    enum Outcome: Equatable {
        case read([String])
        case failure(String)
    }

    /// Reads everything `open` gives; checks errors are located in `bytes`
    /// and that the reader returns nil after one.
    static func outcome<Reader>(
        _ bytes: [UInt8], open: () throws -> Reader, next: (Reader) throws -> String?
    ) -> Outcome {
        let lines = lineCount(bytes)
        var read: [String] = []
        let reader: Reader
        do {
            reader = try open()
        } catch {
            return .failure("cannot open: \(error)")
        }
        do {
            while let item = try next(reader) { read.append(item) }
            return .read(read)
        } catch let error as PropertyListError {
            #expect(!error.message.isEmpty)
            let location = error.location
            #expect(
                location.map { (1...lines).contains($0.line) && $0.column >= 1 } == true,
                "unlocated or outside the document (\(lines) lines): \(error)")
            #expect((try? next(reader)) == .some(nil), "the reader goes on after \(error)")
            return .failure(error.description)
        } catch {
            Issue.record("not a PropertyListError: \(error)")
            return .failure("\(error)")
        }
    }

    /// The same through a descriptor, the first half of `bytes` given as
    /// the prefix already read (as `import -` streams standard input).
    static func streamed<Reader>(
        _ url: URL, _ bytes: [UInt8], open: (Int32, [UInt8]) -> Reader, next: (Reader) throws -> String?
    ) throws -> Outcome {
        let descriptor = Glibc.open(url.path, O_RDONLY | O_CLOEXEC)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let split = bytes.count / 2
        lseek(descriptor, off_t(split), SEEK_SET)
        return outcome(bytes, open: { open(descriptor, Array(bytes[..<split])) }, next: next)
    }

    /// Lines as the readers count them: LF, CRLF or a lone CR ends one.
    static func lineCount(_ bytes: [UInt8]) -> Int {
        var lines = 1
        var afterCarriageReturn = false
        for byte in bytes {
            if byte == 0x0A {
                if !afterCarriageReturn { lines += 1 }
            } else if byte == 0x0D {
                lines += 1
            }
            afterCarriageReturn = byte == 0x0D
        }
        return lines
    }
}
