import Foundation

/// Why a tie's photo cannot be read back: its file is missing, damaged or
/// unreadable, or the bytes stored inside the catalog no longer match
/// their SHA-256.
///
/// A damaged photo hides nothing else about its tie: commands that show a
/// tie print this in place of the photo's description and carry on, and
/// only a command that must return the bytes (`photo --output`) fails, with
/// the same words (``error(for:)``):
///
/// ```
/// Photo: missing file /ties/.catalog_SUPPORT/_EXTERNAL_DATA/108a… (run `bowties check --repair`)
/// bowties: warning: the photo of B "Midnight Blue Silk": missing file /ties/…/108a…
/// hint: Restore the file from a backup, or run `bowties check --repair` to set the photo to none.
/// ```
///
/// `bowties check` finds the same problems (for every photo at once), and
/// `check --repair` clears them.
public struct PhotoProblem: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, and so which ``hint`` applies.
    public enum Kind: Sendable {
        /// The external file does not exist.
        case missingFile
        /// The external file's bytes do not match its SHA-256, or it is not
        /// a regular file.
        case damagedFile
        /// The external file exists but cannot be read (permissions, I/O).
        case unreadableFile
        /// The bytes stored inside the catalog do not match their SHA-256,
        /// or are gone.
        case damagedInline
    }

    public var kind: Kind
    /// The external file, or nil for a photo stored inside the catalog.
    public var file: URL?
    /// What is wrong, after the kind's words: `SHA-256 does not match`.
    public var detail: String?

    public init(_ kind: Kind, file: URL? = nil, detail: String? = nil) {
        self.kind = kind
        self.file = file
        self.detail = detail
    }

    /// The words every command prints for this problem: `missing file
    /// /…/108a…`, `damaged file /…/108a…: SHA-256 does not match`,
    /// `damaged photo inside the catalog: truncated, 12 of 16698 bytes`.
    public var description: String {
        let subject: String
        switch kind {
        case .missingFile: subject = "missing file"
        case .damagedFile: subject = "damaged file"
        case .unreadableFile: subject = "unreadable file"
        case .damagedInline: subject = "damaged photo inside the catalog"
        }
        let text = file.map { "\(subject) \($0.path)" } ?? subject
        return detail.map { "\(text): \($0)" } ?? text
    }

    /// What the user can do about it. Every hint names
    /// `bowties check --repair`, which sets the photo of the ties that use
    /// it to none and leaves every other field alone.
    public var hint: String {
        switch kind {
        case .missingFile, .damagedFile:
            "Restore the file from a backup, or run `bowties check --repair` to set the photo to none."
        case .unreadableFile:
            "Make the file readable, or run `bowties check --repair` to set the photo to none."
        case .damagedInline:
            "Run `bowties check --repair` to set the photo to none."
        }
    }

    /// The error of a command that needs the photo's bytes (and so cannot
    /// carry on): kind `.photoUnavailable`, this problem's words and hint.
    ///
    /// ```
    /// the photo of B "Midnight Blue Silk": missing file /ties/…/108a…
    /// hint: Restore the file from a backup, or run `bowties check --repair` to set the photo to none.
    /// ```
    public func error(for tie: BowTie) -> CatalogError {
        CatalogError(.photoUnavailable, "the photo of \(tie.label): \(description)", hint: hint)
    }

    /// Checks bytes read back against the photo's SHA-256.
    ///
    /// - Parameters:
    ///   - data: The bytes read.
    ///   - info: What the catalog recorded about the photo.
    ///   - file: The external file the bytes came from, if any.
    /// - Returns: nil when the bytes are the photo; else a
    ///   ``Kind/damagedFile`` or ``Kind/damagedInline`` problem that says
    ///   how they differ.
    static func verify(_ data: Data, against info: PhotoInfo, file: URL?) -> PhotoProblem? {
        // The hash decides: a wrong recorded size with the right bytes is
        // for `check` to correct, not a reason to withhold the photo.
        guard data.sha256Hex != info.sha256 else { return nil }
        let detail =
            data.count < info.byteCount
            ? "truncated, \(data.count) of \(info.byteCount) bytes"
            : "SHA-256 does not match"
        return PhotoProblem(file == nil ? .damagedInline : .damagedFile, file: file, detail: detail)
    }
}
