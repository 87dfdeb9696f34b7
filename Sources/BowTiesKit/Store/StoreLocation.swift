import Foundation

/// Where the catalog lives: `--store PATH`, else `$BOWTIES_STORE`, else
/// `$XDG_DATA_HOME/bowties/catalog.sqlite` (by default
/// `~/.local/share/bowties/catalog.sqlite`).
///
/// Either may also be the address of a PostgreSQL database,
/// `postgresql://USER@HOST:PORT/DB?sslmode=…` (or `postgres://`): the
/// location is then that URL, as libpq reads it (``isAddress(_:)``,
/// ``StoreAddress``).
public enum StoreLocation {
    public static let fileName = "catalog.sqlite"

    /// Resolves the store's path.
    /// - Parameter explicit: The `--store` option, when given.
    public static func resolve(explicit: String?) -> URL {
        // `--store` wins: the environment, a dictionary of every variable
        // (0.37 M instructions at each start), is read only without it.
        if let explicit, !explicit.isEmpty { return location(explicit) }
        return resolve(explicit: nil, environment: ProcessInfo.processInfo.environment)
    }

    /// ``resolve(explicit:)`` with `environment` in place of the process's
    /// (a parameter for tests).
    public static func resolve(explicit: String?, environment: [String: String]) -> URL {
        if let explicit, !explicit.isEmpty { return location(explicit) }
        if let path = environment["BOWTIES_STORE"], !path.isEmpty { return location(path) }
        let dataHome: URL
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            dataHome = URL(fileURLWithPath: xdg, isDirectory: true)
        } else {
            let home =
                environment["HOME"].map { URL(fileURLWithPath: $0, isDirectory: true) }
                ?? FileManager.default.homeDirectoryForCurrentUser
            dataHome = home.appendingPathComponent(".local/share", isDirectory: true)
        }
        return dataHome.appendingPathComponent("bowties", isDirectory: true)
            .appendingPathComponent(fileName)
    }

    /// True when `text` is a PostgreSQL address (`postgresql://…` or
    /// `postgres://…`, the two schemes libpq reads) rather than a path.
    public static func isAddress(_ text: String) -> Bool {
        text.hasPrefix("postgresql://") || text.hasPrefix("postgres://")
    }

    /// A path as a standardized file URL; an address as the URL it is
    /// (characters a URL may not hold percent-encoded, which libpq
    /// decodes again).
    private static func location(_ text: String) -> URL {
        guard isAddress(text) else { return fileLocation(text) }
        if let url = URL(string: text) { return url }
        let allowed = CharacterSet.urlQueryAllowed.union(.urlHostAllowed).subtracting(CharacterSet(charactersIn: " "))
        return text.addingPercentEncoding(withAllowedCharacters: allowed).flatMap(URL.init(string:))
            ?? URL(fileURLWithPath: text).standardizedFileURL
    }

    /// `URL(fileURLWithPath:).standardizedFileURL`, which removes `.` and
    /// `..` segments, and a doubled or trailing `/`. An absolute path with
    /// none of them is standard already: its URL is made directly, since
    /// `standardizedFileURL`'s first use in a process costs 0.45 M
    /// instructions (Foundation builds a set of characters), a tenth of
    /// what `show` takes beyond the sqlite3 shell.
    static func fileLocation(_ path: String) -> URL {
        let isStandard =
            path.hasPrefix("/") && path.count > 1 && !path.hasSuffix("/") && !path.contains("//")
            && !path.split(separator: "/").contains { $0 == "." || $0 == ".." }
        return isStandard ? URL(fileURLWithPath: path) : URL(fileURLWithPath: path).standardizedFileURL
    }
}
