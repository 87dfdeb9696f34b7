/// How the header row of a CSV or TSV file names its columns.
///
/// A header is often typed by a person or written by a spreadsheet, not
/// by `bowties export`, so a name matches a known column whatever its
/// case, spaces, `_` and `-`, and the labels `list` and `show` print are
/// read too:
///
/// ```swift
/// let names = CSVColumnNames(["name", "searchKey", "rating", "isFavorite"])
/// names.column(for: "Search Key")   // "searchKey"
/// names.column(for: "RATING")       // "rating"
/// names.column(for: "Favourite")    // "isFavorite" (show's label)
/// names.suggestion(for: "Raitng")   // "rating"
/// ```
///
/// Used both to tell a CSV file by its content
/// (``ImportFormat/detect(_:columns:file:)``) and to read its header
/// (`CSVRecordSource`), so that the two agree.
struct CSVColumnNames: Sendable {
    /// The known names, in the order they were given: suggestions prefer
    /// the earlier on a tie.
    let names: [String]
    /// Each known name by its folded form (``folded(_:)``), labels
    /// included.
    private let byFolded: [String: String]

    /// The labels `bowties list` and `show` print for a column, and other
    /// words people write for it, by the column's name. Each is read only
    /// when the column is among the known names.
    static let labels: [String: [String]] = [
        "searchKey": ["key"],
        "timesWorn": ["worn"],
        "isFavorite": ["favorite", "favourite", "fav"],
        "tintColor": ["colour", "color", "tintColour"],
        "tags": ["tag"],
    ]

    init(_ names: some Sequence<String>) {
        var ordered: [String] = []
        var byFolded: [String: String] = [:]
        for name in names where byFolded[Self.folded(name)] == nil {
            ordered.append(name)
            byFolded[Self.folded(name)] = name
        }
        for name in ordered {
            for label in Self.labels[name] ?? [] where byFolded[Self.folded(label)] == nil {
                byFolded[Self.folded(label)] = name
            }
        }
        self.names = ordered
        self.byFolded = byFolded
    }

    /// The known column a header's `text` names, or nil.
    func column(for text: String) -> String? {
        byFolded[Self.folded(text)]
    }

    /// The known column closest to an unknown `text`, when it is close
    /// enough to be a slip (``EditDistance/suggestion(for:among:)``).
    func suggestion(for text: String) -> String? {
        let folded = Self.folded(text)
        guard !folded.isEmpty, folded.utf8.count <= 64 else { return nil }
        return EditDistance.suggestion(for: folded, among: names.map { Self.folded($0) }).flatMap { byFolded[$0] }
    }

    /// `Search Key`, `search_key` and `SEARCH-KEY` all fold to `searchkey`:
    /// lowercased, without spaces, `_`, `-` or surrounding quotes.
    static func folded(_ text: String) -> String {
        String(
            text.lowercased().unicodeScalars.filter { $0 != " " && $0 != "_" && $0 != "-" && $0 != "\"" && $0 != "\t" }
        )
    }
}
