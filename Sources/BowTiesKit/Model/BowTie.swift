import Foundation

/// A bow tie, with typed access to every attribute of ``BowTieModel``.
///
/// The photo's bytes are not part of the value (they may be large and live
/// in a file): ``photo`` describes them and ``Catalog/photoData(for:)``
/// reads them.
public struct BowTie: Sendable, Equatable, Identifiable {
    public var id: UUID
    public var name: String?
    public var searchKey: String?
    public var rating: Double
    public var timesWorn: Int32
    public var lastWorn: Date?
    public var isFavorite: Bool
    public var url: URL?
    public var tintColor: Color?
    public var photo: PhotoInfo?

    public init(
        id: UUID = UUID(),
        name: String?,
        searchKey: String? = nil,
        rating: Double = 0,
        timesWorn: Int32 = 0,
        lastWorn: Date? = nil,
        isFavorite: Bool = false,
        url: URL? = nil,
        tintColor: Color? = nil,
        photo: PhotoInfo? = nil
    ) {
        self.id = id
        self.name = name
        self.searchKey = searchKey
        self.rating = rating
        self.timesWorn = timesWorn
        self.lastWorn = lastWorn
        self.isFavorite = isFavorite
        self.url = url
        self.tintColor = tintColor
        self.photo = photo
    }

    /// How error messages and reports name the record: `R "Red Bow Tie"`.
    public var label: String {
        Self.label(searchKey: searchKey, name: name, id: id)
    }

    /// The label of a record with these values (see ``label``).
    ///
    /// Both parts are shortened as ``AttributeValue/messageText`` is: the
    /// label of an imported record is built before validation, from
    /// whatever the file holds.
    static func label(searchKey: String?, name: String?, id: UUID?) -> String {
        var parts: [String] = []
        if let searchKey, !searchKey.isEmpty { parts.append(AttributeValue.abbreviated(searchKey)) }
        if let name { parts.append("\"\(AttributeValue.abbreviated(name))\"") }
        if parts.isEmpty, let id { parts.append(id.uuidString) }
        return parts.joined(separator: " ")
    }

    /// The value of the attribute named `name`, as validation sees it.
    public func value(forAttribute name: String) -> AttributeValue? {
        switch name {
        case "id": .uuid(id)
        case "name": self.name.map(AttributeValue.string)
        case "searchKey": searchKey.map(AttributeValue.string)
        case "rating": .double(rating)
        case "timesWorn": .integer(Int64(timesWorn))
        case "lastWorn": lastWorn.map(AttributeValue.date)
        case "isFavorite": .bool(isFavorite)
        case "url": url.map { .uri($0.absoluteString) }
        case "tintColor": tintColor.map(AttributeValue.color)
        case "photoData": photo.map { .binary(byteCount: $0.byteCount) }
        default: nil
        }
    }
}
