import Foundation

/// Why a Core Data store, or a value in it, could not be read.
///
/// Every error names the file, and where it can, the place inside it:
/// a table, a row (`Z_PK`) and a column, or a byte offset in an archive.
///
///     SampleModel.sqlite: table ZCAR, row 3, column ZCOLOR: byte 41: object reference 9 is out of range
public struct CoreDataError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// No file at the path given.
        case storeNotFound
        /// The file (or its `-wal`) exists but cannot be read: permissions,
        /// a folder, an I/O error.
        case unreadable
        /// A readable file that is not an SQLite database, or an SQLite
        /// database without Core Data's `Z_METADATA` and `Z_PRIMARYKEY`.
        case notCoreData
        /// A Core Data store whose contents contradict its own layout:
        /// a damaged page, a metadata blob that is not a property list, a
        /// model cache that does not inflate.
        case damaged
        /// A keyed archive (NSKeyedArchiver) that cannot be decoded.
        case malformedArchive
        /// `--entity NAME` names no entity of the store's model.
        case noSuchEntity
    }

    public var kind: Kind
    public var message: String
    /// The file as the user named it (or the archive's display name).
    public var file: String
    /// Where in the file: `table ZBOOK, row 3, column ZCOVER`, `Z_MODELCACHE`,
    /// `byte 120`... `nil` when the error is about the whole file.
    public var location: String?

    public init(_ kind: Kind, _ message: String, file: String, at location: String? = nil) {
        self.kind = kind
        self.message = message
        self.file = file
        self.location = location
    }

    /// `file: location: message`.
    public var description: String {
        if let location {
            return "\(file): \(location): \(message)"
        }
        return "\(file): \(message)"
    }

    /// The same error, its location prefixed with `outer` (an archive's
    /// byte offset inside a row's column).
    func located(in outer: String, file: String) -> CoreDataError {
        var copy = self
        copy.file = file
        copy.location = location.map { "\(outer): \($0)" } ?? outer
        return copy
    }
}
