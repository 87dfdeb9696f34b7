import ArgumentParser
import BowTiesKit
import Foundation

extension BowTies {
    /// `bowties wear KEY`: one more wear, now.
    struct Wear: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "wear",
            abstract: "Record that you wore a bow tie: times worn + 1, last worn now.",
            discussion: KeyArgument.discussion
                + "\n\nSafe to run from several processes at once: every wear is counted.")

        @Argument(help: KeyArgument.help)
        var key: String

        @OptionGroup var options: CatalogOptions

        func run() throws {
            let catalog = try options.openCatalog(.mustExist)
            let tie = try catalog.wear(key)
            if options.json {
                try Output.json(BowTieJSON(tie, catalog: catalog))
                return
            }
            Output.line("Wore \(Output.title(tie)): \(tie.timesWorn) time\(tie.timesWorn == 1 ? "" : "s") so far.")
        }
    }
}
