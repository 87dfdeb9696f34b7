import Foundation
import GRDB

#if canImport(Glibc)
    import Glibc
#endif

/// Where an export goes.
public enum ExportDestination: Sendable {
    case standardOutput
    /// A file, written atomically: it appears whole or not at all.
    case file(URL)
}

extension Catalog {
    /// The CSV header: one column per attribute in declaration order (the
    /// photo becomes its size and SHA-256), then one per relationship
    /// imported by name (`tags`).
    public var csvColumns: [String] { Self.csvColumns(of: bowTieCodec.entity, in: model) }

    /// The CSV header of the bow-tie model (``BowTieModel``).
    public static var csvColumns: [String] { csvColumns(of: BowTieModel.entity, in: BowTieModel.model) }

    static func csvColumns(of entity: EntityDescription, in model: ObjectModel) -> [String] {
        entity.attributes.flatMap { attribute -> [String] in
            attribute.type == .binaryData
                ? [attribute.exportName + "Bytes", attribute.exportName + "SHA256"] : [attribute.exportName]
        } + model.namedRelationships(of: entity).map { $0.importKey ?? $0.name }
    }

    /// Writes the catalog as CSV (RFC 4180: UTF-8, CRLF line ends, a header
    /// row, one row per tie), streamed row by row from one consistent
    /// snapshot, in memory that does not grow with the catalog.
    ///
    /// Cells: `lastWorn` in ISO 8601 UTC, `isFavorite` as `true`/`false`,
    /// `tintColor` as `#RRGGBB`, empty for missing values.
    ///
    /// - Parameters:
    ///   - query: Only the ties it selects, in its order (default: all,
    ///     in the order they were added).
    ///   - spreadsheetSafe: Defuse text cells a spreadsheet would run as a
    ///     formula (see ``CSVRowWriter``). Off by default, so that an export
    ///     holds exactly what the catalog holds.
    /// - Returns: The number of ties written.
    /// - Throws: ``CatalogError`` `.cannotCreateOutput` when the file
    ///   cannot be written (nothing is left behind), `.storeIO` for a
    ///   colour the transformer refuses; ``QueryError`` for a query of
    ///   another entity.
    @discardableResult
    public func exportCSV(to destination: ExportDestination, query: Query? = nil, spreadsheetSafe: Bool = false)
        throws -> Int
    {
        let (sql, arguments) = try selectSQL(matching: query ?? .all(of: bowTieCodec.entity))
        let file: AtomicFile?
        let sink: ([UInt8]) throws -> Void
        switch destination {
        case .standardOutput:
            file = nil
            sink = { try writeToStandardOutput($0) }
        case .file(let url):
            let atomic = try AtomicFile(destination: url)
            file = atomic
            sink = { try atomic.write($0) }
        }
        var writer = CSVRowWriter(spreadsheetSafe: spreadsheetSafe, sink: sink)
        for column in csvColumns { writer.text(column) }
        try writer.endRow()
        let count = try read { db in try writeCSVRows(db, sql: sql, arguments: arguments, into: &writer) }
        try writer.flush()
        try file?.commit()
        return count
    }

    /// One row per tie, cells in declaration order, read with
    /// ``RawRowCursor`` from the codec's selection (its column encodings,
    /// without a ``Record`` per row); `sql` is that selection with a
    /// query's condition and order.
    private func writeCSVRows(
        _ db: Database, sql: String, arguments: [DatabaseValue], into writer: inout CSVRowWriter
    ) throws -> Int {
        let codec = bowTieCodec
        let cursor = try RawRowCursor(db, sql: sql, arguments: arguments)
        // Types and names only: iterating the declarations themselves
        // would copy each (and its strings) for every row.
        let types = codec.entity.attributes.map(\.type)
        let names = codec.entity.attributes.map(\.name)
        let columns = codec.selectedAttributeColumns
        var count = 0
        while try cursor.step() {
            for index in types.indices {
                let column = columns[index]
                switch types[index] {
                case .string, .uri, .uuid:
                    writer.text(cursor.text(column))
                case .double:
                    guard let number = cursor.double(column) else { writer.empty(); continue }
                    if number == number.rounded(), abs(number) < 1e15 {
                        writer.integer(Int64(number))
                    } else {
                        writer.plain(AttributeValue.format(number).utf8)
                    }
                case .integer32:
                    guard let number = cursor.int64(column) else { writer.empty(); continue }
                    writer.integer(number)
                case .date:
                    guard let seconds = cursor.double(column) else { writer.empty(); continue }
                    writer.date(secondsSince1970: seconds)
                case .boolean:
                    guard let flag = cursor.int64(column) else { writer.empty(); continue }
                    writer.plain((flag != 0 ? "true" : "false").utf8)
                case .transformable:
                    guard let bytes = cursor.blob(column) else {
                        writer.empty()
                        continue
                    }
                    let value: AttributeValue
                    do {
                        value = try codec.transformer(at: index).reverseTransformedValue(Data(bytes))
                    } catch let error as TransformerError {
                        throw CatalogError(
                            .storeIO, "cannot read the \(names[index]) of row \(count + 1): \(error)")
                    }
                    guard case .color(let color) = value else { writer.empty(); continue }
                    writer.hexColor(color)
                case .binaryData:
                    // The size (from the blob), then the SHA-256.
                    if let size = cursor.int64(column + 1) {
                        writer.integer(size)
                    } else {
                        writer.empty()
                    }
                    writer.text(cursor.text(column))
                }
            }
            for column in codec.selectedNameColumns {
                guard let joined = cursor.text(column) else { writer.empty(); continue }
                let names = EntityCodec.sortedNames(
                    String(decoding: UnsafeRawBufferPointer(joined), as: UTF8.self)
                        .split(separator: "\u{1F}").map(String.init))
                writer.text(names.joined(separator: ", "))
            }
            try writer.endRow()
            count += 1
        }
        return count
    }
}

private func writeToStandardOutput(_ bytes: [UInt8]) throws {
    try bytes.withUnsafeBytes { raw in
        guard let base = raw.baseAddress else { return }
        var offset = 0
        while offset < raw.count {
            let written = Glibc.write(1, base + offset, raw.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw CatalogError(
                    .cannotCreateOutput, "cannot write to standard output: \(String(cString: strerror(errno)))")
            }
            offset += written
        }
    }
}
