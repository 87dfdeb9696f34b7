import Foundation

/// The codec's side of exports: which fields a record has, and one
/// `SELECT` that brings every field of a row, its names (`tags`) and its
/// objects (`wears`) included, so that a million rows take one statement.
extension EntityCodec {
    /// A to-many relationship whose destination objects each belong to one
    /// owner through a link column (`wears`: `wear.bowTie_id`). Exports
    /// write its objects in full, by the destination's attributes.
    struct ObjectList: Sendable {
        var relationship: RelationshipDescription
        var destination: EntityDescription
        var link: LinkColumn
        /// The destination's attributes exports write, by position (text,
        /// numbers, Booleans and dates; not binary or transformable ones).
        var attributes: [Int]
        /// The attribute that orders the objects: the first date, else
        /// none (then the order they were stored in).
        var orderAttribute: Int?
    }

    /// The to-many relationships whose objects an export writes in full.
    var objectLists: [ObjectList] {
        entity.relationships.compactMap { relationship in
            guard relationship.isToMany, let destination = model[relationship.destination],
                let link = model.linkColumn(inverseOf: relationship)
            else { return nil }
            let attributes = destination.attributes.indices.filter {
                switch destination.attributes[$0].type {
                case .binaryData, .transformable: false
                default: true
                }
            }
            return ObjectList(
                relationship: relationship, destination: destination, link: link, attributes: attributes,
                orderAttribute: attributes.first { destination.attributes[$0].type == .date })
        }
    }

    /// Every field an export can write, in order: the attributes, the
    /// named relationships, the baselines of the derived attributes, then
    /// the object lists.
    ///
    /// A derived attribute's baseline is its export name and `Before`
    /// (`timesWornBefore`, `lastWornBefore`): what the total was before
    /// the history began. With the history (`wears`) it is what an import
    /// needs to restore the record exactly; the total alone cannot tell
    /// a baseline date from a wear's.
    var allExportFields: [ExportField] {
        var fields = entity.attributes.indices.map {
            ExportField(name: entity.attributes[$0].exportName, source: .attribute($0))
        }
        for (index, named) in namedRelationships.enumerated() {
            fields.append(
                ExportField(name: named.relationship.importKey ?? named.relationship.name, source: .names(index)))
        }
        for index in entity.attributes.indices where entity.attributes[index].derivation != nil {
            fields.append(
                ExportField(name: entity.attributes[index].baselineExportName, source: .baseline(index)))
        }
        for (index, list) in objectLists.enumerated() {
            fields.append(
                ExportField(
                    name: list.relationship.importKey ?? list.relationship.name, source: .objects(index),
                    objectKeys: list.attributes.map { list.destination.attributes[$0].exportName }))
        }
        return fields
    }

    /// The fields `names` asks for, in that order; nil for every field
    /// (CSV and TSV write an object list as one cell of JSON text).
    ///
    /// - Throws: ``ExportFieldError`` for an unknown field (with the
    ///   closest name), a repeated field or an empty list.
    func exportFields(_ names: [String]?, format: ExportFormat) throws -> [ExportField] {
        let all = allExportFields
        guard let names else { return all }
        let known = all.map(\.name)
        guard !names.isEmpty else {
            throw ExportFieldError(
                kind: .invalidList, field: "",
                message: "needs at least one field (fields: \(known.joined(separator: ", ")))")
        }
        var fields: [ExportField] = []
        for name in names {
            guard let field = all.first(where: { $0.name == name }) else {
                let suggestion =
                    all.first(where: { $0.name.lowercased() == name.lowercased() })?.name
                    ?? QueryParser.suggestion(for: name, among: known)
                throw ExportFieldError(
                    kind: .unknownField, field: name, suggestion: suggestion,
                    message: "unknown field \"\(name)\""
                        + (suggestion.map { "; did you mean \"\($0)\"?" } ?? "")
                        + " (fields: \(known.joined(separator: ", ")))")
            }
            if fields.contains(where: { $0.name == name }) {
                throw ExportFieldError(kind: .invalidList, field: name, message: "names \"\(name)\" twice")
            }
            fields.append(field)
        }
        return fields
    }

    /// `SELECT` of `fields` from the codec's `FROM` (add `WHERE` and
    /// `ORDER BY`), and where each field's first column is. A binary
    /// attribute takes its SHA-256, the blob's size and place, and with
    /// `photoBytes` the blob's inline bytes; a named relationship its
    /// names joined by U+001F; an object list its objects
    /// (``decodeObjects(_:of:)``).
    func exportSelection(_ fields: [ExportField], photoBytes: Bool) -> (sql: String, columns: [Int32]) {
        let table = "\"\(entity.tableName)\""
        let key = "\(table).\"\(entity.primaryKeyColumn)\""
        var selected: [String] = []
        var columns: [Int32] = []
        let lists = objectLists
        for field in fields {
            columns.append(Int32(selected.count))
            switch field.source {
            case .attribute(let index):
                let attribute = entity.attributes[index]
                selected.append("\(table).\"\(attribute.columnName)\"")
                if attribute.type == .binaryData {
                    let alias = "\(attribute.name)_blob"
                    selected += ["\(alias).byteCount", "\(alias).external"]
                    if photoBytes { selected.append("\(alias).data") }
                }
            case .baseline(let index):
                selected.append("\(table).\"\(entity.attributes[index].baselineColumnName)\"")
            case .names(let index):
                selected.append(Self.namesSubquery(namedRelationships[index], key: key, dialect))
            case .objects(let index):
                selected.append(objectsSubquery(lists[index], key: key))
            }
        }
        if selected.isEmpty { selected.append("NULL") }
        return ("SELECT " + selected.joined(separator: ", ") + fromClause, columns)
    }

    /// The objects of `list` for the row whose primary key is `key`, in
    /// order, as one text: objects separated by U+001E, values by U+001F;
    /// each value empty for NULL, else `+` and the value: text as the hex
    /// of its UTF-8 bytes (so that no byte of it can be taken for a
    /// separator), numbers and dates in full precision
    /// (``SQLDialect/fullPrecision``).
    private func objectsSubquery(_ list: ObjectList, key: String) -> String {
        let destination = list.destination
        let values = list.attributes.map { index -> String in
            let attribute = destination.attributes[index]
            let column = "o.\"\(attribute.columnName)\""
            let value: String
            switch attribute.type {
            case .string, .uri, .uuid: value = dialect.hexOfText(column)
            case .double, .date: value = dialect.fullPrecision(column)
            default: value = column
            }
            return "CASE WHEN \(column) IS NULL THEN '' ELSE '+' || \(value) END"
        }
        let order =
            (list.orderAttribute.map { "o.\"\(destination.attributes[$0].columnName)\", " } ?? "")
            + "o.\"\(destination.primaryKeyColumn)\""
        let value = values.isEmpty ? "''" : values.joined(separator: " || \(dialect.character(31)) || ")
        return dialect.joined(
            value, dialect.character(30),
            "FROM \"\(destination.tableName)\" AS o WHERE o.\"\(list.link.name)\" = \(key)", order)
    }

    /// The objects of a row's ``objectsSubquery(_:key:)`` column.
    func decodeObjects(_ bytes: UnsafeBufferPointer<UInt8>, of list: ObjectList) -> [ExportObject] {
        let types = list.attributes.map { list.destination.attributes[$0].type }
        var objects: [ExportObject] = []
        for object in bytes.split(separator: 0x1E, omittingEmptySubsequences: false) {
            var values: ExportObject = []
            for (position, raw) in object.split(separator: 0x1F, omittingEmptySubsequences: false).enumerated()
            where position < types.count {
                guard raw.first == UInt8(ascii: "+") else {
                    values.append(nil)
                    continue
                }
                let payload = raw.dropFirst()
                let text = String(decoding: payload, as: UTF8.self)
                switch types[position] {
                case .string, .uri, .uuid:
                    values.append(.text(Self.unhex(payload)))
                case .double:
                    values.append(Double(text).map(ExportScalar.real))
                case .date:
                    values.append(Double(text).map(ExportScalar.date))
                case .integer32:
                    values.append(Int64(text).map(ExportScalar.integer))
                case .boolean:
                    values.append(Int64(text).map { .bool($0 != 0) })
                case .binaryData, .transformable:
                    values.append(nil)
                }
            }
            while values.count < types.count { values.append(nil) }
            objects.append(values)
        }
        return objects
    }

    /// UTF-8 text from ``SQLDialect/hexOfText`` (either case).
    private static func unhex(_ digits: Slice<UnsafeBufferPointer<UInt8>>) -> String {
        func value(_ digit: UInt8) -> UInt8 {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
            default: 0
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = digits.startIndex
        while index + 1 < digits.endIndex {
            bytes.append(value(digits[index]) << 4 | value(digits[index + 1]))
            index += 2
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
