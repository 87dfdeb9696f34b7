import Foundation

/// Where the catalog lives: `--store PATH`, else `$BOWTIES_STORE`, else
/// `$XDG_DATA_HOME/bowties/catalog.sqlite` (by default
/// `~/.local/share/bowties/catalog.sqlite`).
public enum StoreLocation {
    public static let fileName = "catalog.sqlite"

    /// Resolves the store's path.
    /// - Parameters:
    ///   - explicit: The `--store` option, when given.
    ///   - environment: The process environment (a parameter for tests).
    public static func resolve(
        explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> URL {
        if let explicit, !explicit.isEmpty { return URL(fileURLWithPath: explicit).standardizedFileURL }
        if let path = environment["BOWTIES_STORE"], !path.isEmpty {
            return URL(fileURLWithPath: path).standardizedFileURL
        }
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
}
