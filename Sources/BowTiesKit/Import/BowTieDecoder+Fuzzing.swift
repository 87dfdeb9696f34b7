import Foundation
import PropertyList

/// The import's record decoding without a store, for the fuzz target in
/// `fuzz/` and the tests that replay its corpus.
///
/// It is `@_spi(Fuzzing)`: not part of BowTiesKit's API, visible only to
/// code that writes `@_spi(Fuzzing) import BowTiesKit`.
@_spi(Fuzzing)
public enum RecordDecoding {
    /// What decoding a whole document found.
    public struct Summary: Sendable, Equatable {
        /// Records that decoded and passed validation.
        public var records = 0
        /// Distinct unknown keys met (each would be an import warning),
        /// counted up to ``BowTieDecoder/unknownKeysRemembered``.
        public var unknownKeys = 0
    }

    /// Reads `data` as `bowties import` reads a file, and decodes and
    /// validates each record with the importer's ``BowTieDecoder``: a root
    /// `<array>` of records, or a root object read as one record.
    ///
    /// Nothing is stored and no image is resolved; each decoded record
    /// is encoded as the store would write it, and dropped.
    ///
    /// - Parameters:
    ///   - data: the property list's bytes.
    ///   - displayName: the name used in locations and messages.
    ///   - stopAtFirstInvalidRecord: `true` to throw at the first invalid
    ///     record, as an import does; `false` to decode every record (so a
    ///     fuzzer reaches records after an invalid one) and rethrow the
    ///     first ``ImportError`` at the end.
    /// - Returns: how many records decoded, and the unknown keys.
    /// - Throws: `PropertyListError` for malformed or unsafe documents,
    ///   ``ImportError`` for invalid records; anything else is a bug.
    public static func decodeAll(
        data: Data, displayName: String, stopAtFirstInvalidRecord: Bool = true
    ) throws -> Summary {
        let reader = try PropertyListReader(data: data, displayName: displayName)
        var decoder = BowTieDecoder()
        let codec = try EntityCodec(BowTieModel.entity, in: BowTieModel.model, transformers: .shared)
        var warnings = ImportWarningLog()
        var summary = Summary()
        var number = 0
        var firstFailure: ImportError?
        func decode(_ item: PropertyListItem) throws {
            number += 1
            do {
                let record = try decoder.decode(item, number: number, warnings: &warnings)
                // What the store would write: the record layer's encoding
                // (the colour through its transformer) must accept
                // whatever validation let by.
                _ = try codec.insertArguments(record.tie.record)
                summary.records += 1
            } catch let error as ImportError where !stopAtFirstInvalidRecord {
                firstFailure = firstFailure ?? error
            }
        }
        if reader.rootIsArray {
            while let item = try reader.next() {
                try decode(item)
            }
        } else if let item = try reader.next() {
            try decode(item)
            _ = try reader.next()
        }
        summary.unknownKeys = decoder.seenUnknownKeys.count
        if let firstFailure {
            throw firstFailure
        }
        return summary
    }
}
