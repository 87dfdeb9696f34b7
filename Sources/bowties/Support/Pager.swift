import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Long output through a pager on a terminal, as git does: `$PAGER`, else
/// `less -FRX` (`-F` quits at once when the text fits on one screen, `-R`
/// keeps colours, `-X` leaves the text on screen), with `LESS=FRX` when
/// `LESS` is unset. Never when standard output is not a terminal, and not
/// with `--no-pager` or an empty `$PAGER` or `cat`.
///
/// ```swift
/// Pager.start(disabled: options.noPager)   // then print as usual
/// ```
///
/// Standard output becomes a pipe to the pager; when the process exits
/// (by any path: `exit` runs the handler) the pipe is closed and bowties
/// waits for the pager, so the shell's prompt comes back after it.
enum Pager {
    /// The pager's process id, 0 when none runs.
    private static let child = Mutex<pid_t>(0)

    /// Starts the pager if standard output is a terminal and nothing
    /// turned it off. Does nothing, and prints directly, when the pager
    /// cannot be started.
    static func start(
        disabled: Bool, environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        guard !disabled, Terminal.isTerminal(1), child.withLock({ $0 }) == 0 else { return }
        let command = (environment["PAGER"] ?? "less -FRX").trimmingCharacters(in: .whitespaces)
        guard !command.isEmpty, command != "cat" else { return }
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return }
        // Neither end may leak into the pager (it would never see the end
        // of the text) or into other children.
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, ends[0], 0)
        var variables = environment
        if variables["LESS"] == nil { variables["LESS"] = "FRX" }
        let arguments = ["/bin/sh", "-c", command]
        var pid: pid_t = 0
        let status = withCStrings(arguments) { argv in
            withCStrings(variables.map { "\($0.key)=\($0.value)" }) { envp in
                posix_spawn(&pid, "/bin/sh", &actions, nil, argv, envp)
            }
        }
        close(ends[0])
        guard status == 0 else {
            close(ends[1])
            return
        }
        dup2(ends[1], 1)
        close(ends[1])
        child.withLock { $0 = pid }
        atexit { Pager.finish() }
    }

    /// Closes the pipe (the pager sees the end of the text) and waits for it.
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
