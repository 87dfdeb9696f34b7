import Foundation
import GRDB

// The record layer: the only place that knows how a bow tie's values are
// encoded in columns (colours through their transformer, dates as seconds,
// photos as inline bytes or a reference to a file).

extension BowTie {
    /// Every column but the inline photo bytes, in declaration order:
    /// listing ties never loads photos.
    static let selectedColumns = [
        "id", "name", "searchKey", "rating", "timesWorn", "lastWorn", "isFavorite", "url", "tintColor",
        "photoData_sha256", "photoData_size", "photoData_external",
    ]
    static let selection = "SELECT " + selectedColumns.joined(separator: ", ") + " FROM " + BowTieModel.tableName

    /// Decodes a row selected with ``selection``.
    /// - Throws: `DatabaseError` for unreadable columns,
    ///   ``CatalogError`` `.storeIO` for values no save could have written.
    init(row: Row, transformers: ValueTransformerRegistry) throws {
        let idText: String = try row.decode(atIndex: 0)
        guard let id = UUID(uuidString: idText) else {
            throw CatalogError(.storeIO, "the store holds an invalid id \"\(idText)\"")
        }
        self.init(id: id, name: try row.decode(atIndex: 1))
        searchKey = try row.decode(atIndex: 2)
        rating = try row.decode(atIndex: 3)
        timesWorn = try row.decode(atIndex: 4)
        lastWorn = try (row.decode(Double?.self, atIndex: 5)).map(Date.init(timeIntervalSince1970:))
        isFavorite = try row.decode(atIndex: 6)
        url = try (row.decode(String?.self, atIndex: 7)).flatMap { URL(string: $0) }
        if let data = try row.decode(Data?.self, atIndex: 8) {
            tintColor = try Self.decodeColor(data, transformers: transformers, record: label)
        }
        if let sha256 = try row.decode(String?.self, atIndex: 9) {
            let size: Int = try row.decode(atIndex: 10)
            let external: Bool = try row.decode(atIndex: 11)
            photo = PhotoInfo(byteCount: size, sha256: sha256, storage: external ? .external : .inline)
        }
    }

    private static func decodeColor(
        _ data: Data, transformers: ValueTransformerRegistry, record: String
    ) throws -> Color? {
        guard let name = BowTieModel.entity["tintColor"]?.valueTransformerName else { return nil }
        do {
            guard case .color(let color) = try transformers.transformer(named: name).reverseTransformedValue(data)
            else { throw CatalogError(.storeIO, "\(name) did not return a colour") }
            return color
        } catch let error as TransformerError {
            throw CatalogError(.storeIO, "cannot read the tintColor of \(record): \(error)")
        }
    }

    /// The arguments of ``insertSQL``/``updateSQL`` (all but the photo).
    func fieldArguments(transformers: ValueTransformerRegistry) throws -> StatementArguments {
        var color: Data? = nil
        if let tintColor, let name = BowTieModel.entity["tintColor"]?.valueTransformerName {
            color = try transformers.transformer(named: name).transformedValue(.color(tintColor))
        }
        return [
            name, searchKey, rating, Int64(timesWorn), lastWorn?.timeIntervalSince1970, isFavorite,
            url?.absoluteString, color,
        ]
    }

    static let fieldColumns = ["name", "searchKey", "rating", "timesWorn", "lastWorn", "isFavorite", "url", "tintColor"]
    static let photoColumns = ["photoData", "photoData_sha256", "photoData_size", "photoData_external"]

    static let insertSQL: String = {
        let columns = ["id"] + fieldColumns + photoColumns
        return "INSERT INTO \(BowTieModel.tableName) (\(columns.joined(separator: ", "))) VALUES ("
            + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
    }()

    static let updateFieldsSQL =
        "UPDATE \(BowTieModel.tableName) SET "
        + fieldColumns.map { "\($0) = ?" }.joined(separator: ", ") + " WHERE id = ?"

    static let updatePhotoSQL =
        "UPDATE \(BowTieModel.tableName) SET "
        + photoColumns.map { "\($0) = ?" }.joined(separator: ", ") + " WHERE id = ?"
}

/// A photo ready to be written to a row: where it is stored, and the bytes
/// when they go inline.
struct StoredPhoto {
    var info: PhotoInfo
    var inlineBytes: Data?

    var arguments: StatementArguments {
        [inlineBytes, info.sha256, info.byteCount, info.storage == .external]
    }

    static let none: StatementArguments = [nil, nil, nil, false]
}
