import BowTiesKit
import Foundation

/// What another process that holds the catalog's write lock is doing, in
/// words: the library finds the process (``WriteLockHolder``, from the
/// kernel's lock table and `/proc`), and only the command line knows what
/// a `bowties` process's arguments mean.
enum LockHolderText {
    /// The options of `import` that take a value, so that the file is
    /// found after them.
    static let importOptionsWithValue: Set<String> = ["--images", "--store", "--wait"]

    /// `bowties (pid 1234) is importing big.plist`, `bowties (pid 1234)
    /// is running "wear R"`, or, for any other program, `sqlite3 (pid
    /// 1234) holds its write lock`.
    @Sendable static func describe(_ holder: WriteLockHolder) -> String {
        guard holder.program == "bowties", !holder.arguments.isEmpty else { return holder.description }
        let who = "bowties (pid \(holder.pid))"
        let arguments = holder.arguments
        if let index = arguments.firstIndex(of: "import") {
            // The file is the first operand after `import`; skip options
            // and the values of those that take one.
            var tokens = arguments[(index + 1)...].makeIterator()
            var file: String?
            while let token = tokens.next() {
                if importOptionsWithValue.contains(token) {
                    _ = tokens.next()
                } else if !token.hasPrefix("-") {
                    file = URL(fileURLWithPath: token).lastPathComponent
                    break
                }
            }
            return "\(who) is importing \(file ?? "the sample data")"
        }
        let shown = arguments.joined(separator: " ")
        return "\(who) is running \"\(shown.count > 60 ? String(shown.prefix(60)) + "…" : shown)\""
    }
}
