import Foundation

/// Turns a ``Query`` into SQL on the codec's table: a `WHERE` clause with
/// bound arguments (no value is ever written into the SQL) and an
/// `ORDER BY` list. Column names come from the declaration through the
/// codec, so a query on an indexed column uses its index
/// (`searchKey:=R` is `"bowtie"."searchKey" = ?`).
///
/// A negated term is `NOT COALESCE(condition, 0)`: a comparison with a
/// missing value is NULL, which fails the term and passes its negation.
struct QueryCompiler {
    let codec: EntityCodec
    /// How the store spells what SQL does not agree on.
    var dialect: SQLDialect = .sqlite

    struct Compiled {
        /// The condition, nil when every object matches.
        var whereSQL: String?
        var arguments: [StoreValue]
        /// The `ORDER BY` list, ending with the rowid so that the order is
        /// total.
        var orderSQL: String
    }

    /// - Parameter reverse: Reverse every key of the order, the rowid's
    ///   included (`list --sort rating --reverse`: the best first, and
    ///   among equals the latest added first).
    /// - Throws: ``QueryError`` for a query typed against another entity.
    func compile(_ query: Query, reverse: Bool = false) throws -> Compiled {
        guard query.entityName == codec.entity.name else {
            throw QueryError(
                .unknownField, position: 1, term: query.description,
                "the query is for \(query.entityName), not \(codec.entity.name)")
        }
        var arguments: [StoreValue] = []
        var alternatives: [String] = []
        for group in query.groups {
            var conditions: [String] = []
            for term in group {
                let (sql, values) = try condition(term.condition)
                arguments += values
                conditions.append(term.negated ? "NOT COALESCE(\(sql), 0)" : sql)
            }
            alternatives.append(conditions.listed(separator: " AND "))
        }
        let whereSQL: String? =
            switch alternatives.count {
            case 0: nil
            case 1: alternatives[0]
            default: alternatives.map { "(\($0))" }.listed(separator: " OR ")
            }

        var keys: [String] = []
        let (ascending, descending) = reverse ? (" DESC", " ASC") : (" ASC", " DESC")
        for key in query.sortKeys {
            guard let attribute = codec.entity[key.attribute] else { continue }
            let ignoresCase = attribute.type == .string || attribute.type == .uri
            let sorted = ignoresCase ? dialect.caseInsensitive(column(attribute)) : column(attribute)
            keys.append(sorted + (key.descending ? descending : ascending))
        }
        keys.append("\(table).\(dialect.rowNumber)" + ascending)
        return Compiled(whereSQL: whereSQL, arguments: arguments, orderSQL: keys.listed(separator: ", "))
    }

    private var table: String { "\"\(codec.entity.tableName)\"" }

    private func column(_ attribute: AttributeDescription) -> String {
        "\(table).\"\(attribute.columnName)\""
    }

    private var primaryKey: String { "\(table).\"\(codec.entity.primaryKeyColumn)\"" }

    /// One condition in parentheses, and its arguments in order.
    ///
    /// - Throws: ``TransformerError`` when a transformer refuses a value.
    private func condition(_ condition: Query.Condition) throws -> (String, [StoreValue]) {
        func attribute(_ name: String) -> String {
            codec.entity[name].map(column) ?? "NULL"
        }
        switch condition {
        case .text(let name, .contains(let text)):
            let (operation, pattern) = containing(text)
            return ("(\(operation(attribute(name))))", [pattern])
        case .text(let name, .equals(let text)):
            return ("(\(attribute(name)) = ?)", [text.storeValue])
        case .text(let name, .regularExpression(let pattern)):
            return ("(\(dialect.regexMatch(attribute(name), "?")))", [pattern.storeValue])
        case .word(let word):
            let columns = [codec.entity.nameAttribute, codec.entity.keyAttribute].compactMap { $0 }
            let (operation, pattern) = containing(word)
            return (
                "(" + columns.map { operation(attribute($0)) }.listed(separator: " OR ") + ")",
                columns.map { _ in pattern }
            )
        case .number(let name, let lower, let upper):
            if let lower, let upper, lower == upper {
                return ("(\(attribute(name)) = ?)", [lower.storeValue])
            }
            var parts: [String] = []
            var values: [StoreValue] = []
            if let lower {
                parts.append("\(attribute(name)) >= ?")
                values.append(lower.storeValue)
            }
            if let upper {
                parts.append("\(attribute(name)) <= ?")
                values.append(upper.storeValue)
            }
            return ("(" + parts.listed(separator: " AND ") + ")", values)
        case .date(let name, let lower, let upper):
            var parts: [String] = []
            var values: [StoreValue] = []
            if let lower {
                parts.append("\(attribute(name)) >= ?")
                values.append(lower.storeValue)
            }
            if let upper {
                parts.append("\(attribute(name)) \(upper.inclusive ? "<=" : "<") ?")
                values.append(upper.seconds.storeValue)
            }
            return ("(" + parts.listed(separator: " AND ") + ")", values)
        case .stored(let name, let value):
            guard let index = codec.entity.index(ofAttribute: name) else { return ("(0)", []) }
            return ("(\(attribute(name)) = ?)", [try codec.storeValue(value, at: index)])
        case .boolean(let name, let flag):
            return ("(\(attribute(name)) = ?)", [flag.storeValue])
        case .present(let name):
            return ("(\(attribute(name)) IS NOT NULL)", [])
        case .nonEmpty(let name):
            if let named = codec.namedRelationships.first(where: { $0.relationship.name == name }) {
                return (
                    "(EXISTS (SELECT 1 FROM \"\(named.table.name)\" AS j WHERE j.\"\(named.near)\" = \(primaryKey)))",
                    []
                )
            }
            if let relationship = codec.entity.relationship(named: name),
                let link = codec.model.linkColumn(inverseOf: relationship),
                let destination = codec.model[relationship.destination]
            {
                return (
                    "(EXISTS (SELECT 1 FROM \"\(destination.tableName)\" AS d WHERE d.\"\(link.name)\" = \(primaryKey)))",
                    []
                )
            }
            return ("(0)", [])
        case .related(let name, let value):
            guard let named = codec.namedRelationships.first(where: { $0.relationship.name == name }) else {
                return ("(0)", [])
            }
            let destination = named.destination
            return (
                """
                (\(primaryKey) IN (SELECT j."\(named.near)" FROM "\(named.table.name)" AS j \
                JOIN "\(destination.tableName)" AS d ON d."\(destination.primaryKeyColumn)" = j."\(named.far)" \
                WHERE \(dialect.equalsIgnoringCase("d.\"\(named.nameColumn)\""))))
                """,
                [value.trimmingCharacters(in: .whitespaces).storeValue]
            )
        }
    }

    /// How to find `text` inside a value ignoring case: SQLite's LIKE
    /// when `text` is ASCII (LIKE folds only ASCII letters, and an ASCII
    /// letter matches no other), else a regular expression that matches
    /// `text` literally with ICU's Unicode case folding (`CRÊPE` finds
    /// `Crêpe`).
    /// - Returns: The operator and its `?`, and the argument to bind.
    func containing(_ text: String) -> (operation: (String) -> String, argument: StoreValue) {
        if text.unicodeScalars.allSatisfy(\.isASCII) {
            return (dialect.likeIgnoringCase, Self.likePattern(text).storeValue)
        }
        return ({ dialect.regexMatch($0, "?") }, ("(?i)" + NSRegularExpression.escapedPattern(for: text)).storeValue)
    }

    /// `%text%` with LIKE's wildcards in `text` escaped by `\`.
    static func likePattern(_ text: String) -> String {
        var escaped = "%"
        for character in text {
            if character == "%" || character == "_" || character == "\\" { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped + "%"
    }
}
