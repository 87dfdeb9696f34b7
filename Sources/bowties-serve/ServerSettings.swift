import Foundation
import Synchronization

/// What the server was started with, and what follows from it for every
/// request: the names a `Host` header may carry, and the token a browser
/// on another machine must show.
final class ServerSettings: Sendable {
    let host: String
    let readOnly: Bool
    let storeURL: URL
    /// The secret of a server other machines can reach (any --host but
    /// loopback): printed once in the start-up address, then kept by the
    /// browser in a cookie. Nil on loopback, where only this machine's
    /// users can connect.
    let token: String?
    /// `host:port` values a request's `Host` may name (DNS rebinding: a
    /// page of evil.example that resolves its name to 127.0.0.1 sends
    /// `Host: evil.example`). Filled once the port is known.
    private let allowedHosts = Mutex<Set<String>>([])

    /// The cookie that carries ``token``.
    static let tokenCookie = "bowties_token"

    init(host: String, readOnly: Bool, storeURL: URL, token: String? = nil) {
        self.host = host
        self.readOnly = readOnly
        self.storeURL = storeURL
        self.token = token ?? (Self.isLoopback(host) ? nil : Self.newToken())
    }

    /// 127.0.0.0/8, ::1 and `localhost`.
    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }

    /// 32 random bytes, hex: what no one guesses. (The system generator
    /// is getrandom(2) on Linux: cryptographically secure.)
    static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in
            let word = generator.next() as UInt64
            let hex = String(word, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }

    /// Allows the names this server answers to on `port`: the loopback
    /// names, and the --host address itself.
    func allow(port: Int) {
        var names: Set<String> = ["127.0.0.1", "localhost", "[::1]"]
        if host != "0.0.0.0" && host != "::" { names.insert(host.contains(":") ? "[\(host)]" : host) }
        if !Self.isLoopback(host) { names.formUnion(Self.machineAddresses()) }
        allowedHosts.withLock { allowed in
            for name in names { allowed.insert("\(name):\(port)") }
        }
    }

    /// Whether `Host: value` names this server.
    func isAllowed(host value: String) -> Bool {
        allowedHosts.withLock { $0.contains(value.lowercased()) }
    }

    /// The address printed at start: with the token when there is one.
    func startURL(port: Int) -> String {
        var shown = host
        if host == "0.0.0.0" || host == "::" { shown = Self.machineAddresses().sorted().first ?? "127.0.0.1" }
        if shown.contains(":") { shown = "[\(shown)]" }
        let base = "http://\(shown):\(port)/"
        return token.map { base + "?token=" + $0 } ?? base
    }

    /// Compares `given` with the token in time that does not depend on
    /// where they differ.
    func tokenMatches(_ given: String) -> Bool {
        guard let token else { return true }
        let a = Array(token.utf8)
        let b = Array(given.utf8)
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for index in 0..<a.count { difference |= a[index] ^ (index < b.count ? b[index] : 0) }
        return difference == 0
    }

    /// This machine's IPv4 addresses (for `--host 0.0.0.0`).
    static func machineAddresses() -> [String] {
        var result: [String] = []
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return result }
        defer { freeifaddrs(list) }
        var cursor: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = cursor {
            if let address = entry.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET) {
                var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
                address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { inet in
                    var value = inet.pointee.sin_addr
                    _ = inet_ntop(AF_INET, &value, &text, socklen_t(INET_ADDRSTRLEN))
                }
                let name = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                if !name.isEmpty { result.append(name) }
            }
            cursor = entry.pointee.ifa_next
        }
        return result
    }
}
