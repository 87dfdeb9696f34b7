import Foundation

/// A value of an attribute, independent of the Swift type that holds it:
/// what validation, the importer and the exporter work on.
public enum AttributeValue: Sendable, Equatable {
    case string(String)
    case bool(Bool)
    case date(Date)
    case double(Double)
    /// Integers of every width, so a value too large for its attribute can
    /// still be reported rather than trapped on.
    case integer(Int64)
    case uuid(UUID)
    /// A URI as text: validation decides whether it is acceptable.
    case uri(String)
    /// Binary data, described by its size (the bytes may live in a file).
    case binary(byteCount: Int)
    case color(Color)

    /// The value as an error message or a table shows it.
    public var displayText: String {
        switch self {
        case .string(let text): "\"\(text)\""
        case .bool(let flag): flag ? "true" : "false"
        case .date(let date): ISO8601.string(from: date)
        case .double(let number): Self.format(number)
        case .integer(let number): String(number)
        case .uuid(let id): id.uuidString
        case .uri(let text): text
        case .binary(let count): "\(count) bytes"
        case .color(let color): color.hexString
        }
    }

    /// Shortest text that reads back as the same Double (`4.5`, `4`, `nan`).
    static func format(_ number: Double) -> String {
        if number.isNaN { return "nan" }
        if number.isInfinite { return number < 0 ? "-inf" : "inf" }
        if number == number.rounded(), abs(number) < 1e15 {
            return String(Int64(number))
        }
        return String(number)
    }
}
