import Hummingbird

/// The page, its style and its script, compiled into the executable: the
/// server reads no file but the catalog, wherever it is started from.
enum Page {
    static func addRoutes(to router: Router<ServeContext>) {
        let html = Asset(html, type: "text/html; charset=utf-8")
        let css = Asset(css, type: "text/css; charset=utf-8")
        let javaScript = Asset(javaScript, type: "text/javascript; charset=utf-8")
        router.get("/") { _, _ in html.response }
        router.get("/app.css") { _, _ in css.response }
        router.get("/app.js") { _, _ in javaScript.response }
    }

    /// One file of the page, its bytes and headers made once: every answer
    /// shares them (a `ByteBuffer` is copied on write only, and an answer
    /// is never written to), instead of copying the text into a new buffer
    /// for each request, which was 4 KB allocated and freed per page load.
    struct Asset: Sendable {
        let bytes: ByteBuffer
        let headers: HTTPFields

        init(_ text: String, type: String) {
            bytes = ByteBuffer(string: text)
            var headers = HTTPFields()
            headers[.contentType] = type
            headers[.cacheControl] = "no-cache"
            self.headers = headers
        }

        var response: Response { Response(status: .ok, headers: headers, body: .init(byteBuffer: bytes)) }
    }
}
