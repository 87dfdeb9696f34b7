import Foundation
import Testing

/// The bash and zsh completion scripts in a real interactive shell, in
/// tmux: keys typed, Tab pressed, the screen read back (issue 20, item
/// 15). Bash splits words at `COMP_WORDBREAKS`, `:` among them, which only
/// an interactive shell does as a user sees it.
@Suite("shell completion in interactive bash and zsh")
struct InteractiveCompletionTests {
    static let tmux = TerminalOutputTests.tmux
    static let bash: String? = ["/usr/bin/bash", "/bin/bash"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static let zsh: String? = ["/usr/bin/zsh", "/bin/zsh"].first { FileManager.default.isExecutableFile(atPath: $0) }
    /// bash-completion's loader, which the installed script is used with;
    /// the script also works without it.
    static let bashCompletion: String? = ["/usr/share/bash-completion/bash_completion"].first {
        FileManager.default.fileExists(atPath: $0)
    }

    /// A shell in a tmux pane, on a catalog with the sample data and the
    /// tag `formal`, with bowties' completion script loaded.
    final class Session {
        let workspace: CatalogWorkspace
        let socket = "bowties-e2e-\(UUID().uuidString)"
        let output: URL

        /// - Parameters:
        ///   - shell: `bash` or `zsh`.
        init(shell: String) throws {
            workspace = try CatalogWorkspace()
            try workspace.importSampleData()
            try #require(try workspace.run("tag", "R", "formal").status == 0)
            let folder = workspace.runner.directory
            output = folder.appendingPathComponent("tmux.out")
            let generated = try workspace.run("--generate-completion-script", shell)
            try #require(generated.status == 0 && generated.stderr.isEmpty, "\(generated)")
            let binaryFolder = try BowTiesRunner.executableURL().deletingLastPathComponent().path
            let path = binaryFolder + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
            var command: [String]
            if shell == "bash" {
                let script = folder.appendingPathComponent("bowties.bash")
                try generated.stdoutData.write(to: script)
                let loader = InteractiveCompletionTests.bashCompletion.map { "source '\($0)'\n" } ?? ""
                let rc = try workspace.runner.write(loader + "source '\(script.path)'\nPS1='$ '\n", to: "bashrc")
                command = [try #require(InteractiveCompletionTests.bash), "--noprofile", "--rcfile", rc.path, "-i"]
            } else {
                let functions = folder.appendingPathComponent("zfunctions", isDirectory: true)
                try FileManager.default.createDirectory(at: functions, withIntermediateDirectories: true)
                try generated.stdoutData.write(to: functions.appendingPathComponent("_bowties"))
                let home = folder.appendingPathComponent("zdot", isDirectory: true)
                try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
                try workspace.runner.write(
                    "fpath=('\(functions.path)' $fpath)\nautoload -U compinit; compinit -u -d '\(home.path)/.zcompdump'\n"
                        + "PS1='%% '\n", to: "zdot/.zshrc")
                command = ["env", "ZDOTDIR=" + home.path, try #require(InteractiveCompletionTests.zsh), "-i"]
            }
            func quoted(_ word: String) -> String { "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'" }
            let environment = [
                "env", "TERM=xterm-256color", "PATH=" + path, "BOWTIES_STORE=" + workspace.storeURL.path,
                "HOME=" + folder.path, "NO_COLOR=1",
            ]
            _ = try tmux([
                "new-session", "-d", "-x", "150", "-y", "30",
                (environment + command).map(quoted).joined(separator: " "),
            ])
            let prompt: Character = shell == "bash" ? "$" : "%"
            // The prompt: tmux leaves out the blank after it.
            let ready = waitFor(10) {
                (try? self.screen().split(separator: "\n").contains { $0.first == prompt }) ?? false
            }
            try #require(ready, "the shell did not start: \((try? screen()) ?? "")")
        }

        deinit {
            // `kill-server` answers 0 yet can leave the server and its
            // shell running after the test (seen with zsh): end both by
            // pid as well, and remove the socket.
            let found = (try? tmux(["display-message", "-p", "#{pid} #{pane_pid} #{socket_path}"])) ?? ""
            _ = try? tmux(["kill-server"])
            let fields = found.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            for pid in fields.prefix(2).compactMap({ Int32($0) }) where pid > 1 { kill(pid, SIGKILL) }
            if fields.count == 3 { try? FileManager.default.removeItem(atPath: fields[2]) }
        }

        /// Runs tmux with `arguments` on this session's server.
        @discardableResult
        func tmux(_ arguments: [String]) throws -> String {
            try TmuxClient(
                tmux: try #require(InteractiveCompletionTests.tmux), socket: socket, output: output
            ).run(arguments)
        }

        /// The pane's lines that are not empty.
        func screen() throws -> String {
            try tmux(["capture-pane", "-p"]).split(separator: "\n").filter { !$0.isEmpty }.joined(separator: "\n")
        }

        func waitFor(_ seconds: Double, _ condition: () -> Bool) -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if condition() { return true }
                Thread.sleep(forTimeInterval: 0.1)
            }
            return condition()
        }

        /// Types `line`, presses Tab (twice with `twice`: the list of
        /// choices), and returns the screen once it has settled; then
        /// clears the line.
        func complete(_ line: String, twice: Bool = false) throws -> String {
            try tmux(["send-keys", "-l", line])
            try tmux(["send-keys", "Tab"])
            if twice {
                Thread.sleep(forTimeInterval: 0.5)
                try tmux(["send-keys", "Tab"])
            }
            // Each Tab runs bowties: wait until the screen stops changing.
            var last = ""
            var settled = 0
            _ = waitFor(15) {
                let now = (try? screen()) ?? ""
                settled = now == last ? settled + 1 : 0
                last = now
                return settled >= 5
            }
            try tmux(["send-keys", "C-u"])
            try tmux(["send-keys", "C-l"])
            Thread.sleep(forTimeInterval: 0.3)
            return last
        }

        /// The line being edited: the last line of the screen that starts
        /// with the prompt.
        func editedLine(after line: String) throws -> String {
            let screen = try complete(line)
            let prompt = screen.split(separator: "\n").last { $0.first == "$" || $0.first == "%" }
            return prompt.map { String($0.dropFirst(1)).trimmingCharacters(in: .whitespaces) } ?? screen
        }
    }

    @Test(
        "bash completes query terms with a colon, whatever COMP_WORDBREAKS splits, and --color's values first",
        .enabled(if: tmux != nil && bash != nil, "tmux or bash is not installed"))
    func bashColons() throws {
        let session = try Session(shell: "bash")
        let before = try session.workspace.snapshot()
        // Before: `sort:rating\:` and nothing for tag:f.
        #expect(try session.editedLine(after: "bowties list sort:ra") == "bowties list sort:rating")
        #expect(try session.editedLine(after: "bowties list tag:f") == "bowties list tag:formal")
        #expect(try session.editedLine(after: "bowties list ^tag:f") == "bowties list ^tag:formal")
        #expect(try session.editedLine(after: "bowties list is:fa") == "bowties list is:favorite")
        // A field: its colon as it is, no backslash, and no space after it.
        #expect(try session.editedLine(after: "bowties list rat") == "bowties list rating:")
        let choices = try session.complete("bowties list sort:rating", twice: true)
        #expect(choices.contains("rating+") && choices.contains("rating-"), "\(choices)")
        #expect(!choices.contains("\\:"), "\(choices)")
        // Words without a colon as before.
        #expect(try session.editedLine(after: "bowties sh") == "bowties show")
        let keys = try session.complete("bowties show ", twice: true)
        let keyLine = keys.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        #expect(keyLine.contains(["B", "G", "I", "O", "R", "V", "Y"]), "\(keys)")
        // --color before the command's name: its values, not the commands.
        let colours = try session.complete("bowties --color ", twice: true)
        #expect(colours.contains("always  auto    never") && !colours.contains("list"), "\(colours)")
        #expect(try session.editedLine(after: "bowties --color ne") == "bowties --color never")
        #expect(try session.editedLine(after: "bowties list --color ne") == "bowties list --color never")
        #expect(try session.editedLine(after: "bowties --color never sh") == "bowties --color never show")
        let afterColor = try session.complete("bowties --color never show ", twice: true)
        let afterColorKeys = afterColor.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        #expect(afterColorKeys.contains(["B", "G", "I", "O", "R", "V", "Y"]), "\(afterColor)")
        let after = try session.workspace.snapshot()
        #expect(
            after.isByteIdentical(to: before), "completion changed the catalog: \(after.byteDifference(from: before))")
    }

    @Test(
        "zsh offers --color's values before the command's name",
        .enabled(if: tmux != nil && zsh != nil, "tmux or zsh is not installed"))
    func zshColor() throws {
        let session = try Session(shell: "zsh")
        let colours = try session.complete("bowties --color ")
        #expect(colours.contains("always") && colours.contains("never") && !colours.contains("list"), "\(colours)")
        #expect(try session.editedLine(after: "bowties --color never li") == "bowties --color never list")
    }
}
