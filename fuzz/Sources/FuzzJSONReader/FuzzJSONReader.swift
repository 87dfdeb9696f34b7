// libFuzzer target: JSONReader (a root array, and JSON Lines) on arbitrary
// bytes, then the importer's decoding of its records.
//
// For each input and each layout (told from the content, array, lines) it
// checks that:
// - reading never crashes; every error is a PropertyListError named after
//   the document and located inside it (line 1 to the last, column 1 or
//   more); after an error, next() returns nil;
// - every value and key read is located inside the document;
// - the file path and the descriptor path with a prefix (as `import -`
//   streams standard input after telling its format) agree, values,
//   locations and errors;
// - the records, written back as JSON, read again to the same values;
// and then that decoding the records as `bowties import` does
// (RecordDecoding) throws only a located ImportError naming its record,
// or a located PropertyListError.
@_spi(Fuzzing) import BowTiesKit
import Foundation
import FuzzSupport
import PropertyList

enum Outcome {
    case records([PropertyListItem])
    case failure(PropertyListError)
}

let scratch = ScratchFile(tag: "json")
let rewritten = ScratchFile(tag: "json-rewritten")

/// Every record of `reader`, checked as it comes.
func readAll(_ reader: JSONReader, lines: Int) -> Outcome {
    var items: [PropertyListItem] = []
    do {
        while let item = try reader.next() {
            TextInvariants.checkLocations(item, lines: lines)
            items.append(item)
        }
        if try reader.next() != nil { fatalError("a record after nil") }
        return .records(items)
    } catch {
        TextInvariants.check(error, lines: lines)
        do {
            if try reader.next() != nil { fatalError("a record after an error") }
        } catch {
            fatalError("next() threw again after an error: \(error)")
        }
        return .failure(error)
    }
}

func open(_ file: ScratchFile, layout: JSONReader.Layout?) -> JSONReader {
    do {
        return try JSONReader(contentsOf: file.url, displayName: Invariants.displayName, layout: layout)
    } catch {
        fatalError("cannot open the scratch file: \(error)")
    }
}

func same(_ a: [PropertyListItem], _ b: [PropertyListItem], locations: Bool) -> Bool {
    a.count == b.count
        && zip(a, b).allSatisfy { (!locations || $0.location == $1.location) && Invariants.sameValue($0.value, $1.value) }
}

func fuzz(_ bytes: [UInt8]) {
    guard scratch.write(bytes) else { return }
    let lines = TextInvariants.lineCount(bytes)
    for layout: JSONReader.Layout? in [nil, .array, .lines] {
        let fromFile = readAll(open(scratch, layout: layout), lines: lines)

        // Standard input: the first bytes already read, the rest streamed.
        let descriptor = scratch.openForReading()
        guard descriptor >= 0 else { return }
        let split = bytes.count / 2
        _ = lseek(descriptor, off_t(split), SEEK_SET)
        let streamed = readAll(
            JSONReader(
                descriptor: descriptor, displayName: Invariants.displayName, prefix: Array(bytes[..<split]),
                layout: layout),
            lines: lines)
        close(descriptor)

        switch (fromFile, streamed) {
        case (.records(let a), .records(let b)):
            if !same(a, b, locations: true) { fatalError("the file and the stream read different records") }
            // Written back, the records read again to the same values.
            var text = "["
            for (index, item) in a.enumerated() {
                if index > 0 { text += ",\n" }
                TextInvariants.json(item.value, into: &text)
            }
            text += "]\n"
            guard rewritten.write(Array(text.utf8)) else { return }
            switch readAll(open(rewritten, layout: .array), lines: TextInvariants.lineCount(Array(text.utf8))) {
            case .records(let again):
                if !same(a, again, locations: false) { fatalError("the records written back read differently") }
            case .failure(let error):
                fatalError("the records written back do not read: \(error)\n\(text.prefix(2000))")
            }
        case (.failure(let a), .failure(let b)):
            if a.description != b.description { fatalError("the file and the stream failed differently: \(a) / \(b)") }
        default:
            fatalError("the file and the stream disagree: \(fromFile) / \(streamed)")
        }
    }

    for format in [ImportFormat.json, .jsonl] {
        for stopAtFirst in [false, true] {
            do {
                _ = try RecordDecoding.decodeAll(
                    contentsOf: scratch.url, format: format, displayName: Invariants.displayName,
                    stopAtFirstInvalidRecord: stopAtFirst)
            } catch let error as ImportError {
                guard let location = error.location else { fatalError("unlocated import error: \(error)") }
                TextInvariants.check(location, lines: lines, error.description)
                if error.recordNumber == nil || error.message.isEmpty {
                    fatalError("import error without a record or message: \(error)")
                }
            } catch let error as PropertyListError {
                TextInvariants.check(error, lines: lines)
            } catch {
                fatalError("decoding threw \(type(of: error)): \(error)")
            }
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    fuzz(bytes.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? [])
    return 0
}
