import Foundation

/// How an import treats the file and the catalog.
public struct ImportOptions: Sendable {
    /// Where image names resolve; by default `Images/` beside the file.
    public var imagesDirectory: URL?
    /// Overwrite records that already exist (matched by id) with the file's
    /// values. Without it, existing records are left untouched, so a
    /// re-import never resets what was worn or rated.
    public var update = false
    /// Do everything but write: report what would happen.
    public var dryRun = false
    /// Refuse the file at its first warning (an unknown key, a missing
    /// photo): nothing is imported. For files made by a program, where a
    /// warning means a bug rather than something to accept.
    public var strict = false
    /// Called from the importing thread every ``ImportProgress/interval``
    /// records, and once at the end: for progress displays. It must be
    /// quick; the import waits for it.
    public var progress: (@Sendable (ImportProgress) -> Void)?
    /// A Core Data store's entity to import (`--entity`); `BowTie` when nil.
    public var entity: String?
    /// A Core Data store's attribute names → the catalog's fields
    /// (`--map title=name`); other attributes go by their own names.
    public var fieldMap: [String: String] = [:]

    public init(
        imagesDirectory: URL? = nil, update: Bool = false, dryRun: Bool = false, strict: Bool = false,
        progress: (@Sendable (ImportProgress) -> Void)? = nil
    ) {
        self.imagesDirectory = imagesDirectory
        self.update = update
        self.dryRun = dryRun
        self.strict = strict
        self.progress = progress
    }
}

/// How far an import has got.
public struct ImportProgress: Sendable {
    /// How many records pass between two reports.
    public static let interval = 2048

    /// Records read and handled so far.
    public var records: Int
    /// Bytes of the file the parser has consumed (a little ahead of
    /// ``records``).
    public var bytesRead: Int
    /// The file's size, when known.
    public var totalBytes: Int?
    /// True for the last report, once every record is handled (the
    /// commit may still follow).
    public var isFinished: Bool
}
