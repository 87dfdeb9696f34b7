/// A query that cannot be run: a malformed term, an unknown field or a
/// value its attribute cannot take. It names the term by its position
/// (1-based, as typed) and quotes it.
///
/// ```
/// term 2 (ratng:4): unknown field "ratng"; did you mean "rating"?
/// ```
public struct QueryError: Error, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// A term that does not follow the grammar (`^` alone, `rating:`).
        case malformedTerm
        /// A field the entity does not declare.
        case unknownField
        /// A value the field's type cannot take (`rating:high`, `lastWorn:2014-13`).
        case invalidValue
        /// A regular expression that does not compile.
        case invalidRegularExpression
    }

    public var kind: Kind
    /// The term's position among the query's arguments, from 1; `,`
    /// separators count.
    public var position: Int
    /// The term as typed.
    public var term: String
    /// What is wrong, in a few words.
    public var message: String
    /// The declared field closest to an unknown one.
    public var suggestion: String?

    public init(_ kind: Kind, position: Int, term: String, _ message: String, suggestion: String? = nil) {
        self.kind = kind
        self.position = position
        self.term = term
        self.message = message
        self.suggestion = suggestion
    }

    public var description: String {
        "term \(position) (\(AttributeValue.abbreviated(term))): \(message)"
            + (suggestion.map { "; did you mean \"\($0)\"?" } ?? "")
    }
}
