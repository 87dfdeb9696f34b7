import Foundation
import Testing

/// Writes that cannot happen, said in words a user can act on: which
/// folder or file this user may not write (exit 77), an output that is a
/// folder (exit 73). SQLite's own words ("attempt to write a readonly
/// database", "unable to open database file") name neither.
@Suite("Write failures say what to do")
struct WriteFailureTests {
    /// The sample catalog, which this user (as root: `nobody`) can read
    /// but not write.
    static func unwritableWorkspace() throws -> CatalogWorkspace {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        try UnwritableCatalog.prepare(workspace)
        try UnwritableCatalog.makeReadOnly(workspace)
        return workspace
    }

    @Test(
        "a change to a catalog this user may not write: exit 77, the file named, what to do; nothing changes",
        arguments: [["wear", "R"], ["rate", "R", "4"], ["favorite", "R"], ["check", "--repair"]])
    func changeRefused(_ arguments: [String]) throws {
        let workspace = try Self.unwritableWorkspace()
        defer { try? UnwritableCatalog.makeWritable(workspace) }  // so the runner can remove it
        let before = try workspace.snapshot()
        let result = try workspace.run(arguments: arguments)
        #expect(result.status == 77, "\(result)")
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(
            lines.first?.hasPrefix(
                "bowties: error: cannot change the catalog at \(workspace.storeURL.path): the file "
                    + "\(workspace.storeURL.path) is not writable by this user (") == true, "\(result)")
        #expect(!result.stderr.contains("readonly database"), "\(result)")
        #expect(!result.stderr.contains("unable to open"), "\(result)")
        #expect(
            lines.last
                == "hint: Ask the owner for write access, or copy the catalog to a folder of yours and use "
                + "--store PATH; commands that only read (list, show, export) work as they are.", "\(result)")
        let after = try workspace.snapshot()
        #expect(after.isByteIdentical(to: before), "\(after.byteDifference(from: before))")
    }

    @Test("a new catalog in a folder this user may not write: exit 77, the folder named; nothing created")
    func newCatalogRefused() throws {
        let workspace = try Self.unwritableWorkspace()
        defer { try? UnwritableCatalog.makeWritable(workspace) }
        for store in ["new.sqlite", "sub/new.sqlite"] {
            let url = workspace.storeFolder.appendingPathComponent(store)
            let result = try workspace.run("import", "--store", url.path)
            #expect(result.status == 77, "\(result)")
            #expect(
                result.stderr == """
                    bowties: error: cannot create the catalog at \(url.path): the folder \(workspace.storeFolder.path) \
                    is not writable by this user (\(UnwritableCatalog.isRoot ? "nobody" : NSUserName()))
                    hint: Choose a folder you can write with --store PATH or $BOWTIES_STORE.

                    """, "\(result)")
            #expect(!FileManager.default.fileExists(atPath: url.path))
        }
    }

    @Test("export into a folder this user may not write: exit 77, the folder named")
    func exportIntoUnwritableFolder() throws {
        let workspace = try Self.unwritableWorkspace()
        defer { try? UnwritableCatalog.makeWritable(workspace) }
        let output = workspace.storeFolder.appendingPathComponent("ties.csv")
        let result = try workspace.run("export", "--output", output.path)
        #expect(result.status == 77, "\(result)")
        #expect(
            result.stderr.hasPrefix(
                "bowties: error: cannot create \(output.path): the folder \(workspace.storeFolder.path) "
                    + "is not writable by this user ("), "\(result)")
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }

    @Test("export --output DIR: exit 73, the output is a folder, and a file to name instead")
    func exportToFolder() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let folder = bowties.directory.appendingPathComponent("exports", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let result = try bowties.run("export", "--output", folder.path)
        #expect(result.status == 73, "\(result)")
        #expect(
            result.stderr == """
                bowties: error: cannot write \(folder.path): it is a folder
                hint: Name a file, e.g. \(folder.path)/ties.csv.

                """, "\(result)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }
}
