extension SQLDialect {
    /// PostgreSQL's: every table's identity column `rowid`; case folded as
    /// SQLite's `NOCASE` folds it, ASCII only (`lower` under the "C"
    /// collation changes A–Z and nothing else, whatever the database's
    /// locale; plain `lower` would fold `É` too, and the backends would
    /// disagree on which names are one); POSIX regular expressions (`~`);
    /// `LIKE` ignoring ASCII case (`ILIKE` under "C"); `string_agg`,
    /// `chr`, `encode(…, 'hex')` and float8's exact text for the codec's
    /// and the export's aggregation; NULL sorts after every value.
    static let postgresql = SQLDialect(
        rowNumber: "rowid",
        caseInsensitive: { "lower((\($0)) COLLATE \"C\")" },
        regexMatch: { "(\($0)) ~ \($1)" },
        likeIgnoringCase: { "(\($0)) COLLATE \"C\" ILIKE ? ESCAPE '\\'" },
        withoutRowNumber: "",
        character: { "chr(\($0))" },
        // Lower-case digits; the export's reader takes either case.
        hexOfText: { "encode(convert_to(\($0), 'UTF8'), 'hex')" },
        // float8's output is the shortest text that reads back exactly
        // (PostgreSQL 12 and later, extra_float_digits 1).
        fullPrecision: { "((\($0))::double precision)::text" },
        joined: { value, separator, rows, order in
            "(SELECT string_agg((\(value))::text, \(separator)\(order.map { " ORDER BY \($0)" } ?? "")) \(rows))"
        },
        equalsIgnoringCase: { "lower((\($0)) COLLATE \"C\") = lower((?) COLLATE \"C\")" },
        deferForeignKeys: "SET CONSTRAINTS ALL DEFERRED",
        nullsSortFirst: false)
}
