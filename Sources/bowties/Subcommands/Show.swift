import ArgumentParser
import BowTiesKit
import Foundation

extension BowTies {
    /// `bowties show KEY`: every field of one tie.
    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show every field of one bow tie.",
            discussion: KeyArgument.discussion)

        /// The attributes the lines above describe in words of their own.
        static let described: Set = [
            "id", "name", "searchKey", "rating", "timesWorn", "lastWorn", "isFavorite", "tintColor", "url", "photoData",
        ]

        @Argument(help: KeyArgument.help, completion: Completions.searchKeys)
        var key: String

        @OptionGroup var options: CatalogOptions

        func run() throws {
            try Self.show(key, options: options.settings)
        }

        /// The command's work, from plain values (``FastPath`` calls it).
        static func show(_ key: String, options: CatalogSettings) throws {
            let catalog = try options.openCatalog(.readOnly)
            let tie = try catalog.bowTie(matching: key)
            // Reading the photo checks that it is present and intact; a
            // damaged one is described and warned about, and the rest of
            // the tie still shown.
            let photo = try CheckedPhoto(of: tie, in: catalog)
            photo?.warnIfDamaged(tie)
            if options.json {
                try Output.json(BowTieJSON(tie, catalog: catalog, checked: photo))
                return
            }
            Output.line(Output.title(tie))
            Output.line("Rating: \(Output.rating(tie.rating))")
            Output.line("# times worn: \(tie.timesWorn)")
            Output.line("Last worn: " + (tie.lastWorn.map { "\(Output.date($0)) (\(Output.relative($0)))" } ?? "never"))
            Output.line("Favourite: \(tie.isFavorite ? "yes" : "no")")
            // Every field, an empty one as `none`, so that scripts and
            // eyes find each line in its place.
            if let color = tie.tintColor {
                let swatch = Output.swatch(color)
                Output.line("Colour: \(color.hexString)" + (swatch.isEmpty ? "" : " " + swatch))
            } else {
                Output.line("Colour: none")
            }
            Output.line("URL: " + (tie.url.map { Output.escaped($0.absoluteString) } ?? "none"))
            Output.line("Tags: " + (tie.tags.isEmpty ? "none" : tie.tags.map(Output.escaped).listed(separator: ", ")))
            // Attributes this command gives no words of its own, as the
            // declaration names them.
            for (index, attribute) in tie.record.entity.attributes.enumerated()
            where !described.contains(attribute.name) {
                guard let value = tie.record.values[index] else { continue }
                Output.line("\(attribute.name): \(Output.escaped(value.text ?? value.displayText))")
            }
            Output.line(photo?.line ?? "Photo: none")
            Output.line("Id: \(tie.id.uuidString)")
        }
    }
}

/// The wording shared by every command that takes a tie's key.
enum KeyArgument {
    static let help = ArgumentHelp(
        "The tie's search key (e.g. R), or its id or the first 4+ characters of it.",
        valueName: "key")
    static let discussion = """
        KEY is a search key, matched exactly, else ignoring case when only one tie \
        matches; or a full id; or a unique prefix of an id (at least 4 characters).
        """
}
