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
    /// True when `expression` equals the value bound to the next `?`,
    /// both compared as ``caseInsensitive`` compares (a parameter's case
    /// must be folded too where the backend folds by a function).
    var equalsIgnoringCase: @Sendable (_ expression: String) -> String = { "\($0) COLLATE NOCASE = ?" }

    /// SQLite's: `rowid`, `COLLATE NOCASE`, the `regexp` function the
    /// store registers (``RegularExpressionFunction``).
    static let sqlite = SQLDialect(
        rowNumber: "rowid",
        caseInsensitive: { "\($0) COLLATE NOCASE" },
        regexMatch: { "\($0) REGEXP \($1)" },
        likeIgnoringCase: { "\($0) LIKE ? ESCAPE '\\'" },
        withoutRowNumber: " WITHOUT ROWID")
}
