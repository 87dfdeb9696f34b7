import Foundation
import PropertyList

/// Where an import's records come from: one located value per record, in
/// file order, whatever the format.
///
/// Not `Sendable`: the import reads it on its own thread.
protocol RecordSource: AnyObject {
    /// The next record, or nil after the last one.
    func next() throws -> PropertyListItem?
    /// Bytes of the input read so far, for progress.
    var bytesConsumed: Int { get }
}

extension PropertyListPrefetcher: RecordSource {}
extension PropertyListReader: RecordSource {}
extension JSONReader: RecordSource {}

/// A binary property list's records: its root array's elements, or the
/// root itself.
///
/// A root array's elements are decoded on a second core, a bounded number
/// ahead (``PropertyListPrefetcher``), as an XML file's are parsed:
/// records still arrive in order, and an error after every record before
/// it.
final class BinaryRecordSource: RecordSource {
    private let reader: RecordSource
    private let size: Int
    private var done = false

    init(_ reader: BinaryPropertyListReader, size: Int) {
        self.reader = reader.rootIsArray ? PropertyListPrefetcher(reader) : BinaryReaderSource(reader)
        self.size = size
    }

    func next() throws -> PropertyListItem? {
        let item = try reader.next()
        if item == nil { done = true }
        return item
    }

    /// The whole file is read when it opens; progress counts it at the end.
    var bytesConsumed: Int { done ? size : 0 }
}

/// A binary reader read where it is, for a root that is not an array.
private final class BinaryReaderSource: RecordSource {
    private let reader: BinaryPropertyListReader

    init(_ reader: BinaryPropertyListReader) {
        self.reader = reader
    }

    func next() throws -> PropertyListItem? {
        try reader.next()
    }

    var bytesConsumed: Int { 0 }
}

/// The rows of a CSV (or TSV) file as records: the header names each
/// column by the declaration (an attribute's export or import name, a
/// named relationship such as `tags`, or the photo's `<name>Bytes` and
/// `<name>SHA256` columns an export writes), whatever its case, spaces,
/// `_` and `-`, or by a label `list` and `show` print
/// (``CSVColumnNames``), and each row becomes a
/// dictionary of its non-empty cells, located at the cell, for
/// ``RecordDecoder`` to read with ``ValueSyntax/text``.
///
/// - Named relationships: names separated by commas (`formal, silk`),
///   as the export joins them.
/// - The photo: a `<name>SHA256` column gives "the photo with this
///   hash" (the catalog must hold it); a `<name>Base64` column (an
///   export's `--photos inline`) or a column named like the photo
///   attribute's export name holds Base64 bytes, and then the hash
///   column is only informative.
/// - Owned objects (`wears`): a cell of JSON text, an array of objects,
///   as the export writes it.
final class CSVRecordSource: RecordSource {
    private let reader: CSVReader
    private var columns: [Column] = []
    private var headerRead = false

    /// What a column of the header holds.
    private enum Column {
        /// A cell read as the value of this key.
        case key(String)
        /// Names separated by commas, under this key.
        case names(String)
        /// The SHA-256 of the photo attribute with this export name.
        case photoHash(String)
        /// Objects of an owned relationship, as JSON text, under this key.
        case objects(String)
        /// Its size: informative, not read.
        case ignored
    }

    init(_ reader: CSVReader, entity: EntityDescription, model: ObjectModel) {
        self.reader = reader
        var byName: [String: Column] = [:]
        for attribute in entity.attributes {
            byName[attribute.exportName] = .key(attribute.exportName)
            if attribute.importKey != attribute.exportName { byName[attribute.importKey] = .key(attribute.importKey) }
            if attribute.type == .binaryData {
                byName[attribute.exportName + "SHA256"] = .photoHash(attribute.exportName)
                byName[attribute.exportName + "Bytes"] = .ignored
                byName[attribute.exportName + "Base64"] = .key(attribute.exportName)
            }
            if attribute.derivation != nil { byName[attribute.baselineExportName] = .key(attribute.baselineExportName) }
        }
        for relationship in model.namedRelationships(of: entity) {
            let key = relationship.importKey ?? relationship.name
            byName[key] = .names(key)
        }
        for relationship in entity.relationships
        where relationship.importKey == nil && relationship.isToMany
            && model.linkColumn(inverseOf: relationship) != nil
        {
            byName[relationship.name] = .objects(relationship.name)
        }
        self.byName = byName
        names = CSVColumnNames(byName.keys.sorted())
    }

    private let byName: [String: Column]
    /// The header's names matched as people write them (`Search Key`).
    private let names: CSVColumnNames

    var bytesConsumed: Int { reader.bytesConsumed }

    func next() throws -> PropertyListItem? {
        if !headerRead {
            headerRead = true
            guard let header = try reader.nextRow() else { return nil }
            var seen: Set<String> = []
            for field in header {
                let name = byName[field.text] != nil ? field.text : names.column(for: field.text) ?? field.text
                guard seen.insert(name).inserted else {
                    let column = name == field.text ? "" : "\(name) "
                    throw PropertyListError(
                        .duplicateKey, "duplicate key \"\(field.text)\": the header names the column \(column)twice",
                        at: field.location)
                }
                columns.append(byName[name] ?? .key(field.text))
            }
            // The photo's bytes, when given, are the photo; its hash then
            // only describes them.
            for case .key(let key) in columns {
                columns = columns.map { if case .photoHash(key) = $0 { .ignored } else { $0 } }
            }
        }
        guard let row = try reader.nextRow() else { return nil }
        let start = row.first?.location ?? SourceLocation(file: reader.displayName, line: reader.line, column: 1)
        guard row.count == columns.count else {
            throw PropertyListError(
                .malformedText,
                "the row has \(row.count) field\(row.count == 1 ? "" : "s"), the header \(columns.count)",
                at: start)
        }
        var entries: [PropertyListDictionary.Entry] = []
        entries.reserveCapacity(row.count)
        for (field, column) in zip(row, columns) where !field.text.isEmpty {
            let location = field.location
            switch column {
            case .key(let key):
                entries.append(.init(key: key, keyLocation: location, item: .init(.string(field.text), at: location)))
            case .names(let key):
                let names = field.text.split(separator: ",").map {
                    PropertyListItem(.string($0.trimmingCharacters(in: .whitespaces)), at: location)
                }
                entries.append(.init(key: key, keyLocation: location, item: .init(.array(names), at: location)))
            case .photoHash(let key):
                let description = PropertyListDictionary(entries: [
                    .init(key: "sha256", keyLocation: location, item: .init(.string(field.text), at: location))
                ])
                entries.append(.init(key: key, keyLocation: location, item: .init(.dictionary(description), at: location)))
            case .objects(let key):
                // `null`, as in JSON, gives no value.
                let value: PropertyListItem?
                do {
                    value = try JSONReader.value(in: field.text, at: location)
                } catch {
                    // The reader speaks of a file; here it read one cell.
                    var error = error
                    error.message =
                        "the \(key) cell is not JSON text (as export writes it: [{\"date\": ...}]): "
                        + error.message.replacingOccurrences(of: "the file ends", with: "the cell ends")
                    throw error
                }
                guard let value else { continue }
                entries.append(.init(key: key, keyLocation: location, item: value))
            case .ignored:
                continue
            }
        }
        return PropertyListItem(.dictionary(PropertyListDictionary(entries: entries)), at: start)
    }
}
