// libFuzzer target: CoreDataStore's NSKeyedArchiver decoder on arbitrary
// bytes, as `bowties coredata dump` decodes a transformable value and
// `inspect` the model cache.
//
// For each input it checks that:
// - decoding never crashes, and throws nothing but a CoreDataError of
//   kind .malformedArchive, named after the input, whose location (when
//   it has one) is a byte offset inside the input;
// - decoding twice gives the same value or the same error;
// - the model decoder (the same archive read as a Core Data model)
//   throws nothing but a located CoreDataError either.
//
// Most inputs would fail at the header; the target also reads each input
// with "bplist00" put in front and a trailer appended, as the binary
// property-list target does.
import CoreDataStore
import Foundation

let name = "fuzz.archive"

func check(_ error: CoreDataError, size: Int, _ context: StaticString) {
    guard error.file == name, !error.message.isEmpty else {
        fatalError("\(context): unnamed or empty error: \(error)")
    }
    guard error.kind == .malformedArchive else {
        fatalError("\(context): a \(error.kind) error from the archive decoder: \(error)")
    }
    if let location = error.location {
        guard location.hasPrefix("byte "), let offset = Int(location.dropFirst(5)), offset >= 0, offset <= size else {
            fatalError("\(context): error outside the input (\(size) bytes): \(error)")
        }
    }
    _ = error.description
}

enum Outcome: Equatable {
    case value(ArchivedValue)
    case failure(String)
}

func decode(_ data: Data) -> Outcome {
    do throws(CoreDataError) {
        return .value(try KeyedArchive(data: data, file: name).decodeRoot())
    } catch {
        check(error, size: data.count, "decodeRoot")
        return .failure(error.description)
    }
}

func fuzz(_ data: Data) {
    let first = decode(data)
    let second = decode(data)
    if first != second { fatalError("two decodes disagree: \(first) / \(second)") }
    do throws(CoreDataError) {
        _ = try CoreDataModelDecoding.model(fromArchive: data, file: name)
    } catch {
        check(error, size: data.count, "model")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = bytes.map { Data(bytes: $0, count: count) } ?? Data()
    fuzz(data)
    if !data.starts(with: Array("bplist00".utf8)), data.count >= 2 {
        var framed = Data("bplist00".utf8)
        framed.append(data)
        let sizes = (Int(data[data.startIndex]) % 8 + 1, Int(data[data.startIndex + 1]) % 4 + 1)
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
