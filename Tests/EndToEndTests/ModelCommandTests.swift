import Foundation
import Testing

/// `bowties model`: the declaration as Xcode's model editor shows it.
@Suite("bowties model")
struct ModelCommandTests {
    @Test("model lists each attribute with its Core Data type and rules, and needs no catalog")
    func text() throws {
        let bowties = try BowTiesRunner()
        let result = try bowties.run("model")
        #expect(result.status == 0, "\(result)")
        let lines = result.stdoutLines.map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
        #expect(lines.first == "BowTie (10 attributes, 2 relationships)", "\(result)")
        #expect(lines.contains("rating Double required, 0...5, default 0, indexed"), "\(result)")
        #expect(
            lines.contains(
                "timesWorn Integer 32 required, at least 0, fits Int32, default 0, baseline + count of wears"),
            "\(result)")
        #expect(
            lines.contains("searchKey String optional, length 1...64, unique, a plain word in queries"), "\(result)")
        // A pattern with the words that say what it refuses.
        #expect(
            result.stdout.contains(#"pattern [^,\p{Cc}]* (a tag cannot contain a comma or a control character)"#),
            "\(result)")
        #expect(
            lines.contains("photoData Binary Data optional, allows external storage, imported from \"imageName\""),
            "\(result)")
        #expect(lines.contains("tintColor Transformable optional, transformer ColorAttributeTransformer"), "\(result)")
        #expect(!FileManager.default.fileExists(atPath: bowties.storeURL.path), "model opened a catalog")
    }

    @Test("model --json describes the same attributes the export writes, with every key present")
    func json() throws {
        let bowties = try BowTiesRunner()
        let model = try bowties.run("--json", "model")
        #expect(model.status == 0, "\(model)")
        let root = try #require(try model.json() as? [String: Any])
        let entities = try #require(root["entities"] as? [[String: Any]])
        let attributes = try #require(entities.first?["attributes"] as? [[String: Any]])
        for attribute in attributes {
            #expect(attribute.keys.count == 19, "\(attribute)")
        }
        // The export's columns come from the same declaration: a binary
        // attribute becomes its size and SHA-256.
        try bowties.importSampleData()
        let export = try bowties.run("export")
        // CSV lines end with CRLF, one Character in Swift.
        let header = try #require(export.stdout.components(separatedBy: "\r\n").first)
        let fromModel = attributes.flatMap { attribute -> [String] in
            let name = attribute["name"] as? String ?? "?"
            return attribute["type"] as? String == "Binary Data" ? ["photoBytes", "photoSHA256"] : [name]
        }
        // Then one column per many-to-many relationship to named objects.
        let relationships = try #require(entities.first?["relationships"] as? [[String: Any]])
        let manyToMany = relationships.filter { relationship in
            let destination = entities.first { $0["name"] as? String == relationship["destination"] as? String }
            let inverse = (destination?["relationships"] as? [[String: Any]])?.first {
                $0["name"] as? String == relationship["inverse"] as? String
            }
            return relationship["toMany"] as? Bool == true && inverse?["toMany"] as? Bool == true
        }.compactMap { $0["name"] as? String }
        #expect(manyToMany == ["tags"])
        // Then each derived attribute's baseline, and the history it is
        // derived from (a one-to-many relationship), so an export
        // restores them.
        let derived = attributes.filter { !($0["derivation"] is NSNull) }.compactMap { $0["name"] as? String }
        #expect(derived == ["timesWorn", "lastWorn"])
        #expect((fromModel + manyToMany + derived.map { $0 + "Before" } + ["wears"]).joined(separator: ",") == header)
        let rating = try #require(attributes.first { $0["name"] as? String == "rating" })
        #expect(rating["minValue"] as? Double == 0 && rating["maxValue"] as? Double == 5)
        #expect(rating["type"] as? String == "Double" && rating["optional"] as? Bool == false)
        let timesWorn = try #require(attributes.first { $0["name"] as? String == "timesWorn" })
        #expect(timesWorn["derivation"] as? String == "baseline + wears.@count", "\(timesWorn)")
        #expect(rating["derivation"] is NSNull, "\(rating)")
    }
}
