import ArgumentParser
import BowTiesKit
import Foundation

extension BowTies {
    /// `bowties add --name NAME --key K [...]`.
    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add a bow tie to the catalog.",
            discussion: """
                The tie gets a new id, printed once it is stored. Everything is checked \
                as the model says before anything is stored: the name is required (1 to 500 \
                characters), the key must be 1 to 64 characters and not used by another tie, \
                the rating from \(Output.ratingScale), the URL absolute (https://…). A refused value exits 65 \
                with Core Data's code (\"rating is too large.\", 1610) and nothing is stored.

                Example: bowties add --name "Classic Red Bow Tie" --key R --rating 4.5 \
                --color '#C81E2D' --tag formal --tag red

                --color is the tie's colour here. The output's (auto, always or never, which \
                every other command takes as --color) goes before the command's name: \
                bowties --color never add ...
                """)

        @Option(help: ArgumentHelp("The tie's name (e.g. \"Classic Red Bow Tie\").", valueName: "name"))
        var name: String

        @Option(
            name: .long,
            help: ArgumentHelp(
                "The search key you will find it by (e.g. R); unique in the catalog.", valueName: "key"))
        var key: String

        // Unconditional: `--rating -1` must reach validation (1620), not
        // be read as an option (see BowTies.optionsTakingNumbers).
        @Option(
            parsing: .unconditional,
            help: ArgumentHelp(
                "A rating from \(Output.ratingScale), decimals allowed (default 0).", valueName: "rating"))
        var rating: String?

        @Option(help: ArgumentHelp("Its colour, as #RRGGBB (e.g. '#C81E2D': quote the #).", valueName: "#RRGGBB"))
        var color: String?

        @Option(help: ArgumentHelp("A web page about it; an absolute URL (https://…).", valueName: "url"))
        var url: String?

        @Option(help: ArgumentHelp("An image file to keep as its photo.", valueName: "file"), completion: .file())
        var photo: String?

        @Flag(help: "Mark it as a favourite.")
        var favorite = false

        @Option(
            name: .customLong("tag"),
            help: ArgumentHelp("File it under this tag (repeat for several; created when new).", valueName: "name"))
        var tags: [String] = []

        // Not CatalogOptions: --color here is the tie's colour. The
        // output's goes before the name (`bowties --color never add`).
        @OptionGroup var options: CommonOptions

        func run() throws {
            let entity = BowTieModel.entity
            var tie = BowTie(id: UUID(), name: name, searchKey: key)
            // Typed by the declaration, as `edit` and imports read them.
            for (attribute, text) in [("rating", rating), ("tintColor", color), ("url", url)] {
                guard let text, let description = entity[attribute] else { continue }
                tie.record[attribute] = try description.value(fromText: text) ?? description.defaultValue
            }
            tie.isFavorite = favorite
            tie.tags = tags.map { $0.trimmingCharacters(in: .whitespaces) }
            let data = try photo.map { try Catalog.readPhotoFile(at: URL(fileURLWithPath: $0)) }
            let stored = try options.withCatalogCreatedIfMissing { catalog in
                let stored = try catalog.add(tie, photo: data)
                if options.json {
                    try Output.json(
                        BowTieJSON(stored, catalog: catalog, checked: try CheckedPhoto(of: stored, in: catalog)))
                }
                return stored
            }
            if !options.json {
                Output.line("Added \(Output.title(stored)): \(stored.id.uuidString)")
            }
        }
    }
}
