extension BowTies {
    /// `--color auto|always|never` (or `--color=WHEN`), taken out of the
    /// arguments before ArgumentParser reads them, and applied to
    /// ``Terminal/colorChoice``.
    ///
    /// It cannot be an option of ``CatalogOptions``: `add --color #RRGGBB`
    /// is the new tie's colour. So it is read anywhere before the command's
    /// name, and after it for every command but `add` (there, only before:
    /// `bowties --color never add …`); never after `--`.
    ///
    /// - Throws: ``UsageError`` for a value other than auto, always, never.
    static func extractingColorChoice(_ arguments: [String]) throws -> [String] {
        let commands = Set(commandNames)
        var kept: [String] = []
        var command: String?
        var index = 0
        while index < arguments.count {
            let token = arguments[index]
            if token == "--" {
                kept += arguments[index...]
                break
            }
            if command == nil, commands.contains(token) { command = token }
            let mayBeOurs = command != "add"
            if mayBeOurs, token == "--color" || token.hasPrefix("--color=") {
                let value: String
                if token == "--color" {
                    guard index + 1 < arguments.count else {
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
                continue
            }
            kept.append(token)
            index += 1
        }
        return kept
    }
}
