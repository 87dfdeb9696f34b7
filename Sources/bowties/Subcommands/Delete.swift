import ArgumentParser
import BowTiesKit
import Foundation

extension BowTies {
    /// `bowties delete KEY|QUERY`.
    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete",
            abstract: "Delete the ties a key or a query selects (and photo files no other tie uses).",
            discussion: KeyArgument.discussion
                + """


                Deleting a tie deletes its wear history and takes it off its tags (the tags stay).
                Several KEYs delete those ties at once (`bowties delete G Y`). When any \
                argument is not a key, it is a query, and what it selects (even one tie) is \
                listed first: on a terminal bowties asks; otherwise it needs --yes. Keys and \
                query are OR-ed. --dry-run lists the selection and deletes nothing. A query \
                that selects no tie exits 1.

                \(QueryArgument.help)
                """)

        @Argument(
            help: ArgumentHelp("A KEY, or query terms.", valueName: "key-or-query"), completion: Completions.queryTerms)
        var terms: [String]

        @Flag(help: "Delete several ties without asking (needed when standard input is not a terminal).")
        var yes = false

        @Flag(name: .customLong("dry-run"), help: "List what would be deleted, and delete nothing.")
        var dryRun = false

        @OptionGroup var options: CatalogOptions

        func run() throws {
            let catalog = try options.openCatalog(.mustExist)
            let selection = try catalog.selection(terms)
            let plan = try catalog.planDelete(selection.query)
            if plan.ties.isEmpty, terms.count == 1, let key = terms.first, QueryWord.syntax(in: key) == nil {
                _ = try catalog.bowTie(matching: key)  // the KEY's own error, as before
            }
            guard
                try BatchConfirmation.confirm(
                    plan, selection: selection, verb: "delete",
                    dryRunSummary: "\(Output.count(plan.ties.count, "bow tie")) would be deleted", yes: yes,
                    dryRun: dryRun, command: "delete")
            else { return }
            let deleted = try catalog.apply(plan)
            if options.json {
                let ties = deleted.map { BowTieJSON($0, catalog: catalog) }
                if ties.count == 1, let only = ties.first { try Output.json(only) } else { try Output.json(ties) }
                return
            }
            if deleted.count == 1, let only = deleted.first {
                Output.line("Deleted \(Output.title(only)).")
            } else {
                Output.line("Deleted \(Output.count(deleted.count, "bow tie")).")
            }
        }
    }
}
