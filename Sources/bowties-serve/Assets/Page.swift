import Hummingbird

/// The page, its style and its script, compiled into the executable: the
/// server reads no file but the catalog, wherever it is started from.
enum Page {
    static func addRoutes(to router: Router<ServeContext>) {
        router.get("/") { _, _ in asset(html, type: "text/html; charset=utf-8") }
        router.get("/app.css") { _, _ in asset(css, type: "text/css; charset=utf-8") }
        router.get("/app.js") { _, _ in asset(javaScript, type: "text/javascript; charset=utf-8") }
    }

    static func asset(_ text: String, type: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
