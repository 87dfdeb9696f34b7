import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Long output through a pager on a terminal, as git does: `$PAGER`, else
/// `less -FRX` (`-F` quits at once when the text fits on one screen, `-R`
/// keeps colours, `-X` leaves the text on screen), with `LESS=FRX` when
/// `LESS` is unset. Never when standard output is not a terminal or
/// `TERM` is `dumb` (or unset), and not with `--no-pager` or an empty
/// `$PAGER` or `cat`.
///
/// ```swift
/// Pager.start(disabled: options.noPager)   // then print as usual
/// ```
///
/// Standard output becomes a pipe to the pager; when the process exits
/// (by any path: `exit` runs the handler) the pipe is closed and bowties
/// waits for the pager, so the shell's prompt comes back after it. An
/// error is written only once the pager has gone (``ExitStatus``), so it
/// lands below the text, not inside the pager's screen.
///
/// Quitting the pager early (`q` in less) closes the pipe: `SIGPIPE` is
/// ignored once the pager runs, so a write then fails with `EPIPE`, which
/// ends `list` quietly with status 0 (``ExportOutput``) and is dropped by
/// ``Terminal/Stream``.
///
/// The colours are decided (``Terminal/colorDepth``) before standard
/// output stops being the terminal: `less -R` shows them. A command that
/// lays out text for a terminal asks ``Terminal/isTerminal(_:)`` before
/// it starts the pager.
enum Pager {
    /// The pager's process id, 0 when none runs.
    private static let child = Mutex<pid_t>(0)

    /// Starts the pager if standard output is a terminal and nothing
    /// turned it off. Does nothing, and prints directly, when the pager
    /// cannot be started.
    /// - Parameter environment: The variables to read (default: this
    ///   process's, read only when standard output is a terminal:
    ///   `ProcessInfo`'s dictionary of them costs `history | cat` 0.4 M
    ///   instructions).
    /// - Returns: Whether the pager runs.
    @discardableResult
    static func start(disabled: Bool, environment: [String: String]? = nil) -> Bool {
        guard !disabled, Terminal.isTerminal(1), child.withLock({ $0 }) == 0 else { return false }
        let environment = environment ?? ProcessInfo.processInfo.environment
        // A dumb terminal (Emacs' shell, a serial console) cannot show a
        // full-screen pager: less would ask to press RETURN first.
        guard let term = environment["TERM"], !term.isEmpty, term != "dumb" else { return false }
        let command = (environment["PAGER"] ?? "less -FRX").trimmingCharacters(in: .whitespaces)
        guard !command.isEmpty, command != "cat" else { return false }
        // Decided while standard output is still the terminal.
        _ = Terminal.colorDepth
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return false }
        // Neither end may leak into the pager (it would never see the end
        // of the text) or into other children.
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, ends[0], 0)
        // The pager gets SIGPIPE's default back: an ignored signal stays
        // ignored across exec, and `list` ignores it before paging.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF))
        var variables = environment
        if variables["LESS"] == nil { variables["LESS"] = "FRX" }
        let arguments = ["/bin/sh", "-c", command]
        var pid: pid_t = 0
        let status = withCStrings(arguments) { argv in
            withCStrings(variables.map { "\($0.key)=\($0.value)" }) { envp in
                posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv, envp)
            }
        }
        close(ends[0])
        guard status == 0 else {
            close(ends[1])
            return false
        }
        // A pager that quits early must not kill bowties: writes fail
        // with EPIPE instead.
        signal(SIGPIPE, SIG_IGN)
        dup2(ends[1], 1)
        close(ends[1])
        child.withLock { $0 = pid }
        atexit { Pager.finish() }
        return true
    }

    /// Closes the pipe (the pager sees the end of the text) and waits for
    /// it. Does nothing when no pager runs; safe to call more than once.
    static func finish() {
        let pid = child.withLock { pid in
            defer { pid = 0 }
            return pid
        }
        guard pid != 0 else { return }
        close(1)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
    }

    /// `strings` as a NULL-terminated array of C strings, for `body`.
    private static func withCStrings<T>(
        _ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> T
    ) -> T {
        let pointers = strings.map { strdup($0) } + [nil]
        defer { for pointer in pointers { free(pointer) } }
        return body(pointers)
    }
}
