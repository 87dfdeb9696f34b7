import Foundation
import Testing

/// libpng and libjpeg are loaded when the report first scales a photo,
/// libxml2 (with ICU) when an import first parses XML, libpq when a
/// command first reaches a PostgreSQL catalog (CLibraryLoader), not at
/// every start: the dynamic loader's list of the files it loads
/// (`LD_DEBUG=files`, on standard error) shows which a command loaded.
@Suite("Libraries loaded on first use")
struct LibraryLoadingTests {
    static let photoLibraries = ["libpng16.so", "libjpeg.so"]
    /// libxml2, and the ICU library it brings.
    static let xmlLibraries = ["libxml2.so", "libicuuc.so"]

    /// The libraries the dynamic loader reported loading in `result`.
    static func loaded(_ result: BowTiesResult) -> [String] {
        (photoLibraries + xmlLibraries).filter { result.stderr.contains("file=\($0)") }
    }

    @Test("show, wear, rate, favorite, history, count, --version and --help start without libpng, libjpeg and libxml2")
    func pointCommandsDoNotLoadPhotoLibraries() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let forms: [[String]] = [
            ["show", "R"], ["wear", "R", "--on", "2026-11-20"], ["rate", "R", "4"], ["favorite", "R"],
            ["history", "R"], ["count", "searchKey:=R"], ["--version"], ["--help"], ["list"],
        ]
        for form in forms {
            let result = try bowties.run(arguments: form, environment: ["LD_DEBUG": "files"])
            #expect(result.status == 0, "\(form): \(result)")
            #expect(result.stderr.contains("file=libc.so.6"), "\(form): LD_DEBUG said nothing")
            #expect(Self.loaded(result).isEmpty, "\(form) loaded \(Self.loaded(result))")
        }
    }

    @Test("commands on an SQLite catalog never load libpq; a postgresql:// address loads it on its first call")
    func libpqOnlyForPostgreSQL() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let forms: [[String]] = [
            ["--version"], ["show", "R"], ["wear", "R", "--on", "2026-11-20"], ["list"], ["count"], ["export", "--format", "jsonl"],
        ]
        for form in forms {
            let result = try bowties.run(arguments: form, environment: ["LD_DEBUG": "files"])
            #expect(result.status == 0, "\(form): \(result)")
            #expect(result.stderr.contains("file=libc.so.6"), "\(form): LD_DEBUG said nothing")
            #expect(!result.stderr.contains("file=libpq.so"), "\(form) loaded libpq")
            // Nor what libpq needs (TLS, Kerberos, LDAP).
            #expect(!result.stderr.contains("file=libgssapi"), "\(form) loaded libgssapi")
            #expect(!result.stderr.contains("file=libldap"), "\(form) loaded libldap")
        }
        let port = try PostgreSQLServer.freePort()
        let result = try bowties.run(
            arguments: ["show", "R", "--store", "postgresql://127.0.0.1:\(port)/ties"], environment: ["LD_DEBUG": "files"])
        #expect(result.status == 69, "\(result)")
        #expect(result.stderr.contains("file=libpq.so.5"), "\(result)")
    }

    @Test("without libpq, a postgresql:// command says what is missing and exits 69")
    func missingLibpq() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        // libpq hidden from the loader: a private copy of the library
        // path where libpq.so.5 is an empty file, first in the search.
        let libraries = bowties.directory.appendingPathComponent("lib", isDirectory: true)
        try FileManager.default.createDirectory(at: libraries, withIntermediateDirectories: true)
        try Data().write(to: libraries.appendingPathComponent("libpq.so.5"))
        let result = try bowties.run(
            arguments: ["list", "--store", "postgresql://127.0.0.1:1/ties"],
            environment: ["LD_LIBRARY_PATH": libraries.path])
        #expect(result.status == 69, "\(result)")
        #expect(
            result.stderr.hasPrefix(
                "bowties: error: cannot load libpq.so.5, which a catalog on PostgreSQL (Debian: apt install libpq5) needs: "),
            "\(result)")
        // An SQLite catalog does not notice.
        #expect(try bowties.run("count", environment: ["LD_LIBRARY_PATH": libraries.path]).status == 0)
    }

    @Test("the report loads libpng and libjpeg when it scales a large photo, and scales it")
    func reportLoadsThemOnFirstUse() throws {
        let bowties = try BowTiesRunner()
        let photo = bowties.directory.appendingPathComponent("large.png")
        try ReportCommandTests.storedPNG(width: 1600, height: 1200).write(to: photo)
        let added = try bowties.run("add", "--name", "Large", "--key", "L", "--photo", photo.path)
        try #require(added.status == 0, "\(added)")
        let output = bowties.directory.appendingPathComponent("ties.html")
        let report = try bowties.run("report", "--output", output.path, environment: ["LD_DEBUG": "files"])
        #expect(report.status == 0, "\(report)")
        #expect(report.stdout.contains("1 scaled down)"), "\(report)")
        #expect(Self.loaded(report) == Self.photoLibraries, "\(Self.loaded(report))")
        let html = try String(contentsOf: output, encoding: .utf8)
        #expect(html.contains("url(\"data:image/jpeg;base64,"))
    }

    @Test("import loads libxml2 and ICU, and imports XML")
    func xmlImportLoadsLibXML2OnFirstUse() throws {
        let bowties = try BowTiesRunner()
        let result = try bowties.run(
            arguments: ["import", BowTiesRunner.sampleDataURL.path], environment: ["LD_DEBUG": "files"])
        #expect(result.status == 0, "\(result)")
        #expect(Self.loaded(result) == Self.xmlLibraries, "\(Self.loaded(result))")
        let count = try bowties.run("count")
        #expect(count.status == 0 && count.stdout != "0\n", "\(count)")
    }

    @Test("an import of XML when libxml2 cannot be loaded: exit 69, one line that names it, the catalog untouched")
    func xmlImportWithoutLibXML2FailsCleanly() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        // A file that is not a library, found first (LD_LIBRARY_PATH comes
        // before the system's folders): dlopen fails as for a missing one.
        let folder = bowties.directory.appendingPathComponent("broken-libraries")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data().write(to: folder.appendingPathComponent("libxml2.so.2"))
        let xml = try bowties.write(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><array><dict><key>name</key><string>New</string></dict></array></plist>
            """, to: "new.plist")
        let before = try StoreSnapshot(storeURL: bowties.storeURL)
        let result = try bowties.run(arguments: ["import", xml.path], environment: ["LD_LIBRARY_PATH": folder.path])
        #expect(result.status == 69, "\(result)")
        #expect(
            result.stderr.hasPrefix(
                "bowties: error: cannot load libxml2.so.2, which `import` needs: "),
            "\(result)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        let after = try StoreSnapshot(storeURL: bowties.storeURL)
        #expect(after.isByteIdentical(to: before), "\(after.byteDifference(from: before))")
        // The same binary, libxml2 found again, imports it.
        let again = try bowties.run("import", xml.path)
        #expect(again.status == 0, "\(again)")
    }
}
