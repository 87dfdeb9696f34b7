import ArgumentParser
import BowTiesKit
import Foundation

/// The `bowties` command: a catalog for collection items such as bow ties.
@main
struct BowTies: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bowties",
        abstract: "A catalog for your bow ties: import, wear, rate, show, list and export.",
        discussion: """
            The catalog is an SQLite file: --store PATH, else $BOWTIES_STORE, else \
            $XDG_DATA_HOME/bowties/catalog.sqlite (~/.local/share/bowties/catalog.sqlite). \
            Photos larger than 100 KiB are kept in files beside it.

            Start with `bowties import` (the bundled sample data), then `bowties list`.

            \(ExitStatus.helpText)
            """,
        version: "0.1.0",
        // Every subcommand names itself (commandName): deriving a name
        // from the type's name costs reflection at every start, a quarter
        // of what `bowties show` spent.
        subcommands: [
            Import.self, List.self, Show.self, Wear.self, Rate.self, Favorite.self, Photo.self,
            Delete.self, Export.self, Config.self, Check.self,
        ]
    )

    /// Parses, runs, and maps every error to its documented exit status in
    /// one place (see ``ExitStatus``).
    static func main() {
        do {
            var command = try parseAsRoot(argumentsTreatingNegativeNumbersAsValues(CommandLine.arguments.dropFirst()))
            try command.run()
        } catch {
            ExitStatus.exit(reporting: error)
        }
    }

    /// `bowties rate R -1` must reach validation ("rating is too small."),
    /// but ArgumentParser reads `-1` as an unknown option. No option of
    /// ours starts with a digit, so tokens such as `-1`, `-0.5`, `-inf` are
    /// moved behind a `--` terminator, where they are positional values in
    /// their original order.
    static func argumentsTreatingNegativeNumbersAsValues(_ arguments: ArraySlice<String>) -> [String] {
        guard !arguments.contains("--") else { return Array(arguments) }
        func isNegativeNumber(_ token: String) -> Bool {
            guard token.hasPrefix("-"), token.count > 1 else { return false }
            return Double(token) != nil
        }
        let numbers = arguments.filter(isNegativeNumber)
        guard !numbers.isEmpty else { return Array(arguments) }
        return arguments.filter { !isNegativeNumber($0) } + ["--"] + numbers
    }
}
