import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One run of a child process: its exit status and its peak resident
/// memory.
///
/// The peak is the child's `VmHWM` (`/proc/<pid>/status`), read every
/// millisecond while it runs. `wait4`'s `ru_maxrss` cannot be used alone:
/// Linux records in it the memory of the image the child replaced at
/// `exec`, and `posix_spawn` children start as the test process itself
/// (tens of MiB, growing as tests run in parallel). It is kept as
/// ``rusageMaxRSSKiB``, an upper bound. `VmHWM` belongs to the new image
/// only; being a high-water mark, a sample taken any time after the peak
/// sees it, and allocation stops before a bowties command exits.
///
/// ```swift
/// let run = try MeasuredProcess.run(binary, ["import", file], environment: env, in: folder)
/// #expect(run.peakMemoryMiB < 100)
/// ```
struct MeasuredProcess {
    /// The exit status, or 128 + the signal that ended the child.
    var status: Int32
    /// The signal that ended the child (nil when it exited).
    var signal: Int32?
    /// Whether the child outlived its time limit and was killed.
    var timedOut: Bool
    /// Peak resident set size of the child's own image, in KiB
    /// (`VmHWM`, the last sample before it exited).
    var peakMemoryKiB: Int
    /// `wait4`'s `ru_maxrss`, in KiB: at least the child's peak, and at
    /// least the test process's size when it spawned the child.
    var rusageMaxRSSKiB: Int
    var stdoutData: Data
    var stderrData: Data

    var stdout: String { String(decoding: stdoutData, as: UTF8.self) }
    var stderr: String { String(decoding: stderrData, as: UTF8.self) }
    var peakMemoryMiB: Double { Double(peakMemoryKiB) / 1024 }

    struct SpawnError: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs `executable` with `arguments` and waits for it, at most
    /// `timeout` seconds (then kills it: a hostile input must never hang
    /// the test suite).
    ///
    /// Standard input is `/dev/null`; standard output and error go to files
    /// in `directory` (never pipes, which a chatty child could fill), read
    /// back and removed.
    ///
    /// - Throws: ``SpawnError`` when the child cannot be started.
    static func run(
        _ executable: URL, _ arguments: [String], environment: [String: String], in directory: URL,
        timeout: TimeInterval = 60
    ) throws -> MeasuredProcess {
        let id = UUID().uuidString
        let stdoutURL = directory.appendingPathComponent(".measured-stdout-\(id)")
        let stderrURL = directory.appendingPathComponent(".measured-stderr-\(id)")
        defer {
            try? FileManager.default.removeItem(at: stdoutURL)
            try? FileManager.default.removeItem(at: stderrURL)
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdoutURL.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, stderrURL.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable.path] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] =
            environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv + envp { free(pointer) }
        }

        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable.path, &actions, nil, argv, envp)
        guard spawned == 0 else {
            throw SpawnError(description: "posix_spawn \(executable.path): \(String(cString: strerror(spawned)))")
        }

        var status: Int32 = 0
        var usage = rusage()
        var timedOut = false
        var highWaterMark = 0
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            highWaterMark = max(highWaterMark, Self.highWaterMarkKiB(of: pid) ?? 0)
            let waited = wait4(pid, &status, WNOHANG, &usage)
            if waited == pid { break }
            if waited < 0 && errno != EINTR {
                throw SpawnError(description: "wait4 \(pid): \(String(cString: strerror(errno)))")
            }
            if Date() > deadline {
                kill(pid, SIGKILL)
                _ = wait4(pid, &status, 0, &usage)
                timedOut = true
                break
            }
            usleep(1_000)
        }

        // WIFEXITED / WEXITSTATUS / WTERMSIG are macros Swift cannot see.
        let signal = status & 0x7F
        return MeasuredProcess(
            status: signal == 0 ? (status >> 8) & 0xFF : 128 + signal,
            signal: signal == 0 ? nil : signal,
            timedOut: timedOut,
            // A child that ends before its first sample is measured by
            // the upper bound instead (never by zero).
            peakMemoryKiB: highWaterMark > 0 ? highWaterMark : Int(usage.ru_maxrss),
            rusageMaxRSSKiB: Int(usage.ru_maxrss),
            stdoutData: (try? Data(contentsOf: stdoutURL)) ?? Data(),
            stderrData: (try? Data(contentsOf: stderrURL)) ?? Data())
    }

    /// `VmHWM` of a running process, in KiB; nil once it has exited (a
    /// zombie has no memory left to describe).
    private static func highWaterMarkKiB(of pid: pid_t) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
        else { return nil }
        return Int(line.dropFirst("VmHWM:".count).filter(\.isNumber))
    }
}
