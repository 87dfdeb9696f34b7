import ArgumentParser
import BowTiesKit
import Foundation

/// The query terms `list`, `export` and `count` take (and, later, every
/// command that works on several ties), with the one help text that
/// explains the language.
struct QueryArgument: ParsableArguments {
    @Argument(
        help: ArgumentHelp(
            "Terms that select ties (all of them when none); see QUERIES below.", valueName: "query"))
    var terms: [String] = []

    /// Parses the terms for `catalog`.
    /// - Throws: `QueryError` (exit 64).
    func query(for catalog: Catalog) throws -> Query {
        try catalog.query(terms)
    }

    /// What the query language is, for each command's discussion.
    static let help = """
        QUERIES
          Terms are AND-ed; a lone , between terms makes an OR of groups; ^term negates.
          field:value     text contains value, ignoring case (name:paisley)
          field:=value    text is exactly value (searchKey:=R)
          field::REGEX    text matches a regular expression (name::'^(?i)classic')
          field:A..B      a range, closed at both ends; A.. and ..B leave one end open
                          numbers: rating:3..5, timesWorn:..2, rating:4 (= 4)
                          dates (UTC): lastWorn:2014-01..2014-06, lastWorn:2014-06 (all of June),
                          relative: lastWorn:..-90d (worn more than 90 days ago; d, w, m, y)
          is:favorite     a Boolean attribute (isFavorite)
          has:photo       an optional attribute with a value (has:url), or a tag (has:tags)
          tag:NAME        tagged NAME, ignoring case
          WORD            name or search key contains WORD
          sort:rating-    order by a field, - descending, + ascending; several allowed
          A tie without a value matches no range or comparison; ^ of such a term matches it.
          Fields: \(BowTieModel.entity.attributes.map(\.name).joined(separator: ", ")).
          Example: bowties list rating:4.. ^has:photo , is:favorite sort:rating-
        """
}
