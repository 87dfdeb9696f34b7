import ArgumentParser
import BowTiesKit
import Foundation

/// The options one command takes, as ArgumentParser itself describes
/// them (`--experimental-dump-help`): which names there are, and which
/// take a value. Read only once a command line has failed to parse, to
/// read it again (``attachingDashValues(_:)``) or to say what was meant
/// (``suggestion(for:)``): building it costs a few milliseconds that a
/// command that parses never spends.
///
/// ```swift
/// let table = CommandOptionTable(command: "list")
/// table?.suggestion(for: "--fav")  // "--favorites"
/// ```
struct CommandOptionTable {
    /// The command's name, as typed (`list`).
    var command: String
    /// Every name of every option and flag (`--tag`, `-o`), with whether
    /// it takes a value, and the option's preferred name (what a short
    /// name is rewritten to).
    var names: [String: (takesValue: Bool, preferred: String)] = [:]
    /// The long names in the order `--help` lists them: the candidates of
    /// a suggestion.
    var longNames: [String] = []

    /// The table of `command`, nil when it names no command.
    init?(command: String) {
        guard BowTies.commandNames.contains(command) else { return nil }
        self.command = command
        let dump: String
        do {
            _ = try BowTies.parseAsRoot([command, "--experimental-dump-help"])
            return nil
        } catch {
            dump = BowTies.fullMessage(for: error)
        }
        guard let root = try? JSONSerialization.jsonObject(with: Data(dump.utf8)) as? [String: Any],
            let info = root["command"] as? [String: Any],
            let arguments = info["arguments"] as? [[String: Any]]
        else { return nil }
        for argument in arguments {
            guard let kind = argument["kind"] as? String, kind == "option" || kind == "flag",
                let declared = argument["names"] as? [[String: Any]]
            else { continue }
            let spelled = declared.compactMap { name -> String? in
                guard let text = name["name"] as? String, let kind = name["kind"] as? String else { return nil }
                return kind == "long" ? "--" + text : "-" + text
            }
            guard let preferred = spelled.first(where: { $0.hasPrefix("--") }) ?? spelled.first else { continue }
            for name in spelled {
                names[name] = (kind == "option", preferred)
                if name.hasPrefix("--"), !longNames.contains(name) { longNames.append(name) }
            }
        }
    }

    /// Whether `token` reads as options: a name of one (before any `=`),
    /// or a cluster of short flags (`-vq`). `-minus` and `-1` do not.
    func isOption(_ token: String) -> Bool {
        guard token.hasPrefix("-"), token.count > 1 else { return false }
        if token.hasPrefix("--") { return true }
        if names[String(token.prefix { $0 != "=" })] != nil { return true }
        return token.dropFirst().allSatisfy { names["-\($0)"] != nil }
    }

    /// `add --name -minus` as `add --name=-minus`: a word that starts
    /// with `-` after an option that takes a value is that option's value
    /// when it cannot be an option of the command (``isOption(_:)``).
    /// ArgumentParser would take it for an option and say the value is
    /// missing; `--name=…` is how it reads a value that starts with `-`.
    /// A word that starts with `--` is left alone: it looks too much like
    /// a mistyped option to be taken as a name.
    ///
    /// - Parameter arguments: The arguments, the command's name first.
    /// - Returns: The arguments with such values attached, or nil when
    ///   there is none.
    func attachingDashValues(_ arguments: [String]) -> [String]? {
        var result: [String] = []
        var changed = false
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let token = arguments[index]
            if token == "--" {
                result += arguments[index...]
                break
            }
            if let option = names[token], option.takesValue, index + 1 < arguments.endIndex {
                let next = arguments[index + 1]
                if next.hasPrefix("-"), next.count > 1, !isOption(next) {
                    result.append(option.preferred + "=" + next)
                    changed = true
                    index += 2
                    continue
                }
            }
            result.append(token)
            index += 1
        }
        return changed ? result : nil
    }

    /// What `typed` probably meant (`--fav` → `--favorites`): the one
    /// option it begins, else a word users bring from other tools
    /// (``synonyms``: `--force` → `--yes`), else the nearest name within
    /// a few edits (``EditDistance``). Nil when nothing is close enough to
    /// be worth saying: `--force` is not `--store`.
    func suggestion(for typed: String) -> String? {
        let name = String(typed.prefix { $0 != "=" })
        guard name.hasPrefix("--"), name.count > 2 else { return nil }
        let extending = longNames.filter { $0.hasPrefix(name) }
        if extending.count == 1 { return extending[0] }
        if let synonym = Self.synonyms[name], names[synonym] != nil { return synonym }
        // Compared without the dashes, which every candidate shares and
        // which would make any two short names look alike.
        let word = String(name.dropFirst(2))
        return EditDistance.suggestion(for: word, among: longNames.map { String($0.dropFirst(2)) }).map { "--" + $0 }
    }

    /// Options of other tools, and other spellings, for ours.
    static let synonyms: [String: String] = [
        "--force": "--yes", "--assume-yes": "--yes", "--no-confirm": "--yes", "--colour": "--color",
        "--favourites": "--favorites", "--favourite": "--favorite", "--dryrun": "--dry-run",
    ]
}
