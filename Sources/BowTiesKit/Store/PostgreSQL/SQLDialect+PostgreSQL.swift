extension SQLDialect {
    /// PostgreSQL's: every table's identity column `rowid`; case folded as
    /// SQLite's `NOCASE` folds it, ASCII only (`lower` under the "C"
    /// collation changes A–Z and nothing else, whatever the database's
    /// locale; plain `lower` would fold `É` too, and the backends would
    /// disagree on which names are one); POSIX regular expressions (`~`);
    /// `LIKE` ignoring ASCII case (`ILIKE` under "C").
    static let postgresql = SQLDialect(
        rowNumber: "rowid",
        caseInsensitive: { "lower((\($0)) COLLATE \"C\")" },
        regexMatch: { "(\($0)) ~ \($1)" },
        likeIgnoringCase: { "(\($0)) COLLATE \"C\" ILIKE ? ESCAPE '\\'" },
        withoutRowNumber: "",
        equalsIgnoringCase: { "lower((\($0)) COLLATE \"C\") = lower((?) COLLATE \"C\")" })
}
