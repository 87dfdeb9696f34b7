extension BowTies {
    /// `bowties --color never add …`: the output's `--color` before the
    /// name `add`, taken out of the arguments before ArgumentParser reads
    /// them, and applied to ``Terminal/colorChoice``.
    ///
    /// Every other command takes `--color auto|always|never` as an option
    /// of its own (``ColorOption``, in ``CatalogOptions``), before or after
    /// its name; `add` cannot, since its `--color #RRGGBB` is the new tie's
    /// colour. So for `add` alone the output's choice is read here, before
    /// its name; the arguments of any other command come back unchanged,
    /// and so do the shell completion scripts' calls (`---completion`).
    ///
    /// - Throws: ``UsageError`` for a value other than auto, always, never.
    static func extractingColorChoice(_ arguments: [String]) throws -> [String] {
        // Only `add` moves `--color`: without the word, no command's
        // configuration need be built to find the name (`export`'s lists
        // every field of the declaration, a million instructions).
        guard arguments.contains("add"), let addIndex = commandIndex(in: arguments), arguments[addIndex] == "add"
        else { return arguments }
        var kept: [String] = []
        var index = 0
        while index < addIndex {
            let token = arguments[index]
            guard token == "--color" || token.hasPrefix("--color=") else {
                kept.append(token)
                index += 1
                continue
            }
            let value: String
            if token == "--color" {
                guard index + 1 < addIndex else {
                    throw UsageError("--color needs a value: auto, always or never.")
                }
                value = arguments[index + 1]
                index += 2
            } else {
                value = String(token.dropFirst("--color=".count))
                index += 1
            }
            guard let choice = Terminal.ColorChoice(rawValue: value) else {
                throw UsageError("--color takes auto, always or never, not '\(Output.escaped(value))'.")
            }
            Terminal.colorChoice = choice
        }
        return kept + arguments[addIndex...]
    }

    /// Where the command's name is: the first token that names a command,
    /// skipping the values of the shared options before it. Nil when none
    /// comes before `--` or a token ArgumentParser handles itself
    /// (`---completion`, `--generate-completion-script`).
    private static func commandIndex(in arguments: [String]) -> Int? {
        let commands = Set(commandNames)
        var index = 0
        while index < arguments.count {
            let token = arguments[index]
            if commands.contains(token) { return index }
            let name = String(token.prefix { $0 != "=" })
            guard let takesValue = CatalogOptions.names[name] else { return nil }
            index += takesValue && name == token ? 2 : 1
        }
        return nil
    }
}
