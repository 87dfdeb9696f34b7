import Foundation
import Testing

/// The completion scripts in the shells themselves: fish loads
/// `bowties --generate-completion-script fish` and answers
/// `complete -C 'bowties …'` as it would at a Tab.
@Suite("shell completion in fish")
struct ShellCompletionTests {
    static let fish: String? = ["/usr/bin/fish", "/bin/fish", "/usr/local/bin/fish"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// A catalog with the sample data and a tag, and bowties' fish script.
    final class FishSession {
        let workspace: CatalogWorkspace
        let script: URL

        init() throws {
            workspace = try CatalogWorkspace()
            try workspace.importSampleData()
            try #require(try workspace.run("tag", "R", "formal").status == 0)
            let generated = try workspace.run("--generate-completion-script", "fish")
            try #require(generated.status == 0 && generated.stderr.isEmpty, "\(generated)")
            script = workspace.runner.directory.appendingPathComponent("bowties.fish")
            try generated.stdoutData.write(to: script)
        }

        /// What fish offers for `line` (the words, without descriptions),
        /// and what it wrote to standard error.
        func complete(_ line: String) throws -> (words: [String], errors: String) {
            let binaryFolder = try BowTiesRunner.executableURL().deletingLastPathComponent().path
            var environment = workspace.environment
            environment["PATH"] = binaryFolder + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
            // fish keeps its own files under these: inside the test's folder.
            let home = workspace.runner.directory.appendingPathComponent("home")
            environment["HOME"] = home.path
            environment["XDG_CONFIG_HOME"] = home.appendingPathComponent(".config").path
            environment["XDG_DATA_HOME"] = home.appendingPathComponent(".local/share").path
            let process = Process()
            process.executableURL = URL(fileURLWithPath: try #require(ShellCompletionTests.fish))
            // No configuration, and of fish's own completions only those
            // it ships (`env`'s, which completes the command after it).
            process.arguments = [
                "--no-config", "-c",
                "set -g fish_complete_path $__fish_data_dir/completions; source $argv[1]; and complete -C $argv[2]",
                script.path, line,
            ]
            process.environment = environment
            process.currentDirectoryURL = workspace.runner.directory
            process.standardInput = FileHandle.nullDevice
            let errorsURL = workspace.runner.directory.appendingPathComponent("fish-\(UUID().uuidString).err")
            try Data().write(to: errorsURL)
            let errors = try FileHandle(forWritingTo: errorsURL)
            let output = Pipe()
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            try errors.close()
            let words = String(decoding: data, as: UTF8.self).split(separator: "\n").map {
                String($0.prefix { $0 != "\t" })
            }
            return (words, String(decoding: try Data(contentsOf: errorsURL), as: UTF8.self))
        }
    }

    @Test(
        "fish completes commands, options, --color's values, fields, tags and the catalog's keys, reading only",
        .enabled(if: fish != nil, "fish is not installed (apt-get install fish)"))
    func completes() throws {
        let session = try FishSession()
        let before = try session.workspace.snapshot()
        let cases: [(line: String, expected: [String])] = [
            ("bowties sh", ["show"]),
            ("bowties li", ["list"]),
            ("bowties list --", ["--color", "--fields", "--format", "--no-pager", "--sort", "--store"]),
            ("bowties show R --", ["--color", "--json", "--store"]),
            ("bowties list --color ", ["always", "auto", "never"]),
            // Before the command's name too: its values, then the commands.
            ("bowties --color ", ["always", "auto", "never"]),
            ("bowties --color never li", ["list"]),
            ("bowties list --fields searchKey,na", ["searchKey,name"]),
            ("bowties export --fields ", ["id", "name", "searchKey", "rating"]),
            ("bowties list rat", ["rating:"]),
            ("bowties list sort:tim", ["sort:timesWorn+", "sort:timesWorn-"]),
            ("bowties list tag:", ["tag:formal"]),
            ("bowties show ", ["B", "G", "I", "O", "R", "V", "Y"]),
            ("bowties wear ", ["B", "R", "Y", "rating:"]),
            // Another command before it: fish completes through `complete -C`.
            ("env X=1 bowties show ", ["B", "G", "I", "O", "R", "V", "Y"]),
        ]
        for (line, expected) in cases {
            let (words, errors) = try session.complete(line)
            #expect(errors.isEmpty, "\(line): \(errors)")
            for word in expected {
                #expect(words.contains(word), "\(line): \(word) is not among \(words)")
            }
        }
        let keys = try session.complete("bowties show ").words
        #expect(keys == ["B", "G", "I", "O", "R", "V", "Y"], "\(keys)")
        let colours = try session.complete("bowties list --color ").words
        #expect(colours.sorted() == ["always", "auto", "never"], "\(colours)")
        let first = try session.complete("bowties --color ").words
        #expect(first.sorted() == ["always", "auto", "never"], "\(first)")
        let after = try session.workspace.snapshot()
        #expect(after.isByteIdentical(to: before), "completion changed the catalog: \(after.byteDifference(from: before))")
    }

    @Test(
        "fish completes the keys of the catalog --store names on the line, and nothing without a catalog",
        .enabled(if: fish != nil, "fish is not installed (apt-get install fish)"))
    func completesFromStore() throws {
        let session = try FishSession()
        let other = session.workspace.runner.directory.appendingPathComponent("other.sqlite")
        let added = try session.workspace.run("add", "--name", "Other", "--key", "ZZ", "--store", other.path)
        try #require(added.status == 0, "\(added)")
        let (words, errors) = try session.complete("bowties show --store \(other.path) ")
        #expect(errors.isEmpty && words == ["ZZ"], "\(words) \(errors)")
        let missing = session.workspace.runner.directory.appendingPathComponent("none.sqlite")
        let none = try session.complete("bowties show --store \(missing.path) ")
        #expect(none.errors.isEmpty && none.words.isEmpty, "\(none)")
        #expect(!FileManager.default.fileExists(atPath: missing.path))
    }
}
