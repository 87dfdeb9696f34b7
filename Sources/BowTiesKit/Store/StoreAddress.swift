import Foundation

/// A catalog's address on a PostgreSQL server, as `--store` or
/// `$BOWTIES_STORE` gives it:
///
/// ```
/// postgresql://ann@db.example.org:5432/ties?sslmode=verify-full
/// ```
///
/// The text goes to libpq as it is (`PQconnectdb`), so what it leaves out
/// comes from libpq's own conventions: `PGHOST`, `PGPORT`, `PGUSER`,
/// `PGDATABASE`, `PGPASSWORD`, `PGPASSFILE` (or `~/.pgpass`),
/// `PGSSLMODE`. bowties reads none of them itself.
///
/// A password the address holds (`postgresql://ann:secret@host/db`, or
/// `?password=secret`) never leaves the process: every message, `--json`
/// field and log line shows ``masked`` (`postgresql://ann:***@host/db`).
/// The environment and `~/.pgpass` are the places for a password, since
/// `ps` shows every process's arguments.
public enum StoreAddress {
    /// What stands for a password in everything bowties prints.
    public static let mask = "***"

    /// The parameters whose values are secrets: libpq's `password`, and
    /// `sslpassword`, the pass phrase of the client's TLS key.
    static let secretParameters = ["password", "sslpassword"]

    /// `address` with its password, if any, replaced by ``mask``: in the
    /// user part (`ann:secret@`) and in a `password=` parameter; so is
    /// `sslpassword=` (what unlocks the client's TLS key).
    public static func masked(_ address: String) -> String {
        var text = address
        if let schemeEnd = text.range(of: "://") {
            let authorityEnd =
                text[schemeEnd.upperBound...].firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" })
                ?? text.endIndex
            // The last `@` of the authority ends the user part (a password
            // may hold an encoded one, never a raw `/`).
            if let at = text[schemeEnd.upperBound..<authorityEnd].lastIndex(of: "@"),
                let colon = text[schemeEnd.upperBound..<at].firstIndex(of: ":")
            {
                text.replaceSubrange(text.index(after: colon)..<at, with: mask)
            }
        }
        if let query = text.firstIndex(of: "?") {
            let parameters = text[text.index(after: query)...].split(separator: "&", omittingEmptySubsequences: false)
                .map { parameter -> String in
                    for secret in secretParameters where parameter.lowercased().hasPrefix(secret + "=") {
                        return secret + "=" + mask
                    }
                    return String(parameter)
                }
            text = String(text[...query]) + parameters.joined(separator: "&")
        }
        return text
    }
}

extension URL {
    /// True when this location is a PostgreSQL address rather than a file
    /// (``StoreLocation/isAddress(_:)``).
    public var isStoreAddress: Bool { scheme == "postgresql" || scheme == "postgres" }

    /// How messages name the catalog here: its file's path, or its
    /// address with any password masked (``StoreAddress/masked(_:)``).
    public var storeDescription: String {
        isStoreAddress ? StoreAddress.masked(absoluteString) : path
    }
}
