/// What differs between the backends' SQL, for the layers above the store
/// that write SQL text (the query compiler, the codec's selections, the
/// check, undo).
///
/// Most of that text is what SQLite and PostgreSQL both speak: `?`
/// placeholders, double-quoted identifiers, `ON CONFLICT DO NOTHING`,
/// `EXISTS`, `count(*)`. What is not is asked here, by meaning.
struct SQLDialect: Sendable {
    /// The column that numbers a table's rows in insertion order (SQLite's
    /// `rowid`; a PostgreSQL table declares one, generated as identity).
    var rowNumber: String
    /// `expression` compared ignoring case (SQLite's `NOCASE` folds ASCII
    /// only; the other backend must fold the same way, or `check` finds
    /// names both take as one).
    var caseInsensitive: @Sendable (_ expression: String) -> String
    /// True when `expression` matches the regular expression `pattern`
    /// (both SQL expressions).
    var regexMatch: @Sendable (_ expression: String, _ pattern: String) -> String
    /// True when `expression` matches the `LIKE` pattern bound to the
    /// next `?` (`\` escapes), ignoring the case of ASCII letters (SQLite's
    /// `LIKE`; `ILIKE` on PostgreSQL).
    var likeIgnoringCase: @Sendable (_ expression: String) -> String
    /// What follows the column list of a table whose primary key is its
    /// only index (SQLite's `WITHOUT ROWID`; nothing elsewhere).
    var withoutRowNumber: String
    /// The one-character text whose code is `code` (a separator: SQLite's
    /// `char(31)`, PostgreSQL's `chr(31)`).
    var character: @Sendable (_ code: UInt8) -> String
    /// The hex digits of `expression`'s UTF-8 bytes (either case), so that
    /// no byte of a text can be taken for a separator.
    var hexOfText: @Sendable (_ expression: String) -> String
    /// `expression`, a number, as text that reads back to the same
    /// `Double` (SQLite's `%.17g`; PostgreSQL's shortest exact output).
    var fullPrecision: @Sendable (_ expression: String) -> String
    /// One text joining `value` over the rows of `rows` (a `FROM … WHERE
    /// …` tail), `separator` (an SQL expression) between them, in the
    /// order of `order` (SQL `ORDER BY` terms) when it is given; NULL when
    /// there is no row.
    var joined: @Sendable (_ value: String, _ separator: String, _ rows: String, _ order: String?) -> String
    /// True when `expression` equals the value bound to the next `?`,
    /// both compared as ``caseInsensitive`` compares (a parameter's case
    /// must be folded too where the backend folds by a function).
    var equalsIgnoringCase: @Sendable (_ expression: String) -> String = { "\($0) COLLATE NOCASE = ?" }
    /// The statement that puts off checking foreign keys until the
    /// transaction commits (undo puts rows back in any order): SQLite's
    /// `defer_foreign_keys` pragma; `SET CONSTRAINTS ALL DEFERRED` on a
    /// backend whose keys are declared `DEFERRABLE`.
    var deferForeignKeys = "PRAGMA defer_foreign_keys = ON"
    /// Whether NULL sorts before every value in an ascending order (SQLite:
    /// NULL is the smallest value) or after (PostgreSQL: the largest), as
    /// a keyset page's condition must know (``QueryCompiler/keysetCondition(_:after:)``).
    var nullsSortFirst = true

    /// SQLite's: `rowid`, `COLLATE NOCASE`, the `regexp` function the
    /// store registers (``RegularExpressionFunction``), `group_concat`.
    static let sqlite = SQLDialect(
        rowNumber: "rowid",
        caseInsensitive: { "\($0) COLLATE NOCASE" },
        regexMatch: { "\($0) REGEXP \($1)" },
        likeIgnoringCase: { "\($0) LIKE ? ESCAPE '\\'" },
        withoutRowNumber: " WITHOUT ROWID",
        character: { "char(\($0))" },
        hexOfText: { "hex(\($0))" },
        fullPrecision: { "printf('%.17g', \($0))" },
        joined: { value, separator, rows, order in
            // SQLite 3.40's `group_concat` takes no `ORDER BY`: it joins an
            // ordered subselect in its order.
            guard let order else { return "(SELECT group_concat(\(value), \(separator)) \(rows))" }
            return "(SELECT group_concat(v, \(separator)) FROM (SELECT \(value) AS v \(rows) ORDER BY \(order)))"
        })
}
