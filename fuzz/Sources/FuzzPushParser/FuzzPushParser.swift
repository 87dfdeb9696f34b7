// libFuzzer target: the SAX2 push parser behind PropertyListReader, fed
// in chunks of every size.
//
// For each input it reads the document in memory two ways: in the
// reader's 64 KiB chunks, and in chunks of 1 to 61 bytes (told by the
// input's first byte, so that the fuzzer explores the boundaries). The
// file path (pread into the same chunks) is FuzzPropertyListReader's. It
// checks that:
// - reading never crashes, and throws nothing but a located
//   PropertyListError (see Invariants); after an error, next() throws it
//   again;
// - every value and key is located inside the document;
// - bytesConsumed never goes back, never passes the document's size, and
//   is the whole document once next() returns nil;
// - chunk boundaries change nothing: the same values at the same
//   locations, or the same error after the same records (unless libxml2
//   itself failed one reading: see compare(_:_:_:));
// - for an array root, the prefetcher's reading, which lets libxml2 drive
//   the parse (xmlParseDocument), gives the same values at the same
//   locations, or the same records and an error of the same kind (the
//   same message unless libxml2 worded a malformed document);
import Foundation
import FuzzSupport
@_spi(Fuzzing) import PropertyList

/// What reading a document gave: the records in order, or the records
/// before an error and the error.
struct Reading {
    var rootIsArray = false
    var rootLocation: SourceLocation?
    var items: [PropertyListItem] = []
    var error: PropertyListError?
}

func readAll(_ size: Int, _ context: StaticString, _ open: () throws -> PropertyListReader) -> Reading {
    var reading = Reading()
    let reader: PropertyListReader
    do {
        reader = try open()
    } catch {
        Invariants.check(readerError: error, context)
        reading.error = error as? PropertyListError
        return reading
    }
    reading.rootIsArray = reader.rootIsArray
    reading.rootLocation = reader.rootLocation
    Invariants.check(reader.rootLocation, context, "root")
    var consumed = reader.bytesConsumed
    do {
        while let item = try reader.next() {
            Invariants.checkLocations(item)
            reading.items.append(item)
            if !reader.rootIsArray && reading.items.count > 1 {
                fatalError("\(context): a non-array root returned twice")
            }
            if reader.bytesConsumed < consumed || reader.bytesConsumed > size {
                fatalError("\(context): bytesConsumed \(reader.bytesConsumed) after \(consumed), size \(size)")
            }
            consumed = reader.bytesConsumed
        }
        if reader.bytesConsumed != size {
            fatalError("\(context): bytesConsumed \(reader.bytesConsumed) at the end of \(size) bytes")
        }
        if try reader.next() != nil {
            fatalError("\(context): a value after nil")
        }
    } catch {
        Invariants.check(readerError: error, context)
        reading.error = error as? PropertyListError
        do {
            _ = try reader.next()
            fatalError("\(context): next() after an error did not throw")
        } catch let again as PropertyListError {
            if again.description != reading.error?.description {
                fatalError("\(context): a different error after \(error): \(again)")
            }
        } catch {
            fatalError("\(context): \(error)")
        }
    }
    return reading
}

/// The same value at the same locations, all the way down.
func sameItem(_ a: PropertyListItem, _ b: PropertyListItem) -> Bool {
    guard a.location == b.location else { return false }
    switch (a.value, b.value) {
    case (.array(let x), .array(let y)):
        return x.count == y.count && zip(x, y).allSatisfy(sameItem)
    case (.dictionary(let x), .dictionary(let y)):
        return x.count == y.count
            && zip(x.entries, y.entries).allSatisfy {
                $0.key == $1.key && $0.keyLocation == $1.keyLocation && sameItem($0.item, $1.item)
            }
    default:
        return Invariants.sameValue(a.value, b.value)
    }
}

/// Two readings of one document agree.
///
/// Unless libxml2 itself failed one of them: its push parser decides
/// some constructs on the input it holds (a DOCTYPE whose quoted
/// identifier holds a `>` is parsed as soon as that `>` arrives, and
/// fails if the closing quote has not), so its verdict on a malformed or
/// odd prolog may depend on where a chunk ends. `xmlTextReader`, which
/// pushes 512 bytes at a time, did the same. Everything else, our own
/// errors included, must not depend on chunking.
///
/// Nor documents libxml2 converts through ICU: libxml2 2.9.14 converts
/// each chunk it is pushed with a flush (`xmlParserInputBufferPush` calls
/// `xmlCharEncInput(in, 1)`), so a UTF-7 shift sequence (`+4-`), or an
/// invalid byte sequence in ICU's UTF-8 (`encoding="UT-F8"`), cut by a
/// chunk boundary decodes to other characters. See fuzz/README.md,
/// findings.
func compare(_ a: Reading, _ b: Reading, _ what: String, document: Data) {
    if a.error?.kind == .malformedXML || b.error?.kind == .malformedXML || isConverted(document) {
        return
    }
    switch (a.error, b.error) {
    case (nil, nil):
        break
    case (let x?, let y?):
        if x.description != y.description {
            fatalError("\(what): different errors:\n\(x)\n\(y)")
        }
        if a.items.count != b.items.count {
            fatalError("\(what): \(a.items.count) and \(b.items.count) records before \(x)")
        }
        return
    case (let x?, nil), (nil, let x?):
        fatalError("\(what): one read fails, the other does not: \(x)")
    }
    guard a.rootIsArray == b.rootIsArray, a.rootLocation == b.rootLocation, a.items.count == b.items.count else {
        fatalError("\(what): different roots or record counts")
    }
    for (x, y) in zip(a.items, b.items) where !sameItem(x, y) {
        fatalError("\(what): different records at \(x.location) and \(y.location)")
    }
}

/// Whether libxml2 converts the document through iconv or ICU: its XML
/// declaration names an encoding other than the ones libxml2 decodes
/// itself (UTF-8, UTF-16, ISO-8859-1, ASCII), in any spelling ICU accepts
/// (`UT-F8` is ICU's UTF-8, not libxml2's), or it starts like UCS-4.
func isConverted(_ document: Data) -> Bool {
    let bytes = [UInt8](document.prefix(4))
    if bytes.count == 4 && (bytes[0] == 0 || bytes[3] == 0) && bytes[1] == 0 && bytes[2] == 0 {
        return true
    }
    let head = String(decoding: document.prefix(1024), as: UTF8.self)
    guard let range = head.range(of: "encoding") else { return false }
    let rest = head[range.upperBound...].drop { $0 == " " || $0 == "=" || $0 == "\t" || $0 == "\n" }
    guard let quote = rest.first, quote == "\"" || quote == "'" else { return false }
    let name = rest.dropFirst().prefix { $0 != quote }.uppercased()
    return !["UTF-8", "UTF8", "UTF-16", "UTF16", "ISO-8859-1", "ISO-LATIN-1", "ASCII", "US-ASCII"].contains(name)
}

/// The records of an array root read through a prefetcher (libxml2
/// drives the parse), or nil for another root or a document refused at
/// opening.
func readDriven(_ data: Data) -> Reading? {
    guard let reader = try? PropertyListReader(data: data, displayName: Invariants.displayName),
        reader.rootIsArray
    else { return nil }
    var reading = Reading(rootIsArray: true, rootLocation: reader.rootLocation)
    let prefetcher = PropertyListPrefetcher(reader, batchSize: 3, maximumBatches: 2)
    do {
        while let item = try prefetcher.next() {
            Invariants.checkLocations(item)
            reading.items.append(item)
        }
    } catch {
        Invariants.check(readerError: error, "driven")
        reading.error = error as? PropertyListError
    }
    return reading
}

func compareDriven(_ pushed: Reading, _ driven: Reading) {
    // libxml2 may notice a malformed document a token sooner or later in
    // one loop than in the other: the records both read must agree.
    let malformed = pushed.error?.kind == .malformedXML || driven.error?.kind == .malformedXML
    guard pushed.items.count == driven.items.count || malformed else {
        fatalError("driven: \(driven.items.count) records, pushed \(pushed.items.count) (\(String(describing: pushed.error)))")
    }
    for (x, y) in zip(pushed.items, driven.items) where !sameItem(x, y) {
        fatalError("driven: different records at \(x.location) and \(y.location)")
    }
    switch (pushed.error, driven.error) {
    case (nil, nil):
        break
    case (let x?, let y?):
        if !malformed && x.description != y.description {
            fatalError("driven: different errors:\n\(x)\n\(y)")
        }
    case (let x?, nil), (nil, let x?):
        fatalError("driven: one read fails, the other does not: \(x)")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = bytes.map { Data(bytes: $0, count: count) } ?? Data()
    let name = Invariants.displayName
    let whole = readAll(count, "64 KiB chunks") { try PropertyListReader(data: data, displayName: name) }
    let chunkSize = 1 + Int(data.first ?? 0) % 61
    let small = readAll(count, "small chunks") {
        try PropertyListReader(data: data, displayName: name, chunkSize: chunkSize)
    }
    compare(whole, small, "chunks of \(chunkSize) bytes", document: data)
    if !isConverted(data), let driven = readDriven(data) {
        compareDriven(whole, driven)
    }
    return 0
}
