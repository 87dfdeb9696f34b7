import CoreDataStore
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
        /// counted up to ``RecordDecoder/unknownKeysRemembered``.
        public var unknownKeys = 0
    }

    /// Reads `data` as `bowties import` reads a file, and decodes and
    /// validates each record with the importer's ``RecordDecoder``: a root
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
        var decoding = try Decoding(
            syntax: .propertyList, model: nil, stopAtFirstInvalidRecord: stopAtFirstInvalidRecord)
        if reader.rootIsArray {
            while let item = try reader.next() {
                try decoding.decode(item)
            }
        } else if let item = try reader.next() {
            try decoding.decode(item)
            _ = try reader.next()
        }
        return try decoding.finish()
    }

    /// Reads the file at `url` in `format` as `bowties import` reads it
    /// (JSON, JSON Lines, CSV or TSV: the same readers, and for CSV and
    /// TSV the header naming each column), and decodes and validates each
    /// record as ``decodeAll(data:displayName:stopAtFirstInvalidRecord:)``
    /// does, with the importer's value syntax for the format and the
    /// model's owned relationships (`wears`).
    ///
    /// - Throws: `PropertyListError` for malformed documents,
    ///   ``ImportError`` for invalid records; anything else is a bug.
    public static func decodeAll(
        contentsOf url: URL, format: ImportFormat, displayName: String, stopAtFirstInvalidRecord: Bool = true
    ) throws -> Summary {
        let source: RecordSource
        let syntax: ValueSyntax
        switch format {
        case .plist:
            return try decodeAll(
                data: try Data(contentsOf: url), displayName: displayName,
                stopAtFirstInvalidRecord: stopAtFirstInvalidRecord)
        case .json, .jsonl:
            source = try JSONReader(
                contentsOf: url, displayName: displayName, layout: format == .json ? .array : .lines)
            syntax = .json
        case .csv, .tsv:
            let reader = try CSVReader(contentsOf: url, displayName: displayName, dialect: format == .tsv ? .tsv : .csv)
            source = CSVRecordSource(reader, entity: BowTieModel.entity, model: BowTieModel.model)
            syntax = .text
        case .coreData:
            let store = try CoreDataStore(path: url.path, displayName: displayName)
            source = try CoreDataRecordSource(
                store: store, entityName: nil, map: [:], entity: BowTieModel.entity,
                size: (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0)
            syntax = .propertyList
        }
        var decoding = try Decoding(
            syntax: syntax, model: BowTieModel.model, stopAtFirstInvalidRecord: stopAtFirstInvalidRecord)
        while let item = try source.next() {
            try decoding.decode(item)
        }
        return try decoding.finish()
    }

    /// One document's decoding: the decoder, the codec, the count.
    private struct Decoding {
        var decoder: RecordDecoder
        let codec: EntityCodec
        let stopAtFirstInvalidRecord: Bool
        var warnings = ImportWarningLog()
        var summary = Summary()
        var number = 0
        var firstFailure: ImportError?

        init(syntax: ValueSyntax, model: ObjectModel?, stopAtFirstInvalidRecord: Bool) throws {
            decoder = RecordDecoder(entity: BowTieModel.entity, model: model, syntax: syntax)
            // Decodes and validates only: its SQL never runs.
            codec = try EntityCodec(BowTieModel.entity, in: BowTieModel.model, transformers: .shared, dialect: .sqlite)
            self.stopAtFirstInvalidRecord = stopAtFirstInvalidRecord
        }

        mutating func decode(_ item: PropertyListItem) throws {
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

        func finish() throws -> Summary {
            var summary = summary
            summary.unknownKeys = decoder.seenUnknownKeys.count
            if let firstFailure {
                throw firstFailure
            }
            return summary
        }
    }
}
