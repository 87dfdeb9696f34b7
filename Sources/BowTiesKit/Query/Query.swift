import Foundation

/// A parsed query: which objects of an entity to select and in what
/// order, typed by the entity's declaration. ``QueryCompiler`` turns it
/// into SQL; ``Catalog/bowTies(matching:order:reverse:)`` runs it.
///
/// ```swift
/// let query = try Query.parse(["rating:3..5", "^has:photo", ",", "is:favorite", "sort:rating-"])
/// let ties = try catalog.bowTies(matching: query)
/// ```
///
/// The grammar, one term per argument:
///
/// - `field:value` a substring of a text, ignoring case; `field:=value`
///   the exact text; `field::REGEX` a regular expression.
/// - `field:A..B`, `field:A..`, `field:..B` a closed range of numbers or
///   dates; `field:A` one number, or one year, month, day or instant.
///   Dates are UTC: `2014`, `2014-06`, `2014-06-19`, ISO 8601 instants,
///   and relative ones, `-90d` (units d, w, m, y).
/// - `is:NAME` a Boolean attribute (`favorite` stands for `isFavorite`);
///   `has:NAME` an optional attribute or a to-many relationship that is
///   not empty; `tag:NAME` a to-many relationship to a named entity
///   (`tags`) that holds an object of that name, ignoring case.
/// - A bare word: a substring of the name or the search key.
/// - `sort:FIELD+` or `sort:FIELD-` orders (several are applied in turn).
/// - `^` before a term negates it; a lone `,` separates groups, of which
///   any may match. Terms of a group are AND-ed.
///
/// A missing value matches no comparison, and its negation matches it,
/// as in beets: `^rating:3..` selects the ties without a rating too.
public struct Query: Sendable {
    /// The entity the query was typed against.
    public let entityName: String
    /// Alternatives: an object matches when it matches every term of any
    /// group. Empty: every object.
    let groups: [[Term]]
    /// The order asked for, most significant first.
    public let sortKeys: [SortKey]
    /// The arguments the query was parsed from.
    public let terms: [String]

    /// One attribute to sort by.
    public struct SortKey: Sendable, Equatable {
        public var attribute: String
        public var descending: Bool
    }

    /// One condition, as typed.
    struct Term: Sendable {
        var condition: Condition
        var negated: Bool
        /// 1-based, among the arguments.
        var position: Int
        var text: String
    }

    /// What a term tests, in the declaration's terms.
    enum Condition: Sendable, Equatable {
        /// A text attribute (string, URI, UUID).
        case text(attribute: String, TextMatch)
        /// A bare word: the name or the key contains it.
        case word(String)
        /// A number within closed bounds (equal when both are the same).
        case number(attribute: String, lower: Double?, upper: Double?)
        /// A date from `lower` (inclusive) to `upper`.
        case date(attribute: String, lower: Double?, upper: DateBound?)
        case boolean(attribute: String, Bool)
        /// An optional attribute that holds a value.
        case present(attribute: String)
        /// A to-many relationship that is not empty.
        case nonEmpty(relationship: String)
        /// A to-many relationship to a named entity that holds an object
        /// of this name (ignoring case).
        case related(relationship: String, name: String)
        /// An attribute whose stored form equals this value's (a
        /// transformable colour, compared through its transformer).
        case stored(attribute: String, AttributeValue)
    }

    enum TextMatch: Sendable, Equatable {
        case contains(String)
        case equals(String)
        case regularExpression(String)
    }

    /// The end of a date range, in seconds since 1970: up to and
    /// including an instant, or up to the start of the next period.
    struct DateBound: Sendable, Equatable {
        var seconds: Double
        var inclusive: Bool
    }

    /// A query that selects every object, in the default order.
    public static func all(of entity: EntityDescription = BowTieModel.entity) -> Query {
        Query(entityName: entity.name, groups: [], sortKeys: [], terms: [])
    }

    /// True when the query has terms that select (not only sort).
    public var filters: Bool { !groups.isEmpty }

    /// Both queries at once: every object that matches both, ordered by
    /// this query's sort keys, then `other`'s.
    ///
    /// `(a , b).and(c)` is `a c , b c`.
    public func and(_ other: Query) -> Query {
        let groups: [[Term]]
        switch (self.groups.isEmpty, other.groups.isEmpty) {
        case (true, _): groups = other.groups
        case (_, true): groups = self.groups
        default: groups = self.groups.flatMap { mine in other.groups.map { mine + $0 } }
        }
        return Query(entityName: entityName, groups: groups, sortKeys: sortKeys + other.sortKeys, terms: terms)
    }

    /// Parses query terms, one per command-line argument.
    ///
    /// ```swift
    /// try Query.parse(["lastWorn:..-90d", "^is:favorite"])
    /// ```
    ///
    /// - Parameters:
    ///   - terms: The arguments; a lone `,` separates alternatives.
    ///   - model: The entity the terms name fields of.
    ///   - objectModel: The model holding its relationships' destinations.
    ///   - now: The instant relative dates count back from.
    /// - Throws: ``QueryError`` naming the first term that is wrong.
    public static func parse(
        _ terms: [String], model: EntityDescription = BowTieModel.entity,
        in objectModel: ObjectModel = BowTieModel.model, now: Date = Date()
    ) throws -> Query {
        try parse(
            numbered: terms.enumerated().map { (position: $0.offset + 1, text: $0.element) }, typed: terms,
            model: model, in: objectModel, now: now)
    }

    /// ``parse(_:model:in:now:)`` of some of the arguments, each with its
    /// position among all of them (errors name the term where it was
    /// typed): the words of a selection that are not keys.
    ///
    /// - Parameter typed: Every argument, as the query's ``terms``.
    static func parse(
        numbered: [(position: Int, text: String)], typed: [String], model: EntityDescription,
        in objectModel: ObjectModel, now: Date
    ) throws -> Query {
        let parser = QueryParser(entity: model, model: objectModel, now: now)
        var groups: [[Term]] = []
        var group: [Term] = []
        var sortKeys: [SortKey] = []
        var lastComma: (position: Int, text: String)?
        for (position, text) in numbered {
            if QueryWord.isLoneComma(text) {
                guard !group.isEmpty else {
                    throw QueryError(
                        .malformedTerm, position: position, term: text, "a \",\" needs terms before it")
                }
                groups.append(group)
                group = []
                lastComma = (position, text)
                continue
            }
            switch try parser.parse(text, position: position) {
            case .sort(let key): sortKeys.append(key)
            case .term(let term): group.append(term)
            }
        }
        if group.isEmpty, let lastComma {
            throw QueryError(
                .malformedTerm, position: lastComma.position, term: lastComma.text, "a \",\" needs terms after it")
        }
        if !group.isEmpty { groups.append(group) }
        return Query(entityName: model.name, groups: groups, sortKeys: sortKeys, terms: typed)
    }
}

extension Query: CustomStringConvertible {
    /// The terms as typed, separated by spaces.
    public var description: String { terms.joined(separator: " ") }
}
