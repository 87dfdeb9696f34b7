import Foundation

/// Runs `tmux` commands against one server, for the tests that look at
/// what a person sees in a terminal (`TerminalOutputTests`,
/// `InteractiveCompletionTests`).
///
/// The server that `new-session` starts keeps every descriptor the
/// client had: a pipe would never reach its end, and Foundation's
/// `Process`, which learns of a child's exit from a socket the child
/// inherits, would wait forever. So tmux runs under Python's subprocess,
/// which closes every descriptor above 2, and writes to a file.
struct TmuxClient {
    /// The tmux executable.
    var tmux: String
    /// The server's socket name (`-L`), one per test.
    var socket: String
    /// Where each command's output is written, then read back.
    var output: URL

    /// Runs tmux with `arguments` (no configuration file) and returns
    /// what it printed.
    @discardableResult
    func run(_ arguments: [String]) throws -> String {
        try Data().write(to: output)
        let handle = try FileHandle(forWritingTo: output)
        defer { try? handle.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments =
            [
                "python3", "-c",
                "import subprocess, sys; sys.exit(subprocess.run(sys.argv[1:], close_fds=True).returncode)",
                tmux, "-L", socket, "-f", "/dev/null",
            ] + arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = handle
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return String(decoding: try Data(contentsOf: output), as: UTF8.self)
    }
}
