import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Standard streams, and whether to colour output.
enum Terminal {
    /// Unbuffered writes to standard error.
    struct Stream: Sendable {
        let descriptor: Int32

        func write(_ text: String) {
            var bytes = Array(text.utf8)
            var offset = 0
            while offset < bytes.count {
                let written = bytes.withUnsafeMutableBytes { raw in
                    Glibc.write(descriptor, raw.baseAddress.map { $0 + offset }, raw.count - offset)
                }
                if written <= 0 {
                    if written < 0, errno == EINTR { continue }
                    return
                }
                offset += written
            }
            bytes.removeAll()
        }
    }

    static let standardError = Stream(descriptor: 2)
    static let standardOutput = Stream(descriptor: 1)

    /// True when `descriptor` is a terminal.
    static func isTerminal(_ descriptor: Int32) -> Bool {
        isatty(descriptor) == 1
    }

    /// Colour on standard output: a terminal, `NO_COLOR` unset or empty,
    /// and `TERM` not `dumb` (https://no-color.org).
    static var colorEnabled: Bool {
        let environment = ProcessInfo.processInfo.environment
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return false }
        if environment["TERM"] == "dumb" { return false }
        return isTerminal(1)
    }
}
