import Foundation
import PropertyList

#if canImport(Glibc)
    import Glibc
#endif

/// Finds the photo files that records name, inside one images folder and
/// nowhere else.
///
/// A name is tried as written, then with `.png` added. A name is a file
/// name directly in the folder: one that is absolute, is `..`, holds a
/// path separator (`/`), or resolves (through symbolic links) outside the
/// folder is refused; so is anything that is not a regular file or is
/// larger than ``maximumPhotoSize``.
///
/// The refusals that look at the name alone do not depend on the folder
/// or the store, so a file gets the same verdict wherever it is imported.
struct ImageResolver {
    /// The largest photo accepted (a guard against mistakes such as naming
    /// a disk image, not a limit of the store).
    static let maximumPhotoSize = 64 * 1024 * 1024

    /// The longest image name accepted, in bytes: Linux's `PATH_MAX`.
    static let maximumNameLength = 4096

    let directory: URL
    /// The folder's real path, or nil when it does not exist.
    let canonicalDirectory: String?

    enum Resolution {
        case found(path: String)
        case missing(tried: [String])
    }

    /// - Throws: ``CatalogError`` `.inputNotFound` when a folder the user
    ///   named explicitly does not exist.
    init(directory: URL, explicit: Bool) throws {
        self.directory = directory
        canonicalDirectory = Self.realPath(directory.path)
        if explicit, canonicalDirectory == nil || !Self.isDirectory(directory.path) {
            throw CatalogError(.inputNotFound, "the images folder \(directory.path) does not exist")
        }
    }

    /// Resolves `name`, or explains why it is refused.
    /// - Throws: a message (the caller locates it).
    func resolve(_ name: String) throws(ImageRefusal) -> Resolution {
        guard !name.isEmpty else { throw ImageRefusal("the image name is empty") }
        // No path that long resolves (PATH_MAX); refusing it here also keeps
        // a name of megabytes out of the messages below.
        guard name.utf8.count <= Self.maximumNameLength else {
            throw ImageRefusal(
                "image name is \(name.utf8.count) bytes long, more than the \(Self.maximumNameLength) a path may have")
        }
        let quoted = AttributeValue.string(name).messageText
        guard !name.hasPrefix("/") else {
            throw ImageRefusal("image name \(quoted) is absolute; names are relative to \(directory.path)")
        }
        guard !name.split(separator: "/", omittingEmptySubsequences: false).contains("..") else {
            throw ImageRefusal("image name \(quoted) leaves the images folder (\"..\")")
        }
        // Names are file names. Refused on the name alone, a subfolder gets
        // the same verdict whether or not it exists where the file is
        // imported, before anything is looked up.
        guard !name.contains("/") else {
            throw ImageRefusal(
                "image name \(quoted) contains a path separator (\"/\"); names are file names directly in \(directory.path)"
            )
        }
        guard !name.utf8.contains(0) else { throw ImageRefusal("image name contains a NUL character") }
        let candidates = [name] + (name.hasSuffix(".png") ? [] : [name + ".png"])
        guard let root = canonicalDirectory else {
            return .missing(tried: candidates.map { directory.appendingPathComponent($0).path })
        }
        for candidate in candidates {
            let path = directory.appendingPathComponent(candidate).path
            guard let real = Self.realPath(path) else { continue }
            guard real.hasPrefix(root + "/") else {
                throw ImageRefusal(
                    "image \"\(candidate)\" resolves to \(real), outside the images folder \(root)")
            }
            var info = stat()
            guard stat(real, &info) == 0 else { continue }
            guard (info.st_mode & S_IFMT) == S_IFREG else {
                let kind = (info.st_mode & S_IFMT) == S_IFDIR ? "a directory" : "not a regular file"
                throw ImageRefusal("image \"\(candidate)\" is \(kind)")
            }
            guard Int(info.st_size) <= Self.maximumPhotoSize else {
                throw ImageRefusal(
                    "image \"\(candidate)\" is \(info.st_size) bytes, more than the \(Self.maximumPhotoSize / 1_048_576) MiB a photo may have"
                )
            }
            return .found(path: real)
        }
        return .missing(tried: candidates.map { directory.appendingPathComponent($0).path })
    }

    /// Reads a photo that ``resolve(_:)`` found, checking again on the
    /// open file: the file may have been replaced since (by a FIFO that
    /// would block, a symbolic link, or something larger).
    ///
    /// Opened with `O_NOFOLLOW | O_NONBLOCK`, checked with `fstat` (a
    /// regular file of at most ``maximumPhotoSize`` bytes), and read
    /// through that descriptor, never more than the limit.
    /// - Throws: ``ImageRefusal`` with the reason.
    static func read(_ path: String) throws(ImageRefusal) -> Data {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw ImageRefusal("cannot read image \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw ImageRefusal("image \(path) is not a regular file")
        }
        guard Int(info.st_size) <= maximumPhotoSize else {
            throw ImageRefusal(
                "image \(path) is \(info.st_size) bytes, more than the \(maximumPhotoSize / 1_048_576) MiB a photo may have")
        }
        // One byte more than the limit, to notice a file that grew.
        var data = Data(count: Int(info.st_size) + 1)
        var total = 0
        let failed: Bool = data.withUnsafeMutableBytes { buffer in
            guard let base = buffer.baseAddress else { return false }
            while total < buffer.count {
                let count = Glibc.read(descriptor, base + total, buffer.count - total)
                if count < 0 {
                    if errno == EINTR { continue }
                    return true
                }
                if count == 0 { break }
                total += count
            }
            return false
        }
        guard !failed else {
            throw ImageRefusal("cannot read image \(path): \(String(cString: strerror(errno)))")
        }
        guard total <= Int(info.st_size), total <= maximumPhotoSize else {
            throw ImageRefusal("image \(path) changed while it was read")
        }
        data.count = total
        return data
    }

    /// Every photo file directly in the folder, by the SHA-256 of its
    /// bytes (the first name, in name order, for bytes two files share):
    /// how a photo an export gives by its hash alone is found among the
    /// images it was made from. Each name passes ``resolve(_:)``'s
    /// checks; a name that fails them, or cannot be read, is skipped.
    /// At most ``maximumHashedFiles`` files are hashed.
    func filesByHash() -> [String: String] {
        guard canonicalDirectory != nil,
            let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path)
        else { return [:] }
        var files: [String: String] = [:]
        for name in names.sorted().prefix(Self.maximumHashedFiles) where !name.hasPrefix(".") {
            guard case .found(let path)? = try? resolve(name), let bytes = try? Self.read(path) else { continue }
            let sha256 = bytes.sha256Hex
            if files[sha256] == nil { files[sha256] = path }
        }
        return files
    }

    /// How many files ``filesByHash()`` reads at most.
    static let maximumHashedFiles = 10_000

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }
}

/// Why an image name was refused.
struct ImageRefusal: Error {
    var message: String
    init(_ message: String) { self.message = message }
}
