import ArgumentParser
import BowTiesKit
import Foundation

/// How a command that changes several ties shows what it will do and
/// asks first, as Taskwarrior does.
///
/// - Ties named by their keys only (`delete G Y`, `wear R B`) are what
///   was typed: they change at once.
/// - When a query selects (any argument that is not a key), a delete,
///   or a change to more than one tie, is listed first; on a terminal the
///   command asks (`[y/N]`; end of input or anything but y declines);
///   without a terminal it refuses unless `--yes` is given.
/// - `--dry-run` lists the selection and changes nothing.
enum BatchConfirmation {
    /// What the person or the options decided.
    enum Decision {
        case apply
        case dryRun
        case declined
    }

    /// The whole exchange before a batch change: no match exits 1; the
    /// changes are listed and asked about (``decide(_:selection:verb:yes:dryRun:command:)``);
    /// a dry run prints `dryRunSummary` and a refusal `Nothing changed.`
    /// (exit 1).
    ///
    /// - Parameter selection: The KEYs and query, as typed, for the
    ///   no-match message and whether to ask.
    /// - Returns: True when the command goes on to apply the plan.
    static func confirm(
        _ plan: BatchPlan, selection: Selection, verb: String, dryRunSummary: String, yes: Bool, dryRun: Bool,
        command: String
    ) throws -> Bool {
        guard !plan.ties.isEmpty else {
            Terminal.standardError.write("No bow tie matches \(selection.query.description).\n")
            throw ExitCode(ExitStatus.noSuchRecord.rawValue)
        }
        switch try decide(plan, selection: selection, verb: verb, yes: yes, dryRun: dryRun, command: command) {
        case .apply:
            return true
        case .dryRun:
            Output.line("Dry run: \(dryRunSummary); nothing changed.")
            return false
        case .declined:
            Output.line("Nothing changed.")
            throw ExitCode(ExitStatus.noSuchRecord.rawValue)
        }
    }

    /// Lists `plan`'s changes when there are several, when it asks, or
    /// for a dry run, and decides.
    ///
    /// It asks when a query selected (not keys alone) and the change
    /// deletes, or changes more than one tie.
    ///
    /// - Parameters:
    ///   - verb: `change`, `delete`: the words of the question.
    /// - Throws: ``UsageError`` (exit 64) when it would ask without a
    ///   terminal and without `--yes`.
    static func decide(
        _ plan: BatchPlan, selection: Selection, verb: String, yes: Bool, dryRun: Bool, command: String
    ) throws -> Decision {
        let changing = plan.changing
        let destructive: Bool = if case .delete = plan.kind { true } else { false }
        let asks = !selection.isExactlyKeys && (destructive || changing.count > 1)
        if changing.count > 1 || dryRun || asks {
            for planned in changing { Output.line(line(for: planned)) }
        }
        if dryRun { return .dryRun }
        guard asks, !yes else { return .apply }
        let count = Output.count(changing.count, "bow tie")
        guard Terminal.isTerminal(0) else {
            let them = changing.count == 1 ? "it" : "them"
            let by = selection.keys.isEmpty ? "the query" : "keys and the query"
            throw UsageError(
                "\(command) would \(verb) \(count) selected by \(by) \(queryText(selection)), "
                    + "and standard input is not a terminal to ask: "
                    + "add --yes to \(verb) \(them), or --dry-run to see the changes only")
        }
        Terminal.standardError.write("\(verb.prefix(1).uppercased() + verb.dropFirst()) \(count)? [y/N] ")
        guard let answer = readLine(strippingNewline: true) else {
            Terminal.standardError.write("\n")
            return .declined
        }
        return ["y", "yes"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased()) ? .apply : .declined
    }

    /// The words read as a query, quoted when one looks like a key that
    /// is not one (`"Q" (not a search key)`).
    private static func queryText(_ selection: Selection) -> String {
        let words = selection.queryWords.filter { $0.trimmingCharacters(in: .whitespaces) != "," }
        let text = Output.escaped(selection.queryWords.joined(separator: " "))
        let plain = words.filter { QueryWord.syntax(in: $0) == nil }
        guard !plain.isEmpty else { return text }
        let named = plain.map { "\"\(Output.escaped($0))\"" }.joined(separator: ", ")
        return text + " (\(named) \(plain.count == 1 ? "is not a search key" : "are not search keys"))"
    }

    /// `Classic Red Bow Tie (R): rating 3.5 → 4, url none → https://…`.
    static func line(for planned: PlannedChange) -> String {
        let title = Output.escaped(Output.title(planned.tie))
        guard !planned.changes.isEmpty else { return title }
        return title + ": " + planned.changes.map { Output.escaped($0.description) }.joined(separator: ", ")
    }
}
