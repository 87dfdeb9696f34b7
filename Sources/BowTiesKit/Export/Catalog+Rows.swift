import Foundation

/// One row of the fields a caller chose, read in place from SQLite's
/// columns (``Catalog/forEachRow(of:matching:reverse:ordered:resolving:each:)``): for
/// output that shows a few fields of many ties (`list`'s table) without
/// building a ``Record`` per row. A field is read by its export name,
/// looked up once per statement (``field(_:)``), not on every row:
///
/// ```swift
/// try catalog.forEachRow(
///     of: ["name", "rating"], matching: query, resolving: { try $0.field("rating") },
///     each: { row, rating in print(row.number(rating) ?? 0) })
/// ```
///
/// Valid only inside the call that lends it.
public final class FieldRow {
    private let cursor: any RawRows
    private let columns: [Int32]
    private let codec: EntityCodec
    /// The attribute position of each field (nil: not an attribute).
    private let attributes: [Int?]
    /// The export name of each field.
    private let names: [String]

    /// A field of the row, by its place in the statement's selection:
    /// what ``field(_:)`` finds by name once, for every row to read.
    public struct Field: Sendable, Equatable {
        fileprivate let position: Int
    }

    init(cursor: any RawRows, columns: [Int32], codec: EntityCodec, fields: [ExportField]) {
        self.cursor = cursor
        self.columns = columns
        self.codec = codec
        attributes = fields.map { if case .attribute(let index) = $0.source { index } else { nil } }
        names = fields.map(\.name)
    }

    /// The field with export name `name` (`rating`, `tags`): look it up
    /// once per statement, then read it on every row.
    /// - Throws: ``ExportFieldError`` `.unknownField` when the statement
    ///   does not select it.
    public func field(_ name: String) throws -> Field {
        guard let position = names.firstIndex(of: name) else {
            throw ExportFieldError(
                kind: .unknownField, field: name, suggestion: nil,
                message: "the rows hold no field \"\(name)\" (fields: \(names.joined(separator: ", ")))")
        }
        return Field(position: position)
    }

    /// Text (also a URI or UUID), nil when missing.
    public func text(_ field: Field) -> String? {
        cursor.text(columns[field.position]).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Calls `body` with the field's UTF-8 bytes as SQLite holds them, nil
    /// when missing: text without making a `String` of it, for a pass
    /// that only measures (`list`'s column widths over a million ties).
    public func withUTF8<Result>(_ field: Field, _ body: (UnsafeBufferPointer<UInt8>?) throws -> Result) rethrows
        -> Result
    {
        try body(cursor.text(columns[field.position]))
    }

    /// A number (double or integer), nil when missing.
    public func number(_ field: Field) -> Double? {
        cursor.double(columns[field.position])
    }

    public func integer(_ field: Field) -> Int64? {
        cursor.int64(columns[field.position])
    }

    public func flag(_ field: Field) -> Bool? {
        cursor.int64(columns[field.position]).map { $0 != 0 }
    }

    public func date(_ field: Field) -> Date? {
        cursor.double(columns[field.position]).map(Date.init(timeIntervalSince1970:))
    }

    /// A transformable attribute's value through its transformer, nil
    /// when missing.
    /// - Throws: ``CatalogError`` `.storeIO` when the transformer refuses
    ///   the stored bytes.
    public func value(_ field: Field) throws -> AttributeValue? {
        guard let index = attributes[field.position], let bytes = cursor.blob(columns[field.position]) else {
            return nil
        }
        do {
            return try codec.transformer(at: index).reverseTransformedValue(Data(bytes))
        } catch let error as TransformerError {
            throw CatalogError(.storeIO, "cannot read the \(codec.entity.attributes[index].name): \(error)")
        }
    }
}

extension Catalog {
    /// Calls `body` with each row `query` selects, in its order (reversed
    /// with `reverse`), holding only `fields` (export names: attributes,
    /// `tags`), one row at a time from one snapshot.
    ///
    /// - Parameters:
    ///   - ordered: false when the order does not matter (a pass that only
    ///     measures): SQLite then reads the rows as stored, without
    ///     sorting them first.
    ///   - resolve: Finds the fields `body` reads by name
    ///     (``FieldRow/field(_:)``), once, before the first row.
    /// - Throws: ``ExportFieldError`` for an unknown field; what `body`
    ///   throws (and stops there); ``QueryError``, ``CatalogError``.
    public func forEachRow<Fields>(
        of fields: [String], matching query: Query, reverse: Bool = false, ordered: Bool = true,
        resolving resolve: (FieldRow) throws -> Fields, each body: (FieldRow, Fields) throws -> Void
    ) throws {
        let codec = bowTieCodec
        let exportFields = try codec.exportFields(fields, format: .csv)
        let (selection, columns) = codec.exportSelection(exportFields, photoBytes: false)
        let (sql, arguments) = try selectSQL(
            matching: query, reverse: reverse, selection: selection, ordered: ordered)
        try read { db in
            let cursor = try db.rawCursor(sql: sql, arguments: arguments)
            let row = FieldRow(cursor: cursor, columns: columns, codec: codec, fields: exportFields)
            let resolved = try resolve(row)
            while try cursor.step() { try body(row, resolved) }
        }
    }
}

@available(*, unavailable, message: "a row is read from a statement on one thread")
extension FieldRow: Sendable {}
