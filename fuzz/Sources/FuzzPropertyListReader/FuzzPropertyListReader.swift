// libFuzzer target: PropertyListReader on arbitrary bytes.
//
// For each input it checks that:
// - reading never crashes, and throws nothing but a located
//   PropertyListError (see Invariants);
// - once an error is thrown, later calls throw it again;
// - whatever reads successfully, written back canonically, reads again to
//   the same value (a round trip);
// - the file path (OpenFile, xmlReaderForFd) and the in-memory path agree
//   on success and on the value read.
import Foundation
import FuzzSupport
import PropertyList

/// The outcome of reading a document whole, by streaming.
enum Outcome {
    case value(PropertyListValue)
    case failure(PropertyListError)
}

func stream(_ open: () throws -> PropertyListReader, _ context: StaticString) -> Outcome {
    let reader: PropertyListReader
    do {
        reader = try open()
    } catch {
        Invariants.check(readerError: error, context)
        return .failure(error as? PropertyListError ?? PropertyListError(.unreadable, "", file: ""))
    }
    Invariants.check(reader.rootLocation, context, "root")
    var items: [PropertyListItem] = []
    do {
        while let item = try reader.next() {
            Invariants.checkLocations(item)
            items.append(item)
            if !reader.rootIsArray && items.count > 1 {
                fatalError("\(context): a non-array root returned twice")
            }
        }
        if try reader.next() != nil {
            fatalError("\(context): a value after nil")
        }
    } catch {
        Invariants.check(readerError: error, context)
        let first = error as? PropertyListError
        do {
            _ = try reader.next()
            fatalError("\(context): next() after an error did not throw")
        } catch let again as PropertyListError {
            if again.description != first?.description {
                fatalError("\(context): a different error after \(error): \(again)")
            }
        } catch {
            fatalError("\(context): \(error)")
        }
        return .failure(first ?? PropertyListError(.unreadable, "", file: ""))
    }
    if reader.rootIsArray {
        return .value(.array(items))
    }
    guard let root = items.first else {
        fatalError("\(context): no root value and no error")
    }
    return .value(root.value)
}

/// One scratch file per process for the file path, in memory when
/// /dev/shm exists.
let scratchFile = URL(
    fileURLWithPath: FileManager.default.fileExists(atPath: "/dev/shm")
        ? "/dev/shm" : FileManager.default.temporaryDirectory.path
).appendingPathComponent("bowties-fuzz-\(getpid()).plist")

/// Removes ``scratchFile`` when the process exits: libFuzzer's fork mode
/// starts a process per job, each with its own file.
let scratchCleanup: Void = {
    atexit { unlink(scratchFile.path) }
}()

/// Writes `data` to ``scratchFile`` without `Data.write`'s fsync, which
/// would make each run wait for the disk.
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

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = bytes.map { Data(bytes: $0, count: count) } ?? Data()
    let memory = stream({ try PropertyListReader(data: data, displayName: Invariants.displayName) }, "memory")

    // `read(data:)` builds the same value in one call.
    let whole: PropertyListValue?
    do {
        whole = try PropertyListReader.read(data: data, displayName: Invariants.displayName).value
    } catch {
        Invariants.check(readerError: error, "read(data:)")
        whole = nil
    }

    var fromFile: Outcome?
    if writeScratch(data) {
        fromFile = stream(
            { try PropertyListReader(contentsOf: scratchFile, displayName: Invariants.displayName) }, "file")
    }

    switch memory {
    case .value(let value):
        guard let whole, Invariants.sameValue(value, whole) else {
            fatalError("read(data:) disagrees with streaming")
        }
        if case .failure(let error)? = fromFile {
            fatalError("the file path failed where memory succeeded: \(error)")
        }
        if case .value(let other)? = fromFile, !Invariants.sameValue(value, other) {
            fatalError("the file path read a different value")
        }
        let written = PlistWriter.document(value)
        switch stream({ try PropertyListReader(data: written, displayName: Invariants.displayName) }, "round trip") {
        case .value(let again):
            if !Invariants.sameValue(value, again) {
                fatalError("round trip changed the value:\n\(String(decoding: written, as: UTF8.self))")
            }
        case .failure(let error):
            fatalError("round trip failed: \(error)\n\(String(decoding: written, as: UTF8.self))")
        }
    case .failure(let error):
        if whole != nil {
            fatalError("read(data:) succeeded where streaming failed: \(error)")
        }
        if case .value? = fromFile {
            fatalError("the file path succeeded where memory failed: \(error)")
        }
    }
    return 0
}
