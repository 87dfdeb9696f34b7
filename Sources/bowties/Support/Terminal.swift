import Foundation
import Synchronization

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

    /// True when `descriptor` is a regular file (`> file`), not a pipe,
    /// a socket, a terminal or a device.
    static func isRegularFile(_ descriptor: Int32) -> Bool {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return false }
        return status.st_mode & S_IFMT == S_IFREG
    }

    /// When to colour output: `--color`, as git and ls spell it.
    enum ColorChoice: String, CaseIterable, Sendable {
        case auto, always, never
    }

    /// How many colours the terminal understands.
    enum ColorDepth: Sendable, Equatable {
        case none
        /// xterm's 256-colour palette (`ESC [ 48;5;N m`): nearly every terminal.
        case palette256
        /// 24-bit (`ESC [ 48;2;R;G;B m`): only where `COLORTERM` says so.
        case trueColor
    }

    /// `--color` as the command line gave it: ``ColorOption`` sets it when
    /// the command line is validated, before the command runs
    /// (``BowTies/extractingColorChoice(_:)`` for `add`).
    static var colorChoice: ColorChoice {
        get { chosenColor.withLock { $0.choice } }
        set { chosenColor.withLock { $0 = (newValue, nil) } }
    }
    /// The choice, and the depth it gives once asked: decided once, since
    /// reading the environment builds a dictionary and a table asks per row.
    private static let chosenColor = Mutex<(choice: ColorChoice, depth: ColorDepth?)>((.auto, nil))

    /// Colour on standard output: see ``colorDepth(choice:environment:isTerminal:)``.
    static var colorDepth: ColorDepth {
        chosenColor.withLock { state in
            if let depth = state.depth { return depth }
            // The four variables it reads, not `ProcessInfo`'s dictionary
            // of the whole environment (0.35 M instructions at each `show`).
            // With room: see `FastPath.Words`.
            var environment = [String: String](minimumCapacity: 8)
            for name in ["NO_COLOR", "TERM", "CLICOLOR_FORCE", "COLORTERM"] {
                if let value = getenv(name) { environment[name] = String(cString: value) }
            }
            let depth = colorDepth(choice: state.choice, environment: environment, isTerminal: isTerminal(1))
            state.depth = depth
            return depth
        }
    }

    /// The colours to use (https://no-color.org, and the conventions of
    /// git and ls):
    /// - `--color never`: none; `--color always`: colour, even when piped
    ///   and whatever `NO_COLOR` says (an explicit choice wins);
    /// - `auto`: none when `NO_COLOR` is set and not empty, when `TERM` is
    ///   `dumb`, or when standard output is not a terminal unless
    ///   `CLICOLOR_FORCE` is set (not `0`).
    /// - 24-bit only when `COLORTERM` is `truecolor` or `24bit`, the one sign
    ///   a terminal gives of it; else the 256-colour palette.
    static func colorDepth(choice: ColorChoice, environment: [String: String], isTerminal: Bool) -> ColorDepth {
        switch choice {
        case .never:
            return .none
        case .auto:
            if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return .none }
            if environment["TERM"] == "dumb" { return .none }
            let forced = environment["CLICOLOR_FORCE"].map { !$0.isEmpty && $0 != "0" } ?? false
            guard isTerminal || forced else { return .none }
        case .always:
            break
        }
        let colorTerm = environment["COLORTERM"]?.lowercased()
        return colorTerm == "truecolor" || colorTerm == "24bit" ? .trueColor : .palette256
    }

    /// Columns of the terminal on `descriptor` (`TIOCGWINSZ`), asked anew
    /// at each call so that a resized window (SIGWINCH) is followed; nil
    /// when it is not a terminal or does not say.
    static func columns(of descriptor: Int32) -> Int? {
        var size = winsize()
        guard ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }
}
