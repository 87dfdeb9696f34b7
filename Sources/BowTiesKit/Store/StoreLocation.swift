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
    /// - Parameters:
    ///   - explicit: The `--store` option, when given.
    ///   - environment: The process environment (a parameter for tests).
    public static func resolve(
        explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> URL {
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
        guard isAddress(text) else { return URL(fileURLWithPath: text).standardizedFileURL }
        if let url = URL(string: text) { return url }
        let allowed = CharacterSet.urlQueryAllowed.union(.urlHostAllowed).subtracting(CharacterSet(charactersIn: " "))
        return text.addingPercentEncoding(withAllowedCharacters: allowed).flatMap(URL.init(string:))
            ?? URL(fileURLWithPath: text).standardizedFileURL
    }
}
