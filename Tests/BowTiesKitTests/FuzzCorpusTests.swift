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
/// record) or `PropertyListError`.
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

    @Test("Each input decodes or fails with a located error", arguments: inputs)
    func replay(_ name: String) throws {
        let data = try Data(contentsOf: Self.corpus.appendingPathComponent(name))
        for stopAtFirst in [true, false] {
            do {
                let summary = try RecordDecoding.decodeAll(
                    data: data, displayName: "fuzz.plist", stopAtFirstInvalidRecord: stopAtFirst)
                #expect(summary.records >= 0)
            } catch let error as ImportError {
                let location = try #require(error.location, "\(name): unlocated \(error)")
                #expect(location.file == "fuzz.plist" && location.line >= 1 && location.column >= 1)
                #expect(error.recordNumber != nil, "\(name): \(error)")
            } catch let error as PropertyListError {
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
            for stopAtFirst in [true, false] {
                do {
                    _ = try RecordDecoding.decodeAll(
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
