import Foundation

/// A bow tie: a ``Record`` of ``BowTieModel/entity`` with typed access to
/// the attributes commands give a meaning to, as the class Xcode generates
/// for an entity gives `@NSManaged` properties. Storage, validation,
/// import and export work on the record, by attribute name.
///
/// The photo's bytes are not part of the value (they may be large and live
/// in a file): ``photo`` describes them and ``Catalog/photoData(for:)``
/// reads them.
public struct BowTie: Sendable, Equatable, Identifiable {
    public var record: Record

    /// A tie of the bow-tie entity `record`.
    public init(record: Record) {
        self.record = record
    }

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
        record = Record(entity: BowTieModel.entity)
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

    public var id: UUID {
        get {
            guard case .uuid(let id)? = record["id"] else { return Self.noID }
            return id
        }
        set { record["id"] = .uuid(newValue) }
    }

    public var name: String? {
        get { record["name"].flatMap(\.text) }
        set { record["name"] = newValue.map(AttributeValue.string) }
    }

    public var searchKey: String? {
        get { record["searchKey"].flatMap(\.text) }
        set { record["searchKey"] = newValue.map(AttributeValue.string) }
    }

    public var rating: Double {
        get {
            guard case .double(let number)? = record["rating"] else { return 0 }
            return number
        }
        set { record["rating"] = .double(newValue) }
    }

    /// Times worn: the baseline an import brought plus the recorded
    /// wears. The store keeps it; setting it changes a tie that is not
    /// stored yet.
    public var timesWorn: Int32 {
        get {
            guard case .integer(let number)? = record["timesWorn"] else { return 0 }
            return Int32(clamping: number)
        }
        set { record["timesWorn"] = .integer(Int64(newValue)) }
    }

    public var lastWorn: Date? {
        get {
            guard case .date(let date)? = record["lastWorn"] else { return nil }
            return date
        }
        set { record["lastWorn"] = newValue.map(AttributeValue.date) }
    }

    public var isFavorite: Bool {
        get {
            guard case .bool(let flag)? = record["isFavorite"] else { return false }
            return flag
        }
        set { record["isFavorite"] = .bool(newValue) }
    }

    public var url: URL? {
        get { record["url"].flatMap(\.text).flatMap { URL(string: $0) } }
        set { record["url"] = newValue.map { .uri($0.absoluteString) } }
    }

    public var tintColor: Color? {
        get {
            guard case .color(let color)? = record["tintColor"] else { return nil }
            return color
        }
        set { record["tintColor"] = newValue.map(AttributeValue.color) }
    }

    public var photo: PhotoInfo? {
        get {
            guard case .blob(let info)? = record["photoData"] else { return nil }
            return info
        }
        set { record["photoData"] = newValue.map(AttributeValue.blob) }
    }

    /// The names of its tags, sorted ignoring case (empty when none, or
    /// when not loaded).
    public var tags: [String] {
        get { record.names["tags"] ?? [] }
        set { record.names["tags"] = newValue }
    }

    /// What ``id`` reads when the record has none (never once validated).
    private static let noID = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))

    /// How error messages and reports name the record: `R "Red Bow Tie"`.
    public var label: String { record.label }

    /// The label of a record with these values (see ``label``).
    static func label(searchKey: String?, name: String?, id: UUID?) -> String {
        Record.label(key: searchKey, name: name, fallback: id?.uuidString)
    }
}

extension AttributeValue {
    /// The text of a string or URI value.
    public var text: String? {
        switch self {
        case .string(let text), .uri(let text): text
        default: nil
        }
    }
}
