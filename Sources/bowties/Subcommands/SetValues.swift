import ArgumentParser
import BowTiesKit
import Foundation

extension BowTies {
    /// `bowties set QUERY field=value... [--unset field]...`.
    struct SetValues: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Change attributes of the ties a key or a query selects.",
            discussion: """
                Arguments of the form field=value are the changes (rating=4.5, \
                url=https://example.com, isFavorite=true, tintColor=#C81E2D, name="Red Silk"); \
                the other arguments select the ties: KEYs (as every command takes them: each \
                argument that is a search key or an id is its tie), and a query made of the \
                rest; keys and query are OR-ed. Values are read by the attribute's type and checked by the model, with \
                Core Data's codes; --unset NAME removes an optional value. Times worn and last \
                worn follow the wear history (wear, unwear); the photo is set with `photo --set`.

                When a query selects more than one tie that would change, the changes are \
                listed first. On a terminal bowties asks; otherwise it needs --yes. Ties \
                named by their KEYs alone change at once. --dry-run lists them and \
                changes nothing. A query that selects no tie exits 1.

                \(QueryArgument.help)
                """)

        @Argument(
            help: ArgumentHelp(
                "A KEY or query terms, and the changes as field=value.", valueName: "query-or-change"),
            completion: Completions.queryTerms)
        var arguments: [String]

        @Option(help: ArgumentHelp("Remove the value of this optional attribute (repeatable).", valueName: "field"))
        var unset: [String] = []

        @Flag(help: "Change several ties without asking (needed when standard input is not a terminal).")
        var yes = false

        @Flag(name: .customLong("dry-run"), help: "List what would change, and change nothing.")
        var dryRun = false

        @OptionGroup var options: CatalogOptions

        func run() throws {
            var terms: [String] = []
            var assignments: [(String, String)] = []
            for argument in arguments {
                if let equals = argument.firstIndex(of: "="), !argument[..<equals].contains(":"),
                    !argument[..<equals].isEmpty, argument.first != "^"
                {
                    assignments.append(
                        (String(argument[..<equals]), String(argument[argument.index(after: equals)...])))
                } else {
                    terms.append(argument)
                }
            }
            guard !assignments.isEmpty || !unset.isEmpty else {
                throw UsageError("set needs at least one change, such as rating=4 or --unset url")
            }
            guard !terms.isEmpty else {
                throw UsageError("set needs a KEY or a query to select the ties it changes")
            }
            for name in assignments.map(\.0) + unset { try Self.checkFieldName(name) }
            let catalog = try options.openCatalog(.mustExist)
            var values: [(attribute: AttributeDescription, value: AttributeValue?)] = []
            for (name, text) in assignments {
                let attribute = try catalog.settableAttribute(named: name)
                values.append((attribute, try attribute.value(fromText: text)))
            }
            for name in unset {
                values.append((try catalog.settableAttribute(named: name), nil))
            }
            let selection = try catalog.selection(terms)
            let plan = try catalog.planSet(selection.query, values: values)
            let unchanged = plan.ties.count - plan.changing.count
            if !plan.ties.isEmpty, plan.changing.isEmpty {
                Output.line("Nothing to change: \(Output.count(unchanged, "bow tie")) already as asked.")
                return
            }
            let summary =
                "\(Output.count(plan.changing.count, "bow tie")) would change"
                + (unchanged > 0 ? ", \(Output.grouped(unchanged)) already as asked" : "")
            guard
                try BatchConfirmation.confirm(
                    plan, selection: selection, verb: "change", dryRunSummary: summary, yes: yes, dryRun: dryRun,
                    command: "set")
            else { return }
            let changed = try catalog.apply(plan)
            if options.json {
                try Output.json(changed.map { BowTieJSON($0, catalog: catalog) })
                return
            }
            if plan.changing.count == 1, let only = plan.changing.first {
                Output.line("Changed " + BatchConfirmation.line(for: only) + ".")
            } else {
                Output.line(
                    "Changed \(Output.count(changed.count, "bow tie"))"
                        + (unchanged > 0 ? "; \(Output.grouped(unchanged)) already as asked." : "."))
            }
        }

        /// A field that no attribute is called is a slip on the command
        /// line, as a query's unknown field is: exit 64, with the nearest
        /// name (`ratting=3`: did you mean "rating"?), before the catalog
        /// is opened. A field that exists but cannot be set is left to
        /// ``Catalog/settableAttribute(named:)``, which says why.
        static func checkFieldName(_ name: String) throws {
            let names = BowTieModel.entity.attributes.map(\.name)
            guard !names.contains(where: { $0.lowercased() == name.lowercased() }) else { return }
            let suggestion = EditDistance.suggestion(for: name, among: names)
            throw UsageError(
                "unknown field \"\(Output.escaped(name))\"" + (suggestion.map { "; did you mean \"\($0)\"?" } ?? ""),
                hint: "The fields: \(names.joined(separator: ", ")) (`bowties model` describes them).")
        }
    }
}
