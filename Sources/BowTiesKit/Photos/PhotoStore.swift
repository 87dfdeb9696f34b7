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

    func url(forSHA256 sha256: String) -> URL {
        directory.appendingPathComponent(sha256)
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

    /// Reads and verifies a photo file.
    /// - Throws: ``CatalogError`` `.photoUnavailable` when the file is
    ///   missing or its contents no longer match its name.
    func read(sha256: String, record: String) throws -> Data {
        let source = url(forSHA256: sha256)
        guard FileManager.default.fileExists(atPath: source.path) else {
            throw CatalogError(
                .photoUnavailable, "the photo of \(record) is missing: \(source.path) does not exist")
        }
        let data: Data
        do {
            data = try Data(contentsOf: source)
        } catch {
            throw CatalogError(
                .photoUnavailable, "cannot read the photo of \(record) at \(source.path): \(error.localizedDescription)"
            )
        }
        let actual = data.sha256Hex
        guard actual == sha256 else {
            throw CatalogError(
                .photoUnavailable,
                "the photo of \(record) is corrupted: \(source.path) has SHA-256 \(actual), expected \(sha256)")
        }
        return data
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
