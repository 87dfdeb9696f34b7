import Foundation

#if canImport(Glibc)
    import Glibc
#endif

extension StoreLocation {
    /// Why this user cannot use the store at `store`, in words that say
    /// what to do: the catalog or its folder is not writable by this user
    /// (exit 77), or sits on a read-only file system.
    ///
    /// SQLite only says "attempt to write a readonly database" or "unable
    /// to open database file". It needs to write the catalog file and,
    /// for its journal (`-wal`, `-shm`), the folder that holds it; a new
    /// catalog needs a folder it may create files in.
    ///
    /// ```
    /// cannot change the catalog at /srv/ties/catalog.sqlite: the folder /srv/ties is not writable by this user (nobody)
    /// ```
    ///
    /// - Returns: nil when every file and folder is writable (the failure
    ///   is something else).
    static func accessProblem(store: URL) -> CatalogError? {
        let manager = FileManager.default
        let exists = manager.fileExists(atPath: store.path)
        let verb = exists ? "change" : "create"
        // The folder that must take new files: the store's own, or the
        // nearest one that exists when it is still to be created.
        var folder = store.deletingLastPathComponent()
        while !manager.fileExists(atPath: folder.path), folder.path != "/" {
            folder.deleteLastPathComponent()
        }
        var candidates: [(path: String, isFolder: Bool)] = []
        if exists {
            candidates.append((store.path, false))
            for suffix in ["-wal", "-shm"] where manager.fileExists(atPath: store.path + suffix) {
                candidates.append((store.path + suffix, false))
            }
        }
        candidates.append((folder.path, true))
        for candidate in candidates {
            let mode = candidate.isFolder ? W_OK | X_OK : R_OK | W_OK
            guard access(candidate.path, mode) != 0 else { continue }
            let reason = errno
            let what = candidate.isFolder ? "the folder \(candidate.path)" : "the file \(candidate.path)"
            if reason == EROFS {
                return CatalogError(
                    .storeIO,
                    "cannot \(verb) the catalog at \(store.path): \(what) is on a read-only file system",
                    hint: "Commands that only read (list, show, export) work as they are; "
                        + "to change the catalog, copy it to a writable disk and use --store PATH.")
            }
            guard reason == EACCES || reason == EPERM else { continue }
            let hint =
                exists
                ? (candidate.isFolder
                    ? "SQLite writes its journal beside the catalog, so its folder must be writable too. " : "")
                    + "Ask the owner for write access, or copy the catalog to a folder of yours and use "
                    + "--store PATH; commands that only read (list, show, export) work as they are."
                : "Choose a folder you can write with --store PATH or $BOWTIES_STORE."
            return CatalogError(
                .permissionDenied,
                "cannot \(verb) the catalog at \(store.path): \(what) is not writable by this user (\(userName))",
                hint: hint)
        }
        return nil
    }

    /// The name of the user this process runs as (`nobody`), else its uid.
    static var userName: String {
        let uid = geteuid()
        guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return "uid \(uid)" }
        return String(cString: name)
    }
}
