import Foundation
import HTTPTypes
import Hummingbird

/// The checks every request passes before it reaches a route, as
/// Jupyter's and Syncthing's servers make them:
///
/// - `Host` must name this server (``ServerSettings/isAllowed(host:)``):
///   a page that rebinds its own name to 127.0.0.1 is refused.
/// - On a server other machines can reach, the token: `?token=` once
///   (then a `SameSite=Strict; HttpOnly` cookie) or that cookie.
/// - A request that changes something must say `Content-Type:
///   application/json` (a form of another site cannot) and come from this
///   page: `Sec-Fetch-Site: same-origin`, or an `Origin` that names this
///   server (CSRF).
/// - `--read-only` refuses every change.
///
/// Every answer carries a strict Content-Security-Policy: scripts and
/// styles only from this server, nothing inline.
struct SecurityMiddleware<Context: RequestContext>: RouterMiddleware {
    let settings: ServerSettings

    static var contentSecurityPolicy: String {
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
            + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        var response = try await check(request, context: context, next: next)
        response.headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
        response.headers[.xContentTypeOptions] = "nosniff"
        if let name = HTTPField.Name.referrerPolicy { response.headers[name] = "no-referrer" }
        if let name = HTTPField.Name.frameOptions { response.headers[name] = "DENY" }
        return response
    }

    private func check(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        let host = request.head.authority ?? ""
        guard settings.isAllowed(host: host) else {
            return APIError(status: .forbidden, code: "foreignHost", message: "this server does not answer to the host \"\(host)\"",
                hint: "Open the address bowties serve printed.").response
        }
        var setCookie: String?
        if settings.token != nil {
            let query = request.uri.queryParameters
            if let given = query["token"].map(String.init), settings.tokenMatches(given) {
                let cookie = "\(ServerSettings.tokenCookie)=\(given); Path=/; HttpOnly; SameSite=Strict"
                if request.method == .get {
                    // Once in the cookie, the token leaves the address
                    // bar and the history: the same path, without it.
                    var headers = HTTPFields()
                    headers[.location] = request.uri.path
                    headers[.setCookie] = cookie
                    headers[.cacheControl] = "no-store"
                    return Response(status: .seeOther, headers: headers)
                }
                setCookie = cookie
            } else if let cookie = request.cookies[ServerSettings.tokenCookie], settings.tokenMatches(cookie.value) {
                // the browser showed the cookie
            } else {
                return APIError(status: .unauthorized, code: "tokenRequired",
                    message: "this server needs the token of the address bowties serve printed",
                    hint: "Open that address (with its ?token=) once in this browser.").response
            }
        }
        if request.method != .get && request.method != .head {
            if settings.readOnly {
                return APIError(status: .forbidden, code: "readOnly",
                    message: "the server is read-only (bowties serve --read-only): nothing can be changed").response
            }
            let type = request.headers[.contentType] ?? ""
            guard type.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() == "application/json"
            else {
                return APIError(status: .unsupportedMediaType, code: "notJSON",
                    message: "a change must be sent as Content-Type: application/json").response
            }
            let site = HTTPField.Name.fetchSite.flatMap { request.headers[$0] }
            let origin = request.headers[.origin]
            let sameSite = site == "same-origin" || site == "none"
            let allowedOrigin = origin.map { isOwnOrigin($0) } ?? false
            // Browsers send Sec-Fetch-Site (or at least Origin) with every
            // cross-site POST; a script (curl) sends neither.
            let fromScript = site == nil && origin == nil
            guard (sameSite && (origin == nil || allowedOrigin)) || allowedOrigin && site == nil || fromScript else {
                return APIError(status: .forbidden, code: "crossSite",
                    message: "a change must come from this server's own page (cross-site request refused)").response
            }
        }
        var response = try await next(request, context)
        if let setCookie { response.headers.append(HTTPField(name: .setCookie, value: setCookie)) }
        return response
    }

    /// `http://HOST:PORT` where HOST:PORT names this server.
    private func isOwnOrigin(_ origin: String) -> Bool {
        guard origin.hasPrefix("http://") else { return false }
        return settings.isAllowed(host: String(origin.dropFirst("http://".count)))
    }
}

extension HTTPField.Name {
    /// Names HTTPTypes does not spell (valid tokens: never nil).
    static let fetchSite = Self("Sec-Fetch-Site")
    static let referrerPolicy = Self("Referrer-Policy")
    static let frameOptions = Self("X-Frame-Options")
}
