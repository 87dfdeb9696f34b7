import Crypto
import Foundation

/// Writes a store's objects as JSON (an array, one object a line), JSON
/// Lines or CSV, into a byte buffer handed to `sink` every 64 KiB: the
/// dump's memory stays flat whatever the store's size.
///
/// Each object: `entity`, `objectID` (`x-coredata://UUID/Entity/pN`), then
/// its properties by name. Values as ``CoreDataValue`` says: dates in ISO
/// 8601 UTC, UUIDs as text, relationships as objectIDs, binary values as
/// ``BinaryForm`` says, transformables decoded to JSON.
public final class DumpWriter {
    public enum Format: String, Sendable, CaseIterable {
        case json, jsonl, csv
    }

    /// How binary values are written.
    public enum BinaryForm: String, Sendable, CaseIterable {
        /// Only the size: `{"size": 277}` (an empty CSV cell).
        case none
        /// Size and SHA-256: `{"size": 277, "sha256": "…"}` (the hex digest
        /// in CSV).
        case hash
        /// Size and contents: `{"size": 277, "base64": "…"}` (the Base64
        /// text in CSV).
        case base64
    }

    private let store: CoreDataStore
    private let format: Format
    private let binary: BinaryForm
    private let sink: ([UInt8]) throws -> Void
    /// Unchecked: one writer, one thread, and no method re-enters
    /// another while it appends; the checks cost a fifth of a dump.
    @exclusivity(unchecked) private var buffer: [UInt8] = []
    private var objects = 0
    /// CSV: the columns after `entity` and `objectID`.
    private var csvColumns: [String] = []
    /// Per entity: the store's properties and, for CSV, each one's
    /// column.
    private var layouts: [String: Layout] = [:]
    /// The last object's entity and layout: consecutive objects are
    /// mostly of one entity, and a comparison costs less than a hash.
    private var lastLayout: (entity: String, layout: Layout)?

    /// One entity's properties, with each JSON key ready as bytes
    /// (`,"name":`) and each CSV column's index.
    private struct Layout {
        var keys: [[UInt8]]
        var csvIndexes: [Int]
    }
    private let prefix: [UInt8]

    /// - Parameters:
    ///   - entities: The entities dumped (sub-entities included), for the
    ///     CSV header; every entity when `nil`.
    ///   - sink: Takes each full buffer; what it throws stops the dump.
    public init(
        store: CoreDataStore, format: Format, binary: BinaryForm, entities: [String]?,
        sink: @escaping ([UInt8]) throws -> Void
    ) {
        self.store = store
        self.format = format
        self.binary = binary
        self.sink = sink
        prefix = Array("x-coredata://\(store.uuid)/".utf8)
        buffer.reserveCapacity(1 << 17)
        if format == .csv {
            var names: Set<String> = []
            let selected = entities.map { list in list.flatMap { store.model.entityAndDescendants($0) } }
                ?? store.model.entities
            for entity in selected {
                names.formUnion(store.properties(of: entity).map(\.name))
            }
            csvColumns = names.sorted()
            append("entity,objectID")
            for column in csvColumns {
                append(",")
                appendCSVCell(column)
            }
            append("\r\n")
        } else if format == .json {
            append("[")
        }
    }

    /// Writes one object.
    public func write(_ object: CoreDataObject) throws {
        if let last = lastLayout, last.entity == object.entity {
            try write(object, layout: last.layout)
            return
        }
        if layouts[object.entity] == nil, let entity = store.model.entity(named: object.entity) {
            let properties = store.properties(of: entity)
            let indexes = properties.map { property in csvColumns.firstIndex(of: property.name) ?? -1 }
            var keys: [[UInt8]] = []
            for property in properties {
                var saved: [UInt8] = []
                swap(&saved, &buffer)
                append(",")
                appendJSONString(property.name)
                append(":")
                swap(&saved, &buffer)
                keys.append(saved)
            }
            layouts[object.entity] = Layout(keys: keys, csvIndexes: indexes)
        }
        guard let layout = layouts[object.entity] else { return }
        lastLayout = (object.entity, layout)
        try write(object, layout: layout)
    }

    private func write(_ object: CoreDataObject, layout: Layout) throws {
        switch format {
        case .json, .jsonl:
            if format == .json { append(objects == 0 ? "\n" : ",\n") }
            append("{\"entity\":")
            appendJSONString(object.entity)
            append(",\"objectID\":")
            appendObjectID(ObjectReference(entity: object.entity, pk: object.pk))
            for index in 0..<min(layout.keys.count, object.values.count) {
                buffer.append(contentsOf: layout.keys[index])
                appendJSON(object.values[index])
            }
            append("}")
            if format == .jsonl { append("\n") }
        case .csv:
            var cells = [String](repeating: "", count: csvColumns.count)
            for (index, value) in zip(layout.csvIndexes, object.values) where index >= 0 {
                cells[index] = csvText(value)
            }
            appendCSVCell(object.entity)
            append(",")
            appendCSVCell(store.objectID(entity: object.entity, pk: object.pk))
            for cell in cells {
                append(",")
                appendCSVCell(cell)
            }
            append("\r\n")
        }
        objects += 1
        if buffer.count >= 1 << 16 { try flush() }
    }

    /// Ends the document and hands over what is left.
    public func finish() throws {
        if format == .json { append(objects == 0 ? "]\n" : "\n]\n") }
        try flush()
    }

    private func flush() throws {
        guard !buffer.isEmpty else { return }
        try sink(buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    // MARK: - JSON

    private func append(_ text: String) {
        buffer.append(contentsOf: text.utf8)
    }

    private func appendObjectID(_ reference: ObjectReference) {
        buffer.append(UInt8(ascii: "\""))
        buffer.append(contentsOf: prefix)
        appendEscaped(reference.entity)
        append("/p")
        append(String(reference.pk))
        buffer.append(UInt8(ascii: "\""))
    }

    private func appendJSON(_ value: CoreDataValue) {
        switch value {
        case .null: append("null")
        case .integer(let number): append(String(number))
        case .real(let number): appendJSONNumber(number)
        case .string(let text), .uri(let text): appendJSONString(text)
        case .bool(let flag): append(flag ? "true" : "false")
        case .date(let seconds):
            buffer.append(UInt8(ascii: "\""))
            ValueText.appendISO8601(seconds, to: &buffer)
            buffer.append(UInt8(ascii: "\""))
        case .uuid(let uuid): appendJSONString(uuid.uuidString)
        case .binary(let data): appendBinary(data, extra: nil)
        case .external(let name, let data):
            if let data {
                appendBinary(data, extra: name)
            } else {
                append("{\"external\":")
                appendJSONString(name)
                append(",\"missing\":true}")
            }
        case .archived(let archived, let raw): appendArchived(archived, raw: raw, top: true)
        case .object(let reference): appendObjectID(reference)
        case .objects(let references):
            append("[")
            for (index, reference) in references.enumerated() {
                if index > 0 { append(",") }
                appendObjectID(reference)
            }
            append("]")
        }
    }

    private func appendBinary(_ data: Data, extra external: String?) {
        append("{")
        if let external {
            append("\"external\":")
            appendJSONString(external)
            append(",")
        }
        append("\"size\":\(data.count)")
        switch binary {
        case .none: break
        case .hash: append(",\"sha256\":\"\(Self.sha256(data))\"")
        case .base64: append(",\"base64\":\"\(data.base64EncodedString())\"")
        }
        append("}")
    }

    private func appendArchived(_ value: ArchivedValue, raw: Data, top: Bool) {
        switch value {
        case .null: append("null")
        case .bool(let flag): append(flag ? "true" : "false")
        case .integer(let number): append(String(number))
        case .real(let number): appendJSONNumber(number)
        case .string(let text), .url(let text): appendJSONString(text)
        case .data(let data): appendBinary(data, extra: nil)
        case .date(let seconds): appendJSONString(ValueText.iso8601(seconds))
        case .uuid(let uuid): appendJSONString(uuid.uuidString)
        case .color(let red, let green, let blue, _):
            appendJSONString(ArchivedValue.hexColor(red: red, green: green, blue: blue))
        case .array(let items), .set(let items):
            append("[")
            for (index, item) in items.enumerated() {
                if index > 0 { append(",") }
                appendArchived(item, raw: raw, top: false)
            }
            append("]")
        case .dictionary(let entries):
            let stringKeys = entries.allSatisfy { if case .string = $0.key { true } else { false } }
            if stringKeys {
                append("{")
                for (index, entry) in entries.enumerated() {
                    if index > 0 { append(",") }
                    if case .string(let key) = entry.key { appendJSONString(key) }
                    append(":")
                    appendArchived(entry.value, raw: raw, top: false)
                }
                append("}")
            } else {
                append("[")
                for (index, entry) in entries.enumerated() {
                    if index > 0 { append(",") }
                    append("[")
                    appendArchived(entry.key, raw: raw, top: false)
                    append(",")
                    appendArchived(entry.value, raw: raw, top: false)
                    append("]")
                }
                append("]")
            }
        case .object(let className):
            append("{\"class\":")
            appendJSONString(className)
            if top {
                // The whole archive, so nothing the app stored is lost.
                append(",")
                var inner: [UInt8] = []
                swap(&inner, &buffer)
                appendBinary(raw, extra: nil)
                swap(&inner, &buffer)
                // `{"size":…}` without its braces.
                buffer.append(contentsOf: inner.dropFirst().dropLast())
            }
            append("}")
        }
    }

    private func appendJSONNumber(_ number: Double) {
        if number.isFinite { append(ValueText.double(number)) } else { append("null") }
    }

    private func appendJSONString(_ text: String) {
        buffer.append(UInt8(ascii: "\""))
        appendEscaped(text)
        buffer.append(UInt8(ascii: "\""))
    }

    private func appendEscaped(_ text: String) {
        var text = text
        let plain = text.withUTF8 { bytes in
            !bytes.contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }
        }
        if plain {
            text.withUTF8 { buffer.append(contentsOf: $0) }
            return
        }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): buffer.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): buffer.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: buffer.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: buffer.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: buffer.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                buffer.append(contentsOf: Array("\\u00".utf8))
                buffer.append(hex[Int(byte >> 4)])
                buffer.append(hex[Int(byte & 0xF)])
            default: buffer.append(byte)
            }
        }
    }

    // MARK: - CSV

    private func csvText(_ value: CoreDataValue) -> String {
        switch value {
        case .null: return ""
        case .integer(let number): return String(number)
        case .real(let number): return ValueText.double(number)
        case .string(let text), .uri(let text): return text
        case .bool(let flag): return flag ? "true" : "false"
        case .date(let seconds): return ValueText.iso8601(seconds)
        case .uuid(let uuid): return uuid.uuidString
        case .binary(let data), .external(_, let data?): return binaryText(data)
        case .external: return ""
        case .archived(let archived, let raw):
            if case .string(let text) = archived { return text }
            // The JSON form, as one cell.
            var inner: [UInt8] = []
            swap(&inner, &buffer)
            appendArchived(archived, raw: raw, top: true)
            swap(&inner, &buffer)
            return String(decoding: inner, as: UTF8.self)
        case .object(let reference): return store.objectID(entity: reference.entity, pk: reference.pk)
        case .objects(let references):
            return references.map { store.objectID(entity: $0.entity, pk: $0.pk) }.joined(separator: " ")
        }
    }

    private func binaryText(_ data: Data) -> String {
        switch binary {
        case .none: ""
        case .hash: Self.sha256(data)
        case .base64: data.base64EncodedString()
        }
    }

    private func appendCSVCell(_ text: String) {
        let needsQuotes = text.utf8.contains { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 0x0A || $0 == 0x0D }
        guard needsQuotes else {
            append(text)
            return
        }
        buffer.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            if byte == UInt8(ascii: "\"") { buffer.append(byte) }
            buffer.append(byte)
        }
        buffer.append(UInt8(ascii: "\""))
    }

    static func sha256(_ data: Data) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in SHA256.hash(data: data) {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
