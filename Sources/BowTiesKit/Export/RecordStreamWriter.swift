import Foundation

/// One field of an export: an attribute, the baseline of a derived
/// attribute, the names of a named to-many
/// relationship (`tags`), or the objects of a to-many relationship that
/// owns them (`wears`). Resolved from the declaration by
/// ``EntityCodec/exportFields(_:format:)``.
struct ExportField: Sendable {
    enum Source: Sendable, Equatable {
        /// Position in the entity's attributes.
        case attribute(Int)
        /// The baseline of the derived attribute at this position in the
        /// entity's attributes (`timesWornBefore`: what `timesWorn` counted
        /// before the history began), read from its `<name>_baseline`
        /// column.
        case baseline(Int)
        /// Position in ``EntityCodec/namedRelationships``.
        case names(Int)
        /// Position in ``EntityCodec/objectLists``.
        case objects(Int)
    }

    /// The name exports use (``AttributeDescription/exportName``, the
    /// relationship's import key or name).
    var name: String
    var source: Source
    /// For ``Source/objects(_:)``: the export names of the destination's
    /// attributes, in the order a ``ExportObject`` holds their values.
    var objectKeys: [String] = []
}

/// A value inside an object of a to-many relationship (a wear's date or
/// note).
enum ExportScalar {
    case text(String)
    case real(Double)
    case integer(Int64)
    case bool(Bool)
    case date(Double)
}

/// One object of a to-many relationship: values in the order of
/// ``ExportField/objectKeys``, nil when it has none.
typealias ExportObject = [ExportScalar?]

/// A binary attribute's value in a row (the photo).
enum PhotoCell {
    /// `--photos none`.
    case notExported
    /// The record has none.
    case missing
    /// Its size, SHA-256 (hex, from the row) and place (`external`
    /// photos are files named by the hash in the photo folder), and with
    /// `--photos inline` its bytes, read and checked.
    case described(
        byteCount: Int64, sha256: UnsafeBufferPointer<UInt8>, external: Bool, data: UnsafeRawBufferPointer?)
}

/// A format's writer: told each field of each record in order, it
/// appends the format's bytes to an ``ExportBuffer``. Generic callers
/// (``Catalog/writeRecords(_:sql:arguments:fields:columns:photos:into:)``)
/// are specialized for each writer, so no call goes through a witness
/// table per value.
///
/// Text arrives as UTF-8 bytes lent from SQLite, valid until the next row.
protocol RecordStreamWriter: ~Copyable {
    /// The header row, `[`, the property list's prolog.
    mutating func begin() throws
    mutating func beginRecord()
    mutating func null(_ field: Int)
    mutating func text(_ field: Int, _ bytes: UnsafeBufferPointer<UInt8>)
    mutating func integer(_ field: Int, _ value: Int64)
    mutating func real(_ field: Int, _ value: Double)
    mutating func bool(_ field: Int, _ value: Bool)
    mutating func date(_ field: Int, secondsSince1970: Double)
    mutating func color(_ field: Int, _ color: Color)
    mutating func photo(_ field: Int, _ cell: PhotoCell) throws
    /// Names sorted as people read them (``EntityCodec/sortedNames(_:)``).
    mutating func names(_ field: Int, _ names: [String])
    mutating func objects(_ field: Int, _ objects: [ExportObject])
    /// Ends the record, handing the buffer over when it is full.
    mutating func endRecord() throws
    /// Closes the array or document and flushes everything.
    mutating func finish() throws
    /// Characters the format cannot hold that were replaced (property
    /// lists: see ``ExportSummary/replacedCharacters``).
    var replacedCharacters: Int { get }
}
