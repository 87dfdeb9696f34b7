import BowTiesKit
import Foundation

/// A tie's photo as `show` and `photo` describe it: read back and checked
/// against its SHA-256, so that a damaged photo is described (and warned
/// about) instead of hiding the whole tie.
///
/// ```swift
/// let photo = try CheckedPhoto(of: tie, in: catalog)
/// photo?.warnIfDamaged(tie)
/// Output.line(photo?.line ?? "Photo: none")
/// ```
struct CheckedPhoto {
    /// What the catalog records about the photo.
    var info: PhotoInfo
    /// The external file, nil for a photo stored inside the catalog.
    var file: URL?
    /// `PNG`, `JPEG`, … (`unknown` for other bytes); nil when the bytes
    /// could not be read.
    var type: String?
    /// What is wrong with the photo; nil when it is intact.
    var problem: PhotoProblem?

    /// Reads the photo of `tie`.
    ///
    /// - Returns: nil when the tie has no photo.
    /// - Throws: ``CatalogError`` when the store cannot be read; never for
    ///   a missing or damaged photo, which ends up in ``problem``.
    init?(of tie: BowTie, in catalog: Catalog) throws {
        guard let info = tie.photo, let reading = try catalog.readPhoto(of: tie) else { return nil }
        self.info = info
        file = catalog.photoFileURL(for: tie)
        switch reading {
        case .success(let data): type = ImageFormat(data: data).rawValue
        case .failure(let problem): self.problem = problem
        }
    }

    /// The photo line of `show` and `photo`:
    /// `Photo: PNG image, 16,698 bytes, stored inline`, or, when the photo
    /// is damaged, the problem in the words every command uses:
    /// `Photo: missing file /…/108a… (run `bowties check --repair`)`.
    var line: String {
        if let problem {
            return "Photo: \(problem) (run `bowties check --repair`)"
        }
        let place = file.map { "external file \($0.path)" } ?? "stored inline"
        return "Photo: \(type ?? "unknown") image, \(Output.grouped(info.byteCount)) bytes, \(place)"
    }

    /// Warns on standard error when the photo is damaged, with the message
    /// and hint of the error `photo --output` exits with.
    func warnIfDamaged(_ tie: BowTie) {
        guard let problem else { return }
        Output.warning(problem.error(for: tie).description)
    }
}
