import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A runner whose store sits in a folder of its own, apart from the
/// inputs and outputs of the test, so that a ``StoreSnapshot`` of the
/// store's folder sees only what bowties put there.
///
/// ```
/// <folder>/store/catalog.sqlite     the store ($BOWTIES_STORE of every run)
/// <folder>/store/.catalog_SUPPORT/  its photo files
/// <folder>/input/                   files to import, Images/ beside them
/// <folder>/out/                     files commands write (--output)
/// ```
///
/// Not `Sendable`: one test, one workspace.
final class CatalogWorkspace {
    let runner: BowTiesRunner
    let storeURL: URL
    let inputDirectory: URL
    let outputDirectory: URL

    var storeFolder: URL { storeURL.deletingLastPathComponent() }
    var walURL: URL { URL(fileURLWithPath: storeURL.path + "-wal") }
    var shmURL: URL { URL(fileURLWithPath: storeURL.path + "-shm") }
    var lockURL: URL { URL(fileURLWithPath: storeURL.path + "-lock") }
    var photoFolder: URL { storeFolder.appendingPathComponent(".catalog_SUPPORT/_EXTERNAL_DATA", isDirectory: true) }
    var imagesDirectory: URL { inputDirectory.appendingPathComponent("Images", isDirectory: true) }

    /// - Parameter store: The store's folder, inside the runner's.
    init(store: String = "store") throws {
        runner = try BowTiesRunner()
        storeURL = runner.directory.appendingPathComponent("\(store)/catalog.sqlite")
        inputDirectory = runner.directory.appendingPathComponent("input", isDirectory: true)
        outputDirectory = runner.directory.appendingPathComponent("out", isDirectory: true)
        for folder in [storeFolder, inputDirectory, outputDirectory] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
    }

    /// The runner's environment with this workspace's store.
    var environment: [String: String] {
        runner.environment.merging(["BOWTIES_STORE": storeURL.path]) { _, new in new }
    }

    /// Runs `bowties` on this workspace's store (`$BOWTIES_STORE`).
    @discardableResult
    func run(_ arguments: String..., environment overrides: [String: String?] = [:]) throws -> BowTiesResult {
        try run(arguments: arguments, environment: overrides)
    }

    @discardableResult
    func run(arguments: [String], environment overrides: [String: String?] = [:]) throws -> BowTiesResult {
        try runner.run(arguments: arguments, environment: ["BOWTIES_STORE": storeURL.path].merging(overrides) { $1 })
    }

    /// Starts `bowties` on this workspace's store without waiting for it.
    func start(_ arguments: [String], standardError: SpawnedProcess.StandardError = .file) throws -> SpawnedProcess {
        try SpawnedProcess.bowties(
            arguments, runner: runner, environment: ["BOWTIES_STORE": storeURL.path], standardError: standardError)
    }

    /// Imports the sample data with its photos: seven ties, R's photo
    /// inside the store, B's and V's (over 100 KiB) as files.
    func importSampleData() throws {
        let result = try run("import", BowTiesRunner.sampleDataURL.path)
        try #require(result.status == 0, "\(result)")
        try #require(photoFiles().count == 2, "the sample data's two large photos are not files")
    }

    func snapshot() throws -> StoreSnapshot {
        try StoreSnapshot(storeURL: storeURL)
    }

    /// Names in the photo folder, temporary files included.
    func photoFiles() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: photoFolder.path)) ?? []).sorted()
    }

    /// Names in the store's folder, hidden ones included.
    func storeFolderContents() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: storeFolder.path)) ?? []).sorted()
    }

    /// How many times the tie `key` was worn, as `show --json` says.
    func timesWorn(_ key: String) throws -> Int {
        let show = try run("show", key, "--json")
        try #require(show.status == 0, "\(show)")
        let tie = try #require(try show.json() as? [String: Any], "\(show)")
        return try #require(tie["timesWorn"] as? Int, "\(show)")
    }

    /// Writes `text` to `name` in ``inputDirectory``.
    @discardableResult
    func writeInput(_ text: String, to name: String) throws -> URL {
        let url = inputDirectory.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url
    }

    /// Writes a photo of `bytes` bytes of noise to ``imagesDirectory``.
    @discardableResult
    func writePhoto(_ name: String, bytes: Int, seed: UInt64) throws -> URL {
        try GeneratedPlist.writePhoto(named: name, bytes: bytes, seed: seed, in: imagesDirectory)
    }

    /// Records in ``HostileWorkspace/document(_:)``'s template, each a new
    /// tie (`N1`, `N2`...) with a new photo from ``imagesDirectory``:
    /// `new1` (200,000 bytes) and `new2` (300,000 bytes) become files,
    /// `small` (20,000 bytes) stays inside the store. Write the photos
    /// with ``writeNewPhotos()``.
    static func newTies(_ count: Int) -> [[String: String]] {
        (1...count).map { index in
            [
                "id": "<string>\(String(format: "5E1F0A3C-7B2D-4C8E-9F61-%012d", index))</string>",
                "name": "<string>New Tie \(index)</string>",
                "searchKey": "<string>N\(index)</string>",
                "imageName": "<string>\(["new1", "new2", "small"][(index - 1) % 3])</string>",
            ]
        }
    }

    func writeNewPhotos() throws {
        try writePhoto("new1", bytes: 200_000, seed: 101)
        try writePhoto("new2", bytes: 300_000, seed: 102)
        try writePhoto("small", bytes: 20_000, seed: 103)
    }
}

/// Running the binary as a user who may read the catalog but not write it.
///
/// Tests run as root in CI, and root ignores permissions: then the binary
/// runs as `nobody` through `setpriv`, and the catalog belongs to root
/// (folders 0755, files 0644). Otherwise the folders become 0555 and the
/// files 0444.
enum UnwritableCatalog {
    static let nobody: uid_t = 65534

    static var isRoot: Bool { getuid() == 0 }

    /// The launcher for ``BowTiesRunner/launcher``: setpriv as root.
    static var launcher: [String] {
        isRoot ? ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"] : []
    }

    /// Makes the runner's folder, inputs and outputs usable by the user the
    /// binary runs as: the folder and inputs readable, the outputs folder
    /// writable. As root, also makes the binary reachable by nobody (a copy
    /// in the runner's folder when some folder above it is not).
    static func prepare(_ workspace: CatalogWorkspace) throws {
        guard isRoot else { return }
        try setTree(workspace.runner.directory, owner: 0, folderMode: 0o755, fileMode: 0o644)
        try setTree(workspace.outputDirectory, owner: nobody, folderMode: 0o755, fileMode: 0o644)
        var folder = workspace.runner.directory.deletingLastPathComponent()
        while folder.path != "/" {
            try #require(mode(folder) & 0o001 != 0, "nobody cannot reach \(folder.path)")
            folder.deleteLastPathComponent()
        }
        let binary = try BowTiesRunner.executableURL()
        if !reachableByOthers(binary) {
            let copy = workspace.runner.directory.appendingPathComponent("bin/bowties")
            try FileManager.default.createDirectory(
                at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: binary, to: copy)
            try #require(chmod(copy.path, 0o755) == 0)
            try #require(chmod(copy.deletingLastPathComponent().path, 0o755) == 0)
            workspace.runner.executable = copy
        }
        workspace.runner.launcher = launcher
    }

    /// Lets the user the binary runs as write the store, as any user may
    /// write their own catalog.
    static func makeWritable(_ workspace: CatalogWorkspace) throws {
        if isRoot {
            try setTree(workspace.storeFolder, owner: nobody, folderMode: 0o755, fileMode: 0o644)
        } else {
            try setTree(workspace.storeFolder, owner: nil, folderMode: 0o755, fileMode: 0o644)
        }
    }

    /// Takes write permission away: the store, its folder, the photo
    /// folder and the photos can be read, not written.
    static func makeReadOnly(_ workspace: CatalogWorkspace) throws {
        if isRoot {
            try setTree(workspace.storeFolder, owner: 0, folderMode: 0o755, fileMode: 0o644)
        } else {
            try setTree(workspace.storeFolder, owner: nil, folderMode: 0o555, fileMode: 0o444)
        }
    }

    /// Sets owner and modes of `root` and everything under it.
    static func setTree(_ root: URL, owner: uid_t?, folderMode: mode_t, fileMode: mode_t) throws {
        // Children first when taking write permission away from a folder
        // would stop us from changing what is inside: set the folders'
        // modes last.
        var folders: [URL] = [root]
        var files: [URL] = []
        let enumerator = FileManager.default.enumerator(atPath: root.path)
        while let path = enumerator?.nextObject() as? String {
            let url = root.appendingPathComponent(path)
            (mode(url) & S_IFMT == S_IFDIR ? { folders.append(url) } : { files.append(url) })()
        }
        for file in files {
            if let owner { try #require(chown(file.path, owner, owner) == 0, "chown \(file.path)") }
            try #require(chmod(file.path, fileMode) == 0, "chmod \(file.path)")
        }
        for folder in folders.reversed() {
            if let owner { try #require(chown(folder.path, owner, owner) == 0, "chown \(folder.path)") }
            try #require(chmod(folder.path, folderMode) == 0, "chmod \(folder.path)")
        }
    }

    static func mode(_ url: URL) -> mode_t {
        var info = stat()
        return stat(url.path, &info) == 0 ? info.st_mode : 0
    }

    /// Whether a user other than the owner can reach and run `url`.
    static func reachableByOthers(_ url: URL) -> Bool {
        guard mode(url) & 0o005 == 0o005 else { return false }
        var folder = url.deletingLastPathComponent()
        while folder.path != "/" {
            if mode(folder) & 0o001 == 0 { return false }
            folder.deleteLastPathComponent()
        }
        return true
    }
}

extension CatalogWorkspace {
    /// Runs the built `bowties` with `arguments` on a pseudo-terminal
    /// (util-linux `script`), types `input` at it and ends the input.
    /// An empty `input` is the terminal's end-of-file (Ctrl-D).
    ///
    /// - Parameter arguments: Words for `sh -c`, quoted as the caller
    ///   needs (`'rating:4..'`).
    /// - Returns: What the terminal showed, and the exit status.
    func runOnTerminal(_ arguments: [String], typing input: String) throws -> (text: String, status: Int32) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        let command = [try BowTiesRunner.executableURL().path] + arguments
        process.arguments = ["-qec", command.joined(separator: " "), "/dev/null"]
        process.environment = environment
        let typed = Pipe()
        let output = Pipe()
        process.standardInput = typed
        process.standardOutput = output
        process.standardError = output
        try process.run()
        typed.fileHandleForWriting.write(Data(input.isEmpty ? [4] : Array(input.utf8)))
        try typed.fileHandleForWriting.close()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (text, process.terminationStatus)
    }
}
