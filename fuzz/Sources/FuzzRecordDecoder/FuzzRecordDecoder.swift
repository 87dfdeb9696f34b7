// libFuzzer target: the importer's record decoding on arbitrary bytes.
//
// The input is read as `bowties import` reads a file (PropertyListReader),
// and every record goes through the importer's RecordDecoder, validation
// and the record layer's encoding (RecordDecoding.decodeAll). It checks
// that nothing crashes and that only located PropertyListErrors and
// ImportErrors are thrown.
@_spi(Fuzzing) import BowTiesKit
import Foundation
import FuzzSupport
import PropertyList

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = bytes.map { Data(bytes: $0, count: count) } ?? Data()
    for stopAtFirst in [false, true] {
        do {
            _ = try RecordDecoding.decodeAll(
                data: data, displayName: Invariants.displayName, stopAtFirstInvalidRecord: stopAtFirst)
        } catch let error as ImportError {
            guard let location = error.location else {
                fatalError("unlocated import error: \(error)")
            }
            Invariants.check(location, "import error", error.description)
            if error.recordNumber == nil || error.message.isEmpty {
                fatalError("import error without a record or message: \(error)")
            }
        } catch {
            Invariants.check(readerError: error, "decoder")
        }
    }
    return 0
}
