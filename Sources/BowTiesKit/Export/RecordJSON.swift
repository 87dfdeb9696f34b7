import Foundation

/// The JSON form of a record, derived from its entity's declaration: one
/// key per attribute (its ``AttributeDescription/exportName``) and one
/// array of names per named relationship (`tags`). What every `--json`
/// output and `export --json` write.
///
/// Values: text as strings, numbers as numbers, dates in ISO 8601 UTC,
/// colours as `#RRGGBB`, binary data as an object describing it
/// (``BlobJSON``). Every attribute is present, `null` when it has no value.
public struct RecordJSON: Encodable, Sendable {
    public var record: Record
    /// How each binary attribute is described, by attribute name (the
    /// catalog knows where its file is; a command may know its type).
    public var blobs: [String: BlobJSON]
    /// Keys added after the record's own (`photoProblem`), `null` when nil.
    public var extra: [String: ExplicitNull<String>]

    public init(_ record: Record, blobs: [String: BlobJSON] = [:], extra: [String: ExplicitNull<String>] = [:]) {
        self.record = record
        self.blobs = blobs
        self.extra = extra
    }

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        for (index, attribute) in record.entity.attributes.enumerated() {
            let key = Key(attribute.exportName)
            guard let value = record.values[index] else {
                try container.encodeNil(forKey: key)
                continue
            }
            switch value {
            case .string(let text), .uri(let text): try container.encode(text, forKey: key)
            case .uuid(let id): try container.encode(id.uuidString, forKey: key)
            case .double(let number): try container.encode(number, forKey: key)
            case .integer(let number): try container.encode(number, forKey: key)
            case .bool(let flag): try container.encode(flag, forKey: key)
            case .date(let date): try container.encode(ISO8601.string(from: date), forKey: key)
            case .color(let color): try container.encode(color.hexString, forKey: key)
            case .blob(let info):
                try container.encode(
                    blobs[attribute.name]
                        ?? BlobJSON(bytes: info.byteCount, sha256: info.sha256, storage: info.storage.rawValue),
                    forKey: key)
            }
        }
        for relationship in record.entity.relationships {
            guard let names = record.names[relationship.name] else { continue }
            try container.encode(names, forKey: Key(relationship.importKey ?? relationship.name))
        }
        for (name, value) in extra {
            try container.encode(value, forKey: Key(name))
        }
    }
}

/// Binary data in JSON: its size, hash and place, and when known its
/// type and file.
public struct BlobJSON: Encodable, Sendable {
    public var bytes: Int
    public var sha256: String
    public var storage: String
    public var type: String?
    public var file: String?

    public init(bytes: Int, sha256: String, storage: String, type: String? = nil, file: String? = nil) {
        self.bytes = bytes
        self.sha256 = sha256
        self.storage = storage
        self.type = type
        self.file = file
    }
}
