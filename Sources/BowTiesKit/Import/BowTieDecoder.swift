import Crypto
import Foundation
import PropertyList

/// A record read from a property list, validated, not yet stored.
struct DecodedRecord {
    var tie: BowTie
    /// The `imageName` as written, with where it was written.
    var imageName: (name: String, location: SourceLocation)?
    /// Where the record's `<dict>` starts.
    var location: SourceLocation
}

/// Turns one `<dict>` of a BowTies property list into a ``BowTie``.
///
/// Keys map to attributes through ``AttributeDescription/importKey``; the
/// expected element for each key comes from the attribute's type; every
/// value is then checked by the model's validation, so import applies the
/// same rules as every other save. Errors are located at the offending
/// element.
struct BowTieDecoder {
    let entity = BowTieModel.entity
    /// Keys met that the model does not know, with where they first were
    /// (shortened as messages quote them).
    private(set) var unknownKeys: [(key: String, location: SourceLocation)] = []
    private var seenUnknownKeys: Set<String> = []

    mutating func decode(_ item: PropertyListItem, number: Int) throws -> DecodedRecord {
        guard case .dictionary(let dictionary) = item.value else {
            throw ImportError(
                location: item.location, recordNumber: number,
                message: "expected a <dict> for each bow tie, found \(item.value.elementName)")
        }
        // Known early so that every later error names the record.
        let label = BowTie.label(
            searchKey: dictionary["searchKey"].flatMap(\.value.stringValue),
            name: dictionary["name"].flatMap(\.value.stringValue), id: nil)
        func failure(_ entry: PropertyListDictionary.Entry, _ message: String) -> ImportError {
            ImportError(
                location: entry.item.location, recordNumber: number, record: label, field: entry.key,
                message: message)
        }

        var values: [String: AttributeValue] = [:]
        var locations: [String: SourceLocation] = [:]
        var imageName: (String, SourceLocation)?
        for entry in dictionary.entries {
            guard let attribute = entity.attribute(forImportKey: entry.key) else {
                if seenUnknownKeys.insert(entry.key).inserted {
                    unknownKeys.append((AttributeValue.abbreviated(entry.key), entry.keyLocation))
                }
                continue
            }
            locations[attribute.name] = entry.item.location
            if attribute.type == .binaryData {
                guard case .string(let name) = entry.item.value else {
                    throw failure(
                        entry, "expected <string> (an image file name), found \(entry.item.value.elementName)")
                }
                imageName = (name, entry.item.location)
                continue
            }
            do {
                values[attribute.name] = try Self.value(of: entry.item, for: attribute)
            } catch let error as DecodingFailure {
                throw failure(entry, error.message)
            }
        }

        for attribute in entity.attributes where values[attribute.name] == nil {
            values[attribute.name] = attribute.defaultValue
        }
        if values["id"] == nil {
            values["id"] = .uuid(Self.derivedID(searchKey: values["searchKey"], name: values["name"]))
        }
        do {
            try entity.validate(record: label) { values[$0.name] }
        } catch var error as ValidationError {
            let first = error.errors.first ?? error
            error.record = nil
            throw ImportError(
                location: first.attribute.flatMap { locations[$0] } ?? item.location,
                recordNumber: number, record: label,
                field: error.errors.isEmpty ? first.attribute.flatMap { entity[$0]?.importKey } : nil,
                message: error.description, validation: error)
        }
        return DecodedRecord(
            tie: Self.bowTie(from: values), imageName: imageName.map { ($0.0, $0.1) }, location: item.location)
    }

    private struct DecodingFailure: Error {
        var message: String
    }

    /// Reads one value, checking that the element fits the attribute type.
    private static func value(of item: PropertyListItem, for attribute: AttributeDescription) throws -> AttributeValue {
        func wrongType() -> DecodingFailure {
            DecodingFailure(message: "expected \(expectedElements(attribute.type)), found \(item.value.elementName)")
        }
        switch (attribute.type, item.value) {
        case (.string, .string(let text)):
            return .string(text)
        case (.uri, .string(let text)):
            // Foundation must be able to hold it too; validation then checks
            // that it is absolute.
            guard URL(string: text) != nil else {
                throw DecodingFailure(
                    message: "\(AttributeValue.string(text).messageText) is not a valid URI "
                        + "(NSValidationInvalidURIError 1690)")
            }
            return .uri(text)
        case (.uuid, .string(let text)):
            guard let id = UUID(uuidString: text.trimmingCharacters(in: .whitespaces)) else {
                throw DecodingFailure(
                    message: "\(AttributeValue.string(text).messageText) is not a UUID "
                        + "(expected the form E621E1F8-C36C-495A-93FC-0C247A3E6E5F)")
            }
            return .uuid(id)
        case (.double, .real(let number)):
            return .double(number)
        case (.double, .integer(let number)):
            return .double(Double(number))
        case (.integer32, .integer(let number)):
            return .integer(number)
        case (.boolean, .bool(let flag)):
            return .bool(flag)
        case (.date, .date(let date)):
            return .date(date)
        case (.transformable, .dictionary(let components)):
            return .color(try color(from: components))
        case (.transformable, .string(let text)):
            guard let color = color(hex: text) else {
                throw DecodingFailure(
                    message: "\(AttributeValue.string(text).messageText) is not a colour (expected #RRGGBB)")
            }
            return .color(color)
        default:
            throw wrongType()
        }
    }

    private static func expectedElements(_ type: AttributeType) -> String {
        switch type {
        case .string, .uri: "<string>"
        case .uuid: "<string> holding a UUID"
        case .double: "<real> or <integer>"
        case .integer32: "<integer>"
        case .boolean: "<true/> or <false/>"
        case .date: "<date>"
        case .transformable: "<dict> of red, green, blue (0-255) or a <string> #RRGGBB"
        case .binaryData: "<string> (an image file name)"
        }
    }

    /// `<dict>` of `red`, `green`, `blue` (integers 0-255) and an optional
    /// `alpha` (integer 0-255 or real 0-1).
    private static func color(from dictionary: PropertyListDictionary) throws -> Color {
        var components: [String: Double] = [:]
        for entry in dictionary.entries {
            guard ["red", "green", "blue", "alpha"].contains(entry.key) else {
                throw DecodingFailure(
                    message: "unknown colour component \(AttributeValue.string(entry.key).messageText) "
                        + "(expected red, green, blue, alpha)")
            }
            switch entry.item.value {
            case .integer(let value) where (0...255).contains(value):
                components[entry.key] = Double(value) / 255
            case .real(let value) where entry.key == "alpha" && (0...1).contains(value):
                components[entry.key] = value
            case .integer(let value):
                throw DecodingFailure(message: "\(entry.key) must be from 0 to 255, found \(value)")
            default:
                throw DecodingFailure(
                    message: "expected <integer> 0-255 for \(entry.key), found \(entry.item.value.elementName)")
            }
        }
        for name in ["red", "green", "blue"] where components[name] == nil {
            throw DecodingFailure(message: "the colour has no \(name) component")
        }
        return Color(
            red: components["red"] ?? 0, green: components["green"] ?? 0, blue: components["blue"] ?? 0,
            alpha: components["alpha"] ?? 1)
    }

    private static func color(hex text: String) -> Color? {
        let digits = text.hasPrefix("#") ? text.dropFirst() : Substring(text)
        guard digits.count == 6, let value = Int(digits, radix: 16) else { return nil }
        return Color(red8: value >> 16, green8: (value >> 8) & 0xFF, blue8: value & 0xFF)
    }

    /// An id for a record that has none, derived from its search key and
    /// name so that re-importing the same file finds the same records.
    ///
    /// The first 16 bytes of SHA-256("bowties-id", searchKey, name), marked
    /// as an RFC 9562 version 8 (custom) UUID.
    static func derivedID(searchKey: AttributeValue?, name: AttributeValue?) -> UUID {
        var input = Data("bowties-id\u{0}".utf8)
        for value in [searchKey, name] {
            if case .string(let text)? = value { input.append(contentsOf: Array(text.utf8)) }
            input.append(0)
        }
        var bytes = Array(SHA256.hash(data: input).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }

    /// Builds the typed value; only called on values that passed validation.
    private static func bowTie(from values: [String: AttributeValue]) -> BowTie {
        var tie = BowTie(id: UUID(), name: nil)
        for (name, value) in values {
            switch (name, value) {
            case ("id", .uuid(let id)): tie.id = id
            case ("name", .string(let text)): tie.name = text
            case ("searchKey", .string(let text)): tie.searchKey = text
            case ("rating", .double(let number)): tie.rating = number
            case ("timesWorn", .integer(let number)): tie.timesWorn = Int32(clamping: number)
            case ("lastWorn", .date(let date)): tie.lastWorn = date
            case ("isFavorite", .bool(let flag)): tie.isFavorite = flag
            case ("url", .uri(let text)): tie.url = URL(string: text)
            case ("tintColor", .color(let color)): tie.tintColor = color
            default: break
            }
        }
        return tie
    }
}

extension PropertyListValue {
    var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }
}
