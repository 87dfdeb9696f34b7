import Foundation

/// Reads one query term against an entity's declaration: field names
/// and the type of each value come from ``EntityDescription/attributes``
/// and its relationships, never from a list of their own.
struct QueryParser {
    let entity: EntityDescription
    let model: ObjectModel
    let now: Date

    enum Parsed {
        case term(Query.Term)
        case sort(Query.SortKey)
    }

    /// The keywords a term may start with besides field names.
    static let keywords = ["is", "has", "tag", "sort"]

    func parse(_ text: String, position: Int) throws -> Parsed {
        func fail(_ kind: QueryError.Kind, _ message: String, suggestion: String? = nil) -> QueryError {
            QueryError(kind, position: position, term: text, message, suggestion: suggestion)
        }
        var body = Substring(text)
        var negated = false
        if body.hasPrefix("^") {
            negated = true
            body = body.dropFirst()
        }
        guard !body.isEmpty else {
            throw fail(.malformedTerm, negated ? "\"^\" needs a term after it" : "an empty term")
        }
        func term(_ condition: Query.Condition) -> Parsed {
            .term(Query.Term(condition: condition, negated: negated, position: position, text: text))
        }
        guard let colon = body.firstIndex(of: ":"), Self.isFieldName(body[..<colon]) else {
            guard entity.nameAttribute != nil || entity.keyAttribute != nil else {
                throw fail(.malformedTerm, "\(entity.name) has no name or key for a bare word to match")
            }
            return term(.word(String(body)))
        }
        let field = String(body[..<colon])
        let value = String(body[body.index(after: colon)...])
        guard !value.isEmpty else { throw fail(.malformedTerm, "\"\(field):\" needs a value") }

        switch field.lowercased() {
        case "sort":
            guard !negated else { throw fail(.malformedTerm, "a sort term cannot be negated") }
            return .sort(try sortKey(value, fail))
        case "is":
            let booleans = entity.attributes.filter { $0.type == .boolean }
            guard
                let attribute = booleans.first(where: {
                    $0.name.caseInsensitiveCompare(value) == .orderedSame
                        || $0.name.caseInsensitiveCompare("is" + value) == .orderedSame
                })
            else {
                throw fail(
                    .unknownField, "\(entity.name) has no Boolean attribute \"\(value)\"",
                    suggestion: Self.suggestion(for: value, among: booleans.map { ($0.name, $0.labels) }))
            }
            return term(.boolean(attribute: attribute.name, true))
        case "has":
            if let attribute = self.attribute(value) {
                guard attribute.isOptional else {
                    throw fail(.invalidValue, "\(attribute.name) is required: every object has one")
                }
                return term(.present(attribute: attribute.name))
            }
            if let relationship = toMany(value) {
                return term(.nonEmpty(relationship: relationship.name))
            }
            // Suggested as has: takes them: the export name (`photo`).
            let names: [(String, [String])] =
                entity.attributes.filter(\.isOptional).map { ($0.exportName, [$0.name] + $0.labels) }
                + entity.relationships.filter(\.isToMany).map { ($0.name, [Self.singular($0.name)]) }
            guard let suggestion = Self.suggestion(for: value, among: names) else {
                throw fail(
                    .unknownField,
                    "\(entity.name) has no optional attribute or to-many relationship \"\(value)\"; has: takes "
                        + names.map(\.0).joined(separator: ", "))
            }
            throw fail(
                .unknownField, "\(entity.name) has no optional attribute or to-many relationship \"\(value)\"",
                suggestion: suggestion)
        default:
            break
        }
        if let attribute = self.attribute(field) {
            return term(try condition(attribute, value, fail))
        }
        if let relationship = named(field) {
            return term(.related(relationship: relationship.name, name: value))
        }
        var fields: [String] = []
        var spellings: [(String, [String])] = []
        for (name, labels) in entity.attributes.map({ ($0.name, $0.labels) })
            + model.namedRelationships(of: entity).map({ (Self.singular($0.name), [$0.name]) })
            + Self.keywords.map({ ($0, [String]()) }) where !fields.contains(name)
        {
            fields.append(name)
            spellings.append((name, labels))
        }
        guard let suggestion = Self.suggestion(for: field, among: spellings) else {
            throw fail(.unknownField, "unknown field \"\(field)\"; fields: \(fields.joined(separator: ", "))")
        }
        throw fail(.unknownField, "unknown field \"\(field)\"", suggestion: suggestion)
    }

    // MARK: - Fields

    /// An attribute by name or export name, ignoring case.
    func attribute(_ name: String) -> AttributeDescription? {
        entity.attributes.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }
            ?? entity.attributes.first { $0.exportName.caseInsensitiveCompare(name) == .orderedSame }
    }

    /// A to-many relationship by name, or by the singular of its name.
    func toMany(_ name: String) -> RelationshipDescription? {
        entity.relationships.first {
            $0.isToMany
                && ($0.name.caseInsensitiveCompare(name) == .orderedSame
                    || Self.singular($0.name).caseInsensitiveCompare(name) == .orderedSame)
        }
    }

    /// A to-many relationship to a named entity (`tags`), by its name or
    /// the singular of it (`tag`).
    func named(_ name: String) -> RelationshipDescription? {
        model.namedRelationships(of: entity).first {
            $0.name.caseInsensitiveCompare(name) == .orderedSame
                || Self.singular($0.name).caseInsensitiveCompare(name) == .orderedSame
        }
    }

    static func singular(_ name: String) -> String {
        name.count > 1 && name.hasSuffix("s") ? String(name.dropLast()) : name
    }

    /// Letters, digits and `_`, starting with a letter: what may stand
    /// before the colon of a field term. Anything else (`12:30`) is a
    /// bare word.
    static func isFieldName(_ text: Substring) -> Bool {
        guard let first = text.unicodeScalars.first, first.properties.isAlphabetic else { return false }
        return text.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" }
    }

    // MARK: - Values

    private func sortKey(_ value: String, _ fail: (QueryError.Kind, String, String?) -> QueryError) throws
        -> Query.SortKey
    {
        var name = Substring(value)
        var descending = false
        if name.hasSuffix("-") || name.hasSuffix("+") {
            descending = name.hasSuffix("-")
            name = name.dropLast()
        }
        guard let attribute = attribute(String(name)) else {
            throw fail(
                .unknownField, "cannot sort by unknown field \"\(name)\"",
                Self.suggestion(
                    for: String(name), among: entity.attributes.filter(\.isSortable).map { ($0.name, $0.labels) }))
        }
        guard attribute.isSortable else {
            throw fail(.invalidValue, "\(attribute.name) (\(attribute.type.displayName)) has no order", nil)
        }
        return Query.SortKey(attribute: attribute.name, descending: descending)
    }

    private func condition(
        _ attribute: AttributeDescription, _ value: String, _ fail: (QueryError.Kind, String, String?) -> QueryError
    ) throws -> Query.Condition {
        let name = attribute.name
        switch attribute.type {
        case .string, .uri, .uuid:
            if value.hasPrefix(":") {
                let pattern = String(value.dropFirst())
                do {
                    _ = try NSRegularExpression(pattern: pattern)
                } catch {
                    throw fail(.invalidRegularExpression, "\"\(pattern)\" is not a valid regular expression", nil)
                }
                return .text(attribute: name, .regularExpression(pattern))
            }
            if value.hasPrefix("=") {
                let exact = String(value.dropFirst())
                return .text(attribute: name, .equals(attribute.type == .uuid ? exact.uppercased() : exact))
            }
            return .text(attribute: name, .contains(value))
        case .double, .integer32:
            let (lower, upper, isRange) = try bounds(value, name, fail)
            func number(_ text: Substring?) throws -> Double? {
                guard let text else { return nil }
                guard let number = Double(text), number.isFinite else {
                    throw fail(.invalidValue, "\(name) takes numbers: \"\(text)\" is not one", nil)
                }
                return number
            }
            let low = try number(lower)
            let high = try isRange ? number(upper) : low
            if let low, let high, low > high { throw emptyRange(name, lower, upper, fail) }
            return .number(attribute: name, lower: low, upper: high)
        case .date:
            let (lower, upper, isRange) = try bounds(value, name, fail)
            func span(_ text: Substring?) throws -> DateSpan? {
                guard let text else { return nil }
                guard let span = DateSpan(String(text), now: now, single: !isRange) else {
                    throw fail(
                        .invalidValue,
                        "\(name) takes dates (2014, 2014-06, 2014-06-19, an ISO 8601 instant, -90d): \"\(text)\" is not one",
                        nil)
                }
                return span
            }
            let low = try span(lower)
            let high = try isRange ? span(upper) : low
            if let low, let high, low.start > high.end.seconds || low.start == high.end.seconds && !high.end.inclusive {
                throw emptyRange(name, lower, upper, fail)
            }
            return .date(attribute: name, lower: low?.start, upper: high.map { $0.end })
        case .boolean:
            switch value.lowercased() {
            case "true", "yes", "1": return .boolean(attribute: name, true)
            case "false", "no", "0": return .boolean(attribute: name, false)
            default: throw fail(.invalidValue, "\(name) is true or false, not \"\(value)\"", nil)
            }
        case .transformable where attribute.valueTransformerName == BowTieModel.colorTransformerName:
            // Compared as stored: the term's colour goes through the same
            // transformer, so `tintColor:#c81e2d` finds #C81E2D exactly.
            let hex = value.hasPrefix("=") ? String(value.dropFirst()) : value
            guard let color = Color(hex: hex) else {
                throw fail(
                    .invalidValue, "\(name) takes a colour #RRGGBB (tintColor:#C81E2D): \"\(value)\" is not one", nil)
            }
            return .stored(attribute: name, .color(color))
        case .binaryData, .transformable:
            throw fail(
                .invalidValue,
                "\(name) (\(attribute.type.displayName)) can only be tested with has:\(attribute.exportName)",
                nil)
        }
    }

    /// A range whose start is above its end selects nothing: a slip, said
    /// as such rather than answered with no ties.
    private func emptyRange(
        _ name: String, _ lower: Substring?, _ upper: Substring?,
        _ fail: (QueryError.Kind, String, String?) -> QueryError
    ) -> QueryError {
        let low = lower.map(String.init) ?? ""
        let high = upper.map(String.init) ?? ""
        return fail(
            .invalidValue, "the range \(low)..\(high) is empty: its start is after its end",
            "\(name):\(high)..\(low)")
    }

    /// `A..B`, `A..`, `..B` or a single `A` (an `=` in front is allowed:
    /// `rating:=4`).
    private func bounds(
        _ value: String, _ name: String, _ fail: (QueryError.Kind, String, String?) -> QueryError
    ) throws -> (lower: Substring?, upper: Substring?, isRange: Bool) {
        var value = Substring(value)
        if value.hasPrefix("=") { value = value.dropFirst() }
        guard let dots = value.range(of: "..") else {
            guard !value.isEmpty else { throw fail(.malformedTerm, "\(name) needs a value", nil) }
            return (value, nil, false)
        }
        let lower = value[..<dots.lowerBound]
        let upper = value[dots.upperBound...]
        guard !lower.isEmpty || !upper.isEmpty else {
            throw fail(.malformedTerm, "a range needs at least one end: \(name):A..B, \(name):A.. or \(name):..B", nil)
        }
        return (lower.isEmpty ? nil : lower, upper.isEmpty ? nil : upper, true)
    }

    // MARK: - Suggestions

    /// The name a slip most likely meant: `word` against each
    /// candidate's name and labels (its attribute name, export name and
    /// display name: `colour` is tintColor's, as the table's COLOUR
    /// heading says), ignoring case. A label typed exactly suggests its
    /// name; otherwise the nearest spelling by ``EditDistance`` within
    /// `max(2, word.count / 2)` edits (on a tie, the earlier candidate).
    ///
    /// ```swift
    /// QueryParser.suggestion(for: "colour", among: [("url", []), ("tintColor", ["colour"])])  // "tintColor"
    /// ```
    static func suggestion(for word: String, among candidates: [(name: String, labels: [String])]) -> String? {
        let lowered = word.lowercased()
        if let labelled = candidates.first(where: { $0.labels.contains { $0.lowercased() == lowered } }) {
            return labelled.name
        }
        let limit = max(2, word.count / 2)
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            for spelling in [candidate.name] + candidate.labels {
                let distance = EditDistance.between(lowered, spelling.lowercased(), atMost: limit)
                if distance <= limit, distance < (best?.distance ?? .max) { best = (candidate.name, distance) }
            }
        }
        return best?.name
    }

    /// ``suggestion(for:among:)`` among plain names.
    static func suggestion(for word: String, among names: [String]) -> String? {
        suggestion(for: word, among: names.map { ($0, []) })
    }
}

extension AttributeDescription {
    /// Whether a query may sort by it: not photos or colours.
    var isSortable: Bool { type != .binaryData && type != .transformable }

    /// The other names a person may use for it: its export name and its
    /// display name (with and without spaces: `last worn`, `lastworn`).
    var labels: [String] {
        var labels: [String] = []
        for label in [exportName, displayName, displayName.replacingOccurrences(of: " ", with: "")]
        where label != name && !labels.contains(label) {
            labels.append(label)
        }
        return labels
    }
}

/// The instants a date in a query stands for, in UTC: a year, month or
/// day from its start to the start of the next; an instant, or a
/// relative date (`-90d`), itself.
struct DateSpan {
    var start: Double
    var end: Query.DateBound

    /// - Parameter single: The date stands alone (`lastWorn:-1d`): a
    ///   relative date then means its whole day.
    init?(_ text: String, now: Date, single: Bool) {
        var calendar = Calendar(identifier: .gregorian)
        guard let utc = TimeZone(secondsFromGMT: 0) else { return nil }
        calendar.timeZone = utc
        if let relative = Self.relative(text, now: now, calendar: calendar) {
            guard single else {
                start = relative.timeIntervalSince1970
                end = Query.DateBound(seconds: start, inclusive: true)
                return
            }
            let day = calendar.startOfDay(for: relative)
            guard let next = calendar.date(byAdding: .day, value: 1, to: day) else { return nil }
            start = day.timeIntervalSince1970
            end = Query.DateBound(seconds: next.timeIntervalSince1970, inclusive: false)
            return
        }
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        let digits = parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }
        if digits, parts.count <= 3, parts[0].count == 4, parts.dropFirst().allSatisfy({ $0.count == 2 }),
            let year = Int(parts[0])
        {
            let month = parts.count > 1 ? Int(parts[1]) : 1
            let day = parts.count > 2 ? Int(parts[2]) : 1
            let components = DateComponents(year: year, month: month, day: day)
            // Out of range parts roll over (2014-02-30 is 2014-03-02): refused.
            let read = calendar.date(from: components).map { calendar.dateComponents([.year, .month, .day], from: $0) }
            guard let first = calendar.date(from: components), read?.year == year, read?.month == month,
                read?.day == day
            else { return nil }
            let unit: Calendar.Component = parts.count == 1 ? .year : parts.count == 2 ? .month : .day
            guard let next = calendar.date(byAdding: unit, value: 1, to: first) else { return nil }
            start = first.timeIntervalSince1970
            end = Query.DateBound(seconds: next.timeIntervalSince1970, inclusive: false)
            return
        }
        for options: ISO8601DateFormatter.Options in [
            [.withInternetDateTime, .withFractionalSeconds], [.withInternetDateTime],
        ] {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = options
            if let instant = formatter.date(from: text) {
                start = instant.timeIntervalSince1970
                end = Query.DateBound(seconds: start, inclusive: true)
                return
            }
        }
        return nil
    }

    /// `-90d`, `-2w`, `-6m`, `-1y`: that long before `now`.
    static func relative(_ text: String, now: Date, calendar: Calendar) -> Date? {
        guard text.hasPrefix("-"), let unit = text.last, text.count > 2 else { return nil }
        guard let count = Int(text.dropFirst().dropLast()), count >= 0 else { return nil }
        let component: Calendar.Component
        switch unit {
        case "d": component = .day
        case "w": component = .weekOfYear
        case "m": component = .month
        case "y": component = .year
        default: return nil
        }
        return calendar.date(byAdding: component, value: -count, to: now)
    }
}
