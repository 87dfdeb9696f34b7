import Foundation
import PropertyList
import Testing

@_spi(Fuzzing) @testable import BowTiesKit

/// Replays the record-decoding fuzzer's committed corpus
/// (`fuzz/corpus/decoder/`, produced by `fuzz/run decoder merge`, with
/// every input that once crashed the fuzzer; see fuzz/README.md) through
/// the importer's decoder, as the fuzz target does.
///
/// Each input must decode or fail with a located `ImportError` (naming its
/// record) or `PropertyListError`. One that decodes must yield a record
/// for each one the document holds, and both modes (stopping at the first
/// invalid record, or decoding every one) must come to the same end.
@Suite("Fuzz corpus replay through the record decoder")
struct FuzzCorpusTests {
    static let corpus = Fixtures.packageRoot.appendingPathComponent("fuzz/corpus/decoder", isDirectory: true)

    /// The corpus's file names, sorted.
    static let inputs: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: corpus.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted()
    }()

    @Test("The corpus is present")
    func present() {
        #expect(Self.inputs.count >= 50)
    }

    /// What decoding one input in one mode came to.
    enum Outcome {
        case decoded(RecordDecoding.Summary)
        case invalidRecord(ImportError)
        case unreadable(PropertyListError)
    }

    @Test("Each input decodes or fails with a located error", arguments: inputs)
    func replay(_ name: String) throws {
        let data = try Data(contentsOf: Self.corpus.appendingPathComponent(name))
        var outcomes: [Bool: Outcome] = [:]
        for stopAtFirst in [true, false] {
            do {
                outcomes[stopAtFirst] = .decoded(
                    try RecordDecoding.decodeAll(
                        data: data, displayName: "fuzz.plist", stopAtFirstInvalidRecord: stopAtFirst))
            } catch let error as ImportError {
                outcomes[stopAtFirst] = .invalidRecord(error)
                let location = try #require(error.location, "\(name): unlocated \(error)")
                #expect(location.file == "fuzz.plist" && location.line >= 1 && location.column >= 1)
                #expect(error.recordNumber != nil, "\(name): \(error)")
            } catch let error as PropertyListError {
                outcomes[stopAtFirst] = .unreadable(error)
                if let location = error.location {
                    #expect(location.line >= 1 && location.column >= 1, "\(name): \(error)")
                } else {
                    #expect(
                        [.binaryPropertyList, .malformedXML, .tooDeeplyNested, .forbiddenDeclaration].contains(
                            error.kind),
                        "\(name): unlocated \(error)")
                }
            }
        }
        let stopping = try #require(outcomes[true])
        let decodingAll = try #require(outcomes[false])
        switch (stopping, decodingAll) {
        case (.decoded(let summary), .decoded(let all)):
            // No record is dropped in silence: a document that decodes
            // yields one record per item of its root array (or its one
            // root object), and both modes count the same.
            #expect(summary == all, "\(name): \(summary) stopping at the first invalid record, \(all) otherwise")
            #expect(
                summary.records == (try Self.items(in: data)), "\(name): \(summary.records) records decoded")
            #expect(summary.unknownKeys <= RecordDecoder.unknownKeysRemembered, "\(name): \(summary)")
        case (.decoded, _), (_, .decoded):
            Issue.record("\(name): decodes in one mode only: \(stopping) / \(decodingAll)")
        case (.invalidRecord(let first), .invalidRecord(let rethrown)):
            // Decoding every record rethrows the first failure: the same
            // one an import stops at.
            #expect(
                first.recordNumber == rethrown.recordNumber && "\(first)" == "\(rethrown)",
                "\(name): \(first) / \(rethrown)")
        case (.unreadable(let first), .unreadable(let rethrown)):
            #expect(first.kind == rethrown.kind, "\(name): \(first) / \(rethrown)")
        case (.unreadable, .invalidRecord):
            // Decoding every record reads no less of the document.
            Issue.record("\(name): unreadable when stopping early, readable when not: \(stopping) / \(decodingAll)")
        case (.invalidRecord, .unreadable):
            break  // the document breaks after the first invalid record
        }
    }

    /// How many records a document holds: the items of its root array,
    /// or its one root object, read with the property-list reader alone.
    static func items(in data: Data) throws -> Int {
        let reader = try PropertyListReader(data: data, displayName: "fuzz.plist")
        var count = 0
        while try reader.next() != nil {
            count += 1
        }
        return reader.rootIsArray ? count : min(count, 1)
    }

    /// The JSON and CSV fuzzers' corpora (`fuzz/corpus/json`, `fuzz/corpus/csv`).
    static let textInputs: [String] = ["json", "csv"].flatMap { corpus in
        let folder = Fixtures.packageRoot.appendingPathComponent("fuzz/corpus/\(corpus)", isDirectory: true)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { "\(corpus)/\($0)" }
    }

    @Test(
        "Each JSON and CSV input decodes, in each of its formats, or fails with a located error",
        arguments: textInputs)
    func replayText(_ name: String) throws {
        let url = Fixtures.packageRoot.appendingPathComponent("fuzz/corpus/\(name)")
        let formats: [ImportFormat] = name.hasPrefix("json/") ? [.json, .jsonl] : [.csv, .tsv]
        for format in formats {
            var decoded: [Bool: RecordDecoding.Summary] = [:]
            defer {
                // A file that decodes in one mode decodes in the other,
                // with the same count.
                #expect(
                    decoded.count != 1 && decoded[true] == decoded[false],
                    "\(name) as \(format): \(decoded) (true: stopping at the first invalid record)")
            }
            for stopAtFirst in [true, false] {
                do {
                    decoded[stopAtFirst] = try RecordDecoding.decodeAll(
                        contentsOf: url, format: format, displayName: "fuzz.txt", stopAtFirstInvalidRecord: stopAtFirst)
                } catch let error as ImportError {
                    let location = try #require(error.location, "\(name): unlocated \(error)")
                    #expect(location.file == "fuzz.txt" && location.line >= 1 && location.column >= 1)
                    #expect(error.recordNumber != nil, "\(name): \(error)")
                } catch let error as PropertyListError {
                    let location = try #require(error.location, "\(name) as \(format): unlocated \(error)")
                    #expect(location.line >= 1 && location.column >= 1, "\(name): \(error)")
                }
            }
        }
    }
}
