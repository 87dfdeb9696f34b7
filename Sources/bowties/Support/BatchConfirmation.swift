import ArgumentParser
import BowTiesKit
import Foundation

/// How a command that changes several ties shows what it will do and
/// asks first, as Taskwarrior does.
///
/// - More than one tie: the changes are listed; on a terminal the command
///   asks (`[y/N]`; end of input or anything but y declines); without a
///   terminal it refuses unless `--yes` is given.
/// - `--dry-run` lists the same changes and changes nothing.
enum BatchConfirmation {
    /// What the person or the options decided.
    enum Decision {
        case apply
        case dryRun
        case declined
    }

    /// The whole exchange before a batch change: no match exits 1; the
    /// changes are listed and asked about (``decide(_:verb:yes:dryRun:command:)``);
    /// a dry run prints `dryRunSummary` and a refusal `Nothing changed.`
    /// (exit 1).
    ///
    /// - Parameter terms: The KEY or query, as typed, for the no-match message.
    /// - Returns: True when the command goes on to apply the plan.
    static func confirm(
        _ plan: BatchPlan, terms: [String], verb: String, dryRunSummary: String, yes: Bool, dryRun: Bool,
        command: String
    ) throws -> Bool {
        guard !plan.ties.isEmpty else {
            Terminal.standardError.write("No bow tie matches \(terms.joined(separator: " ")).\n")
            throw ExitCode(ExitStatus.noSuchRecord.rawValue)
        }
        switch try decide(plan, verb: verb, yes: yes, dryRun: dryRun, command: command) {
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

    /// Lists `plan`'s changes when there are several (or always for a dry
    /// run) and decides.
    ///
    /// - Parameters:
    ///   - verb: `change`, `delete`: the words of the question.
    /// - Throws: ``UsageError`` (exit 64) for several ties without a
    ///   terminal and without `--yes`.
    static func decide(
        _ plan: BatchPlan, verb: String, yes: Bool, dryRun: Bool, command: String
    ) throws -> Decision {
        let changing = plan.changing
        if changing.count > 1 || dryRun {
            for planned in changing { Output.line(line(for: planned)) }
        }
        if dryRun { return .dryRun }
        guard changing.count > 1, !yes else { return .apply }
        let count = Output.count(changing.count, "bow tie")
        guard Terminal.isTerminal(0) else {
            throw UsageError(
                "\(command) would \(verb) \(count) and standard input is not a terminal to ask: "
                    + "add --yes to \(verb) them, or --dry-run to see the changes only")
        }
        Terminal.standardError.write("\(verb.prefix(1).uppercased() + verb.dropFirst()) \(count)? [y/N] ")
        guard let answer = readLine(strippingNewline: true) else {
            Terminal.standardError.write("\n")
            return .declined
        }
        return ["y", "yes"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased()) ? .apply : .declined
    }

    /// `Classic Red Bow Tie (R): rating 3.5 → 4, url none → https://…`.
    static func line(for planned: PlannedChange) -> String {
        let title = Output.escaped(Output.title(planned.tie))
        guard !planned.changes.isEmpty else { return title }
        return title + ": " + planned.changes.map { Output.escaped($0.description) }.joined(separator: ", ")
    }
}
