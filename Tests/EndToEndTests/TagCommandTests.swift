import Foundation
import Testing

/// Tags: `tag KEY NAME...`, `untag KEY NAME...`, `tags [--delete NAME]`,
/// `list --tag NAME`, and the tags `show`, `list`, `import` and `export`
/// read and write.
///
/// A `Tag` has a unique name, compared ignoring case; ties and tags are
/// many-to-many, and deleting either leaves the other (nullify).
@Suite("bowties tag, untag and tags")
struct TagCommandTests {
    // MARK: - tag

    @Test("tag R wedding formal adds both; the output lists all of R's tags, sorted")
    func addTags() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let result = try workspace.run("tag", "R", "wedding", "formal")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "Tagged Classic Red Bow Tie (R): formal, wedding.\n", "\(result)")
        #expect(result.stderr.isEmpty, "\(result)")
        #expect(try Self.tags(workspace, "R") == ["formal", "wedding"])
        #expect(try Self.tags(workspace, "B") == [])
        #expect(try Self.catalogTags(workspace) == [Count("formal", 1), Count("wedding", 1)])
    }

    @Test("untag QUERY -NAME takes the tag off every selected tie that has it, asked as set asks")
    func untagQuery() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        #expect(try workspace.run("tag", "rating:3..", "+formal", "--yes").status == 0)
        #expect(try workspace.run("tag", "Y", "casual").status == 0)

        let refused = try workspace.run("untag", "rating:..4", "-formal")
        #expect(refused.status == 64, "\(refused)")
        #expect(refused.stderr.contains("add --yes"), "\(refused)")

        let dryRun = try workspace.run("untag", "rating:..4", "-Formal", "--dry-run")
        #expect(dryRun.status == 0, "\(dryRun)")
        #expect(
            dryRun.stdout
                == "Classic Red Bow Tie (R)\nOrange Sherbet (O)\nIndigo Crêpe (I)\n"
                + "Dry run: 3 bow ties would lose a tag; nothing changed.\n",
            "\(dryRun)")
        #expect(try Self.tags(workspace, "R") == ["formal"])

        let done = try workspace.run("untag", "rating:..4", "-Formal", "--yes")
        #expect(done.status == 0, "\(done)")
        #expect(done.stdout.hasSuffix("Untagged 3 bow ties: Formal.\n"), "\(done)")
        #expect(try Self.tags(workspace, "R") == [])
        #expect(try Self.tags(workspace, "I") == [])
        #expect(try Self.tags(workspace, "B") == ["formal"])
        #expect(try Self.tags(workspace, "Y") == ["casual"], "a tie without the tag is left alone")

        let none = try workspace.run("untag", "name:nothing", "-formal", "--yes")
        #expect(none.status == 1, "\(none)")
    }

    @Test("the output lists the tags the tie had before too, sorted ignoring case")
    func sortedIgnoringCase() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        try Self.tag(workspace, "R", "wedding")
        let result = try workspace.run("tag", "R", "Black-tie", "apple")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "Tagged Classic Red Bow Tie (R): apple, Black-tie, wedding.\n", "\(result)")
        #expect(try Self.tags(workspace, "R") == ["apple", "Black-tie", "wedding"])
    }

    @Test("a name matching a tag ignoring case is that tag, with its spelling")
    func existingSpelling() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        try Self.tag(workspace, "R", "Formal")
        let result = try workspace.run("tag", "B", "FORMAL")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "Tagged Midnight Blue Silk (B): Formal.\n", "\(result)")
        #expect(try Self.tags(workspace, "B") == ["Formal"])
        #expect(try Self.catalogTags(workspace) == [Count("Formal", 2)])
    }

    @Test("adding a tag the tie already has is no error and adds nothing")
    func tagAgain() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        try Self.tag(workspace, "R", "formal")
        let again = try workspace.run("tag", "R", "formal", "Formal")
        #expect(again.status == 0, "\(again)")
        #expect(again.stdout == "Tagged Classic Red Bow Tie (R): formal.\n", "\(again)")
        #expect(try Self.tags(workspace, "R") == ["formal"])
        #expect(try Self.catalogTags(workspace) == [Count("formal", 1)])
        #expect(try Self.storedLinks(workspace).count == 1)
    }

    @Test("white space around a name is trimmed; 64 characters are accepted")
    func trimmedAndLongest() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let longest = String(repeating: "t", count: 64)
        let result = try workspace.run("tag", "R", "  formal  ", longest)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "Tagged Classic Red Bow Tie (R): formal, \(longest).\n", "\(result)")
        #expect(try Self.tags(workspace, "R") == ["formal", longest])
    }

    @Test(
        "an invalid name fails validation, exit 65, and nothing is stored, the valid names beside it included",
        arguments: [
            InvalidName(name: "black,tie", code: "1680"),
            InvalidName(name: ",", code: "1680"),
            InvalidName(name: "   ", code: "1670"),
            InvalidName(name: "", code: "1670"),
            InvalidName(name: String(repeating: "t", count: 65), code: nil),
            InvalidName(name: "black\u{7}tie", code: nil),
        ])
    func invalidName(_ invalid: InvalidName) throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        try Self.tag(workspace, "R", "formal")
        let before = try workspace.snapshot()
        let result = try workspace.run("tag", "R", "wedding", invalid.name)
        #expect(result.status == 65, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        #expect(result.stderr.hasPrefix("bowties: error:"), "\(result)")
        if let code = invalid.code {
            #expect(result.stderr.contains(code), "\(result)")
        }
        try NoTraceTests.expectNoTrace(workspace, before: before, result)
        #expect(try Self.catalogTags(workspace) == [Count("formal", 1)])
    }

    // MARK: - untag

    @Test("untag removes tags from the tie; the tags stay in the catalog, on no tie")
    func untag() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        try Self.tag(workspace, "R", "formal", "wedding")
        let first = try workspace.run("untag", "R", "wedding")
        #expect(first.status == 0, "\(first)")
        #expect(first.stdout == "Untagged Classic Red Bow Tie (R): formal.\n", "\(first)")
        #expect(first.stderr.isEmpty, "\(first)")
        #expect(try Self.tags(workspace, "R") == ["formal"])

        let last = try workspace.run("untag", "R", "formal")
        #expect(last.status == 0, "\(last)")
        #expect(last.stdout == "Untagged Classic Red Bow Tie (R): no tags left.\n", "\(last)")
        #expect(try Self.tags(workspace, "R") == [])
        #expect(try workspace.run("show", "R").stdoutLines.contains("Tags: none"))
        #expect(try Self.catalogTags(workspace) == [Count("formal", 0), Count("wedding", 0)])
        #expect(try Self.storedLinks(workspace).isEmpty)
    }

    @Test("untag of several names removes them all at once")
    func untagSeveral() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        try Self.tag(workspace, "R", "formal", "wedding", "silk")
        let result = try workspace.run("untag", "R", "wedding", "formal")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "Untagged Classic Red Bow Tie (R): silk.\n", "\(result)")
        #expect(try Self.tags(workspace, "R") == ["silk"])
    }

    @Test("untag of a name the tie does not have: exit 1, naming it, and nothing changes, all or nothing")
    func untagMissing() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        try Self.tag(workspace, "R", "formal", "wedding")
        try Self.tag(workspace, "B", "casual")
        let before = try workspace.snapshot()
        let result = try workspace.run("untag", "R", "wedding", "casual")
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        #expect(result.stderr.hasPrefix("bowties: error:"), "\(result)")
        #expect(result.stderr.contains("casual"), "\(result)")
        try NoTraceTests.expectNoTrace(workspace, before: before, result)
        #expect(try Self.tags(workspace, "R") == ["formal", "wedding"])
    }

    // MARK: - tags

    @Test("tags: a table of each tag and how many ties have it, sorted ignoring case, then a count")
    func table() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        try Self.tag(workspace, "R", "formal", "wedding")
        try Self.tag(workspace, "B", "formal")
        try Self.tag(workspace, "G", "Paisley")
        let result = try workspace.run("tags")
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.isEmpty, "\(result)")
        // Columns are padded to their widest cell: compare the words.
        let words = result.stdoutLines.map { $0.split(separator: " ").map(String.init) }
        #expect(
            words == [
                ["TAG", "TIES"], ["formal", "2"], ["Paisley", "1"], ["wedding", "1"], [], ["3", "tags"], [],
            ],
            "\(result)")
        #expect(result.stdoutLines.suffix(3) == ["", "3 tags", ""], "\(result)")
    }

    @Test("tags --json: each tag's name and count, sorted ignoring case")
    func json() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        try Self.tag(workspace, "R", "wedding", "formal")
        try Self.tag(workspace, "B", "formal", "Blue")
        let result = try workspace.run("tags", "--json")
        #expect(result.status == 0, "\(result)")
        let tags = try #require(try result.json() as? [[String: Any]], "\(result)")
        for tag in tags {
            #expect(Set(tag.keys) == ["name", "count"], "\(result)")
        }
        #expect(try Self.catalogTags(workspace) == [Count("Blue", 1), Count("formal", 2), Count("wedding", 1)])
    }

    @Test("with no tag yet, tags says how to add one; --json is an empty array")
    func noTags() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let result = try workspace.run("tags")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "No tags yet: add one with `bowties tag KEY NAME`.\n", "\(result)")
        let json = try workspace.run("tags", "--json")
        #expect(json.status == 0, "\(json)")
        #expect((try? json.json() as? [Any])?.isEmpty == true, "\(json)")
    }

    @Test("tags --delete deletes the tag (matched ignoring case); the ties stay")
    func deleteTag() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        try Self.tag(workspace, "R", "formal", "wedding")
        try Self.tag(workspace, "B", "Formal")
        let result = try workspace.run("tags", "--delete", "FORMAL")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "Deleted the tag \"formal\" (it was on 2 bow ties).\n", "\(result)")
        #expect(result.stderr.isEmpty, "\(result)")
        #expect(try Self.tags(workspace, "R") == ["wedding"])
        #expect(try Self.tags(workspace, "B") == [])
        #expect(try Self.catalogTags(workspace) == [Count("wedding", 1)])
        #expect(try Self.storedLinks(workspace).count == 1)
        #expect(try Self.tieCount(workspace) == 7)

        let last = try workspace.run("tags", "--delete", "wedding")
        #expect(last.status == 0, "\(last)")
        #expect(try workspace.run("tags").stdout == "No tags yet: add one with `bowties tag KEY NAME`.\n")
    }

    @Test("tags --delete of an unknown name: exit 1, and nothing changes")
    func deleteUnknownTag() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        try Self.tag(workspace, "R", "formal")
        let before = try workspace.snapshot()
        let result = try workspace.run("tags", "--delete", "casual")
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        #expect(result.stderr.hasPrefix("bowties: error:"), "\(result)")
        try NoTraceTests.expectNoTrace(workspace, before: before, result)
    }

    // MARK: - list, show, delete

    @Test("list --tag shows only the ties with that tag, matched ignoring case")
    func listByTag() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        try Self.tag(workspace, "R", "formal")
        try Self.tag(workspace, "B", "Formal", "silk")
        try Self.tag(workspace, "G", "casual")

        let json = try workspace.run("list", "--tag", "FORMAL", "--json")
        #expect(json.status == 0, "\(json)")
        let ties = try #require(try json.json() as? [[String: Any]], "\(json)")
        #expect(ties.compactMap { $0["searchKey"] as? String } == ["R", "B"], "\(json)")
        #expect(ties.map { $0["tags"] as? [String] ?? ["?"] } == [["formal"], ["formal", "silk"]], "\(json)")

        let table = try workspace.run("list", "--tag", "formal")
        #expect(table.status == 0, "\(table)")
        let lines = table.stdoutLines
        #expect(lines.count == 6, "\(table)")  // header, 2 rows, blank, count, final newline
        #expect(lines.dropFirst().prefix(2).map { String($0.prefix(1)) } == ["R", "B"], "\(table)")
        #expect(lines.suffix(2) == ["2 bow ties, 1 favourite", ""], "\(table)")
    }

    @Test("show prints a Tags line, and show --json and list --json a sorted tags array")
    func showAndList() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        try Self.tag(workspace, "R", "wedding", "Formal")

        let red = try workspace.run("show", "R")
        #expect(red.stdoutLines.contains("Tags: Formal, wedding"), "\(red)")
        let blue = try workspace.run("show", "B")
        #expect(blue.stdoutLines.contains("Tags: none"), "\(blue)")

        #expect(try Self.tags(workspace, "R") == ["Formal", "wedding"])
        #expect(try Self.tags(workspace, "B") == [])
        let list = try workspace.run("list", "--json")
        let ties = try #require(try list.json() as? [[String: Any]], "\(list)")
        #expect(ties.count == 7, "\(list)")
        #expect(
            ties.map { $0["tags"] as? [String] ?? ["?"] } == [["Formal", "wedding"], [], [], [], [], [], []],
            "\(list)")
    }

    @Test("delete takes the tie off its tags; the tags stay, their counts drop")
    func deleteTie() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        try Self.tag(workspace, "R", "formal", "wedding")
        try Self.tag(workspace, "B", "formal")
        try #require(try Self.storedLinks(workspace).count == 3)

        let delete = try workspace.run("delete", "R")
        #expect(delete.status == 0, "\(delete)")
        #expect(delete.stdout == "Deleted Classic Red Bow Tie (R).\n", "\(delete)")
        #expect(try Self.catalogTags(workspace) == [Count("formal", 1), Count("wedding", 0)])
        let links = try Self.storedLinks(workspace)
        #expect(links.count == 1, "\(links)")
        #expect(!links.contains { $0.uppercased().contains(WearHistoryCommandTests.redID) }, "\(links)")
        #expect(try Self.tags(workspace, "B") == ["formal"])
        let check = try workspace.run("check")
        #expect(check.status == 0, "\(check)")
    }

    // MARK: - import, export

    @Test("import reads a tags array; a re-import is unchanged; --update sets exactly the file's tags")
    func importTags() throws {
        let workspace = try CatalogWorkspace()
        let file = try workspace.writeInput(
            Self.document([
                ("T1", "<array><string>formal</string><string>Wedding</string></array>"),
                ("T2", "<array><string>formal</string></array>"),
            ]),
            to: "Tagged.plist")
        let first = try workspace.run("import", file.path)
        #expect(first.status == 0, "\(first)")
        #expect(first.stdout.contains("added 2, updated 0, unchanged 0"), "\(first)")
        #expect(try Self.tags(workspace, "T1") == ["formal", "Wedding"])
        #expect(try Self.tags(workspace, "T2") == ["formal"])
        #expect(try Self.catalogTags(workspace) == [Count("formal", 2), Count("Wedding", 1)])

        let again = try workspace.run("import", file.path)
        #expect(again.status == 0, "\(again)")
        #expect(again.stdout.contains("added 0, updated 0, unchanged 2"), "\(again)")
        #expect(try Self.catalogTags(workspace) == [Count("formal", 2), Count("Wedding", 1)])

        let changed = try workspace.writeInput(
            Self.document([
                ("T1", "<array><string>casual</string></array>"), ("T2", "<array><string>formal</string></array>"),
            ]),
            to: "Retagged.plist")
        let update = try workspace.run("import", changed.path, "--update")
        #expect(update.status == 0, "\(update)")
        #expect(update.stdout.contains("added 0, updated 1, unchanged 1"), "\(update)")
        #expect(try Self.tags(workspace, "T1") == ["casual"])
        #expect(try Self.tags(workspace, "T2") == ["formal"])
        #expect(
            try Self.catalogTags(workspace) == [Count("casual", 1), Count("formal", 1), Count("Wedding", 0)])
    }

    @Test(
        "a tags value that is not an array of strings: exit 65, located, naming the field; nothing imported",
        arguments: [
            ("<string>formal</string>", "<string>formal</string>"),
            (
                "<array>\n\t\t\t<string>formal</string>\n\t\t\t<integer>1</integer>\n\t\t</array>",
                "<integer>1</integer>"
            ),
        ])
    func importInvalidTags(value: String, culprit: String) throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let text = Self.document([("T1", value)])
        let file = try workspace.writeInput(text, to: "BadTags.plist")
        // The line of the offending element, or of the value holding it
        // (the line after the key).
        let lines = text.components(separatedBy: "\n")
        let key = try #require(lines.firstIndex { $0.contains("<key>tags</key>") })
        let element = try #require(lines[key...].firstIndex { $0.contains(culprit) })
        let lineNumbers = [element + 1, key + 2]
        let before = try workspace.snapshot()
        let result = try workspace.run("import", file.path)
        #expect(result.status == 65, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        #expect(
            lineNumbers.contains { result.stderr.hasPrefix("bowties: error: BadTags.plist:\($0):") },
            "expected a location on line \(lineNumbers)\n\(result)")
        #expect(result.stderr.contains("record 1 (T1 \"Tie T1\"), tags: "), "\(result)")
        try NoTraceTests.expectNoTrace(workspace, before: before, result)
    }

    @Test("export: a tags column after the attributes, the tie's tags sorted and joined by \", \"")
    func export() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        try Self.tag(workspace, "R", "wedding", "Formal")
        try Self.tag(workspace, "B", "formal")
        let result = try workspace.run("export")
        #expect(result.status == 0, "\(result)")
        let rows = try ExportCommandTests.parse(result.stdout)
        let tags = try #require(rows.first?.firstIndex(of: "tags"), "\(result)")
        #expect(rows.first == ExportCommandTests.header && rows.first?[tags - 1] == "photoSHA256", "\(result)")
        #expect(rows.dropFirst().map { $0[2] } == ["R", "O", "Y", "G", "B", "I", "V"], "\(result)")
        #expect(
            rows.dropFirst().map { $0[tags] } == ["Formal, wedding", "", "", "", "Formal", "", ""], "\(result)")
    }

    // MARK: - Helpers

    /// A name `tag` refuses, and the Core Data code its message must
    /// carry, when the interface fixes one.
    struct InvalidName: Sendable, CustomTestStringConvertible {
        var name: String
        var code: String?

        var testDescription: String {
            "\(name.debugDescription.prefix(20))\(name.count > 18 ? "…" : "") (\(name.count) characters)"
                + (code.map { ", code \($0)" } ?? "")
        }
    }

    /// One entry of `tags --json`.
    struct Count: Equatable, CustomStringConvertible {
        var name: String
        var count: Int

        init(_ name: String, _ count: Int) {
            self.name = name
            self.count = count
        }

        var description: String { "\(name): \(count)" }
    }

    /// Runs `tag KEY NAMES...`, which must succeed.
    static func tag(
        _ workspace: CatalogWorkspace, _ key: String, _ names: String...,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let result = try workspace.run(arguments: ["tag", key] + names)
        try #require(result.status == 0, "\(result)", sourceLocation: sourceLocation)
    }

    /// The `tags` of `show KEY --json`.
    static func tags(
        _ workspace: CatalogWorkspace, _ key: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [String] {
        let tie = try WearHistoryCommandTests.tie(workspace, key, sourceLocation: sourceLocation)
        return try #require(tie["tags"] as? [String], "\(tie)", sourceLocation: sourceLocation)
    }

    /// `tags --json`, in its order.
    static func catalogTags(
        _ workspace: CatalogWorkspace, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [Count] {
        let result = try workspace.run("tags", "--json")
        try #require(result.status == 0, "\(result)", sourceLocation: sourceLocation)
        let tags = try #require(try result.json() as? [[String: Any]], "\(result)", sourceLocation: sourceLocation)
        return try tags.map { tag in
            Count(
                try #require(tag["name"] as? String, "\(tag)", sourceLocation: sourceLocation),
                try #require(tag["count"] as? Int, "\(tag)", sourceLocation: sourceLocation))
        }
    }

    /// How many ties `list --json` reports.
    static func tieCount(_ workspace: CatalogWorkspace) throws -> Int {
        let result = try workspace.run("list", "--json")
        try #require(result.status == 0, "\(result)")
        return try #require(try result.json() as? [Any], "\(result)").count
    }

    /// The rows of the join table `bowtie_tag`, read from the store file
    /// itself (after the command, which checkpoints on close).
    static func storedLinks(_ workspace: CatalogWorkspace) throws -> [String] {
        try SQLiteLibrary().dump(workspace.storeURL.path).filter { $0.hasPrefix("bowtie_tag: ") }
    }

    /// A property list of ties named `Tie KEY`, each with `tags` set to
    /// the given XML, last in its dict.
    static func document(_ ties: [(key: String, tags: String)]) -> String {
        let records = ties.map { tie in
            """
            \t<dict>
            \t\t<key>name</key>
            \t\t<string>Tie \(tie.key)</string>
            \t\t<key>searchKey</key>
            \t\t<string>\(tie.key)</string>
            \t\t<key>tags</key>
            \t\t\(tie.tags)
            \t</dict>
            """
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0">
            <array>
            \(records.joined(separator: "\n"))
            </array>
            </plist>

            """
    }
}
