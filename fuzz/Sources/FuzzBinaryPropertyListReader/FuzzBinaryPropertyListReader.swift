// libFuzzer target: BinaryPropertyListReader on arbitrary bytes.
//
// For each input it checks that:
// - reading never crashes, and throws nothing but a PropertyListError
//   named after the document and located by a byte offset inside it (or
//   just past its end), unless it is about the whole file;
// - every value and key read is located by a byte offset inside the file;
// - once an error is thrown, later calls to next() throw it again;
// - streaming with next() and reading the root whole agree;
// - the file path and the in-memory path agree.
//
// Most inputs would fail at the header; the target also reads each input
// with "bplist00" put in front, and with a trailer appended that points at
// it, so that the fuzzer spends its time on objects.
import Foundation
import FuzzSupport
import PropertyList

enum Outcome {
    case value(PropertyListValue)
    case failure(PropertyListError)
}

func check(_ error: PropertyListError, size: Int, _ context: StaticString) {
    guard error.file == Invariants.displayName, !error.message.isEmpty else {
        fatalError("\(context): unnamed or empty error: \(error)")
    }
    guard let location = error.location else {
        switch error.kind {
        case .unreadable, .fileNotFound: return
        default: fatalError("\(context): unlocated \(error.kind) error: \(error)")
        }
    }
    guard let offset = location.byteOffset, offset >= 0, offset <= size else {
        fatalError("\(context): error outside the file (\(size) bytes): \(error)")
    }
}

func checkLocations(_ item: PropertyListItem, size: Int) {
    var pending = [item]
    while let item = pending.popLast() {
        guard let offset = item.location.byteOffset, offset >= 8, offset < size else {
            fatalError("value located outside the objects: \(item.location)")
        }
        switch item.value {
        case .array(let items):
            pending.append(contentsOf: items)
        case .dictionary(let dictionary):
            for entry in dictionary.entries {
                guard let offset = entry.keyLocation.byteOffset, offset >= 8, offset < size else {
                    fatalError("key located outside the objects: \(entry.keyLocation)")
                }
                pending.append(entry.item)
            }
        default:
            break
        }
    }
}

/// Reads a whole document by streaming, then whole, and checks they agree.
func read(_ open: () throws(PropertyListError) -> BinaryPropertyListReader, size: Int, _ context: StaticString)
    -> Outcome
{
    let reader: BinaryPropertyListReader
    do {
        reader = try open()
    } catch {
        check(error, size: size, context)
        return .failure(error)
    }
    var items: [PropertyListItem] = []
    let streamed: Outcome
    do {
        while let item = try reader.next() {
            checkLocations(item, size: size)
            items.append(item)
            if !reader.rootIsArray && items.count > 1 {
                fatalError("\(context): a non-array root returned twice")
            }
        }
        if try reader.next() != nil {
            fatalError("\(context): a value after nil")
        }
        if reader.rootIsArray {
            streamed = .value(.array(items))
        } else if let root = items.first {
            streamed = .value(root.value)
        } else {
            fatalError("\(context): no root value and no error")
        }
    } catch {
        check(error, size: size, context)
        do {
            _ = try reader.next()
            fatalError("\(context): next() after an error did not throw")
        } catch let again {
            if again.description != error.description {
                fatalError("\(context): a different error after \(error): \(again)")
            }
        }
        streamed = .failure(error)
    }

    // readRoot on a fresh reader must agree.
    let whole: Outcome
    do {
        let root = try open().readRoot()
        checkLocations(root, size: size)
        whole = .value(root.value)
    } catch {
        check(error, size: size, context)
        whole = .failure(error)
    }
    switch (streamed, whole) {
    case (.value(let a), .value(let b)):
        if !Invariants.sameValue(a, b) { fatalError("\(context): readRoot and next() read different values") }
    case (.failure, .failure):
        break
    default:
        fatalError("\(context): readRoot and next() disagree: \(streamed) / \(whole)")
    }
    return streamed
}

/// One scratch file per process for the file path, in memory when
/// /dev/shm exists.
let scratchFile = URL(
    fileURLWithPath: FileManager.default.fileExists(atPath: "/dev/shm")
        ? "/dev/shm" : FileManager.default.temporaryDirectory.path
).appendingPathComponent("bowties-fuzz-binary-\(getpid()).bplist")

let scratchCleanup: Void = {
    atexit { unlink(scratchFile.path) }
}()

/// Writes `data` to ``scratchFile`` without `Data.write`'s fsync.
func writeScratch(_ data: Data) -> Bool {
    _ = scratchCleanup
    let descriptor = open(scratchFile.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    return data.withUnsafeBytes { buffer in
        var offset = 0
        while offset < buffer.count {
            let written = write(descriptor, buffer.baseAddress?.advanced(by: offset), buffer.count - offset)
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }
}

func fuzz(_ data: Data) {
    let name = Invariants.displayName
    let memory = read(
        { () throws(PropertyListError) in try BinaryPropertyListReader(data: data, displayName: name) },
        size: data.count, "memory")
    guard writeScratch(data) else { return }
    let file = read(
        { () throws(PropertyListError) in
            try BinaryPropertyListReader(contentsOf: scratchFile, displayName: name)
        }, size: data.count, "file")
    switch (memory, file) {
    case (.value(let a), .value(let b)):
        if !Invariants.sameValue(a, b) { fatalError("the file path read a different value") }
    case (.failure(let a), .failure(let b)):
        if a.description != b.description { fatalError("the paths failed differently: \(a) / \(b)") }
    default:
        fatalError("the file path and the memory path disagree: \(memory) / \(file)")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = bytes.map { Data(bytes: $0, count: count) } ?? Data()
    fuzz(data)
    if !data.starts(with: Array("bplist00".utf8)), data.count >= 2 {
        // The input as objects: a header before it, and a trailer whose
        // first two bytes (offset and reference sizes) come from the input,
        // over an offset table made of the input's last bytes.
        var framed = Data("bplist00".utf8)
        framed.append(data)
        let sizes = (Int(data[data.startIndex]) % 8 + 1, Int(data[data.startIndex + 1]) % 8 + 1)
        let objects = max(1, min(count / 4, 64))
        let tableOffset = max(9, 8 + count - objects * sizes.0)
        var trailer = Data(count: 6)
        trailer.append(UInt8(sizes.0))
        trailer.append(UInt8(sizes.1))
        for value in [UInt64(objects), 0, UInt64(tableOffset)] {
            withUnsafeBytes(of: value.bigEndian) { trailer.append(contentsOf: $0) }
        }
        framed.append(trailer)
        fuzz(framed)
    }
    return 0
}
