import ArgumentParser
import BowTiesKit
import Foundation

extension BowTies {
    /// `bowties tag KEY NAME...`.
    struct Tag: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "tag",
            abstract: "File a bow tie under one or more tags (created when new).",
            discussion: KeyArgument.discussion
                + """


                A tag name is 1 to 64 characters, without commas or control characters; \
                spaces around it are dropped. Tags match ignoring case: `Formal` is the tag \
                `formal` when that exists. `bowties tags` lists them, `bowties list --tag NAME` \
                shows a tag's ties, `bowties untag KEY NAME` takes one off.

                To tag every tie a query selects, give the tags with a + as Taskwarrior \
                does: `bowties tag rating:4.. +favourite-of-mine`. Several ties are listed \
                first; on a terminal bowties asks, otherwise it needs --yes.
                """)

        @Argument(
            help: ArgumentHelp(
                "KEY then the tags to add (e.g. R formal wedding); or query terms and +tags.",
                valueName: "key-or-query"),
            completion: Completions.queryTerms)
        var arguments: [String]

        @Flag(help: "Tag several ties without asking (needed when standard input is not a terminal).")
        var yes = false

        @Flag(name: .customLong("dry-run"), help: "List the ties a query selects, and tag nothing.")
        var dryRun = false

        @OptionGroup var options: CatalogOptions

        func run() throws {
            let plus = arguments.filter { $0.hasPrefix("+") && $0.count > 1 }
            guard plus.isEmpty else {
                return try tagQuery(arguments.filter { !plus.contains($0) }, names: plus.map { String($0.dropFirst()) })
            }
            guard arguments.count >= 2, let key = arguments.first else {
                throw UsageError("tag needs a KEY and at least one tag name, or query terms and +tags")
            }
            let catalog = try options.openCatalog(.mustExist)
            let tie = try catalog.tag(key, with: Array(arguments.dropFirst()))
            if options.json {
                try Output.json(BowTieJSON(tie, catalog: catalog))
                return
            }
            Output.line("Tagged \(Output.title(tie)): \(tie.tags.map(Output.escaped).joined(separator: ", ")).")
        }

        /// Adds `names` to every tie `terms` select, asked about when several.
        private func tagQuery(_ terms: [String], names: [String]) throws {
            guard !terms.isEmpty else { throw UsageError("tag +NAME needs a KEY or query terms to select the ties") }
            let catalog = try options.openCatalog(.mustExist)
            let selection = try catalog.selection(terms)
            let plan = try catalog.planTag(selection.query, with: names)
            guard
                try BatchConfirmation.confirm(
                    plan, selection: selection, verb: "tag",
                    dryRunSummary: "\(Output.count(plan.ties.count, "bow tie")) would be tagged", yes: yes,
                    dryRun: dryRun, command: "tag")
            else { return }
            let tagged = try catalog.apply(plan)
            if options.json {
                try Output.json(tagged.map { BowTieJSON($0, catalog: catalog) })
                return
            }
            if tagged.count == 1, let tie = tagged.first {
                Output.line("Tagged \(Output.title(tie)): \(tie.tags.map(Output.escaped).joined(separator: ", ")).")
            } else {
                Output.line(
                    "Tagged \(Output.count(tagged.count, "bow tie")): \(names.map(Output.escaped).joined(separator: ", "))."
                )
            }
        }
    }

    /// `bowties untag KEY NAME...` or `bowties untag QUERY -NAME...`.
    struct Untag: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "untag",
            abstract: "Take tags off a bow tie (the tags themselves stay).",
            discussion: KeyArgument.discussion
                + """


                A name the tie does not have is an error (exit 1), and nothing changes. \
                `bowties tags --delete NAME` deletes a tag from every tie.

                To untag every tie a query selects, give the tags with a - as Taskwarrior \
                does: `bowties untag rating:..2 -formal`. Ties without the tag are left alone; \
                several ties are listed first, and on a terminal bowties asks, otherwise it \
                needs --yes.
                """)

        @Argument(
            parsing: .allUnrecognized,
            help: ArgumentHelp(
                "KEY then the tags to remove (e.g. R formal); or query terms and -tags.", valueName: "key-or-query"),
            completion: Completions.searchKeys)
        var arguments: [String] = []

        @Flag(help: "Untag several ties without asking (needed when standard input is not a terminal).")
        var yes = false

        @Flag(name: .customLong("dry-run"), help: "List the ties that would lose a tag, and change nothing.")
        var dryRun = false

        @OptionGroup var options: CatalogOptions

        func run() throws {
            let minus = arguments.filter { $0.hasPrefix("-") && !$0.hasPrefix("--") && $0.count > 1 }
            guard minus.isEmpty else {
                return try untagQuery(
                    arguments.filter { !minus.contains($0) }, names: minus.map { String($0.dropFirst()) })
            }
            if let option = arguments.first(where: { $0.hasPrefix("--") }) {
                throw UsageError("unknown option \(option)")
            }
            guard arguments.count >= 2, let key = arguments.first else {
                throw UsageError("untag needs a KEY and at least one tag name, or query terms and -tags")
            }
            let names = Array(arguments.dropFirst())
            let catalog = try options.openCatalog(.mustExist)
            let tie = try catalog.untag(key, removing: names)
            if options.json {
                try Output.json(BowTieJSON(tie, catalog: catalog))
                return
            }
            let left = tie.tags.isEmpty ? "no tags left" : tie.tags.map(Output.escaped).joined(separator: ", ")
            Output.line("Untagged \(Output.title(tie)): \(left).")
        }

        /// Takes `names` off every tie `terms` select, asked about when several.
        private func untagQuery(_ terms: [String], names: [String]) throws {
            guard !terms.isEmpty else {
                throw UsageError("untag -NAME needs a KEY or query terms to select the ties")
            }
            let catalog = try options.openCatalog(.mustExist)
            let selection = try catalog.selection(terms)
            let plan = try catalog.planUntag(selection.query, removing: names)
            guard
                try BatchConfirmation.confirm(
                    plan, selection: selection, verb: "untag",
                    dryRunSummary: "\(Output.count(plan.changing.count, "bow tie")) would lose a tag", yes: yes,
                    dryRun: dryRun, command: "untag")
            else { return }
            let untagged = try catalog.apply(plan)
            if options.json {
                try Output.json(untagged.map { BowTieJSON($0, catalog: catalog) })
                return
            }
            Output.line(
                "Untagged \(Output.count(untagged.count, "bow tie")): \(names.map(Output.escaped).joined(separator: ", ")).")
        }
    }

    /// `bowties tags [--delete NAME]`.
    struct Tags: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "tags",
            abstract: "List the tags with how many bow ties carry each, or delete one.",
            discussion: """
                Tags are added with `bowties tag KEY NAME`. Deleting a tag takes it off every tie; \
                the ties stay.
                """)

        @Option(help: ArgumentHelp("Delete this tag (its ties stay).", valueName: "name"))
        var delete: String?

        @OptionGroup var options: CatalogOptions

        func run() throws {
            if let delete {
                let catalog = try options.openCatalog(.mustExist)
                let deleted = try catalog.deleteTag(delete)
                if options.json {
                    try Output.json(TagJSON(name: deleted.name, count: deleted.count))
                    return
                }
                Output.line(
                    "Deleted the tag \"\(Output.escaped(deleted.name))\" "
                        + "(it was on \(Output.count(deleted.count, "bow tie")))."
                )
                return
            }
            let catalog = try options.openCatalog(.readOnly)
            let tags = try catalog.tags()
            if options.json {
                try Output.json(tags.map { TagJSON(name: $0.name, count: $0.count) })
                return
            }
            if tags.isEmpty {
                Output.line("No tags yet: add one with `bowties tag KEY NAME`.")
                return
            }
            Pager.start(disabled: options.noPager)
            let table = Table(
                header: ["TAG", "TIES"], rows: tags.map { [Output.escaped($0.name), Output.grouped($0.count)] },
                rightAligned: [1])
            for line in table.lines { Output.line(line) }
            Output.line()
            Output.line(Output.count(tags.count, "tag"))
        }
    }
}

private struct TagJSON: Encodable {
    var name: String
    var count: Int
}
