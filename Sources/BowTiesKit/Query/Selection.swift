import Foundation

/// What a command's `KEY|QUERY` arguments select: each argument that is
/// a stored search key (or an id) is that tie, and only the others are
/// query language. A tie is selected when a key names it **or** the query
/// selects it.
///
/// ```swift
/// try catalog.selection(["G", "Y"])             // G and Y (not "name contains G and Y")
/// try catalog.selection(["R", "rating:4.."])    // R, and every tie rated 4 or more
/// try catalog.selection(["R", "sort:name"])     // R alone: a sort term selects nothing
/// ```
///
/// A word is looked up as a key as `bowties show KEY` looks it up: the
/// search key exactly, else ignoring case when one tie fits, else a full
/// id or an id prefix of at least 4 characters. Words that read as query
/// syntax (``QueryWord``: `rating:4`, `^R`, `3..5`, `,`) are never keys;
/// a tie whose key was stored before that rule is reached with
/// `searchKey:=rating:4`.
public struct Selection: Sendable {
    /// The arguments that are keys, each with the tie it names, as typed.
    public let keys: [(word: String, tie: BowTie)]
    /// The arguments read as query terms (sort terms included), as typed.
    public let queryWords: [String]
    /// The keys' ties or-ed with the query: what commands run.
    public let query: Query

    /// True when the arguments were keys only (sort terms aside): what is
    /// selected is exactly the ties typed, and a command may change them
    /// without asking.
    public let isExactlyKeys: Bool
}

extension Catalog {
    /// Splits `words` into keys and query terms, and builds the query that
    /// selects both (see ``Selection``).
    ///
    /// - Parameter now: The instant relative dates (`-90d`) count back from.
    /// - Throws: ``CatalogError`` `.ambiguousKey` for a word that fits
    ///   several ties ignoring case, or as an id prefix; ``QueryError`` for
    ///   a query term that is wrong, named by its position among `words`.
    public func selection(_ words: [String], now: Date = Date()) throws -> Selection {
        let entity = bowTieCodec.entity
        let keyRule = entity.keyAttribute.flatMap { entity[$0] }
        var keys: [(position: Int, word: String, tie: BowTie)] = []
        try read { db in
            for (offset, word) in words.enumerated() {
                // A word the key rule refuses is not looked up: it is query
                // syntax, whatever keys an older catalog may hold.
                guard let keyRule, keyRule.brokenRule(.string(word)) == nil else { continue }
                do {
                    keys.append((offset + 1, word, try resolve(word, db)))
                } catch let error as CatalogError where error.kind == .noSuchRecord {
                    continue
                }
            }
        }
        let keyPositions = Set(keys.map(\.position))
        // The other words, numbered as typed; a `,` group made only of
        // keys goes with one of its commas, so `rating:5 , R` stays a
        // query (`rating:5`) or-ed with R.
        var groups: [[(position: Int, text: String)]] = [[]]
        var commas: [(position: Int, text: String)] = []
        var keysOnly: [Bool] = [false]
        for (offset, word) in words.enumerated() {
            let position = offset + 1
            if QueryWord.isLoneComma(word) {
                commas.append((position, word))
                groups.append([])
                keysOnly.append(false)
            } else if keyPositions.contains(position) {
                keysOnly[keysOnly.count - 1] = groups[groups.count - 1].isEmpty
            } else {
                groups[groups.count - 1].append((position, word))
                keysOnly[keysOnly.count - 1] = false
            }
        }
        var rest: [(position: Int, text: String)] = []
        for (index, group) in groups.enumerated() where !keysOnly[index] {
            if !rest.isEmpty || index > 0 && keysOnly[..<index].contains(false) { rest.append(commas[index - 1]) }
            rest += group
        }
        let query = try Query.parse(numbered: rest, typed: words, model: entity, in: model, now: now)
        let restPositions = Set(rest.map(\.position))
        return Selection(
            keys: keys.map { ($0.word, $0.tie) },
            queryWords: words.enumerated().filter { restPositions.contains($0.offset + 1) }.map(\.element),
            query: query.or(keys: keys.map { ($0.position, $0.word, $0.tie.id) }, entity: entity),
            isExactlyKeys: !keys.isEmpty && !query.filters)
    }
}

extension Query {
    /// This query or-ed with the ties `keys` name, by id. A query that
    /// only sorts adds nothing to the keys (alone, it selects every tie).
    func or(keys: [(position: Int, word: String, id: UUID)], entity: EntityDescription) -> Query {
        guard !keys.isEmpty, let id = entity.attributes.first(where: \.isPrimaryKey) else { return self }
        let named = keys.map { key in
            [
                Term(
                    condition: .text(attribute: id.name, .equals(key.id.uuidString)), negated: false,
                    position: key.position, text: key.word)
            ]
        }
        return Query(entityName: entityName, groups: named + groups, sortKeys: sortKeys, terms: terms)
    }
}
