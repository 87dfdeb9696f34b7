import Foundation
import GRDB

// The record layer: the only place that knows how a bow tie's values are
// encoded in columns (colours through their transformer, dates as seconds,
// photos as inline bytes or a reference to a file).

extension BowTie {
    /// Every attribute's column, and the photo's size and place from the
    /// `blob` table (never its bytes: listing ties never loads photos).
    static let selection = """
        SELECT id, name, searchKey, rating, timesWorn, lastWorn, isFavorite, url, tintColor,
               photoData_sha256, blob.byteCount, blob.external
        FROM \(BowTieModel.tableName) LEFT JOIN \(Catalog.blobTable) AS blob ON blob.sha256 = photoData_sha256
        """

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
            guard let size = try row.decode(Int?.self, atIndex: 10),
                let external = try row.decode(Bool?.self, atIndex: 11)
            else { throw CatalogError(.storeIO, "the photo of \(label) refers to a blob the store does not have") }
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

    /// The arguments of ``insertSQL``/``updateSQL``, after the id.
    func fieldArguments(transformers: ValueTransformerRegistry) throws -> StatementArguments {
        var color: Data? = nil
        if let tintColor, let name = BowTieModel.entity["tintColor"]?.valueTransformerName {
            color = try transformers.transformer(named: name).transformedValue(.color(tintColor))
        }
        return [
            name, searchKey, rating, Int64(timesWorn), lastWorn?.timeIntervalSince1970, isFavorite,
            url?.absoluteString, color, photo?.sha256,
        ]
    }

    static let fieldColumns = [
        "name", "searchKey", "rating", "timesWorn", "lastWorn", "isFavorite", "url", "tintColor", "photoData_sha256",
    ]

    static let insertSQL: String = {
        let columns = ["id"] + fieldColumns
        return "INSERT INTO \(BowTieModel.tableName) (\(columns.joined(separator: ", "))) VALUES ("
            + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
    }()

    static let updateSQL =
        "UPDATE \(BowTieModel.tableName) SET "
        + fieldColumns.map { "\($0) = ?" }.joined(separator: ", ") + " WHERE id = ?"
}
