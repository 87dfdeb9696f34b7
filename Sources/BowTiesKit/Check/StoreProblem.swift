import Foundation

/// A record a problem concerns, named so that a user can find it again:
/// `R "Classic Red Bow Tie" (id B77AF80E-55E7-4111-B05C-A5641DE4D6B3)`.
public struct RecordReference: Sendable, Equatable, CustomStringConvertible {
    /// The id as stored (text, since a damaged store may hold anything).
    public var id: String
    public var searchKey: String?
    public var name: String?

    public init(id: String, searchKey: String?, name: String?) {
        self.id = id
        self.searchKey = searchKey
        self.name = name
    }

    public var description: String {
        let label = BowTie.label(searchKey: searchKey, name: name, id: nil)
        return label.isEmpty ? "id \(id)" : "\(label) (id \(id))"
    }
}

/// One thing ``Catalog/check()`` found wrong with a store, with what
/// ``Catalog/repair(announce:)`` would do about it.
///
/// ```
/// missing photo file: /ties/.catalog_SUPPORT/_EXTERNAL_DATA/108a... does not exist
///   records: B "Midnight Blue Silk" (id ...)
///   repair: clear the photo of the 1 bow tie that uses it
/// ```
public struct StoreProblem: Sendable, Equatable, CustomStringConvertible {
    /// What is wrong. The raw values are stable: `check --json` prints them.
    public enum Kind: String, Sendable, CaseIterable {
        /// `PRAGMA integrity_check` reported damage, or the store could
        /// not be read.
        case integrity
        /// `PRAGMA foreign_key_check` reported a row whose parent is gone
        /// (other than a photo: see ``danglingPhoto``).
        case foreignKey
        /// The store was written by a newer version of bowties.
        case newerSchema
        /// The store's schema is older than this version's, or was never
        /// created (a command was interrupted before it could).
        case migrationsPending
        /// The store's schema is up to date but its bow-tie table differs
        /// from what ``BowTieModel`` declares: a column, index or reference
        /// missing, extra or defined otherwise.
        case schemaMismatch
        /// A record's photo is in a file that does not exist.
        case missingPhotoFile
        /// A photo file's bytes no longer match its SHA-256 (or it cannot
        /// be read, or is not a regular file).
        case damagedPhotoFile
        /// A photo stored inside the catalog no longer matches its SHA-256.
        case damagedInlinePhoto
        /// A photo's bytes are right but the size recorded for it is not.
        case photoSizeMismatch
        /// A record refers to a photo the catalog does not hold.
        case danglingPhoto
        /// A file in the photo folder that no record uses: left by an
        /// interrupted write (`.<sha256>.tmp-XXXXXXXX`) or put there by hand.
        case orphanFile
        /// Photo bytes the catalog holds that no record uses.
        case orphanPhoto
        /// A record that breaks the model's rules or cannot be read.
        case invalidRecord
        /// The same two objects linked twice in a many-to-many relationship.
        case duplicateLink
        /// A derived attribute (times worn) that disagrees with its
        /// baseline and relationship (the wear history).
        case derivedMismatch

        /// How people read the kind: `missing photo file`.
        public var title: String {
            switch self {
            case .integrity: "SQLite integrity"
            case .foreignKey: "broken reference"
            case .newerSchema: "newer store"
            case .migrationsPending: "schema not up to date"
            case .schemaMismatch: "schema differs from the declaration"
            case .missingPhotoFile: "missing photo file"
            case .damagedPhotoFile: "damaged photo file"
            case .damagedInlinePhoto: "damaged photo"
            case .photoSizeMismatch: "wrong photo size"
            case .danglingPhoto: "photo not in the catalog"
            case .orphanFile: "unused file"
            case .orphanPhoto: "unused photo"
            case .invalidRecord: "invalid record"
            case .duplicateLink: "duplicate link"
            case .derivedMismatch: "value disagrees with its history"
            }
        }
    }

    /// What `check --repair` does about a problem. A repair never deletes
    /// a record: at most it takes a photo away from one.
    public enum Repair: Sendable, Equatable, CustomStringConvertible {
        /// Create or upgrade the schema, as any command that writes would.
        case applyMigrations
        /// Set the photo of every record that uses these bytes to none;
        /// the bytes (and their file, if any) go when the undo history no
        /// longer needs them.
        case clearPhoto(sha256: String)
        /// Remove a file from the photo folder.
        case removeFile(URL)
        /// Forget photo bytes no record uses (and their file, if any).
        case removePhoto(sha256: String)
        /// Record the right size for photo bytes that are otherwise fine.
        case fixByteCount(sha256: String, byteCount: Int)
        /// Delete a row that refers to an object that no longer exists,
        /// as the delete rule would have (a wear of a deleted tie, a link
        /// to a deleted tag).
        case removeDanglingRow(table: String, rowid: Int64)
        /// Keep one of the rows that link the same two objects.
        case removeDuplicateLinks(table: String)
        /// Compute derived attributes again from their baselines and
        /// relationships.
        case recomputeDerived

        public var description: String {
            switch self {
            case .applyMigrations: "create or upgrade the schema"
            case .clearPhoto: "set the photo of the records that use it to none"
            case .removeFile: "remove the file"
            case .removePhoto: "forget the unused photo"
            case .fixByteCount(_, let byteCount): "record its size as \(byteCount) bytes"
            case .removeDanglingRow(let table, _): "delete the row of \(table), as the delete rule would have"
            case .removeDuplicateLinks: "keep one link"
            case .recomputeDerived: "compute it again from the history"
            }
        }
    }

    public var kind: Kind
    /// What is wrong, in a sentence.
    public var message: String
    /// The records concerned, at most ``maximumRecordsListed`` of them.
    public var records: [RecordReference]
    /// How many records are concerned in all.
    public var recordCount: Int
    /// The file concerned, if any.
    public var file: URL?
    /// The photo concerned, by the SHA-256 the catalog knows it by.
    public var sha256: String?
    /// What `--repair` does; nil when it cannot fix this.
    public var repair: Repair?
    /// What the user can do when `--repair` cannot.
    public var advice: String?

    /// Problems that concern many records list this many of them.
    public static let maximumRecordsListed = 5

    /// Whether `bowties undo` can take its repair back: the repairs that
    /// change records (a photo set to none, a derived value computed
    /// again) are in the history. Removing a file is not a change to the
    /// catalog; nor are forgetting an unused photo, a recorded size or
    /// the schema; and a reference to a photo or row that is gone could
    /// not be put back (its foreign key would fail).
    public var isUndoable: Bool {
        switch repair {
        case .clearPhoto: kind != .danglingPhoto
        case .recomputeDerived: true
        default: false
        }
    }

    public init(
        _ kind: Kind, _ message: String, records: [RecordReference] = [], recordCount: Int? = nil,
        file: URL? = nil, sha256: String? = nil, repair: Repair? = nil, advice: String? = nil
    ) {
        self.kind = kind
        self.message = message
        self.records = Array(records.prefix(Self.maximumRecordsListed))
        self.recordCount = recordCount ?? records.count
        self.file = file
        self.sha256 = sha256
        self.repair = repair
        self.advice = advice
    }

    /// `title: message`, then the records and the repair, indented.
    public var description: String {
        var lines = ["\(kind.title): \(message)"]
        if !records.isEmpty {
            let more = recordCount > records.count ? " and \(recordCount - records.count) more" : ""
            lines.append(
                "  record\(recordCount == 1 ? "" : "s"): " + records.map(\.description).joined(separator: ", ") + more)
        }
        if let repair {
            lines.append("  repair: \(repair)")
        } else if let advice {
            lines.append("  left to you: \(advice)")
        }
        return lines.joined(separator: "\n")
    }
}
