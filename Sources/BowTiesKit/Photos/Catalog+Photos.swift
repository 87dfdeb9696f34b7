import Foundation

#if canImport(Glibc)
    import Glibc
#endif

extension Catalog {
    /// A tie's photo read back and checked against its SHA-256: its bytes,
    /// or what is wrong with them.
    ///
    /// A damaged photo is an answer, not an error, so that a command can
    /// still show everything else about the tie:
    ///
    /// ```swift
    /// switch try catalog.readPhoto(of: tie) {
    /// case nil: print("no photo")
    /// case .success(let data)?: print(ImageFormat(data: data))
    /// case .failure(let problem)?: print(problem, problem.hint)
    /// }
    /// ```
    ///
    /// - Returns: nil when the tie has no photo.
    /// - Throws: ``CatalogError`` only when the store itself cannot be read.
    public func readPhoto(of tie: BowTie) throws -> Result<Data, PhotoProblem>? {
        guard tie.photo?.storage == .inline else { return try readPhoto(of: tie, nil) }
        return try read { db in try readPhoto(of: tie, db) }
    }

    /// ``readPhoto(of:)`` in the caller's read transaction (`db`; nil when
    /// the photo is not inline): for a command that reads photos among
    /// other rows of one snapshot (`report`).
    func readPhoto(of tie: BowTie, _ db: (any StoreSession)?) throws -> Result<Data, PhotoProblem>? {
        guard let info = tie.photo else { return nil }
        switch info.storage {
        case .external:
            return photos.read(info)
        case .inline:
            guard let db else { return try readPhoto(of: tie) }
            let data = try mapErrors {
                try Data.fetchOne(
                    db, sql: "SELECT data FROM \(Self.blobTable) WHERE sha256 = ?", arguments: [info.sha256])
            }
            guard let data else { return .failure(PhotoProblem(.damagedInline, detail: "its bytes are missing")) }
            if let problem = PhotoProblem.verify(data, against: info, file: nil) { return .failure(problem) }
            return .success(data)
        }
    }

    /// The bytes of a tie's photo, read from the row or from its file and
    /// checked against its SHA-256.
    ///
    /// - Returns: nil when the tie has no photo.
    /// - Throws: ``CatalogError`` `.photoUnavailable` when the photo is
    ///   missing or damaged (``PhotoProblem/error(for:)``: the words
    ///   ``readPhoto(of:)`` gives), or when the store cannot be read.
    public func photoData(for tie: BowTie) throws -> Data? {
        switch try readPhoto(of: tie) {
        case nil: return nil
        case .success(let data)?: return data
        case .failure(let problem)?: throw problem.error(for: tie)
        }
    }

    /// The path of an external photo's file (nil for inline photos).
    public func photoFileURL(for tie: BowTie) -> URL? {
        guard let info = tie.photo, info.storage == .external else { return nil }
        return photos.url(forSHA256: info.sha256)
    }
}

extension Catalog {
    /// Writes a tie's photo to `url` atomically (a whole file or none).
    /// - Returns: The number of bytes written.
    /// - Throws: ``CatalogError`` `.photoUnavailable`, `.cannotCreateOutput`,
    ///   `.noSuchRecord` when the tie has no photo.
    @discardableResult
    public func writePhoto(of tie: BowTie, to url: URL) throws -> Int {
        guard let data = try photoData(for: tie) else {
            throw CatalogError(.noSuchRecord, "\(tie.label) has no photo")
        }
        let file = try AtomicFile(destination: url)
        try file.write(data)
        try file.commit()
        return data.count
    }

    /// Reads a photo file the user wants to store.
    /// - Throws: ``CatalogError`` `.inputNotFound`, or `.invalidInput` for
    ///   something that is not a regular file or is too large.
    public static func readPhotoFile(at url: URL) throws -> Data {
        guard let real = ImageResolver.realPath(url.path) else {
            throw CatalogError(.inputNotFound, "no photo file at \(url.path)")
        }
        var info = stat()
        guard stat(real, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw CatalogError(.invalidInput, "\(url.path) is not a regular file")
        }
        guard Int(info.st_size) <= ImageResolver.maximumPhotoSize else {
            throw CatalogError(
                .invalidInput,
                "\(url.path) is \(info.st_size) bytes, more than the \(ImageResolver.maximumPhotoSize / 1_048_576) MiB a photo may have"
            )
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: real))
        } catch {
            throw CatalogError(.inputNotFound, "cannot read \(url.path): \(error.localizedDescription)")
        }
        if let refusal = ImageFormat.refusal(of: data) {
            throw CatalogError(.invalidInput, "\(url.path) \(refusal)", hint: ImageFormat.acceptedHint)
        }
        return data
    }
}
