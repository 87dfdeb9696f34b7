import Foundation
import Testing

/// The relationships the model declares (`BowTie.wears`, cascade;
/// `BowTie.tags`, nullify, with their inverses) as `model` shows them, and
/// `check` guarding what the store makes of them: links to nothing, and a
/// `timesWorn` that disagrees with the history.
///
/// The damage is done as another program or a faulty disk would: through
/// SQLite directly, foreign keys off, while no bowties process runs.
@Suite("Relationships: the declaration, and check")
struct RelationshipIntegrityTests {
    /// An id no tie has.
    static let nobody = "00000000-0000-0000-0000-000000000000"

    // MARK: - model

    @Test("model lists BowTie's relationships wears (cascade) and tags (nullify), and the entities Wear and Tag")
    func modelText() throws {
        let bowties = try BowTiesRunner()
        let result = try bowties.run("model")
        #expect(result.status == 0, "\(result)")
        let lines = result.stdoutLines
        // Entities start at the margin; their attributes and relationships
        // are indented below them.
        for entity in ["BowTie", "Wear", "Tag"] {
            #expect(lines.contains { $0 == entity || $0.hasPrefix(entity + " ") }, "no entity \(entity)\n\(result)")
        }
        let start = try #require(lines.firstIndex { $0.hasPrefix("BowTie ") }, "\(result)")
        let bowTie = lines[start...].prefix { !$0.isEmpty }
        let wears = try #require(bowTie.first { Self.words($0).first == "wears" }, "no row for wears\n\(result)")
        #expect(Self.words(wears).contains("Wear"), "\(wears)")
        #expect(Self.words(wears).contains("bowTie"), "\(wears)")
        #expect(Self.words(wears.lowercased()).contains("cascade"), "\(wears)")
        #expect(wears.lowercased().contains("many"), "\(wears)")
        let tags = try #require(bowTie.first { Self.words($0).first == "tags" }, "no row for tags\n\(result)")
        #expect(Self.words(tags).contains("Tag"), "\(tags)")
        #expect(Self.words(tags).contains("bowTies"), "\(tags)")
        #expect(Self.words(tags.lowercased()).contains("nullify"), "\(tags)")
        #expect(tags.lowercased().contains("many"), "\(tags)")
        #expect(!FileManager.default.fileExists(atPath: bowties.storeURL.path), "model opened a catalog")
    }

    @Test("model --json: each entity has its relationships, every key present, null when unbounded")
    func modelJSON() throws {
        let bowties = try BowTiesRunner()
        let model = try bowties.run("--json", "model")
        #expect(model.status == 0, "\(model)")
        let root = try #require(try model.json() as? [String: Any], "\(model)")
        let entities = try #require(root["entities"] as? [[String: Any]], "\(model)")
        let names = entities.compactMap { $0["name"] as? String }
        #expect(Set(["BowTie", "Wear", "Tag"]).isSubset(of: Set(names)), "\(names)")
        var relationships: [String: [String: [String: Any]]] = [:]
        for entity in entities {
            let name = try #require(entity["name"] as? String)
            let list = try #require(entity["relationships"] as? [[String: Any]], "\(name) has no relationships array")
            for relationship in list {
                #expect(
                    Set(relationship.keys)
                        == ["name", "destination", "inverse", "toMany", "deleteRule", "minCount", "maxCount"],
                    "\(name): \(relationship)")
            }
            relationships[name] = Dictionary(
                list.map { ($0["name"] as? String ?? "?", $0) }, uniquingKeysWith: { first, _ in first })
        }

        #expect(Set(relationships["BowTie"].map { Array($0.keys) } ?? []) == ["wears", "tags"], "\(model)")
        let wears = try #require(relationships["BowTie"]?["wears"], "\(model)")
        #expect(wears["destination"] as? String == "Wear", "\(wears)")
        #expect(wears["inverse"] as? String == "bowTie", "\(wears)")
        #expect(wears["toMany"] as? Bool == true, "\(wears)")
        #expect(wears["deleteRule"] as? String == "cascade", "\(wears)")
        #expect(wears["minCount"] as? Int == 0, "\(wears)")
        #expect(wears["maxCount"] is NSNull, "\(wears)")
        let tags = try #require(relationships["BowTie"]?["tags"], "\(model)")
        #expect(tags["destination"] as? String == "Tag", "\(tags)")
        #expect(tags["inverse"] as? String == "bowTies", "\(tags)")
        #expect(tags["toMany"] as? Bool == true, "\(tags)")
        #expect(tags["deleteRule"] as? String == "nullify", "\(tags)")
        #expect(tags["minCount"] as? Int == 0, "\(tags)")
        #expect(tags["maxCount"] is NSNull, "\(tags)")

        // The inverses.
        let bowTie = try #require(relationships["Wear"]?["bowTie"], "\(model)")
        #expect(bowTie["destination"] as? String == "BowTie", "\(bowTie)")
        #expect(bowTie["inverse"] as? String == "wears", "\(bowTie)")
        #expect(bowTie["toMany"] as? Bool == false, "\(bowTie)")
        #expect(bowTie["maxCount"] as? Int == 1, "\(bowTie)")
        let bowTies = try #require(relationships["Tag"]?["bowTies"], "\(model)")
        #expect(bowTies["destination"] as? String == "BowTie", "\(bowTies)")
        #expect(bowTies["inverse"] as? String == "tags", "\(bowTies)")
        #expect(bowTies["toMany"] as? Bool == true, "\(bowTies)")
        #expect(bowTies["deleteRule"] as? String == "nullify", "\(bowTies)")
        #expect(bowTies["maxCount"] is NSNull, "\(bowTies)")
    }

    // MARK: - check

    @Test("the sample catalog with wears and tags passes check")
    func healthy() throws {
        let workspace = try Self.catalogWithWearsAndTags()
        let result = try workspace.run("check")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdoutLines.suffix(2) == ["No problems found.", ""], "\(result)")
        #expect(result.stderr.isEmpty, "\(result)")

        let json = try workspace.run("check", "--json")
        #expect(json.status == 0, "\(json)")
        let report = try #require(try json.json() as? [String: Any], "\(json)")
        #expect(report["healthy"] as? Bool == true, "\(json)")
        #expect((report["problems"] as? [Any])?.isEmpty == true, "\(json)")
    }

    @Test(
        "a link in bowtie_tag to a tie or a tag that does not exist: check exits 65 and names bowtie_tag",
        arguments: [
            "'\(RelationshipIntegrityTests.nobody)', (SELECT min(pk) FROM tag)",
            "'\(WearHistoryCommandTests.redID)', 999999",
        ])
    func danglingTagLink(values: String) throws {
        let workspace = try Self.catalogWithWearsAndTags()
        try SQLiteLibrary().execute(
            "PRAGMA foreign_keys = OFF; INSERT INTO bowtie_tag(bowTie_id, tag_pk) VALUES (\(values));",
            in: workspace.storeURL.path)
        let check = try workspace.run("check")
        #expect(check.status == 65, "\(check)")
        #expect(Self.words(Self.problems(check)).contains("bowtie_tag"), "\(check)")
        #expect(
            check.stderr.hasPrefix("bowties: error: the catalog at \(workspace.storeURL.path) has "), "\(check)")
    }

    @Test("a wear whose tie does not exist: check exits 65 and names the wear table")
    func danglingWear() throws {
        let workspace = try Self.catalogWithWearsAndTags()
        try SQLiteLibrary().execute(
            """
            PRAGMA foreign_keys = OFF;
            INSERT INTO wear(date, note, bowTie_id) VALUES (1763596800, NULL, '\(Self.nobody)');
            """, in: workspace.storeURL.path)
        let check = try workspace.run("check")
        #expect(check.status == 65, "\(check)")
        #expect(Self.words(Self.problems(check)).contains("wear"), "\(check)")
        #expect(
            check.stderr.hasPrefix("bowties: error: the catalog at \(workspace.storeURL.path) has "), "\(check)")
    }

    @Test("a timesWorn that disagrees with the baseline and the history: check reports it, --repair restores it")
    func timesWornDisagrees() throws {
        let workspace = try Self.catalogWithWearsAndTags()
        let expected = try WearHistoryCommandTests.tie(workspace, "R")
        try #require(expected["timesWorn"] as? Int == 14, "\(expected)")
        try SQLiteLibrary().execute(
            "UPDATE bowtie SET timesWorn = 999 WHERE searchKey = 'R';", in: workspace.storeURL.path)
        // Read back from the file, not through bowties, which may count
        // the wears rather than read the column.
        let row = try SQLiteLibrary().dump(workspace.storeURL.path).first {
            $0.hasPrefix("bowtie: ") && $0.contains("'\(WearHistoryCommandTests.redID)'")
        }
        try #require(
            row.map { Self.words($0).contains("999") } == true, "the UPDATE did not reach the store: \(row ?? "no row")"
        )

        let check = try workspace.run("check")
        #expect(check.status == 65, "\(check)")
        #expect(Self.words(Self.problems(check)).contains("timesWorn"), "\(check)")

        let repair = try workspace.run("check", "--repair")
        #expect(repair.status == 0, "\(repair)")
        #expect(repair.stdoutLines.contains("A new check finds no problems."), "\(repair)")
        let again = try workspace.run("check")
        #expect(again.status == 0, "\(again)")
        let repaired = try WearHistoryCommandTests.tie(workspace, "R")
        #expect(repaired["timesWorn"] as? Int == 14, "\(repaired)")
        #expect(repaired["lastWorn"] as? String == expected["lastWorn"] as? String, "\(repaired)")
        let history = try WearHistoryCommandTests.history(workspace, "R")
        #expect(history["timesWorn"] as? Int == 14, "\(history)")
        #expect(try WearHistoryCommandTests.wears(history).count == 2, "\(history)")
    }

    // MARK: - Helpers

    /// The sample data, R worn on 2026-11-10 and 2026-11-20 (14 times in
    /// all), R tagged formal and wedding, B formal.
    static func catalogWithWearsAndTags(sourceLocation: SourceLocation = #_sourceLocation) throws
        -> CatalogWorkspace
    {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        for arguments in [
            ["wear", "R", "--on", "2026-11-10"], ["wear", "R", "--on", "2026-11-20", "--note", "wedding"],
            ["tag", "R", "formal", "wedding"], ["tag", "B", "formal"],
        ] {
            let result = try workspace.run(arguments: arguments)
            try #require(result.status == 0, "\(result)", sourceLocation: sourceLocation)
        }
        return workspace
    }

    /// What `check` printed after its headline: the problems.
    static func problems(_ check: BowTiesResult) -> String {
        check.stdoutLines.dropFirst().joined(separator: "\n")
    }

    /// The words of `text`: letters, digits and `_`, so that `bowtie_tag`
    /// is one word and `wear` is not found inside `wears`.
    static func words(_ text: String) -> [String] {
        text.split { !($0.isLetter || $0.isNumber || $0 == "_") }.map(String.init)
    }
}
