import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Standard streams, and whether to colour output.
enum Terminal {
    /// Unbuffered writes to a standard stream (whole text, retried on EINTR).
    struct Stream: Sendable {
        let descriptor: Int32

        func write(_ text: String) {
            let bytes = Array(text.utf8)
            bytes.withUnsafeBytes { raw in
                guard let base = raw.baseAddress else { return }
                var offset = 0
                while offset < raw.count {
                    let written = Glibc.write(descriptor, base + offset, raw.count - offset)
                    if written < 0, errno == EINTR { continue }
                    guard written > 0 else { return }
                    offset += written
                }
            }
        }
    }

    static let standardError = Stream(descriptor: 2)
    static let standardOutput = Stream(descriptor: 1)

    /// True when `descriptor` is a terminal.
    static func isTerminal(_ descriptor: Int32) -> Bool {
        isatty(descriptor) == 1
    }

    /// Colour on standard output: a terminal, `NO_COLOR` unset or empty,
    /// and `TERM` not `dumb` (https://no-color.org). Decided once: reading
    /// the environment builds a dictionary, and the table asks per row.
    static let colorEnabled: Bool = {
        let environment = ProcessInfo.processInfo.environment
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return false }
        if environment["TERM"] == "dumb" { return false }
        return isTerminal(1)
    }()
}
