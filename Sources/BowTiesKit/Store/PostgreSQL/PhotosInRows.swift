import Foundation

/// The photo store of a PostgreSQL catalog: none. Every photo's bytes
/// live in `blob.data` (machines that share a database share no folder),
/// so the store is never asked to write a file, and has none to read,
/// list or remove.
struct PhotosInRows: PhotoStore {
    var directory: URL? { nil }
    func url(forSHA256 sha256: String) -> URL? { nil }

    func store(_ data: Data, sha256: String) throws -> Bool {
        throw CatalogError(.storeIO, "a PostgreSQL catalog keeps every photo in the database, never in a file")
    }

    func read(_ info: PhotoInfo) -> Result<Data, PhotoProblem> {
        .failure(PhotoProblem(.damagedInline, detail: "the row says its bytes are in a file; a PostgreSQL catalog keeps none"))
    }

    func remove(sha256: String) {}
    func storedHashes() -> [String] { [] }
}
