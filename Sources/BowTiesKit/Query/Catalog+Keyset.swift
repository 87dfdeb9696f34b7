import Foundation

/// Where a page of ties ends: the values of the order's keys at one tie
/// (its `sort:` attributes, then its row number, which makes the order
/// total). A page that starts after it asks the store for the ties whose
/// keys come after these values, in the order's index if it has one, so
/// that the last page of a million ties costs what the first does (an
/// offset would make the store step over every tie before it).
///
/// Opaque to its users: ``text`` is what a page's address carries
/// (base64url of JSON), read back with ``init(text:)``.
///
/// ```swift
/// let first = try catalog.page(matching: query, from: .first, limit: 50)
/// if let next = first.next {
///     let second = try catalog.page(matching: query, from: .after(next), limit: 50)
/// }
/// ```
public struct PageCursor: Sendable, Hashable {
    /// The sort keys the cursor belongs to (`name`, `-rating`), then `#`.
    let keys: [String]
    /// One value per key: the tie's.
    let values: [StoreValue]

    init(keys: [String], values: [StoreValue]) {
        self.keys = keys
        self.values = values
    }

    /// The cursor as URL-safe text (no `+`, `/` or `=`).
    public var text: String {
        let encoded = Encoded(k: keys, v: values.map(Encoded.Value.init))
        let data = (try? JSONEncoder().encode(encoded)) ?? Data()
        return data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Reads ``text`` back; nil for text no cursor wrote.
    public init?(text: String) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard text.count <= 4096, let data = Data(base64Encoded: base64),
            let decoded = try? JSONDecoder().decode(Encoded.self, from: data),
            decoded.k.count == decoded.v.count, decoded.k.last == "#"
        else { return nil }
        keys = decoded.k
        values = decoded.v.map(\.storeValue)
    }

    /// Whether the cursor was made for `query`'s order (a cursor of
    /// another order would start a page at a meaningless place).
    public func fits(_ query: Query) -> Bool { keys == Self.keys(of: query) }

    static func keys(of query: Query) -> [String] {
        query.sortKeys.map { ($0.descending ? "-" : "") + $0.attribute } + ["#"]
    }

    /// The JSON form: `{"k": [keys], "v": [[type, value]…]}`.
    private struct Encoded: Codable {
        var k: [String]
        var v: [Value]

        enum Value: Codable {
            case null
            case integer(Int64)
            case real(Double)
            case text(String)
            case blob(Data)

            init(_ value: StoreValue) {
                switch value {
                case .null: self = .null
                case .integer(let number): self = .integer(number)
                case .real(let number): self = .real(number)
                case .text(let text): self = .text(text)
                case .blob(let data): self = .blob(data)
                }
            }

            var storeValue: StoreValue {
                switch self {
                case .null: .null
                case .integer(let number): .integer(number)
                case .real(let number): .real(number)
                case .text(let text): .text(text)
                case .blob(let data): .blob(data)
                }
            }
        }
    }
}

/// Where a page starts.
public enum PageStart: Sendable, Hashable {
    /// The first ties of the order.
    case first
    /// The ties right after the cursor's.
    case after(PageCursor)
    /// The ties right before the cursor's (a page that would be short is
    /// the first page instead).
    case before(PageCursor)
    /// The last ties of the order.
    case last
}

/// One page of ties, and where the pages beside it start.
public struct BowTiePage: Sendable {
    public var ties: [BowTie]
    /// The cursor of the page's last tie, when ties follow it.
    public var next: PageCursor?
    /// The cursor of the page's first tie, when ties precede it.
    public var previous: PageCursor?
    /// True when no tie precedes the page.
    public var isFirst: Bool
    /// True when no tie follows the page.
    public var isLast: Bool
}

extension Catalog {
    /// One page of the ties `query` selects, in its order, by keyset: the
    /// page after (or before) a cursor is found by the order's key values,
    /// not by counting ties from the start, so that every page costs what
    /// the first does.
    ///
    /// Two statements in one snapshot: the first reads the keys of the
    /// page's ties only (`rowid` and the sort columns, no tags, no join),
    /// `limit + 1` of them to know whether more follow; the second reads
    /// those ties whole by their row numbers.
    ///
    /// - Parameter limit: At most this many ties (1 or more).
    /// - Throws: ``QueryError``, ``CatalogError``.
    public func page(matching query: Query, from start: PageStart, limit: Int) throws -> BowTiePage {
        let limit = max(1, limit)
        switch start {
        case .first:
            let (ties, keys, more) = try pageRows(query, reverse: false, after: nil, limit: limit)
            return BowTiePage(
                ties: ties, next: more ? keys.last : nil, previous: nil, isFirst: true, isLast: !more)
        case .after(let cursor):
            let (ties, keys, more) = try pageRows(query, reverse: false, after: cursor, limit: limit)
            return BowTiePage(
                ties: ties, next: more ? keys.last : nil, previous: keys.first, isFirst: false, isLast: !more)
        case .before(let cursor):
            let (ties, keys, more) = try pageRows(query, reverse: true, after: cursor, limit: limit)
            if !more && ties.count < limit { return try page(matching: query, from: .first, limit: limit) }
            return BowTiePage(
                ties: ties.reversed(), next: keys.first, previous: more ? keys.last : nil, isFirst: !more,
                isLast: false)
        case .last:
            let (ties, keys, more) = try pageRows(query, reverse: true, after: nil, limit: limit)
            return BowTiePage(
                ties: ties.reversed(), next: nil, previous: more ? keys.last : nil, isFirst: !more, isLast: true)
        }
    }

    /// Up to `limit` ties in the order (reversed when `reverse`) after
    /// `cursor`, their cursors, and whether more follow.
    private func pageRows(_ query: Query, reverse: Bool, after cursor: PageCursor?, limit: Int) throws
        -> (ties: [BowTie], cursors: [PageCursor], more: Bool)
    {
        let codec = bowTieCodec
        let dialect = store.dialect
        let compiler = QueryCompiler(codec: codec, dialect: dialect)
        let compiled = try compiler.compile(query, reverse: reverse)
        let keys = compiler.keysetKeys(query, reverse: reverse)
        let names = PageCursor.keys(of: query)
        let table = "\"\(codec.entity.tableName)\""
        var sql = "SELECT " + keys.map(\.expression).joined(separator: ", ") + " FROM \(table)"
        var conditions: [String] = compiled.whereSQL.map { ["(\($0))"] } ?? []
        var arguments = compiled.arguments
        if let cursor {
            let (condition, values) = compiler.keysetCondition(keys, after: cursor.values)
            conditions.append(condition)
            arguments += values
        }
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        sql += " ORDER BY " + compiled.orderSQL + " LIMIT \(limit + 1)"
        // The codec's selection and the row number last.
        let selection =
            String(codec.selection.dropLast(codec.fromClause.count)) + ", \(table).\(dialect.rowNumber)"
            + codec.fromClause
        return try read { db in
            let keyRows = try StoreRow.fetchAll(db, sql: sql, arguments: StoreArguments(arguments))
            let page = keyRows.prefix(limit)
            let cursors = page.map { PageCursor(keys: names, values: $0.values) }
            let rowNumbers = page.map { $0[keys.count - 1] as StoreValue }
            guard !rowNumbers.isEmpty else { return ([], [], false) }
            let placeholders = Array(repeating: "?", count: rowNumbers.count).joined(separator: ", ")
            let rows = try StoreRow.fetchAll(
                db, sql: selection + " WHERE \(table).\(dialect.rowNumber) IN (\(placeholders))",
                arguments: StoreArguments(rowNumbers))
            var byRowNumber: [StoreValue: BowTie] = [:]
            for row in rows {
                byRowNumber[row[row.values.count - 1] as StoreValue] = BowTie(record: try codec.decode(row))
            }
            let ties = rowNumbers.compactMap { byRowNumber[$0] }
            return (ties, cursors, keyRows.count > limit)
        }
    }
}

extension QueryCompiler {
    /// One key of a keyset order: the column's expression, how it sorts.
    struct KeysetKey {
        /// What is selected (the column, as stored).
        var expression: String
        /// What is compared (the column folded as the order folds it);
        /// `?` in it stands for the cursor's value.
        var compared: (String) -> String
        var descending: Bool
        var isOptional: Bool
    }

    /// The order's keys as ``compile(_:reverse:)`` orders them: the sort
    /// attributes, then the row number.
    func keysetKeys(_ query: Query, reverse: Bool) -> [KeysetKey] {
        let table = "\"\(codec.entity.tableName)\""
        var keys: [KeysetKey] = []
        for key in query.sortKeys {
            guard let attribute = codec.entity[key.attribute] else { continue }
            let column = "\(table).\"\(attribute.columnName)\""
            let ignoresCase = attribute.type == .string || attribute.type == .uri
            let dialect = dialect
            keys.append(
                KeysetKey(
                    expression: column, compared: ignoresCase ? { dialect.caseInsensitive($0) } : { $0 },
                    descending: key.descending != reverse, isOptional: attribute.isOptional))
        }
        keys.append(
            KeysetKey(
                expression: "\(table).\(dialect.rowNumber)", compared: { $0 }, descending: reverse, isOptional: false))
        return keys
    }

    /// The condition "comes after `values` in the order of `keys`", with
    /// its arguments: for keys k1…kn, k1 after v1, or k1 equal to v1 and
    /// k2 after v2, and so on. NULL sorts as SQLite and PostgreSQL sort it
    /// (``SQLDialect/nullsSortFirst``): a missing value is neither greater
    /// nor smaller than a value, so it is said in words.
    func keysetCondition(_ keys: [KeysetKey], after values: [StoreValue]) -> (String, [StoreValue]) {
        var alternatives: [String] = []
        var arguments: [StoreValue] = []
        var equalSoFar: [(String, [StoreValue])] = []
        for (key, value) in zip(keys, values) {
            // NULL comes before every value going up when the backend
            // sorts it first; going down, after.
            let nullsFirst = dialect.nullsSortFirst != key.descending
            let after: (String, [StoreValue])
            let equal: (String, [StoreValue])
            if value.isNull {
                after = nullsFirst ? ("\(key.expression) IS NOT NULL", []) : ("(1 = 0)", [])
                equal = ("\(key.expression) IS NULL", [])
            } else {
                let comparison = "\(key.compared(key.expression)) \(key.descending ? "<" : ">") \(key.compared("?"))"
                after =
                    key.isOptional && !nullsFirst
                    ? ("(\(comparison) OR \(key.expression) IS NULL)", [value]) : (comparison, [value])
                equal = ("\(key.compared(key.expression)) = \(key.compared("?"))", [value])
            }
            let parts = equalSoFar + [after]
            alternatives.append("(" + parts.map(\.0).joined(separator: " AND ") + ")")
            arguments += parts.flatMap(\.1)
            equalSoFar.append(equal)
        }
        return ("(" + alternatives.joined(separator: " OR ") + ")", arguments)
    }
}
