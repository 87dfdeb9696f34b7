import CoreDataStore
import Foundation
import PropertyList

#if canImport(Glibc)
    import Glibc
#endif

/// What `bowties import` reads: a file, or standard input (`-`).
public enum ImportInput: Sendable {
    case file(URL)
    /// Streamed for JSON, JSON Lines and CSV; a property list, which its
    /// readers need as a file, is first copied to a temporary file that
    /// is removed afterwards.
    case standardInput

    /// The name locations and messages show.
    public var displayName: String {
        switch self {
        case .file(let url): url.lastPathComponent
        case .standardInput: "stdin"
        }
    }

    /// An input opened for reading: its first bytes, its format, and
    /// either a file to read or a descriptor to stream.
    final class Opened {
        let displayName: String
        let prefix: [UInt8]
        let format: ImportFormat
        /// The size, when known.
        let size: Int?
        let defaultImagesDirectory: URL
        /// Standard input, when it is streamed.
        let descriptor: Int32?
        /// The Core Data store, opened to tell it from other SQLite files.
        let coreDataStore: CoreDataStore?
        private let url: URL?
        /// A temporary copy of standard input, removed by ``close()``.
        private let temporary: URL?

        init(_ input: ImportInput, format forced: ImportFormat?, columns: [String]) throws {
            displayName = input.displayName
            switch input {
            case .file(let url):
                let (bytes, size) = try PropertyListFormat.prefix(
                    of: url, count: ImportFormat.sniffLength, displayName: input.displayName)
                prefix = bytes
                self.size = size
                self.url = url
                coreDataStore = try Self.coreDataStore(
                    at: url, prefix: bytes, forced: forced, displayName: input.displayName)
                format =
                    try coreDataStore.map { _ in .coreData } ?? forced
                    ?? ImportFormat.detect(bytes, columns: columns, file: input.displayName)
                // A Core Data store's photos kept outside it are named by
                // their file in its _EXTERNAL_DATA folder.
                defaultImagesDirectory =
                    coreDataStore?.externalDataFolder
                    ?? url.deletingLastPathComponent().appendingPathComponent("Images", isDirectory: true)
                descriptor = nil
                temporary = nil
            case .standardInput:
                let bytes = try Self.readPrefix(of: 0, displayName: input.displayName)
                prefix = bytes
                coreDataStore = nil
                let format = try forced ?? ImportFormat.detect(bytes, columns: columns, file: input.displayName)
                if format == .coreData {
                    throw CatalogError(
                        .invalidInput,
                        "a Core Data store is read from its file (with its -wal and external data), "
                            + "not from standard input")
                }
                self.format = format
                defaultImagesDirectory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
                    .appendingPathComponent("Images", isDirectory: true)
                switch format {
                case .json, .jsonl, .csv, .tsv:
                    descriptor = 0
                    temporary = nil
                    url = nil
                    size = nil
                case .plist, .coreData:
                    let copy = FileManager.default.temporaryDirectory
                        .appendingPathComponent("bowties-stdin-\(UUID().uuidString)")
                    size = try Self.copy(prefix: bytes, descriptor: 0, to: copy, displayName: input.displayName)
                    descriptor = nil
                    temporary = copy
                    url = copy
                }
            }
        }

        /// The file at `url` opened as a Core Data store, when it is an
        /// SQLite database (or `--format coredata` says it is one).
        ///
        /// A store that cannot be read (truncated, damaged) is a Core Data
        /// error located in it; an SQLite database without Core Data's
        /// tables is nil, for ``ImportFormat/detect(_:columns:file:)`` to
        /// refuse (a bowties catalog is opened with --store).
        private static func coreDataStore(
            at url: URL, prefix: [UInt8], forced: ImportFormat?, displayName: String
        ) throws -> CoreDataStore? {
            guard forced == .coreData || forced == nil && prefix.starts(with: Array("SQLite format 3".utf8) + [0])
            else { return nil }
            // A plain `catch` and a test: Swift 6.3 crashes on a typed
            // throw caught with a `where` clause here.
            let store: CoreDataStore
            do {
                store = try CoreDataStore(path: url.path, displayName: displayName)
            } catch {
                if error.kind == .notCoreData, forced == nil { return nil }
                throw error
            }
            return store
        }

        /// The file to read (standard input's copy, for a property list).
        func fileURL() throws -> URL {
            guard let url else { throw CatalogError(.inputNotFound, "\(displayName): no file to read") }
            return url
        }

        func close() {
            if let temporary { try? FileManager.default.removeItem(at: temporary) }
        }

        /// Up to ``ImportFormat/sniffLength`` bytes, stopping early once a
        /// whole first line has arrived (a pipe may be slow).
        private static func readPrefix(of descriptor: Int32, displayName: String) throws -> [UInt8] {
            var bytes = [UInt8](repeating: 0, count: ImportFormat.sniffLength)
            var filled = 0
            while filled < bytes.count {
                let result = bytes.withUnsafeMutableBytes { buffer in
                    read(descriptor, buffer.baseAddress.map { $0 + filled }, buffer.count - filled)
                }
                if result < 0 {
                    if errno == EINTR { continue }
                    throw PropertyListError(
                        .unreadable, "cannot read standard input: \(String(cString: strerror(errno)))",
                        file: displayName)
                }
                if result == 0 { break }
                filled += result
                if bytes[..<filled].contains(0x0A) { break }
            }
            bytes.removeSubrange(filled...)
            return bytes
        }

        /// Writes `prefix` and the rest of `descriptor` to `url`.
        /// - Returns: The bytes written.
        private static func copy(prefix: [UInt8], descriptor: Int32, to url: URL, displayName: String) throws -> Int {
            guard FileManager.default.createFile(atPath: url.path, contents: Data(prefix), attributes: [.posixPermissions: 0o600]),
                let handle = try? FileHandle(forWritingTo: url)
            else {
                throw CatalogError(.cannotCreateOutput, "cannot create a temporary copy of standard input at \(url.path)")
            }
            defer { try? handle.close() }
            try handle.seekToEnd()
            var total = prefix.count
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let result = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if result < 0 {
                    if errno == EINTR { continue }
                    try? FileManager.default.removeItem(at: url)
                    throw PropertyListError(
                        .unreadable, "cannot read standard input: \(String(cString: strerror(errno)))",
                        file: displayName)
                }
                if result == 0 { break }
                try handle.write(contentsOf: chunk[..<result])
                total += result
            }
            return total
        }
    }
}
