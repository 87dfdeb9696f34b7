import Foundation
import GRDB

/// One row of the fields a caller chose, read in place from SQLite's
/// columns (``Catalog/forEachRow(of:matching:order:reverse:_:)``): for
/// output that shows a few fields of many ties (`list`'s table) without
/// building a ``Record`` per row. Values are by the position of the field
/// in the caller's list.
///
/// Valid only inside the call that lends it.
public final class FieldRow {
    private let cursor: RawRowCursor
    private let columns: [Int32]
    private let codec: EntityCodec
    /// The attribute position of each field (nil: not an attribute).
    private let attributes: [Int?]

    init(cursor: RawRowCursor, columns: [Int32], codec: EntityCodec, fields: [ExportField]) {
        self.cursor = cursor
        self.columns = columns
        self.codec = codec
        attributes = fields.map { if case .attribute(let index) = $0.source { index } else { nil } }
    }

    /// Text (also a URI or UUID), nil when missing.
    public func text(_ field: Int) -> String? {
        cursor.text(columns[field]).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Calls `body` with the field's UTF-8 bytes as SQLite holds them, nil
    /// when missing: text without making a `String` of it, for a pass
    /// that only measures (`list`'s column widths over a million ties).
    public func withUTF8<Result>(_ field: Int, _ body: (UnsafeBufferPointer<UInt8>?) throws -> Result) rethrows
        -> Result
    {
        try body(cursor.text(columns[field]))
    }

    /// A number (double or integer), nil when missing.
    public func number(_ field: Int) -> Double? {
        cursor.double(columns[field])
    }

    public func integer(_ field: Int) -> Int64? {
        cursor.int64(columns[field])
    }

    public func flag(_ field: Int) -> Bool? {
        cursor.int64(columns[field]).map { $0 != 0 }
    }

    public func date(_ field: Int) -> Date? {
        cursor.double(columns[field]).map(Date.init(timeIntervalSince1970:))
    }

    /// A transformable attribute's value through its transformer, nil
    /// when missing.
    /// - Throws: ``CatalogError`` `.storeIO` when the transformer refuses
    ///   the stored bytes.
    public func value(_ field: Int) throws -> AttributeValue? {
        guard let index = attributes[field], let bytes = cursor.blob(columns[field]) else { return nil }
        do {
            return try codec.transformer(at: index).reverseTransformedValue(Data(bytes))
        } catch let error as TransformerError {
            throw CatalogError(.storeIO, "cannot read the \(codec.entity.attributes[index].name): \(error)")
        }
    }
}

extension Catalog {
    /// Calls `body` with each row `query` selects (without sort terms, in
    /// `order`), holding only `fields` (export names: attributes, `tags`),
    /// one row at a time from one snapshot.
    ///
    /// - Parameter ordered: false when the order does not matter (a pass
    ///   that only measures): SQLite then reads the rows as stored,
    ///   without sorting them first.
    /// - Throws: ``ExportFieldError`` for an unknown field; what `body`
    ///   throws (and stops there); ``QueryError``, ``CatalogError``.
    public func forEachRow(
        of fields: [String], matching query: Query, order: BowTieOrder = .added, reverse: Bool = false,
        ordered: Bool = true, _ body: (FieldRow) throws -> Void
    ) throws {
        let codec = bowTieCodec
        let exportFields = try codec.exportFields(fields, format: .csv)
        let (selection, columns) = codec.exportSelection(exportFields, photoBytes: false)
        let (sql, arguments) = try selectSQL(
            matching: query, order: order, reverse: reverse, selection: selection, ordered: ordered)
        try read { db in
            let cursor = try RawRowCursor(db, sql: sql, arguments: arguments)
            let row = FieldRow(cursor: cursor, columns: columns, codec: codec, fields: exportFields)
            while try cursor.step() { try body(row) }
        }
    }
}

@available(*, unavailable, message: "a row is read from a statement on one thread")
extension FieldRow: Sendable {}
