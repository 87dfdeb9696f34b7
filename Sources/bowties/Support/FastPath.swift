import ArgumentParser
import BowTiesKit
import Foundation

/// The point commands that scripts run in loops, read without
/// ArgumentParser's reflection.
///
/// ArgumentParser learns a command's arguments by reflecting over a
/// default instance (`Mirror`), once for the root and once for the
/// command. Each property-wrapper type it meets is a first-time protocol
/// lookup, and on Linux each lookup scans every conformance record in the
/// static binary (about 6,800, some 76,000 instructions): 17 M of the
/// 38 M instructions `bowties show R` took (bench/README.md, "Point
/// commands"). The commands are small; the parsing was most of their cost.
///
/// So the plainest forms of `show`, `wear`, `rate`, `favorite`, `history`
/// and `count`, and `--version` alone, are read here: long options from
/// a fixed list (each command's own and the shared ones, as
/// `--name value` or `--name=value`), then as many positional words as
/// the command takes. The same command struct is filled, validated and run
/// as ArgumentParser would. Anything else is left to ArgumentParser, which
/// is always right: a short option, `--help`, an option not listed here
/// or given twice, `--`, a value that starts with `-` (a negative number,
/// say), a word count the command does not take, a value that does not
/// read as its type, or a failed `validate()` (so its error is worded by
/// the one place that words them). `FastPathTests` runs every form both
/// ways and compares what each prints.
///
/// `BOWTIES_NO_FAST_PATH=1` turns it off, for those tests.
enum FastPath {
    /// The command for `arguments` (without the program's name), filled
    /// and validated; nil when ArgumentParser should read them.
    static func command(for arguments: [String]) -> (any ParsableCommand)? {
        guard getenv("BOWTIES_NO_FAST_PATH") == nil else { return nil }
        guard let words = Words(arguments), let spec = specs[words.command] else { return nil }
        guard spec.positionals.contains(words.positionals.count),
            words.flags.isSubset(of: spec.flags.union(sharedFlags)),
            Set(words.values.keys).isSubset(of: spec.options.union(sharedOptions))
        else { return nil }
        guard let options = catalogOptions(words), var command = spec.make(words, options) else { return nil }
        do {
            try options.common.validate()
            try options.colorOption.validate()
            try command.validate()
        } catch {
            return nil
        }
        return command
    }

    /// `bowties --version`: the only form of it that is read here.
    static func isVersionRequest(_ arguments: [String]) -> Bool {
        arguments == ["--version"] && getenv("BOWTIES_NO_FAST_PATH") == nil
    }

    /// The words of one command line, sorted into the command's name,
    /// positional words, flags and options with their values.
    struct Words: Sendable {
        var command = ""
        var positionals: [String] = []
        var flags: Set<String> = []
        var values: [String: String] = [:]

        /// Nil for anything that is not a plain long option, its value, or
        /// a positional word: ArgumentParser reads those.
        init?(_ arguments: [String]) {
            var index = 0
            var named = false
            while index < arguments.count {
                let token = arguments[index]
                index += 1
                guard token.hasPrefix("-") else {
                    if named { positionals.append(token) } else { (command, named) = (token, true) }
                    continue
                }
                guard token.hasPrefix("--"), token.count > 2 else { return nil }
                let name = String(token.prefix { $0 != "=" })
                if FastPath.takesValue.contains(name) {
                    let value: String
                    if name == token {
                        guard index < arguments.count, !arguments[index].hasPrefix("-") else { return nil }
                        value = arguments[index]
                        index += 1
                    } else {
                        value = String(token.dropFirst(name.count + 1))
                    }
                    guard values.updateValue(value, forKey: name) == nil else { return nil }
                } else {
                    guard name == token, flags.insert(name).inserted else { return nil }
                }
            }
            guard named else { return nil }
        }
    }

    /// What one command takes, and how its struct is filled.
    struct Spec: Sendable {
        var positionals: ClosedRange<Int>
        var flags: Set<String> = []
        var options: Set<String> = []
        /// Fills every property of the command (one left unset would stop
        /// the process when `run()` reads it); nil when a value does not
        /// read as its type.
        var make: @Sendable (Words, CatalogOptions) -> (any ParsableCommand)?
    }

    static let sharedFlags = Set(CatalogOptions.names.filter { !$0.value }.keys)
    static let sharedOptions = Set(CatalogOptions.names.filter { $0.value }.keys)
    /// Every option here that takes a value.
    static let takesValue: Set = sharedOptions.union(specs.values.flatMap(\.options))

    static let specs: [String: Spec] = {
        var specs = plainSpecs
        // The command's alias (`aliases` in its configuration).
        specs["favourite"] = specs["favorite"]
        return specs
    }()

    private static let plainSpecs: [String: Spec] = [
        "show": Spec(positionals: 1...1) { words, options in
            var command = BowTies.Show()
            command.key = words.positionals[0]
            command.options = options
            return command
        },
        "history": Spec(positionals: 1...1) { words, options in
            var command = BowTies.History()
            command.key = words.positionals[0]
            command.options = options
            return command
        },
        "rate": Spec(positionals: 2...2) { words, options in
            guard let value = Double(words.positionals[1]) else { return nil }
            var command = BowTies.Rate()
            command.key = words.positionals[0]
            command.value = value
            command.options = options
            return command
        },
        "favorite": Spec(positionals: 1...1, flags: ["--off"]) { words, options in
            var command = BowTies.Favorite()
            command.key = words.positionals[0]
            command.off = words.flags.contains("--off")
            command.options = options
            return command
        },
        "wear": Spec(positionals: 1...Int.max, flags: ["--yes", "--dry-run"], options: ["--on", "--note"]) {
            words, options in
            var command = BowTies.Wear()
            command.terms = words.positionals
            command.yes = words.flags.contains("--yes")
            command.dryRun = words.flags.contains("--dry-run")
            command.date = words.values["--on"]
            command.note = words.values["--note"]
            command.options = options
            return command
        },
        "count": Spec(positionals: 0...Int.max) { words, options in
            var query = QueryArgument()
            query.terms = words.positionals
            var command = BowTies.Count()
            command.query = query
            command.options = options
            return command
        },
    ]

    /// The shared options, every one of them set.
    private static func catalogOptions(_ words: Words) -> CatalogOptions? {
        var common = CommonOptions()
        common.store = words.values["--store"]
        if let wait = words.values["--wait"] {
            guard let seconds = Double(wait) else { return nil }
            common.wait = seconds
        } else {
            common.wait = nil
        }
        common.json = words.flags.contains("--json")
        common.noPager = words.flags.contains("--no-pager")
        var color = ColorOption()
        color.color = words.values["--color"]
        var options = CatalogOptions()
        options.common = common
        options.colorOption = color
        return options
    }
}
