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
/// and `count`, `--version` alone, the root's `--help` (`FastPath+Help`)
/// and the completion of keys (`FastPath+Completion`) are read here: long options from
/// a fixed list (each command's own and the shared ones, as
/// `--name value` or `--name=value`), then as many positional words as
/// the command takes. The values are checked as the options' `validate()`
/// checks them, and the command's work (the static function its `run()`
/// calls with the same values) runs: no ArgumentParser struct is created,
/// since each property wrapper's first use costs lookups too. Anything
/// else is left to ArgumentParser, which is always right: a short option,
/// an option not listed here
/// or given twice, `--`, a value that starts with `-` (a negative number,
/// say), a word count the command does not take, a value that does not
/// read as its type, or a failed `validate()` (so its error is worded by
/// the one place that words them). `FastPathTests` runs every form both
/// ways and compares what each prints.
///
/// `BOWTIES_NO_FAST_PATH=1` turns it off, for those tests.
enum FastPath {
    /// The command's work for `arguments` (without the program's name),
    /// checked as ArgumentParser's validation checks it; nil when
    /// ArgumentParser should read them.
    static func command(for arguments: [String]) -> (() throws -> Void)? {
        guard getenv("BOWTIES_NO_FAST_PATH") == nil else { return nil }
        guard let words = Words(arguments), let spec = specs[words.command] else { return nil }
        guard spec.positionals.contains(words.positionals.count),
            words.flags.isSubset(of: spec.flags.union(sharedFlags)),
            Set(words.values.keys).isSubset(of: spec.options.union(sharedOptions))
        else { return nil }
        guard let settings = settings(words), settings.problem == nil, let work = spec.make(words, settings) else {
            return nil
        }
        // `ColorOption.validate()`, which applies the choice.
        if let color = words.values["--color"] {
            guard let choice = Terminal.ColorChoice(rawValue: color) else { return nil }
            Terminal.colorChoice = choice
        }
        return work
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
        // Made with room: the first growth of an empty one runs the
        // standard library's prespecialized resize, which checks
        // `String: Hashable` by scanning every conformance in the executable
        // (0.4 M instructions; bench/README.md, "Point commands, session 11").
        var flags = Set<String>(minimumCapacity: 8)
        var values = [String: String](minimumCapacity: 8)

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

    /// What one command takes, and how its work is called.
    struct Spec: Sendable {
        var positionals: ClosedRange<Int>
        var flags: Set<String> = []
        var options: Set<String> = []
        /// The command's work with the words' values (the static function
        /// its `run()` calls); nil when a value does not read as its type.
        var make: @Sendable (Words, CatalogSettings) -> (() throws -> Void)?
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
            let key = words.positionals[0]
            return { try BowTies.Show.show(key, options: options) }
        },
        "history": Spec(positionals: 1...1) { words, options in
            let key = words.positionals[0]
            return { try BowTies.History.history(key, options: options) }
        },
        "rate": Spec(positionals: 2...2) { words, options in
            guard let value = Double(words.positionals[1]) else { return nil }
            let key = words.positionals[0]
            return { try BowTies.Rate.rate(key, value, options: options) }
        },
        "favorite": Spec(positionals: 1...1, flags: ["--off"]) { words, options in
            let key = words.positionals[0]
            let off = words.flags.contains("--off")
            return { try BowTies.Favorite.favorite(key, off: off, options: options) }
        },
        "wear": Spec(positionals: 1...Int.max, flags: ["--yes", "--dry-run"], options: ["--on", "--note"]) {
            words, options in
            let work = BowTies.Wear.Work(
                terms: words.positionals, yes: words.flags.contains("--yes"),
                dryRun: words.flags.contains("--dry-run"), date: words.values["--on"], note: words.values["--note"],
                options: options)
            return { try work.run() }
        },
        "count": Spec(positionals: 0...Int.max) { words, options in
            let terms = words.positionals
            return { try BowTies.Count.count(terms, options: options) }
        },
    ]

    /// The shared options, every one of them set; nil when `--wait`'s
    /// value is not a number.
    private static func settings(_ words: Words) -> CatalogSettings? {
        var settings = CatalogSettings()
        settings.store = words.values["--store"]
        if let wait = words.values["--wait"] {
            guard let seconds = Double(wait) else { return nil }
            settings.wait = seconds
        }
        settings.json = words.flags.contains("--json")
        settings.noPager = words.flags.contains("--no-pager")
        return settings
    }
}
