/// The formats `list` and `export` write, every one streamed row by row
/// from SQLite (see ``Catalog/export(to:query:options:)``).
public enum ExportFormat: String, Sendable, CaseIterable {
    /// RFC 4180: comma-separated, CRLF line ends, a header row.
    case csv
    /// Tab-separated, LF line ends, a header row; a tab, line feed,
    /// carriage return or backslash inside a cell is written `\t`, `\n`,
    /// `\r`, `\\` (as PostgreSQL's `COPY` and MySQL write them), so every
    /// line is one record.
    case tsv
    /// One array of objects, one object per line.
    case json
    /// One JSON object per line (JSON Lines), no array around them.
    case jsonl
    /// An XML property list (Apple's PLIST 1.0 DTD): an array of dicts.
    case plist
}

/// How a record's binary data (the photo) travels in an export.
public enum PhotoExport: String, Sendable, CaseIterable {
    /// Not at all: `null` in JSON, no key in a property list, no column in
    /// CSV and TSV.
    case none
    /// Its size, SHA-256 and place (`inline` or `external`, with the
    /// file's path): an object in JSON and property lists, the columns
    /// `photoBytes` and `photoSHA256` in CSV and TSV. Reads no photo.
    case hash
    /// Its bytes, checked against the SHA-256 as they are read: a Base64
    /// string in JSON, `<data>` in a property list, and a `photoBase64`
    /// column after the other two in CSV and TSV.
    case inline
}

/// What an export writes and how.
public struct ExportOptions: Sendable {
    public var format: ExportFormat
    public var photos: PhotoExport
    /// The fields to write, in this order, by export name (an attribute's
    /// ``AttributeDescription/exportName``, `tags`, `timesWornBefore`,
    /// `lastWornBefore`, `wears`; see ``Catalog/exportFieldNames``); nil
    /// for every field, in every format.
    public var fields: [String]?
    /// CSV and TSV: defuse text cells a spreadsheet would run as a
    /// formula (see ``DelimitedRecordWriter``).
    public var spreadsheetSafe: Bool
    /// Reverse the whole order (the query's `sort:` terms, then the
    /// order the ties were added in).
    public var reverse: Bool

    public init(
        format: ExportFormat = .csv, photos: PhotoExport = .hash, fields: [String]? = nil,
        spreadsheetSafe: Bool = false, reverse: Bool = false
    ) {
        self.format = format
        self.photos = photos
        self.fields = fields
        self.spreadsheetSafe = spreadsheetSafe
        self.reverse = reverse
    }
}

/// What an export wrote.
public struct ExportSummary: Sendable, Equatable {
    /// The records written.
    public var count: Int
    /// Characters XML 1.0 cannot hold (control characters other than tab,
    /// line feed and carriage return; U+FFFE, U+FFFF) that a property list
    /// got as U+FFFD instead.
    public var replacedCharacters: Int
}

/// A `--fields` list that names a field the entity does not have, or one
/// the format cannot hold. The command line exits 64.
///
/// ```
/// unknown field "ratng"; did you mean "rating"? (fields: id, name, ...)
/// ```
public struct ExportFieldError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        case unknownField
        /// The same field twice, or no field at all.
        case invalidList
    }

    public var kind: Kind
    public var field: String
    public var suggestion: String?
    /// What is wrong; for ``Kind/invalidList``, said of the list
    /// (`names "rating" twice`), which ``listName`` names.
    public var message: String
    /// How the user gave the list: the command line sets `--fields`.
    public var listName = "the field list"

    public var description: String { kind == .invalidList ? "\(listName) \(message)" : message }
}
