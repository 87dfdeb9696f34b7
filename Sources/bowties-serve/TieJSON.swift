import BowTiesKit
import Foundation

/// A tie as the API answers it: the record as `bowties show --json` writes
/// it (``RecordJSON``, from the declaration), plus what a page shows
/// without computing: `key` (the search key, else the id), `lastWornWords`
/// ("3 days ago") and `hasPhoto`.
struct TieJSON: Encodable, Sendable {
    var json: RecordJSON

    init(_ tie: BowTie, now: Date) {
        json = RecordJSON(
            tie.record,
            extra: [
                "key": ExplicitNull(Self.key(of: tie)),
                "lastWornWords": ExplicitNull(tie.lastWorn.map { RelativeDate.words(for: $0, now: now) }),
                "photoURL": ExplicitNull(tie.photo.map { _ in "/api/ties/\(Self.pathKey(of: tie))/photo" }),
            ])
    }

    /// What names the tie in a command and in the API's paths.
    static func key(of tie: BowTie) -> String { tie.searchKey ?? tie.id.uuidString }

    /// The key, escaped for a path segment.
    static func pathKey(of tie: BowTie) -> String {
        key(of: tie).addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? tie.id.uuidString
    }

    func encode(to encoder: any Encoder) throws { try json.encode(to: encoder) }
}
