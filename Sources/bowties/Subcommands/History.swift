import ArgumentParser
import BowTiesKit
import Foundation

extension BowTies {
    /// `bowties history KEY`: a tie's wears, newest first.
    struct History: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "history",
            abstract: "List the recorded wears of a bow tie, newest first.",
            discussion: KeyArgument.discussion
                + """


                Times worn is the count an import brought (before the history began) plus the \
                wears recorded since. Record one with `bowties wear KEY`.
                """)

        @Argument(help: KeyArgument.help, completion: Completions.searchKeys)
        var key: String

        @OptionGroup var options: CatalogOptions

        func run() throws {
            try Self.history(key, options: options.settings)
        }

        /// The command's work, from plain values (``FastPath`` calls it).
        static func history(_ key: String, options: CatalogSettings) throws {
            if !options.json { Pager.start(disabled: options.noPager) }
            let catalog = try options.openCatalog(.readOnly)
            let history = try catalog.history(key)
            if options.json {
                try Output.json(HistoryJSON(history))
                return
            }
            Output.line(Output.title(history.tie))
            for wear in history.wears {
                let note = wear.note.map { "  " + Output.escaped($0) } ?? ""
                Output.line(WearDate.day(wear.date) + note)
            }
            Output.line(
                "\(Output.count(Int(history.tie.timesWorn), "time")) worn: \(Output.grouped(history.wears.count)) recorded, "
                    + "\(Output.grouped(Int(history.baselineTimesWorn))) before the history began.")
        }
    }
}

/// Every key always present, null when there is no value (``ExplicitNull``).
private struct HistoryJSON: Encodable {
    struct Baseline: Encodable {
        var timesWorn: Int64
        @ExplicitNull var lastWorn: String?
    }

    struct Wear: Encodable {
        var date: String
        @ExplicitNull var note: String?
    }

    var id: String
    @ExplicitNull var searchKey: String?
    @ExplicitNull var name: String?
    var timesWorn: Int32
    @ExplicitNull var lastWorn: String?
    var baseline: Baseline
    var wears: [Wear]

    init(_ history: WearHistory) {
        id = history.tie.id.uuidString
        searchKey = history.tie.searchKey
        name = history.tie.name
        timesWorn = history.tie.timesWorn
        lastWorn = history.tie.lastWorn.map(ISO8601.string(from:))
        baseline = Baseline(
            timesWorn: history.baselineTimesWorn, lastWorn: history.baselineLastWorn.map(ISO8601.string(from:)))
        wears = history.wears.map { Wear(date: ISO8601.string(from: $0.date), note: $0.note) }
    }
}
