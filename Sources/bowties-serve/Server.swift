import BowTiesKit
import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// The request context: bodies are small JSON objects, so anything
/// larger than 16 KiB is refused before it is read whole.
struct ServeContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    init(source: ApplicationRequestContextSource) { coreContext = .init(source: source) }
    var maxUploadSize: Int { 16 * 1024 }
}

/// Builds the router: the page (``Page``), the JSON API and the events.
enum Server {
    static func router(settings: ServerSettings, feed: ChangeFeed) -> Router<ServeContext> {
        let router = Router(context: ServeContext.self)
        router.add(middleware: SecurityMiddleware(settings: settings))
        router.add(middleware: APIErrorMiddleware())
        Page.addRoutes(to: router)
        API(catalog: CatalogAccess(url: settings.storeURL), feed: feed).addRoutes(to: router)
        return router
    }

    /// Hummingbird's logger, quiet but for errors (the start-up line is
    /// all a user needs to see).
    static func quietLogger() -> Logger {
        var logger = Logger(label: "bowties-serve")
        logger.logLevel = .error
        return logger
    }

    /// Why the server could not start, in words (a port in use).
    static func startFailure(_ error: any Error, host: String, port: Int) -> String {
        let text = "\(error)"
        if text.contains("Address already in use") || text.contains("EADDRINUSE") {
            return "port \(port) on \(host) is in use\nhint: Choose another with --port, or --port 0 for any free one."
        }
        return "cannot listen on \(host):\(port): \(text)"
    }
}
