import Foundation

extension BowTiesRunner {
    /// What `bowties ARGUMENTS | READER` gives, run by bash with `pipefail`
    /// (so the status is bowties' unless the reader fails): bowties writes
    /// into a pipe, as in a user's shell, not into a file.
    ///
    /// - Parameters:
    ///   - arguments: bowties' arguments, as shell words.
    ///   - reader: The command reading the pipe (`cat`, `head -1`).
    func piped(_ arguments: String, into reader: String = "cat") throws
        -> (status: Int32, stdout: String, stderr: String)
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [
            "-c", "set -o pipefail; \"$0\" \(arguments) | \(reader)", try BowTiesRunner.executableURL().path,
        ]
        process.environment = environment
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Standard error is read after standard output closes: bowties'
        // messages are short, well under a pipe's buffer.
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text, message)
    }
}
