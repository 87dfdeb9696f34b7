import ArgumentParser
import BowTiesKit
import Foundation

extension BowTies {
    /// `bowties serve`: the catalog in the browser. The server is another
    /// executable, `bowties-serve`, beside this one (as git runs its
    /// `git-*` commands): SwiftNIO and Hummingbird would otherwise make
    /// every command larger and slower to start.
    struct Serve: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "serve",
            abstract: "Open the catalog in a web browser: see, wear, rate and tag ties, live as the catalog changes.",
            discussion: """
                Starts a web server and prints its address (http://127.0.0.1:8080/); open it in \
                a browser, on this machine or, with --host, on a phone. The page shows the ties \
                by colour with their photos, and changes within a second when a command (or \
                another browser) changes the catalog. The same actions answer scripts as JSON \
                under /api/ (docs/openapi.yaml describes them).

                The catalog is opened for each request and never held: bowties commands keep \
                working while the server runs. Stop it with Ctrl-C.

                Only this machine can connect unless --host names another address; then the \
                printed address carries a secret token, which the browser keeps in a cookie: \
                share the address only with devices you trust. --read-only refuses every \
                change.
                """)

        @Option(help: ArgumentHelp(
            "The address to listen on (default: 127.0.0.1, this machine only; 0.0.0.0 for every network).",
            valueName: "address"))
        var host: String?

        @Option(help: ArgumentHelp("The port to listen on (default 8080; 0 picks a free one).", valueName: "port"))
        var port: Int?

        @Flag(name: .customLong("read-only"), help: "Show the catalog, but refuse every change.")
        var readOnly = false

        @Flag(help: "Open the page in the default browser (xdg-open) once the server listens.")
        var open = false

        @Option(
            name: .long,
            help: ArgumentHelp(
                "The catalog file to use, or a PostgreSQL database's address (postgresql://USER@HOST:PORT/DB).",
                discussion:
                    "Default: $BOWTIES_STORE, else $XDG_DATA_HOME/bowties/catalog.sqlite (~/.local/share/bowties/catalog.sqlite).",
                valueName: "path"))
        var store: String?

        /// Every command takes `--color`; the server's one line has none.
        @OptionGroup var colorOption: ColorOption

        func validate() throws {
            if let port, !(0...65_535).contains(port) {
                throw ValidationError("--port takes a number from 0 to 65535 (0 picks a free port).")
            }
            if let host, host.isEmpty { throw ValidationError("--host needs an address, such as 127.0.0.1.") }
            if let store, store.isEmpty {
                throw ValidationError("--store needs a path: an empty one does not mean the default catalog.")
            }
        }

        func run() throws {
            var arguments: [String] = []
            let location = StoreLocation.resolve(explicit: store)
            if location.isFileURL {
                arguments += ["--store", location.path]
            } else {
                // An address may hold a password: never in the arguments,
                // which `ps` shows to every user. The helper reads it as
                // every command does, from $BOWTIES_STORE.
                setenv("BOWTIES_STORE", location.absoluteString, 1)
            }
            if let host { arguments += ["--host", host] }
            if let port { arguments += ["--port", String(port)] }
            if readOnly { arguments.append("--read-only") }
            if open { arguments.append("--open") }
            throw ServeHelper.exec(arguments)
        }
    }
}

/// Runs `bowties-serve` in this process's place.
enum ServeHelper {
    /// The helper's name, beside `bowties`.
    static let name = "bowties-serve"

    /// Replaces this process by `bowties-serve ARGUMENTS` from this
    /// executable's folder; returns only when that fails.
    /// - Returns: The error that says why (exit 69).
    static func exec(_ arguments: [String]) -> HelperUnavailable {
        let folder = URL(fileURLWithPath: ownExecutablePath()).deletingLastPathComponent()
        let helper = folder.appendingPathComponent(name).path
        guard access(helper, X_OK) == 0 else { return HelperUnavailable(path: helper, reason: nil) }
        let argv = ([name] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        execv(helper, argv)
        return HelperUnavailable(path: helper, reason: String(cString: strerror(errno)))
    }

    /// This process's executable (`/proc/self/exe`), else `argv[0]`.
    private static func ownExecutablePath() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return CommandLine.arguments.first ?? name }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// `bowties-serve` is missing beside `bowties`, or could not run: exit 69
/// (EX_UNAVAILABLE).
struct HelperUnavailable: Error, CustomStringConvertible {
    var path: String
    /// The system's words when it exists but could not run.
    var reason: String?

    var description: String {
        let what = reason.map { "cannot run \(path): \($0)" } ?? "bowties serve needs \(path), which is missing"
        return what
            + "\nhint: Install both executables together (scripts/install does), or build them with `swift build`."
    }
}
