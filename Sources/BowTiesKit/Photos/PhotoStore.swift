import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The folder of external photo files beside a store, Core Data's
/// `.<Store>_SUPPORT/_EXTERNAL_DATA/`.
///
/// Each file is named by the SHA-256 of its bytes, so identical photos are
/// stored once and a file's name verifies its contents. Files are written
/// to a temporary name, flushed and renamed; the catalog decides when a
/// file may be created or removed (always while it holds the store's write
/// lock, so two processes never race over one file).
struct PhotoStore: Sendable {
    let directory: URL

    /// The folder for the store at `storeURL`.
    init(storeURL: URL) {
        let base = storeURL.deletingPathExtension().lastPathComponent
        directory = storeURL.deletingLastPathComponent()
            .appendingPathComponent(".\(base)_SUPPORT", isDirectory: true)
            .appendingPathComponent("_EXTERNAL_DATA", isDirectory: true)
    }

    /// The file for `sha256`, whether or not it exists. (Always a file's
    /// URL: without `isDirectory`, Foundation would ask the disk and name
    /// a folder squatting there with a trailing slash.)
    func url(forSHA256 sha256: String) -> URL {
        directory.appendingPathComponent(sha256, isDirectory: false)
    }

    func exists(sha256: String) -> Bool {
        FileManager.default.fileExists(atPath: url(forSHA256: sha256).path)
    }

    /// Writes `data` under its hash unless a file of that name and size is
    /// already there.
    ///
    /// - Returns: True when this call created the file (the caller removes
    ///   it again if its transaction fails).
    /// - Throws: ``CatalogError`` `.storeIO`.
    func store(_ data: Data, sha256: String) throws -> Bool {
        let destination = url(forSHA256: sha256)
        if let size = fileSize(destination), size == data.count { return false }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let file = try AtomicFile(destination: destination, permissions: 0o444)
            try file.write(data)
            try file.commit()
        } catch let error as CatalogError {
            throw CatalogError(.storeIO, "cannot store photo file: \(error.message)")
        } catch {
            throw CatalogError(.storeIO, "cannot create \(directory.path): \(error.localizedDescription)")
        }
        return true
    }

    /// Reads a photo file and checks it against its SHA-256.
    ///
    /// - Parameter info: What the catalog recorded about the photo.
    /// - Returns: The bytes, or what is wrong with the file: missing,
    ///   not a regular file, unreadable, or holding other bytes.
    func read(_ info: PhotoInfo) -> Result<Data, PhotoProblem> {
        let source = url(forSHA256: info.sha256)
        var status = stat()
        guard stat(source.path, &status) == 0 else {
            let reason = errno
            return .failure(
                reason == ENOENT || reason == ENOTDIR
                    ? PhotoProblem(.missingFile, file: source)
                    : PhotoProblem(.unreadableFile, file: source, detail: String(cString: strerror(reason))))
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            return .failure(PhotoProblem(.damagedFile, file: source, detail: "not a regular file"))
        }
        let data: Data
        do {
            data = try Data(contentsOf: source)
        } catch {
            return .failure(PhotoProblem(.unreadableFile, file: source, detail: error.localizedDescription))
        }
        if let problem = PhotoProblem.verify(data, against: info, file: source) { return .failure(problem) }
        return .success(data)
    }

    /// Removes the file for `sha256`, if any.
    func remove(sha256: String) {
        if unlink(url(forSHA256: sha256).path) == 0 {
            syncDirectory(directory)
        }
    }

    /// Names of the photo files present (not temporary files).
    func storedHashes() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }
    }

    private func fileSize(_ url: URL) -> Int? {
        var info = stat()
        guard stat(url.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int(info.st_size)
    }
}
