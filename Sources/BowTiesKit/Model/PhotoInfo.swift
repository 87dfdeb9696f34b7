/// What the catalog knows about a stored photo without reading its bytes.
public struct PhotoInfo: Sendable, Equatable {
    /// Where the bytes are kept.
    public enum Storage: String, Sendable {
        /// In the database row (photos up to the store's threshold).
        case inline
        /// In a file beside the store, named by the SHA-256 of its contents.
        case external
    }

    public var byteCount: Int
    /// Lower-case hexadecimal SHA-256 of the photo's bytes.
    public var sha256: String
    public var storage: Storage

    public init(byteCount: Int, sha256: String, storage: Storage) {
        self.byteCount = byteCount
        self.sha256 = sha256
        self.storage = storage
    }
}
