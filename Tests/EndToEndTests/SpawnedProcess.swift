import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A child process the test does not wait for at once: to signal it, to
/// hold a lock beside it, or to watch what it writes while it runs.
///
/// The child starts with every signal at its default action and none
/// blocked (`POSIX_SPAWN_SETSIGDEF`, `POSIX_SPAWN_SETSIGMASK`), whatever
/// the test runner ignores or blocks: a test that sends SIGINT or SIGHUP
/// must reach a process that could have been started from a shell.
/// Standard input is `/dev/null`; standard output and error go to files
/// (never pipes, which a chatty child could fill) in `outputs`, which
/// should not be the store's folder, or a snapshot of that folder would
/// see them.
///
/// ```swift
/// let importer = try SpawnedProcess.start(binary, ["import", plist.path], environment: env, outputs: folder)
/// importer.send(SIGINT)
/// let exit = importer.wait()
/// #expect(exit.status == 130 && exit.signal == nil)
/// ```
///
/// Not `Sendable`: one test, one child. A child still running when the
/// value goes away is killed (SIGKILL) and reaped.
final class SpawnedProcess {
    /// How a child ended.
    struct Exit: CustomStringConvertible {
        /// The exit status, or 128 + the signal that ended the child.
        var status: Int32
        /// The signal that ended the child; nil when it exited.
        var signal: Int32?
        /// True when the child outlived its time limit and was killed.
        var timedOut = false

        var description: String {
            if timedOut { return "killed after its time limit" }
            if let signal { return "killed by signal \(signal) (\(String(cString: strsignal(signal))))" }
            return "exit \(status)"
        }
    }

    struct SpawnError: Error, CustomStringConvertible {
        var description: String
    }

    /// Where the child's standard error goes.
    enum StandardError {
        /// A file in `outputs`, read back by ``stderr``.
        case file
        /// A path opened read-write, such as a pseudo-terminal's.
        case path(String)
    }

    let pid: pid_t
    let arguments: [String]
    let stdoutURL: URL
    let stderrURL: URL?
    private(set) var exit: Exit?

    private init(pid: pid_t, arguments: [String], stdoutURL: URL, stderrURL: URL?) {
        self.pid = pid
        self.arguments = arguments
        self.stdoutURL = stdoutURL
        self.stderrURL = stderrURL
    }

    deinit {
        if exit == nil {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(pid, &status, 0)
        }
        try? FileManager.default.removeItem(at: stdoutURL)
        if let stderrURL { try? FileManager.default.removeItem(at: stderrURL) }
    }

    /// Starts `executable` with `arguments`.
    ///
    /// - Throws: ``SpawnError`` when the child cannot be started.
    static func start(
        _ executable: URL, _ arguments: [String], environment: [String: String], outputs: URL,
        standardError: StandardError = .file
    ) throws -> SpawnedProcess {
        let id = UUID().uuidString
        let stdoutURL = outputs.appendingPathComponent(".spawned-stdout-\(id)")
        var stderrURL: URL?

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdoutURL.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        switch standardError {
        case .file:
            let url = outputs.appendingPathComponent(".spawned-stderr-\(id)")
            stderrURL = url
            posix_spawn_file_actions_addopen(&actions, 2, url.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        case .path(let path):
            posix_spawn_file_actions_addopen(&actions, 2, path, O_RDWR | O_NOCTTY, 0)
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var all = sigset_t()
        sigfillset(&all)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable.path] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv + envp { free(pointer) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable.path, &actions, &attributes, argv, envp)
        guard spawned == 0 else {
            throw SpawnError(description: "posix_spawn \(executable.path): \(String(cString: strerror(spawned)))")
        }
        return SpawnedProcess(pid: pid, arguments: arguments, stdoutURL: stdoutURL, stderrURL: stderrURL)
    }

    /// Starts the built `bowties` with the runner's environment (plus
    /// `overrides`), its outputs in the runner's folder.
    static func bowties(
        _ arguments: [String], runner: BowTiesRunner, environment overrides: [String: String] = [:],
        standardError: StandardError = .file
    ) throws -> SpawnedProcess {
        try start(
            try BowTiesRunner.executableURL(), arguments,
            environment: runner.environment.merging(overrides) { _, new in new },
            outputs: runner.directory, standardError: standardError)
    }

    /// Reaps the child if it has ended, without waiting.
    /// - Returns: How it ended, or nil while it runs.
    @discardableResult
    func poll() -> Exit? {
        if let exit { return exit }
        var status: Int32 = 0
        let waited = waitpid(pid, &status, WNOHANG)
        guard waited == pid else { return nil }
        exit = Self.decode(status)
        return exit
    }

    var isRunning: Bool { poll() == nil }

    /// Waits for the child, at most `timeout` seconds, then kills it (a
    /// test must never hang on a child that does not stop).
    @discardableResult
    func wait(timeout: TimeInterval = 120) -> Exit {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let exit = poll() { return exit }
            if Date() > deadline {
                kill(pid, SIGKILL)
                var status: Int32 = 0
                _ = waitpid(pid, &status, 0)
                var killed = Self.decode(status)
                killed.timedOut = true
                exit = killed
                return killed
            }
            usleep(2_000)
        }
    }

    /// Sends `signal` to the child if it still runs.
    func send(_ signal: Int32) {
        if isRunning { kill(pid, signal) }
    }

    var stdout: String { (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? "" }
    /// Standard error, when it went to a file.
    var stderr: String { stderrURL.flatMap { try? String(contentsOf: $0, encoding: .utf8) } ?? "" }

    /// The command line and what it printed, for failure messages.
    func describe(_ label: String = "bowties") -> String {
        let ending = exit.map(\.description) ?? "still running"
        return "\(label) \(arguments.joined(separator: " ")) -> \(ending)\n--- stdout\n\(stdout)--- stderr\n\(stderr)"
    }

    // WIFEXITED / WEXITSTATUS / WTERMSIG are macros Swift cannot see.
    private static func decode(_ status: Int32) -> Exit {
        let signal = status & 0x7F
        return signal == 0
            ? Exit(status: (status >> 8) & 0xFF, signal: nil)
            : Exit(status: 128 + signal, signal: signal)
    }
}

/// Polls `condition` every few milliseconds until it holds or `timeout`
/// passes: for waiting on another process without a sleep that races.
/// - Returns: Whether the condition held.
@discardableResult
func poll(timeout: TimeInterval, every interval: useconds_t = 2_000, until condition: () throws -> Bool) rethrows
    -> Bool
{
    let deadline = Date().addingTimeInterval(timeout)
    while true {
        if try condition() { return true }
        if Date() > deadline { return false }
        usleep(interval)
    }
}

/// The size of the file at `url`, or nil when there is none.
func fileSize(_ url: URL) -> Int? {
    var info = stat()
    guard stat(url.path, &info) == 0 else { return nil }
    return Int(info.st_size)
}

/// A pseudo-terminal, for a child whose standard error must be a terminal
/// (bowties draws its progress line only there). The test keeps the
/// master side and reads everything the child writes; the child opens
/// ``slavePath``.
///
/// Not `Sendable`: one test, one terminal.
final class PseudoTerminal {
    let master: Int32
    let slavePath: String
    /// Everything read from the terminal so far.
    private(set) var output = Data()

    init() throws {
        // The C library's pseudo-terminal functions need _XOPEN_SOURCE,
        // which Swift's Glibc module does not define: look them up.
        typealias OpenPT = @convention(c) (Int32) -> Int32
        typealias OnDescriptor = @convention(c) (Int32) -> Int32
        typealias NameOf = @convention(c) (Int32, UnsafeMutablePointer<CChar>?, Int) -> Int32
        let libc = dlopen(nil, RTLD_NOW)
        func symbol<T>(_ name: String, as type: T.Type) throws -> T {
            guard let address = dlsym(libc, name) else {
                throw SpawnedProcess.SpawnError(description: "the C library has no \(name)")
            }
            return unsafeBitCast(address, to: type)
        }
        let openpt = try symbol("posix_openpt", as: OpenPT.self)
        let grantpt = try symbol("grantpt", as: OnDescriptor.self)
        let unlockpt = try symbol("unlockpt", as: OnDescriptor.self)
        let ptsname = try symbol("ptsname_r", as: NameOf.self)

        master = openpt(O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard master >= 0 else { throw SpawnedProcess.SpawnError(description: "posix_openpt: \(errno)") }
        var name = [CChar](repeating: 0, count: 128)
        guard grantpt(master) == 0, unlockpt(master) == 0, ptsname(master, &name, name.count) == 0 else {
            close(master)
            throw SpawnedProcess.SpawnError(description: "cannot set up the pseudo-terminal: \(errno)")
        }
        slavePath = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        _ = fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK)
    }

    deinit {
        close(master)
    }

    /// Reads what is waiting on the master side, without blocking. The
    /// child would stop once the terminal's buffer is full: read often.
    func drain() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(master, &buffer, buffer.count)
            guard count > 0 else { return }
            output.append(contentsOf: buffer[0..<count])
        }
    }

    var text: String { String(decoding: output, as: UTF8.self) }

    /// The lines a terminal would show after `output`: `\r` returns to the
    /// start of the line, `ESC [ 2 K` erases it, `\n` starts the next one,
    /// other characters overwrite what is under the cursor. Other escape
    /// sequences are kept as text (bowties writes none).
    static func screen(_ text: String) -> [String] {
        var lines: [[Character]] = [[]]
        var column = 0
        var characters = Array(text)[...]
        while let character = characters.popFirst() {
            switch character {
            case "\r":
                column = 0
            case "\n":
                // Down one line, same column, as a terminal does.
                lines.append([])
            case "\r\n":
                // One Character in Swift (what ONLCR makes of "\n").
                column = 0
                lines.append([])
            case "\u{1B}" where characters.starts(with: "[2K"):
                characters.removeFirst(3)
                lines[lines.count - 1] = []
            default:
                var line = lines[lines.count - 1]
                while line.count < column { line.append(" ") }
                if column < line.count {
                    line[column] = character
                } else {
                    line.append(character)
                }
                lines[lines.count - 1] = line
                column += 1
            }
        }
        return lines.map { String($0) }
    }
}
