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
                """)

        @Argument(help: KeyArgument.help)
        var key: String

        @Argument(help: ArgumentHelp("The tags to add (e.g. formal wedding).", valueName: "name"))
        var names: [String]

        @OptionGroup var options: CatalogOptions

        func run() throws {
            let catalog = try options.openCatalog(.mustExist)
            let tie = try catalog.tag(key, with: names)
            if options.json {
                try Output.json(BowTieJSON(tie, catalog: catalog))
                return
            }
            Output.line("Tagged \(Output.title(tie)): \(tie.tags.map(Output.escaped).joined(separator: ", ")).")
        }
    }

    /// `bowties untag KEY NAME...`.
    struct Untag: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "untag",
            abstract: "Take tags off a bow tie (the tags themselves stay).",
            discussion: KeyArgument.discussion
                + "\n\nA name the tie does not have is an error (exit 1), and nothing changes. "
                + "`bowties tags --delete NAME` deletes a tag from every tie.")

        @Argument(help: KeyArgument.help)
        var key: String

        @Argument(help: ArgumentHelp("The tags to remove.", valueName: "name"))
        var names: [String]

        @OptionGroup var options: CatalogOptions

        func run() throws {
            let catalog = try options.openCatalog(.mustExist)
            let tie = try catalog.untag(key, removing: names)
            if options.json {
                try Output.json(BowTieJSON(tie, catalog: catalog))
                return
            }
            let left = tie.tags.isEmpty ? "no tags left" : tie.tags.map(Output.escaped).joined(separator: ", ")
            Output.line("Untagged \(Output.title(tie)): \(left).")
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
