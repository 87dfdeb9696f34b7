import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Where a store keeps the bytes of photos too large for its rows (the
/// `blob` rows marked `external`), one file per SHA-256: the part of the
/// store face (``CatalogStore/photos``) that holds files.
///
/// ``PhotoFolder`` is the SQLite store's. A store that keeps every photo
/// in its rows (a PostgreSQL catalog, shared between machines that share
/// no folder) has a conformer with no ``directory``: it is never asked to
/// store a file, and has none to read, list or remove.
protocol PhotoStore: Sendable {
    /// The folder holding the files, or nil when the store keeps none.
    var directory: URL? { get }
    /// The file for `sha256`, whether or not it exists (nil when the
    /// store keeps no files).
    func url(forSHA256 sha256: String) -> URL?
    /// Writes `data` under its hash unless a file of that name and size
    /// is already there.
    ///
    /// - Returns: True when this call created the file (the caller removes
    ///   it again if its transaction fails).
    /// - Throws: ``CatalogError`` `.storeIO`.
    func store(_ data: Data, sha256: String) throws -> Bool
    /// Reads a photo file and checks it against its SHA-256.
    ///
    /// - Parameter info: What the catalog recorded about the photo.
    /// - Returns: The bytes, or what is wrong with the file: missing,
    ///   not a regular file, unreadable, or holding other bytes.
    func read(_ info: PhotoInfo) -> Result<Data, PhotoProblem>
    /// Removes the file for `sha256`, if any.
    func remove(sha256: String)
    /// Names of the photo files present (not temporary files).
    func storedHashes() -> [String]
}

/// The folder of external photo files beside an SQLite store, Core Data's
/// `.<Store>_SUPPORT/_EXTERNAL_DATA/`.
///
/// Each file is named by the SHA-256 of its bytes, so identical photos are
/// stored once and a file's name verifies its contents. Files are written
/// to a temporary name, flushed and renamed; the catalog decides when a
/// file may be created or removed (always while it holds the store's write
/// lock, so two processes never race over one file).
struct PhotoFolder: PhotoStore {
    let folder: URL
    var directory: URL? { folder }

    /// The folder for the store at `storeURL`.
    init(storeURL: URL) {
        if let (folderPath, base) = Self.plainName(storeURL) {
            // Every store opens this: by its path's text, without the
            // `URL` calls below, whose first in a process costs a scan of
            // every protocol conformance (``URL/fileSystemPath``).
            folder = URL(
                fileURLWithPath: (folderPath == "/" ? "" : folderPath) + "/.\(base)_SUPPORT/_EXTERNAL_DATA",
                isDirectory: true)
            return
        }
        let base = storeURL.deletingPathExtension().lastPathComponent
        folder = storeURL.deletingLastPathComponent()
            .appendingPathComponent(".\(base)_SUPPORT", isDirectory: true)
            .appendingPathComponent("_EXTERNAL_DATA", isDirectory: true)
    }

    /// The store's folder and its name without the extension, when the
    /// name is plain: it does not start with a dot and ends in a dot and
    /// letters or digits only (`bowties.sqlite`), the case where
    /// `deletingPathExtension()` takes exactly that last part. Nil for any
    /// other name, which Foundation's rules decide.
    static func plainName(_ storeURL: URL) -> (folder: String, base: String)? {
        let name = storeURL.fileSystemName
        guard name.utf8.first != UInt8(ascii: "."), let dot = name.utf8.lastIndex(of: UInt8(ascii: ".")),
            dot != name.utf8.startIndex
        else { return nil }
        let suffix = name.utf8[name.utf8.index(after: dot)...]
        guard !suffix.isEmpty,
            suffix.allSatisfy({ byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                    || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            })
        else { return nil }
        return (storeURL.fileSystemFolder, String(name[..<dot]))
    }

    /// The file for `sha256`, whether or not it exists. (Always a file's
    /// URL: without `isDirectory`, Foundation would ask the disk and name
    /// a folder squatting there with a trailing slash.)
    func url(forSHA256 sha256: String) -> URL? { file(sha256) }

    private func file(_ sha256: String) -> URL {
        folder.appendingPathComponent(sha256, isDirectory: false)
    }

    func store(_ data: Data, sha256: String) throws -> Bool {
        let destination = file(sha256)
        if let size = fileSize(destination), size == data.count { return false }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let file = try AtomicFile(destination: destination, permissions: 0o444)
            try file.write(data)
            try file.commit()
        } catch let error as CatalogError {
            throw CatalogError(.storeIO, "cannot store photo file: \(error.message)")
        } catch {
            throw CatalogError(.storeIO, "cannot create \(folder.path): \(error.localizedDescription)")
        }
        return true
    }

    func read(_ info: PhotoInfo) -> Result<Data, PhotoProblem> {
        let source = file(info.sha256)
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

    func remove(sha256: String) {
        if unlink(file(sha256).path) == 0 {
            syncDirectory(folder)
        }
    }

    func storedHashes() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }
    }

    private func fileSize(_ url: URL) -> Int? {
        var info = stat()
        guard stat(url.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int(info.st_size)
    }
}
