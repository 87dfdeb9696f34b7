import ArgumentParser
import BowTiesKit
import Foundation

/// The `bowties` command: a catalog for collection items such as bow ties.
@main
struct BowTies: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bowties",
        abstract: "A catalog for your bow ties: import, add, edit, wear, rate, show, list, export and report.",
        discussion: """
            The catalog is an SQLite file: --store PATH, else $BOWTIES_STORE, else \
            $XDG_DATA_HOME/bowties/catalog.sqlite (~/.local/share/bowties/catalog.sqlite). \
            Photos larger than 100 KiB are kept in files beside it.

            Start with `bowties import` (the bundled sample data), then `bowties list`.

            The options every command takes (--store, --wait, --json, --no-pager, --color) may \
            also come before the command's name, as with git: `bowties --store ~/ties.sqlite list`.

            --color auto|always|never: colour (swatches) on a terminal, unless NO_COLOR is set \
            or TERM=dumb (auto, the default); always, even when piped; or never. 24-bit colour \
            when COLORTERM is truecolor or 24bit, else the 256-colour palette. For `add`, whose \
            --color is the tie's colour, it goes before the command's name.

            Long output on a terminal (list, tags, log, history, model, check's problems) goes \
            through $PAGER, else less -FRX; --no-pager, an empty PAGER or PAGER=cat turn it off, \
            and output that is not a terminal (or is TERM=dumb) never uses it.

            \(ExitStatus.helpText)
            """,
        version: "0.1.0",
        // Every subcommand names itself (commandName): deriving a name
        // from the type's name costs reflection at every start, a quarter
        // of what `bowties show` spent.
        subcommands: [
            Import.self, Add.self, Edit.self, SetValues.self, List.self, Count.self, Show.self, Wear.self, Unwear.self,
            History.self,
            Rate.self, Favorite.self, Tag.self, Untag.self, Tags.self, Photo.self, Delete.self, Export.self,
            Report.self, Serve.self,
            Undo.self, Redo.self, Log.self, Config.self, Check.self, Migrate.self,
            Model.self, CoreData.self,
        ]
    )

    /// Parses, runs, and maps every error to its documented exit status in
    /// one place (see ``ExitStatus``).
    static func main() {
        // A write past the file-size limit (`ulimit -f`) then fails with
        // EFBIG, which the command reports and rolls back, instead of the
        // process being killed half-way.
        signal(SIGXFSZ, SIG_IGN)
        do {
            if let script = Completions.script(for: Array(CommandLine.arguments.dropFirst())) {
                Terminal.standardOutput.write(script)
                return
            }
            let given = try extractingColorChoice(Array(CommandLine.arguments.dropFirst()))
            if FastPath.isVersionRequest(given) {
                Terminal.standardOutput.write((configuration.version) + "\n")
                return
            }
            if let text = FastPath.help(for: given) ?? FastPath.completion(for: given) {
                Terminal.standardOutput.write(text)
                return
            }
            if let work = FastPath.command(for: given) {
                try work()
                return
            }
            if let error = unknownCommand(in: given) { throw error }
            let arguments = argumentsWithSharedOptionsAfterCommand(given[...])
            var command = try parseReadingDashValues(arguments)
            try command.run()
        } catch {
            ExitStatus.exit(reporting: error)
        }
    }

    /// `bowties --store X list` as `bowties list --store X`: git, beets,
    /// Taskwarrior and sqlite-utils users put global options first, but
    /// ArgumentParser reads a command's options only after its name. The
    /// shared options (``CatalogOptions/names``) that stand before the
    /// first subcommand name are moved to just after it. Anything else
    /// before the name is left where it is, for ArgumentParser to report.
    static func argumentsWithSharedOptionsAfterCommand(_ arguments: ArraySlice<String>) -> [String] {
        let commands = Set(commandNames)
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let token = arguments[index]
            if commands.contains(token) {
                guard index > arguments.startIndex else { return Array(arguments) }
                // A command with subcommands of its own (`coredata
                // inspect`): after the subcommand's name, which reads them.
                var names = [token]
                var rest = arguments[(index + 1)...]
                if let next = rest.first, nestedCommandNames(of: token).contains(next) {
                    names.append(next)
                    rest = rest.dropFirst()
                }
                return names + arguments[..<index] + rest
            }
            let name = String(token.prefix(while: { $0 != "=" }))
            guard let takesValue = CatalogOptions.names[name] else { break }
            index += takesValue && name == token ? 2 : 1
        }
        return Array(arguments)
    }

    /// The names of the subcommands of the command called `name`.
    static func nestedCommandNames(of name: String) -> [String] {
        guard let command = configuration.subcommands.first(where: { $0._commandName == name }) else { return [] }
        return command.configuration.subcommands.map { $0._commandName }
    }

    /// `bowties rate R -1` must reach validation ("rating is too small."),
    /// but ArgumentParser reads `-1` as an unknown option. No option of
    /// ours starts with a digit, so tokens such as `-1`, `-0.5`, `-inf` are
    /// moved behind a `--` terminator, where they are positional values in
    /// their original order.
    ///
    /// A number that is the value of an option in ``optionsTakingNumbers``
    /// (`add --rating -1`) stays where it is: that option reads it.
    static func argumentsTreatingNegativeNumbersAsValues(_ arguments: ArraySlice<String>) -> [String] {
        guard !arguments.contains("--") else { return Array(arguments) }
        func isNegativeNumber(_ token: String) -> Bool {
            guard token.hasPrefix("-"), token.count > 1 else { return false }
            return Double(token) != nil
        }
        var kept: [String] = []
        var numbers: [String] = []
        for token in arguments {
            if isNegativeNumber(token), !(kept.last.map(optionsTakingNumbers.contains) ?? false) {
                numbers.append(token)
            } else {
                kept.append(token)
            }
        }
        guard !numbers.isEmpty else { return Array(arguments) }
        return kept + ["--"] + numbers
    }

    /// Parses `arguments` (the command's name first); when that fails,
    /// parses them again with each word that starts with `-` but is no
    /// option of the command, after an option that takes a value, given
    /// to that option (``CommandOptionTable/attachingDashValues(_:)``):
    /// `config --undo-limit -1` then reaches the rule that refuses it, and
    /// `add --name -minus` names the tie. The table costs a dump of the
    /// command's arguments, so a command line that parses never pays it.
    static func parseReadingDashValues(_ arguments: [String]) throws -> ParsableCommand {
        do {
            return try parseAsRoot(argumentsTreatingNegativeNumbersAsValues(arguments[...]))
        } catch {
            guard exitCode(for: error) == .validationFailure, let name = arguments.first,
                let attached = CommandOptionTable(command: name)?.attachingDashValues(arguments)
            else { throw error }
            return try parseAsRoot(argumentsTreatingNegativeNumbersAsValues(attached[...]))
        }
    }

    /// Options whose value may be a negative number, declared with
    /// `parsing: .unconditional` so that ArgumentParser takes `-1` as
    /// their value.
    static let optionsTakingNumbers: Set = ["--rating", "--wait", "--photo-threshold", "--cards"]
}
