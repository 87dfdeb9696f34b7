import ArgumentParser
import BowTiesKit
import Foundation

extension BowTies {
    /// `bowties wear KEY [--on DATE] [--note TEXT]`: one more wear in the
    /// tie's history.
    struct Wear: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "wear",
            abstract: "Record that you wore a bow tie (today, or --on a date), with an optional note.",
            discussion: KeyArgument.discussion
                + """


                Each wear is kept in the tie's history (`bowties history KEY`); times worn \
                and last worn follow from it, added to what an import brought. \
                `bowties unwear KEY` takes the latest wear back.

                Safe to run from several processes at once: every wear is counted.

                Several KEYs record a wear of each at once (`bowties wear R B`). Instead of \
                KEYs, a query selects ties (`bowties wear tag:wedding --on 2026-06-20`): \
                several are listed first; on a terminal bowties asks, otherwise it needs \
                --yes. --dry-run lists the selection and records nothing.

                \(QueryArgument.help)
                """)

        @Argument(
            help: ArgumentHelp("A KEY, or query terms.", valueName: "key-or-query"), completion: Completions.queryTerms)
        var terms: [String]

        @Flag(help: "Record a wear of several ties without asking (needed when standard input is not a terminal).")
        var yes = false

        @Flag(name: .customLong("dry-run"), help: "List the ties a query selects, and record nothing.")
        var dryRun = false

        @Option(
            name: .customLong("on"),
            help: ArgumentHelp(
                "The day you wore it: YYYY-MM-DD (UTC), or a date and time such as 2026-11-20T18:30:00Z. "
                    + "Default: now.",
                valueName: "date"))
        var date: String?

        @Option(help: ArgumentHelp("A note to keep with this wear (at most 1000 characters).", valueName: "text"))
        var note: String?

        @OptionGroup var options: CatalogOptions

        func run() throws {
            try Work(terms: terms, yes: yes, dryRun: dryRun, date: date, note: note, options: options.settings).run()
        }

        /// The command's work, from plain values (``FastPath`` runs it).
        struct Work {
            var terms: [String]
            var yes: Bool
            var dryRun: Bool
            var date: String?
            var note: String?
            var options: CatalogSettings

            func run() throws {
                let day = try date.map(WearDate.parse)
                let catalog = try options.openCatalog(.pointWrite)
                // One KEY: the path every wear took before queries, one
                // transaction that resolves and records.
                guard !dryRun, terms.count == 1, let key = terms.first, QueryWord.syntax(in: key) == nil else {
                    return try wearQuery(catalog, at: day, note: note)
                }
                let tie = try catalog.wear(key, at: day ?? Date(), note: note)
                if options.json {
                    try Output.json(BowTieJSON(tie, catalog: catalog))
                    return
                }
                let on = day.map { " on \(WearDate.day($0))" } ?? ""
                Output.line("Wore \(Output.title(tie))\(on): \(Output.count(Int(tie.timesWorn), "time")) so far.")
            }

            /// A wear of every tie the terms select, asked about when several.
            private func wearQuery(_ catalog: Catalog, at day: Date?, note: String?) throws {
                let selection = try catalog.selection(terms)
                let plan = try catalog.planWear(selection.query, at: day ?? Date(), note: note)
                guard
                    try BatchConfirmation.confirm(
                        plan, selection: selection, verb: "wear",
                        dryRunSummary: "\(Output.count(plan.ties.count, "bow tie")) would be worn", yes: yes,
                        dryRun: dryRun, command: "wear")
                else { return }
                let worn = try catalog.apply(plan)
                if options.json {
                    try Output.json(worn.map { BowTieJSON($0, catalog: catalog) })
                    return
                }
                let on = day.map { " on \(WearDate.day($0))" } ?? ""
                if worn.count == 1, let tie = worn.first {
                    Output.line("Wore \(Output.title(tie))\(on): \(Output.count(Int(tie.timesWorn), "time")) so far.")
                } else {
                    Output.line("Wore \(Output.count(worn.count, "bow tie"))\(on).")
                }
            }
        }
    }
}

/// The dates `wear --on` takes, and how a wear's day is written.
enum WearDate {
    /// `2026-11-20` (that day, 00:00 UTC) or an ISO 8601 date and time
    /// with its zone (`2026-11-20T18:30:00Z`, `...+01:00`): the forms
    /// ``ISO8601/date(from:)`` reads, as import, `set` and `edit` do.
    ///
    /// - Throws: ``UsageError`` for anything else, or for a date more than
    ///   a day ahead (no time zone is that far ahead of UTC).
    static func parse(_ text: String) throws -> Date {
        let date = ISO8601.date(from: trimmed(text))
        guard let date else {
            throw UsageError(
                "--on \"\(text)\" is not a date: use YYYY-MM-DD, or a date and time such as 2026-11-20T18:30:00Z")
        }
        guard date.timeIntervalSinceNow <= 86_400 else {
            throw UsageError("--on \(text) is in the future: a wear is recorded once it happened")
        }
        return date
    }

    /// `text` without the spaces and tabs around it: the scalars of
    /// `CharacterSet.whitespaces` (tab and Unicode's space separators),
    /// without `trimmingCharacters(in:)`'s bridge through `NSString`, 0.9 M
    /// instructions of a `wear --on` that otherwise takes 8 M.
    static func trimmed(_ text: String) -> String {
        func isSpace(_ scalar: Unicode.Scalar) -> Bool {
            scalar == "\t" || scalar.properties.generalCategory == .spaceSeparator
        }
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !isSpace($0) }),
            let last = scalars.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(scalars[first...last])
    }

    /// `2026-11-20`: the day in UTC.
    static func day(_ date: Date) -> String {
        String(ISO8601.string(from: date).prefix(10))
    }
}
