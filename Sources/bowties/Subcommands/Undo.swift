import ArgumentParser
import BowTiesKit
import Foundation

extension BowTies {
    /// `bowties undo [N]`: reverts the latest action, or action N.
    struct Undo: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "undo",
            abstract: "Take back the latest change to the catalog (or change N from `bowties log`).",
            discussion: """
                Every command that changes the catalog is one action in its history: import, add, \
                set, edit, wear, unwear, rate, favorite, tag, untag, tags --delete, delete, \
                photo --set/--remove and check --repair. undo puts every record the action changed \
                back as it was, in one transaction, and says what changed:

                  Undid "Wear Classic Red Bow Tie": timesWorn 13 → 12, lastWorn 2026-11-23 → 2014-06-19

                `bowties redo` applies it again. An action whose records changed since (by a later \
                action, or outside bowties) is refused, naming the action to undo first; nothing \
                is changed then. The history keeps the last 100 actions (`bowties config \
                --undo-limit N`); `bowties log` lists them.
                """)

        @Argument(help: ArgumentHelp("The number of the action to undo, as `bowties log` shows it.", valueName: "N"))
        var action: Int64?

        @OptionGroup var options: CatalogOptions

        func run() throws {
            let catalog = try options.openCatalog(.mustExist)
            let report = try catalog.undo(action)
            try UndoOutput.print(report, verb: "Undid", json: options.json)
        }
    }

    /// `bowties redo`: applies again what was undone last.
    struct Redo: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "redo",
            abstract: "Apply again the change undone last.",
            discussion: """
                Redo follows undo: after `bowties undo`, `bowties redo` makes the same change \
                again. A new change to the catalog ends what can be redone, as in any editor.
                """)

        @OptionGroup var options: CatalogOptions

        func run() throws {
            let catalog = try options.openCatalog(.mustExist)
            let report = try catalog.redo()
            try UndoOutput.print(report, verb: "Redid", json: options.json)
        }
    }

    /// `bowties log`: the history of actions.
    struct Log: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "log",
            abstract: "List the latest changes to the catalog, newest first.",
            discussion: """
                One line per action: its number (for `bowties undo N`), when it was made (UTC) \
                and what it was. Undone actions are marked; `bowties redo` applies the latest \
                of them again.
                """)

        @Option(name: [.short, .customLong("limit")], help: "Show at most this many actions.")
        var limit = 20

        @OptionGroup var options: CatalogOptions

        func validate() throws {
            if limit < 1 { throw ArgumentParser.ValidationError("--limit must be 1 or more.") }
        }

        func run() throws {
            let catalog = try options.openCatalog(.readOnly)
            let actions = try catalog.undoHistory(limit: limit)
            if options.json {
                try Output.json(actions.map(UndoActionJSON.init))
                return
            }
            guard !actions.isEmpty else {
                Output.line("No changes yet: the history starts with the next change to the catalog.")
                return
            }
            Pager.start(disabled: options.noPager)
            let rows = actions.map { action in
                [
                    "#\(action.id)",
                    String(Output.date(action.date).prefix(16)),
                    Output.escaped(action.title) + (action.isUndone ? "  (undone)" : ""),
                ]
            }
            for line in Table(header: ["N", "WHEN (UTC)", "ACTION"], rows: rows, rightAligned: [0]).lines {
                Output.line(line)
            }
        }
    }
}

/// How undo and redo report what they did.
enum UndoOutput {
    static func print(_ report: UndoReport, verb: String, json: Bool) throws {
        if json {
            try Output.json(UndoReportJSON(report, verb: verb))
            return
        }
        let title = "\(verb) \"\(Output.escaped(report.action.title))\""
        let changed = report.records.filter { $0.kind == .changed }
        func describe(_ record: UndoReport.RecordChange) -> String {
            let fields = record.fields.map { field in
                var before = text(field.before, field.attribute)
                var after = text(field.after, field.attribute)
                if before == after, case .date(let from)? = field.before, case .date(let to)? = field.after {
                    // The same day: the time tells them apart.
                    (before, after) = (ISO8601.string(from: from), ISO8601.string(from: to))
                }
                return "\(field.attribute.exportName) \(before) → \(after)"
            }
            let links = record.links.map { "\($0.relationship) " + $0.names.map(Output.escaped).joined(separator: " ") }
            return (fields + links).joined(separator: ", ")
        }
        var counts: [String] = []
        for (entity, count) in report.removed.sorted(by: { $0.key < $1.key }) {
            counts.append("removed \(Output.count(count, entity.lowercased().spacedWords))")
        }
        for (entity, count) in report.added.sorted(by: { $0.key < $1.key }) {
            counts.append("restored \(Output.count(count, entity.lowercased().spacedWords))")
        }
        let countText = counts.joined(separator: ", ")
        if changed.count == 1, report.recordCount - changed.count == report.added.values.reduce(0, +)
            + report.removed.values.reduce(0, +)
        {
            Output.line("\(title): \(describe(changed[0]))" + (countText.isEmpty ? "" : "; \(countText)") + ".")
            return
        }
        if changed.isEmpty {
            Output.line("\(title)" + (countText.isEmpty ? "." : ": \(countText)."))
            return
        }
        Output.line("\(title)" + (countText.isEmpty ? ":" : ": \(countText); changed:"))
        for record in changed {
            Output.line("  \(Output.escaped(record.label)): \(describe(record))")
        }
        let unlisted = report.recordCount - report.records.count
        if unlisted > 0 { Output.line("  and \(Output.count(unlisted, "more record"))") }
    }
}

/// A value in an undo report: a date as its day, a photo by its size.
private func text(_ value: AttributeValue?, _ attribute: AttributeDescription) -> String {
    guard let value else { return "none" }
    switch value {
    case .date(let date): return String(ISO8601.string(from: date).prefix(10))
    case .blob(let info): return "\(Output.grouped(info.byteCount)) bytes (\(info.sha256.prefix(8)))"
    default: return Output.escaped(AttributeValue.abbreviated(attribute.text(of: value)))
    }
}

extension String {
    /// `bowtie` → `bow tie`: an entity's name as a word in a sentence.
    fileprivate var spacedWords: String {
        self == "bowtie" ? "bow tie" : self
    }
}

private struct UndoActionJSON: Encodable {
    var id: Int64
    var title: String
    var date: String
    var undone: Bool

    init(_ action: UndoAction) {
        id = action.id
        title = action.title
        date = ISO8601.string(from: action.date)
        undone = action.isUndone
    }
}

private struct UndoReportJSON: Encodable {
    struct Field: Encodable {
        var attribute: String
        var before: String?
        var after: String?
    }
    struct Record: Encodable {
        var entity: String
        var label: String
        var change: String
        var fields: [Field]
    }
    var done: String
    var action: UndoActionJSON
    var records: [Record]
    var recordCount: Int
    var added: [String: Int]
    var removed: [String: Int]

    init(_ report: UndoReport, verb: String) {
        done = verb.lowercased()
        action = UndoActionJSON(report.action)
        records = report.records.map { record in
            Record(
                entity: record.entity.name, label: record.label, change: record.kind.rawValue,
                fields: record.fields.map { field in
                    func text(_ value: AttributeValue?) -> String? {
                        value.map { field.attribute.text(of: $0) }
                    }
                    return Field(attribute: field.attribute.name, before: text(field.before), after: text(field.after))
                })
        }
        recordCount = report.recordCount
        added = report.added
        removed = report.removed
    }
}
