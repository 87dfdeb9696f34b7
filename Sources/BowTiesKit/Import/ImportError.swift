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

    public init(
        location: SourceLocation?, recordNumber: Int? = nil, record: String? = nil, field: String? = nil,
        message: String, validation: ValidationError? = nil
    ) {
        self.location = location
        self.recordNumber = recordNumber
        self.record = record
        self.field = field
        self.message = message
        self.validation = validation
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
        return text + message
    }
}

/// Something the import did but the user should know about; it does not
/// stop the import.
public struct ImportWarning: Sendable, CustomStringConvertible {
    public var location: SourceLocation?
    public var message: String

    public var description: String {
        (location.map { "\($0): " } ?? "") + message
    }
}

/// What an import did.
public struct ImportReport: Sendable {
    public var added = 0
    public var updated = 0
    public var unchanged = 0
    public var warnings: [ImportWarning] = []
    /// When true nothing was written: the counts say what would happen.
    public var dryRun = false
    /// Records that have a photo.
    public var photos = 0
    /// External photo files written by this import (shared photos count once).
    public var photoFilesWritten = 0
    /// How many different photos those records use: each is stored once.
    public var distinctPhotos = 0

    public var total: Int { added + updated + unchanged }
}
