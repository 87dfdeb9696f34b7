import ArgumentParser
import BowTiesKit
import Foundation

/// The query terms `list`, `export`, `count` and `report` take, read as
/// every command that works on several ties reads them (search keys
/// first, ``Catalog/selection(_:now:)``), with the one help text that
/// explains the language.
struct QueryArgument: ParsableArguments {
    @Argument(
        help: ArgumentHelp(
            "Terms that select ties (all of them when none); see QUERIES above.", valueName: "query"),
        completion: Completions.queryTerms)
    var terms: [String] = []

    /// Parses the terms for `catalog`: the words that are search keys
    /// select their ties, the others are the query (``Catalog/selection(_:now:)``).
    /// - Throws: `QueryError` (exit 64), `CatalogError` for an ambiguous key.
    func query(for catalog: Catalog) throws -> Query {
        try Self.query(terms, for: catalog)
    }

    /// ``query(for:)`` of `terms`.
    static func query(_ terms: [String], for catalog: Catalog) throws -> Query {
        try catalog.selection(terms).query
    }

    /// What the query language is, for each command's discussion.
    static let help = """
        QUERIES
          KEY            a word that is a search key (or an id, or an id prefix)
                         selects that tie: G Y is G and Y. Only the other words
                         are query terms; keys and query are OR-ed: R rating:4..
                         is R and every tie rated 4 or more. A search key never
                         contains : = .. nor starts with ^ + -; an older one that
                         does is reached with searchKey:=KEY.
          Terms are AND-ed; a lone , between terms makes an OR of groups;
          ^term negates a term.
          field:value    text contains value, ignoring case (name:paisley)
          field:=value   text is exactly value (searchKey:=R)
          field::REGEX   text matches a regular expression (name::'^Classic')
          field:A..B     a range, closed at both ends; A.. or ..B leaves one open:
                         rating:3..5, timesWorn:..2, lastWorn:2014-01..2014-06
                         (a range whose start is after its end is an error)
          field:A        one number (rating:4), year, month or day (UTC):
                         lastWorn:2014-06 is all of June 2014
          lastWorn:..-90d  worn more than 90 days ago (units d, w, m, y)
          tintColor:#C81E2D  the colour, exactly (hex digits in any case)
          is:favorite    a Boolean attribute is true
          has:photo      an optional attribute has a value (has:url, has:tags)
          tag:NAME       tagged NAME, ignoring case
          WORD           name or search key contains WORD, ignoring case
          sort:rating-   order by a field, - descending, + ascending; repeatable
          A tie without a value matches no range or comparison, and ^ of such
          a term matches it.
          Fields: \(fields)
          Example: bowties list rating:4.. ^has:photo , is:favorite sort:rating-
        """

    /// The declared attributes, for the help: what a field may be, on
    /// lines short enough that the help's wrapping leaves them alone.
    private static var fields: String {
        var lines: [String] = []
        var line = ""
        for name in BowTieModel.entity.attributes.map(\.name) {
            if !line.isEmpty, line.count + name.count > 60 {
                lines.append(line + ",")
                line = ""
            }
            line += line.isEmpty ? name : ", " + name
        }
        lines.append(line)
        return lines.joined(separator: "\n          ")
    }
}
