import Foundation
import PropertyList
import Testing

/// Replays the reader fuzzer's committed corpus (`fuzz/corpus/reader/`,
/// produced by `fuzz/run reader merge`, with every input that once crashed
/// the fuzzer; see fuzz/README.md), so that CI checks what the fuzzer
/// found without running it.
///
/// Each input must read to a value or throw a `PropertyListError` that is
/// located in the document (only errors about the whole file, or taken
/// from libxml2 without a line, may lack a location). The file path and
/// the in-memory path must agree.
@Suite("Fuzz corpus replay")
struct FuzzCorpusTests {
    /// The package's `fuzz/corpus/reader` (this file is
    /// Tests/PropertyListTests/FuzzCorpusTests.swift).
    static let corpus = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("fuzz/corpus/reader", isDirectory: true)

    /// The corpus's file names, sorted.
    static let inputs: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: corpus.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted()
    }()

    @Test("The corpus is present")
    func present() {
        #expect(Self.inputs.count >= 50)
    }

    @Test("Each input reads or fails with a located PropertyListError", arguments: inputs)
    func replay(_ name: String) throws {
        let url = Self.corpus.appendingPathComponent(name)
        let data = try Data(contentsOf: url)
        let fromMemory = Self.outcome { try PropertyListReader(data: data, displayName: "fuzz.plist") }
        let fromFile = Self.outcome { try PropertyListReader(contentsOf: url, displayName: "fuzz.plist") }
        for outcome in [fromMemory, fromFile] {
            if case .failure(let error) = outcome {
                Self.checkLocated(error, name)
            }
        }
        switch (fromMemory, fromFile) {
        case (.value(let memory), .value(let file)):
            #expect(Self.same(memory, file), "\(name): the file and memory paths read different values")
        case (.failure, .failure):
            break
        default:
            Issue.record("\(name): the file path and the memory path disagree: \(fromMemory) / \(fromFile)")
        }
    }

    enum Outcome {
        case value([PropertyListItem])
        case failure(PropertyListError)
    }

    /// Streams a whole document; after an error, checks that the reader
    /// keeps throwing it.
    static func outcome(_ open: () throws -> PropertyListReader) -> Outcome {
        var items: [PropertyListItem] = []
        var reader: PropertyListReader?
        do {
            let opened = try open()
            reader = opened
            while let item = try opened.next() {
                items.append(item)
            }
            return .value(items)
        } catch let error as PropertyListError {
            if let reader {
                #expect(throws: PropertyListError.self) { _ = try reader.next() }
            }
            return .failure(error)
        } catch {
            Issue.record("not a PropertyListError: \(error)")
            return .failure(PropertyListError(.unreadable, "\(error)", file: "fuzz.plist"))
        }
    }

    /// Items equal in value and location, NaN equal to NaN (as `==`
    /// would not have it).
    static func same(_ a: [PropertyListItem], _ b: [PropertyListItem]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { same($0, $1) }
    }

    static func same(_ a: PropertyListItem, _ b: PropertyListItem) -> Bool {
        guard a.location == b.location else { return false }
        switch (a.value, b.value) {
        case (.real(let x), .real(let y)):
            return x == y || (x.isNaN && y.isNaN)
        case (.array(let x), .array(let y)):
            return same(x, y)
        case (.dictionary(let x), .dictionary(let y)):
            return x.count == y.count
                && zip(x.entries, y.entries).allSatisfy {
                    $0.key == $1.key && $0.keyLocation == $1.keyLocation && same($0.item, $1.item)
                }
        default:
            return a.value == b.value
        }
    }

    static func checkLocated(_ error: PropertyListError, _ name: String) {
        #expect(error.file == "fuzz.plist")
        #expect(!error.message.isEmpty)
        guard let location = error.location else {
            let mayLackLocation: Bool
            switch error.kind {
            case .binaryPropertyList, .unreadable, .fileNotFound, .malformedXML, .tooDeeplyNested:
                mayLackLocation = true
            case .forbiddenDeclaration:
                mayLackLocation = error.message.hasPrefix("documents with an internal DTD subset")
            case .unexpectedElement, .invalidValue, .duplicateKey, .malformedBinary, .malformedText:
                mayLackLocation = false
            }
            #expect(mayLackLocation, "\(name): unlocated error \(error)")
            return
        }
        #expect(location.file == "fuzz.plist" && location.line >= 1 && location.column >= 1, "\(name): \(error)")
    }
}
