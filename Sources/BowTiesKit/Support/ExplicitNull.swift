/// An optional that JSON shows as `null` when nil, instead of leaving its
/// key out (what a synthesized `Encodable` does with a nil optional): for
/// JSON whose every key is always present, so that a script can tell
/// "no value" from "no such field".
///
/// ```swift
/// struct Wear: Encodable {
///     var date: String
///     @ExplicitNull var note: String?
/// }
/// // {"date":"2014-06-19T00:00:00Z","note":null}
/// ```
///
/// As a value: `RecordJSON(record, extra: ["photoProblem": ExplicitNull(nil)])`.
@propertyWrapper
public struct ExplicitNull<Wrapped: Encodable & Sendable>: Encodable, Sendable {
    public var wrappedValue: Wrapped?

    public init(wrappedValue: Wrapped?) {
        self.wrappedValue = wrappedValue
    }

    public init(_ value: Wrapped?) {
        wrappedValue = value
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue {
            try container.encode(wrappedValue)
        } else {
            try container.encodeNil()
        }
    }
}
