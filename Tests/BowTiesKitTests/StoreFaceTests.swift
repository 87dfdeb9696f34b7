import Foundation
import Testing

@testable import BowTiesKit

/// The store's face holds: everything above the store reaches it through
/// ``CatalogStore`` and ``StoreSession``, so that a second backend is a
/// conformer beside ``SQLiteStore``, not a copy of the layers above.
@Suite("The store face")
struct StoreFaceTests {
    /// Every Swift file under `folder`, by path relative to the package.
    private static func sources(under folder: String) throws -> [(path: String, text: String)] {
        let root = Fixtures.packageRoot
        let base = root.appendingPathComponent(folder)
        guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else {
            throw CocoaError(.fileNoSuchFile)
        }
        var files: [(String, String)] = []
        for case let url as URL in walker where url.pathExtension == "swift" {
            let path = String(url.path.dropFirst(root.path.count + 1))
            files.append((path, try String(contentsOf: url, encoding: .utf8)))
        }
        return files.sorted { $0.0 < $1.0 }
    }

    @Test("only Store/SQLite names GRDB; the command line names neither GRDB nor SQLite's C API")
    func onlyTheConformerImportsGRDB() throws {
        let kit = try Self.sources(under: "Sources/BowTiesKit")
        #expect(kit.count > 50, "the walk found the sources")
        let imports = try Regex(#"(?m)^\s*(?:@\w+\s+)?(?:internal |public )?import\s+(GRDB|GRDBSQLite)\b"#)
        let offenders = (kit + (try Self.sources(under: "Sources/bowties"))).filter { file in
            !file.path.hasPrefix("Sources/BowTiesKit/Store/SQLite/") && file.text.contains(imports)
        }
        #expect(offenders.isEmpty, "import GRDB above the store: \(offenders.map(\.path))")
        #expect(kit.contains { $0.path.hasPrefix("Sources/BowTiesKit/Store/SQLite/") && $0.text.contains(imports) })
    }

    @Test("a session's values and rows convert as the layers above read them")
    func sessionValues() throws {
        let directory = try TemporaryDirectory()
        let catalog = try Catalog(url: directory.path("c.sqlite"))
        let row = try catalog.read { db in
            try StoreRow.fetchOne(
                db, sql: "SELECT ? AS n, ? AS t, ? AS r, ? AS b, NULL AS z",
                arguments: [Int64(7), "seven", 7.5, Data([7])])
        }
        let found = try #require(row)
        #expect(found["n"] == .integer(7) && found[1] == .text("seven") && found["r"] == .real(7.5))
        #expect(try found.decode(Data.self, atIndex: 3) == Data([7]))
        #expect(try found.decode(Int?.self, atIndex: 4) == nil)
        let error = try #require(throws: CatalogError.self) { try found.decode(Int.self, atIndex: 1) }
        #expect(error.message.contains("column t"), "\(error)")
        #expect(try catalog.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM bowtie") } == 0)
    }
}
