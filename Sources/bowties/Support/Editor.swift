import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The user's text editor: `$VISUAL`, else `$EDITOR`, else `vi`, run on
/// a file with the terminal's standard input, output and error, as
/// `crontab -e` and `git commit` run it.
///
/// ```swift
/// let edited = try Editor().edit(text, fileName: "R.txt")
/// ```
///
/// The command may hold arguments (`VISUAL="code --wait"`): it is run by
/// `/bin/sh -c '<command> "$1"'`, as git does. While it runs, bowties
/// ignores SIGINT and SIGQUIT, as `system(3)` does, so that Ctrl-C in
/// the editor is the editor's and the temporary file is still removed.
struct Editor {
    /// The command as the environment gives it.
    var command: String

    init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        func nonEmpty(_ name: String) -> String? {
            guard let value = environment[name], !value.trimmingCharacters(in: .whitespaces).isEmpty else {
                return nil
            }
            return value
        }
        command = nonEmpty("VISUAL") ?? nonEmpty("EDITOR") ?? "vi"
    }

    /// Writes `text` to a new private file, lets the user edit it, and
    /// returns what they saved. The file (and its folder) is removed
    /// afterwards, whatever happens.
    ///
    /// - Parameter fileName: The file's name, which editors show (and
    ///   choose a syntax by).
    /// - Throws: ``EditorError`` when the editor cannot be started or
    ///   exits with a failure; `CocoaError` when the file cannot be
    ///   written or read.
    func edit(_ text: String, fileName: String) throws -> String {
        var template = Array((FileManager.default.temporaryDirectory.path + "/bowties-edit-XXXXXX").utf8CString)
        guard
            let folder = template.withUnsafeMutableBufferPointer({ buffer in
                buffer.baseAddress.flatMap { mkdtemp($0) }.map { String(cString: $0) }
            })
        else {
            throw EditorError("cannot create a temporary folder: \(String(cString: strerror(errno)))")
        }
        let file = URL(fileURLWithPath: folder).appendingPathComponent(fileName)
        defer {
            try? FileManager.default.removeItem(atPath: folder)
        }
        // mkdtemp made the folder 0700; the file is created 0600 inside it.
        guard
            FileManager.default.createFile(
                atPath: file.path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600])
        else {
            throw EditorError("cannot write the temporary file \(file.path)")
        }
        try run(on: file.path)
        return String(decoding: try Data(contentsOf: file), as: UTF8.self)
    }

    /// Runs the editor on `path` and waits for it.
    private func run(on path: String) throws {
        let arguments = ["/bin/sh", "-c", command + " \"$1\"", "sh", path]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        // This process's environment, from Foundation rather than C's
        // `environ` (a global Swift 6 cannot prove safe to read).
        var envp: [UnsafeMutablePointer<CChar>?] =
            ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in envp { free(pointer) } }

        // The child starts with the default actions for the signals the
        // parent ignores while it waits.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number in [SIGINT, SIGQUIT] + Self.forwardedSignals { sigaddset(&defaults, number) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF))

        let previousInterrupt = signal(SIGINT, SIG_IGN)
        let previousQuit = signal(SIGQUIT, SIG_IGN)
        // Until the forwarding below is in place: a SIGTERM or SIGHUP
        // must not end bowties with the file left behind.
        for number in Self.forwardedSignals { signal(number, SIG_IGN) }
        defer {
            signal(SIGINT, previousInterrupt)
            signal(SIGQUIT, previousQuit)
            for number in Self.forwardedSignals { signal(number, SIG_DFL) }
        }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, "/bin/sh", nil, &attributes, &argv, &envp)
        guard spawned == 0 else {
            throw EditorError("cannot start the editor \(quoted): \(String(cString: strerror(spawned)))")
        }
        // SIGTERM and SIGHUP go on to the editor; once it has gone, the
        // caller removes the file and exits as the signal asks.
        let received = ReceivedSignal()
        let child = pid
        let queue = DispatchQueue(label: "bowties.editor.signals")
        let sources = Self.forwardedSignals.map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                received.note(number)
                kill(child, number)
            }
            source.resume()
            return source
        }
        defer { for source in sources { source.cancel() } }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else {
                throw EditorError("lost track of the editor \(quoted): \(String(cString: strerror(errno)))")
            }
        }
        if let number = received.number {
            throw EditorError("bowties received signal \(number) while the editor ran", signal: number)
        }
        // WIFEXITED / WEXITSTATUS / WTERMSIG, which are macros in C.
        let signalNumber = status & 0x7F
        if signalNumber != 0 {
            throw EditorError("the editor \(quoted) was killed by signal \(signalNumber)")
        }
        let exitStatus = (status >> 8) & 0xFF
        if exitStatus == 127 {
            throw EditorError(
                "the editor \(quoted) was not found (exit 127)",
                hint: "Set $VISUAL or $EDITOR to an editor that is installed, e.g. nano.")
        }
        if exitStatus != 0 {
            throw EditorError("the editor \(quoted) exited with status \(exitStatus)")
        }
    }

    private var quoted: String { "\"\(command)\"" }

    /// Signals that end the edit: passed on to the editor, then bowties
    /// exits with 128 + the signal, the file removed.
    static let forwardedSignals: [Int32] = [SIGTERM, SIGHUP]

    /// The first forwarded signal, noted on the signal queue and read
    /// once the editor has gone.
    private final class ReceivedSignal: Sendable {
        private let state = Mutex<Int32?>(nil)

        func note(_ number: Int32) {
            state.withLock { $0 = $0 ?? number }
        }

        var number: Int32? { state.withLock { $0 } }
    }
}

/// The editor could not be run, or failed: nothing was changed.
struct EditorError: Error, CustomStringConvertible {
    var message: String
    var hint: String?
    /// The signal that ended the edit, when one did: bowties then exits
    /// with 128 + its number, as shells expect.
    var signal: Int32?

    init(_ message: String, hint: String? = nil, signal: Int32? = nil) {
        self.message = message
        self.hint = hint
        self.signal = signal
    }

    var description: String {
        let text = message + "; nothing was changed"
        return hint.map { "\(text)\nhint: \($0)" } ?? text
    }
}
