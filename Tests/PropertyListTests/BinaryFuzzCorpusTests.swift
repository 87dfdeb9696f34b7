import Foundation
import PropertyList
import Testing

/// Replays the binary reader fuzzer's committed corpus (`fuzz/corpus/bplist/`:
/// the fixtures of `Fixtures/Binary`, then whatever `fuzz/run bplist merge`
/// keeps; see fuzz/README.md), so that CI checks what the fuzzer found
/// without running it.
///
/// Each input must read to a value or throw a `PropertyListError` located
/// by a byte offset in the file; streaming and reading whole must agree,
/// and so must the file path and the in-memory path.
@Suite("Binary fuzz corpus replay")
struct BinaryFuzzCorpusTests {
    static let corpus = FuzzCorpusTests.corpus.deletingLastPathComponent()
        .appendingPathComponent("bplist", isDirectory: true)

    static let inputs: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: corpus.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted()
    }()

    @Test("The corpus is present")
    func present() {
        #expect(Self.inputs.count >= 30)
    }

    @Test("Each input reads or fails with an error located by byte offset", arguments: inputs)
    func replay(_ name: String) throws {
        let url = Self.corpus.appendingPathComponent(name)
        let data = try Data(contentsOf: url)
        let fromMemory = Self.outcome(size: data.count) { () throws(PropertyListError) in
            try BinaryPropertyListReader(data: data, displayName: "fuzz.bplist")
        }
        let fromFile = Self.outcome(size: data.count) { () throws(PropertyListError) in
            try BinaryPropertyListReader(contentsOf: url, displayName: "fuzz.bplist")
        }
        switch (fromMemory, fromFile) {
        case (.value(let memory), .value(let file)):
            #expect(memory == file || sameValue(memory, file), "\(name): the paths read different values")
        case (.failure(let memory), .failure(let file)):
            #expect(memory.description == file.description)
        default:
            Issue.record("\(name): the file path and the memory path disagree: \(fromMemory) / \(fromFile)")
        }
    }

    enum Outcome {
        case value(PropertyListValue)
        case failure(PropertyListError)
    }

    /// Streams a whole document and reads it whole; both must agree.
    static func outcome(
        size: Int, _ open: () throws(PropertyListError) -> BinaryPropertyListReader
    ) -> Outcome {
        let streamed: Outcome
        do throws(PropertyListError) {
            let reader = try open()
            var items: [PropertyListItem] = []
            do {
                while let item = try reader.next() {
                    items.append(item)
                }
            } catch {
                // Later calls throw the same error.
                do {
                    _ = try reader.next()
                    Issue.record("next() after an error did not throw")
                } catch let again {
                    #expect(again.description == error.description)
                }
                throw error
            }
            streamed =
                reader.rootIsArray
                ? .value(.array(items))
                : items.first.map { .value($0.value) }
                    ?? .failure(PropertyListError(.unreadable, "no root", file: "fuzz.bplist"))
        } catch {
            checkLocated(error, size: size)
            streamed = .failure(error)
        }
        let whole: Outcome
        do throws(PropertyListError) {
            whole = .value(try open().readRoot().value)
        } catch {
            checkLocated(error, size: size)
            whole = .failure(error)
        }
        switch (streamed, whole) {
        case (.value(let a), .value(let b)):
            #expect(sameValue(a, b), "readRoot and next() read different values")
        case (.failure, .failure):
            break
        default:
            Issue.record("readRoot and next() disagree: \(streamed) / \(whole)")
        }
        return streamed
    }

    static func checkLocated(_ error: PropertyListError, size: Int) {
        #expect(error.file == "fuzz.bplist")
        #expect(!error.message.isEmpty)
        let offset = error.location?.byteOffset
        #expect(offset.map { (0...size).contains($0) } == true, "unlocated or outside the file: \(error)")
    }
}
