import Foundation

/// Values as a person types them: what `bowties add` reads from its
/// options and `bowties edit` from its text, parsed by the attribute's
/// declared type so that no command spells out a type of its own.
extension AttributeDescription {
    /// Reads `text` as a value of this attribute.
    ///
    /// ```swift
    /// try BowTieModel.entity["rating"]?.value(fromText: "4.5")   // .double(4.5)
    /// try BowTieModel.entity["tintColor"]?.value(fromText: "#C81E2D")
    /// ```
    ///
    /// Only the form is checked here (a number, a colour, a URI Foundation
    /// can hold); whether the value is acceptable (in range, absolute) is
    /// for validation, which gives Core Data's code.
    ///
    /// - Returns: The value; nil for an empty text, meaning no value.
    /// - Throws: ``ValueTextError`` naming the attribute, the text and the
    ///   form expected.
    public func value(fromText text: String) throws -> AttributeValue? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty { return nil }
        func refused() -> ValueTextError {
            ValueTextError(attribute: name, text: trimmed, expected: expectedTextForm)
        }
        switch type {
        case .string:
            return .string(trimmed)
        case .boolean:
            switch trimmed.lowercased() {
            case "true", "yes", "1": return .bool(true)
            case "false", "no", "0": return .bool(false)
            default: throw refused()
            }
        case .date:
            guard let date = Self.date(fromText: trimmed) else { throw refused() }
            return .date(date)
        case .double:
            guard let number = Double(trimmed) else { throw refused() }
            return .double(number)
        case .integer32:
            guard let number = Int64(trimmed) else { throw refused() }
            return .integer(number)
        case .uuid:
            guard let id = UUID(uuidString: trimmed) else { throw refused() }
            return .uuid(id)
        case .uri:
            // Foundation must be able to hold it; validation then says
            // whether it is absolute (1690).
            guard URL(string: trimmed) != nil else { throw refused() }
            return .uri(trimmed)
        case .transformable:
            guard let color = Color(hex: trimmed) else { throw refused() }
            return .color(color)
        case .binaryData:
            throw refused()
        }
    }

    /// `value` as ``value(fromText:)`` reads it back; empty for no value.
    public func text(of value: AttributeValue?) -> String {
        guard let value else { return "" }
        switch value {
        case .string(let text), .uri(let text): return text
        case .date(let date): return ISO8601.string(from: date)
        default: return value.displayText
        }
    }

    /// The form ``value(fromText:)`` expects, for messages and the
    /// comments of `bowties edit`.
    public var expectedTextForm: String {
        switch type {
        case .string: "text"
        case .boolean: "true or false"
        case .date: "a date such as 2014-06-19 or 2014-06-19T18:15:24Z"
        case .double: "a number such as 4.5"
        case .integer32: "a whole number"
        case .uuid: "a UUID such as E621E1F8-C36C-495A-93FC-0C247A3E6E5F"
        case .uri: "an absolute URL such as https://example.com/tie"
        case .transformable: "a colour #RRGGBB"
        case .binaryData: "a file (not editable as text)"
        }
    }

    /// `2014-06-19T18:15:24Z` (what ``text(of:)`` writes), a day,
    /// `2014-06-19`, at midnight UTC, or any other form
    /// ``ISO8601/date(from:)`` reads: the same as import and `wear --on`.
    static func date(fromText text: String) -> Date? {
        ISO8601.date(from: text)
    }
}

extension Color {
    /// `#RRGGBB` (or without the `#`), as the property-list importer
    /// accepts it; nil for anything else.
    public init?(hex text: String) {
        let digits = text.hasPrefix("#") ? text.dropFirst() : Substring(text)
        guard digits.count == 6, digits.allSatisfy(\.isHexDigit), let value = Int(digits, radix: 16) else {
            return nil
        }
        self.init(red8: value >> 16, green8: (value >> 8) & 0xFF, blue8: value & 0xFF)
    }
}

/// A value typed in a form its attribute cannot hold: `rating: "high" is
/// not a number such as 4.5`.
public struct ValueTextError: Error, Sendable, CustomStringConvertible {
    /// The attribute's name (`rating`).
    public var attribute: String
    /// The text as typed.
    public var text: String
    /// The form expected (``AttributeDescription/expectedTextForm``).
    public var expected: String

    public var description: String {
        "\(attribute): \(AttributeValue.string(text).messageText) is not \(expected)"
    }
}
