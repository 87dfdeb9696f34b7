import BowTiesKit

extension BowTies {
    /// The names of the subcommands, as typed, and their aliases
    /// (`favourite`).
    static var commandNames: [String] {
        configuration.subcommands.flatMap {
            [$0.configuration.commandName ?? $0._commandName] + $0.configuration.aliases
        }
    }

    /// Options the root command itself reads (ArgumentParser's own).
    static let rootOptions = ["--help", "-h", "--version", "--generate-completion-script", "--experimental-dump-help"]

    /// A word where a command's name should be that names none, or `help`
    /// for a command that does not exist: a usage error (exit 64) that
    /// suggests the nearest name (`lsit` → `list`). ArgumentParser would
    /// call the first "Unexpected argument" and print the root usage, and
    /// its `help` prints the root help with status 0 for any name.
    ///
    /// Options after the command's name are left to ArgumentParser, which
    /// suggests the nearest option itself.
    ///
    /// - Parameter arguments: The arguments, without the program's name.
    /// - Returns: nil when the command's name, if any, is one of ours.
    static func unknownCommand(in arguments: [String]) -> UsageError? {
        var index = 0
        while index < arguments.count {
            let token = arguments[index]
            if token == "--" || token.hasPrefix("---") { return nil }
            if token.hasPrefix("-") {
                let name = String(token.prefix { $0 != "=" })
                if let takesValue = CatalogOptions.names[name] {
                    index += takesValue && name == token ? 2 : 1
                    continue
                }
                if rootOptions.contains(name) { return nil }
                let suggestion = EditDistance.suggestion(
                    for: name, among: rootOptions.filter { $0.hasPrefix("--") } + CatalogOptions.names.keys.sorted())
                return UsageError(
                    "unknown option '\(Output.escaped(token))'\(didYouMean(suggestion))"
                        + " Run 'bowties --help' for the options every command takes.")
            }
            if token == "help" {
                guard index + 1 < arguments.count else { return nil }
                let name = arguments[index + 1]
                guard !commandNames.contains(name), name != "help", !name.hasPrefix("-") else { return nil }
                return unknown(name, what: "no command named")
            }
            if commandNames.contains(token) { return nil }
            return unknown(token, what: "unknown command")
        }
        return nil
    }

    private static func unknown(_ word: String, what: String) -> UsageError {
        let suggestion = EditDistance.suggestion(for: word, among: commandNames + ["help"])
        return UsageError(
            "\(what) '\(Output.escaped(word))'\(didYouMean(suggestion))"
                + " Run 'bowties --help' for the list of commands.")
    }

    private static func didYouMean(_ suggestion: String?) -> String {
        suggestion.map { ". Did you mean '\($0)'?" } ?? "."
    }
}
