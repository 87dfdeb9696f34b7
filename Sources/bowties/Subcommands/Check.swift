import ArgumentParser
import BowTiesKit
import Foundation

extension BowTies {
    /// `bowties check [--repair]`: verifies the store, and repairs what can
    /// be repaired without losing a bow tie.
    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check",
            abstract: "Check the catalog for damage, and repair what is safe to repair.",
            discussion: """
                Without --repair, check only reads. It looks at:
                - SQLite itself: its integrity check and foreign-key check;
                - the schema: created, complete, and not from a newer bowties;
                - every bow tie, against the same rules every save checks \
                (rating \(Output.ratingScale), a name, a valid URL, ...);
                - every bow tie's times worn and last worn, against its wear history \
                (and the count of wears the catalog keeps for each tie);
                - every photo: its bytes re-read and compared with their SHA-256, \
                whether inside the catalog or in a file of the photo folder \
                (.<store name>_SUPPORT/_EXTERNAL_DATA beside the catalog);
                - photos no bow tie uses, and anything in the photo folder that no bow \
                tie uses, such as the temporary file of a write that was interrupted \
                (a crash or kill during an import).
                Each problem names the bow ties it concerns (search key, name, id) and \
                says what --repair would do about it. Other commands can keep working \
                while check runs.

                --repair first prints what it found and what it will do, then does it in \
                one transaction, under the write lock: it removes unused files and photos, \
                sets the photo of bow ties whose photo is missing or damaged to none, \
                corrects recorded photo sizes, computes times worn and last worn again from \
                the history, and creates or upgrades the schema. It never \
                deletes a bow tie. Invalid bow ties, SQLite damage and catalogs from a newer \
                bowties are reported but left to you. It then checks again. The repairs \
                that change bow ties (a photo set to none) are one action that `bowties undo` \
                takes back; removing a stray file is not in the undo history, and the \
                repair's "Undo:" line says what `bowties undo` would undo instead.

                Exit status: 0 when the catalog is healthy, or when --repair repaired \
                everything it found and the check after it is clean; 65 when problems \
                remain (the report is on standard output, a summary on standard error); \
                66 when there is no catalog; 74 when the file is not a bowties catalog or \
                cannot be read; 75 when another command kept the catalog busy.
                """)

        @Flag(help: "Repair what can be repaired safely, then check again. Never deletes a bow tie.")
        var repair = false

        @OptionGroup var options: CatalogOptions

        func run() throws {
            let catalog = try options.openCatalog(repair ? .repair : .inspect)
            let remaining: CheckReport
            if repair {
                let report = try catalog.repair { found in
                    if !options.json { Self.announce(found) }
                }
                remaining = report.after
                if options.json {
                    try Output.json(RepairJSON(report))
                } else {
                    Self.summarize(report, nextUndo: try catalog.undoHistory().first { !$0.isUndone })
                }
            } else {
                remaining = try catalog.check()
                if options.json {
                    try Output.json(CheckJSON(remaining))
                } else {
                    // A damaged catalog can list many problems. Not with
                    // --repair, which writes: it must not wait on a pager.
                    if !remaining.isHealthy { Pager.start(disabled: options.noPager) }
                    Self.show(remaining)
                }
            }
            guard remaining.isHealthy else {
                let count = remaining.problems.count
                let fixable = remaining.repairable.count
                throw CatalogError(
                    .storeDamaged,
                    "the catalog at \(catalog.url.storeDescription) has \(count) problem\(count == 1 ? "" : "s")",
                    hint: fixable == 0
                        ? "`bowties check --repair` cannot repair \(count == 1 ? "it" : "them"); see each problem above."
                        : repair
                            ? "Run `bowties check --repair` again: the repair revealed \(count == 1 ? "it" : "them")."
                            : "`bowties check --repair` can repair \(fixable) of them; see `bowties check --help`.")
            }
        }

        /// `Checked PATH: 7 bow ties, 7 photos, 2 entries in the photo folder.`
        private static func headline(_ report: CheckReport) -> String {
            "Checked \(report.store.storeDescription): \(Output.count(report.bowTieCount, "bow tie")), "
                + "\(Output.count(report.photoCount, "photo")), "
                + "\(Output.count(report.photoFolderEntries, "entry", plural: "entries")) in the photo folder."
        }

        private static func list(_ problems: [StoreProblem]) {
            for problem in problems {
                Output.line("- \(problem)")
            }
        }

        /// `The catalog's schema is v1, from an earlier bowties: …`, when
        /// it is.
        private static func olderSchemaNote(_ report: CheckReport) {
            guard let older = report.olderSchema else { return }
            Output.line(
                "The catalog's schema is v\(older.store), from an earlier bowties: commands that read use it as it is; "
                    + "the next command that changes the catalog upgrades it to v\(older.current).")
        }

        private static func show(_ report: CheckReport) {
            Output.line(headline(report))
            olderSchemaNote(report)
            if report.isHealthy {
                Output.line("No problems found.")
            } else {
                Output.line("\(Output.count(report.problems.count, "problem")):")
                list(report.problems)
            }
        }

        /// Says what the repair will do, before it does it.
        private static func announce(_ found: CheckReport) {
            Output.line(headline(found))
            guard !found.isHealthy else { return }
            Output.line(
                "Found \(Output.count(found.problems.count, "problem")); repairing \(found.repairable.count):")
            list(found.problems)
        }

        /// Says what was repaired, what `bowties undo` will take back,
        /// and what the check after it found.
        ///
        /// - Parameter nextUndo: The action `bowties undo` undoes now.
        private static func summarize(_ report: RepairReport, nextUndo: UndoAction?) {
            if report.found.isHealthy {
                Output.line("No problems found; nothing to repair.")
                return
            }
            let repaired = report.repaired.count
            let of = repaired == report.found.problems.count ? "" : " of \(report.found.problems.count)"
            Output.line("Repaired \(repaired)\(of) problem\(report.found.problems.count == 1 ? "" : "s").")
            if let line = undoLine(report, nextUndo: nextUndo) { Output.line(line) }
            if report.after.isHealthy {
                Output.line("A new check finds no problems.")
            } else {
                Output.line("A new check still finds \(Output.count(report.after.problems.count, "problem")):")
                list(report.after.problems)
            }
        }
    }
}

extension BowTies.Check {
    /// `Undo: …`: whether the repair is in the undo history, and so what
    /// `bowties undo` will take back next. Removing a leftover file is not
    /// a change to the catalog, so a repair that only did that leaves the
    /// history as it was, and the next undo is the action before it.
    static func undoLine(_ report: RepairReport, nextUndo: UndoAction?) -> String? {
        guard !report.repaired.isEmpty else { return nil }
        let others = Array(Set(report.notUndoable.compactMap { $0.repair?.description })).sorted()
            .joined(separator: ", ")
        if let action = report.undoAction {
            let taken = "`bowties undo` takes back #\(action.id) \"\(action.title)\""
            guard !report.notUndoable.isEmpty else { return "Undo: \(taken)." }
            let count = report.notUndoable.count
            return "Undo: \(taken); \(count == 1 ? "1 repair" : "\(count) repairs") (\(others)) cannot be undone."
        }
        let next = nextUndo.map { "`bowties undo` would undo #\($0.id) \"\($0.title)\"" } ?? "there is nothing to undo"
        return "Undo: this repair is not in the undo history (\(others): not a change to the bow ties); \(next)."
    }
}

/// The JSON form of a check (`check --json`).
private struct CheckJSON: Encodable {
    var store: String
    var healthy: Bool
    var bowTies: Int
    var photos: Int
    var photoFolderEntries: Int
    var problems: [ProblemJSON]
    /// An earlier release's schema, read as it is: `{"version": 1,
    /// "upgradesTo": 3}`; absent when the schema is this version's.
    var olderSchema: OlderSchemaJSON?

    struct OlderSchemaJSON: Encodable {
        var version: Int
        var upgradesTo: Int
    }

    init(_ report: CheckReport) {
        store = report.store.storeDescription
        healthy = report.isHealthy
        bowTies = report.bowTieCount
        photos = report.photoCount
        photoFolderEntries = report.photoFolderEntries
        problems = report.problems.map(ProblemJSON.init)
        olderSchema = report.olderSchema.map { OlderSchemaJSON(version: $0.store, upgradesTo: $0.current) }
    }
}

/// The JSON form of a repair (`check --repair --json`): what was found,
/// what was repaired, and the check after it.
private struct RepairJSON: Encodable {
    var store: String
    var healthy: Bool
    var found: CheckJSON
    var repaired: [ProblemJSON]
    /// The number of the action `bowties undo` takes back; null when the
    /// repair is not in the history.
    var undoAction: Int64?
    var after: CheckJSON

    init(_ report: RepairReport) {
        store = report.after.store.storeDescription
        healthy = report.after.isHealthy
        found = CheckJSON(report.found)
        repaired = report.repaired.map(ProblemJSON.init)
        undoAction = report.undoAction?.id
        after = CheckJSON(report.after)
    }
}

private struct ProblemJSON: Encodable {
    struct Record: Encodable {
        var id: String
        var searchKey: String?
        var name: String?
    }

    var kind: String
    var message: String
    var records: [Record]
    var recordCount: Int
    var file: String?
    var sha256: String?
    /// What `--repair` does, in words; absent when it cannot repair this.
    var repair: String?
    var advice: String?

    init(_ problem: StoreProblem) {
        kind = problem.kind.rawValue
        message = problem.message
        records = problem.records.map { Record(id: $0.id, searchKey: $0.searchKey, name: $0.name) }
        recordCount = problem.recordCount
        file = problem.file?.path
        sha256 = problem.sha256
        repair = problem.repair?.description
        advice = problem.advice
    }
}
