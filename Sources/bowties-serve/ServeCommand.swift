import ArgumentParser
import BowTiesKit
import Foundation
import Hummingbird

/// `bowties-serve`: the server `bowties serve` runs (it passes the
/// catalog's path as --store). One process; the catalog is opened for
/// each request (``CatalogAccess``) and its changes pushed to open pages
/// (``ChangeFeed``).
@main
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bowties-serve",
        abstract: "The web server of `bowties serve` (run that instead: `bowties serve --help`).")

    @Option(help: ArgumentHelp("The address to listen on.", valueName: "address"))
    var host = "127.0.0.1"

    @Option(help: ArgumentHelp("The port to listen on (0 picks a free one).", valueName: "port"))
    var port = 8080

    @Flag(name: .customLong("read-only"), help: "Refuse every change.")
    var readOnly = false

    @Flag(help: "Open the page in the default browser (xdg-open).")
    var open = false

    @Option(help: ArgumentHelp("The catalog file.", valueName: "path"))
    var store: String?

    /// Prints the router's routes, one `METHOD /path` a line (the test
    /// that holds docs/openapi.yaml to the router reads them).
    @Flag(name: .customLong("list-routes"), help: .hidden)
    var listRoutes = false

    /// The process's entry: glibc's malloc arenas bounded
    /// (``MemoryPolicy``) before any thread starts, then the arguments
    /// parsed and ``run()``, as ArgumentParser's own `main()` does.
    static func main() async {
        MemoryPolicy.apply()
        await main(nil)
    }

    func validate() throws {
        guard (0...65_535).contains(port) else {
            throw ValidationError("--port takes a number from 0 to 65535 (0 picks a free port).")
        }
    }

    func run() async throws {
        // Before any catalog opens: SQLite settles its allocations then.
        Catalog.prepareForLongRunningServer()
        let settings = ServerSettings(
            host: host, readOnly: readOnly, storeURL: StoreLocation.resolve(explicit: store))
        let feed = ChangeFeed(storeURL: settings.storeURL)
        let router = Server.router(settings: settings, feed: feed)
        if listRoutes {
            for route in router.routes { print("\(route.method) \(route.path)") }
            return
        }
        let open = open
        let app = Application(
            router: router,
            configuration: .init(address: .hostname(host, port: port), serverName: nil),
            services: [feed],
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                let url = settings.startURL(port: port)
                settings.allow(port: port)
                // One line, flushed: scripts and tests read it to connect.
                // A PostgreSQL catalog is named by its address, password
                // masked (a file by its path).
                let catalog = settings.storeURL.storeDescription
                FileHandle.standardOutput.write(Data("bowties: serving \(catalog) at \(url)\n".utf8))
                if open { Browser.open(url) }
            },
            logger: Server.quietLogger())
        do {
            try await app.runService(gracefulShutdownSignals: [.sigterm, .sigint])
        } catch {
            FileHandle.standardError.write(Data("bowties: error: \(Server.startFailure(error, host: host, port: port))\n".utf8))
            throw ExitCode(69)
        }
    }
}

/// `--open`: the desktop's browser, through xdg-open.
enum Browser {
    static func open(_ url: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["xdg-open", url]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            FileHandle.standardError.write(Data("bowties: warning: could not open a browser (xdg-open): open the address yourself\n".utf8))
        }
    }
}
