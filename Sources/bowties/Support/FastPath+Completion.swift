import Foundation
import BowTiesKit

extension FastPath {
    /// What the shell completion scripts ask at each Tab after a command
    /// that takes a tie's key, or query terms: `bowties ---completion show
    /// -- positional@0 4 1 bowties show --store S R`, answered without
    /// ArgumentParser.
    ///
    /// ArgumentParser answers such a call by building the parser of the
    /// root and of the command (the reflection ``FastPath`` avoids), to
    /// find the closure behind `positional@0`, then runs it. For the
    /// commands below that closure is known: ``Completions/keys(prefix:words:)``
    /// or ``Completions/queryTerms(prefix:words:)``. The call is read as
    /// ArgumentParser reads it (`<argument index> <cursor index> <words>`,
    /// the word being completed the last one, cut at the cursor) and the
    /// answer printed as it prints it: one completion a line, a last line
    /// of one space for zsh (its script removes it), nothing at all when
    /// there is none. Any other call (another argument, an option's value,
    /// a number that does not read) is left to ArgumentParser.
    ///
    /// - Returns: The bytes to print; nil when ArgumentParser should answer.
    static func completion(for arguments: [String]) -> String? {
        guard getenv("BOWTIES_NO_FAST_PATH") == nil, arguments.count >= 6, arguments[0] == "---completion",
            let complete = completerOfFirstArgument(of: arguments[1]), arguments[2] == "--",
            arguments[3] == "positional@0", Int(arguments[4]) != nil, let cursor = Int(arguments[5]), cursor >= 0
        else { return nil }
        let words = Array(arguments[6...])
        let prefix: String
        if let word = words.last {
            prefix = String(word.prefix(cursor))
        } else if cursor == 0 {
            prefix = ""
        } else {
            return nil
        }
        var completions = complete(prefix, words)
        // ArgumentParser's `CompletionShell.format(completions:)`.
        if getenv("SAP_SHELL").map({ String(cString: $0) }) == "zsh" { completions.append(" ") }
        let text = completions.listed(separator: "\n")
        return text.isEmpty ? "" : text + "\n"
    }

    /// The function that completes the first positional argument of
    /// `command` (the one its `@Argument(completion:)` names), for the
    /// commands whose first argument is a key or query terms.
    static func completerOfFirstArgument(of command: String) -> ((String, [String]) -> [String])? {
        switch command {
        case "show", "history", "rate", "favorite", "unwear", "edit", "photo":
            return Completions.keys(prefix:words:)
        case "wear", "delete":
            return Completions.queryTerms(prefix:words:)
        default:
            return nil
        }
    }
}
