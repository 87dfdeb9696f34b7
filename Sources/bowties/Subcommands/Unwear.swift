import ArgumentParser
import BowTiesKit
import Foundation

extension BowTies {
    /// `bowties unwear KEY`: takes the latest wear back.
    struct Unwear: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "unwear",
            abstract: "Remove the latest recorded wear of a bow tie (a wear recorded by mistake).",
            discussion: KeyArgument.discussion
                + """


                The latest wear is the one with the latest date; of several on the same date, \
                the one recorded last. Times worn and last worn follow. The counts an import \
                brought are not wears and cannot be removed this way.
                """)

        @Argument(help: KeyArgument.help, completion: Completions.searchKeys)
        var key: String

        @OptionGroup var options: CatalogOptions

        func run() throws {
            let catalog = try options.openCatalog(.mustExist)
            let (tie, removed) = try catalog.unwear(key)
            if options.json {
                try Output.json(BowTieJSON(tie, catalog: catalog))
                return
            }
            Output.line(
                "Removed the wear of \(WearDate.day(removed.date)) from \(Output.title(tie)): "
                    + "\(Output.count(Int(tie.timesWorn), "time")) so far.")
        }
    }
}
