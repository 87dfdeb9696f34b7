import PropertyList

/// An import failure located in the source file: `file:line:column`, the
/// record (its number in the file and its key and name when known), the
/// field, and what is wrong.
///
///     SampleData.plist:27:5: record 5 (B "Blue"), rating: expected <real> or <integer>, found <string>
public struct ImportError: Error, Sendable, CustomStringConvertible {
    public var location: SourceLocation?
    /// 1-based position of the record in the file.
    public var recordNumber: Int?
    /// The record's search key and name, when they could be read.
    public var record: String?
    /// The property-list key concerned.
    public var field: String?
    public var message: String
    /// The validation failure behind this error, with its Core Data code.
    public var validation: ValidationError?
    /// What to do about it, printed on a line of its own after `hint: `.
    public var hint: String?

    public init(
        location: SourceLocation?, recordNumber: Int? = nil, record: String? = nil, field: String? = nil,
        message: String, validation: ValidationError? = nil, hint: String? = nil
    ) {
        self.location = location
        self.recordNumber = recordNumber
        self.record = record
        self.field = field
        self.message = message
        self.validation = validation
        self.hint = hint
    }

    public var description: String {
        var text = location.map { "\($0): " } ?? ""
        if let recordNumber {
            text += "record \(recordNumber)"
            if let record, !record.isEmpty { text += " (\(record))" }
            text += field.map { ", \($0): " } ?? ": "
        } else if let field {
            text += "\(field): "
        }
        return text + message + (hint.map { "\nhint: \($0)" } ?? "")
    }
}

/// Something the import did but the user should know about; it does not
/// stop the import.
public struct ImportWarning: Sendable, CustomStringConvertible {
    /// What a warning is about: warnings beyond the first few are counted
    /// by kind (see ``ImportReport/moreWarnings``).
    public enum Kind: String, Sendable, CaseIterable, Codable {
        /// A record names an image that is not in the images folder.
        case missingImage
        /// A key the model does not know (each distinct key once).
        case unknownKey

        /// The kind's position in ``allCases``: counters are kept in an
        /// array, not a dictionary, on the import's path.
        var index: Int {
            switch self {
            case .missingImage: 0
            case .unknownKey: 1
            }
        }
    }

    public var kind: Kind
    public var location: SourceLocation?
    public var message: String

    public var description: String {
        (location.map { "\($0): " } ?? "") + message
    }
}

/// The warnings of one kind that came after the first few, counted, with
/// one line that says what they were:
///
///     … and 399,980 more records whose photo file is not in /data/Images
public struct ImportWarningSummary: Sendable, CustomStringConvertible {
    public var kind: ImportWarning.Kind
    /// How many warnings of this kind were not given one by one.
    public var count: Int
    /// False when there were more than ``count`` (unknown keys are told
    /// apart only among the first few thousand distinct ones).
    public var isExact: Bool
    /// The line shown for them.
    public var message: String

    public var description: String { message }
}

/// What an import did.
public struct ImportReport: Sendable {
    public var added = 0
    public var updated = 0
    public var unchanged = 0
    /// The first 20 warnings, in file order, whatever their kind.
    public var warnings: [ImportWarning] = []
    /// The warnings after those, one summary per kind, in the order the
    /// kinds first overflowed.
    public var moreWarnings: [ImportWarningSummary] = []
    /// When true nothing was written: the counts say what would happen.
    public var dryRun = false
    /// Records that have a photo.
    public var photos = 0
    /// External photo files this import added to the photo folder: each
    /// photo counts once, and a photo already on disk not at all.
    public var photoFilesWritten = 0
    /// How many different photos those records use: each is stored once.
    public var distinctPhotos = 0

    public var total: Int { added + updated + unchanged }
}
