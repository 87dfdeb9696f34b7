import Foundation
import Testing

/// libpng and libjpeg are loaded when the report first scales a photo
/// (CLibraryLoader), not at every start: the dynamic loader's list of the
/// files it loads (`LD_DEBUG=files`, on standard error) shows which a
/// command loaded.
@Suite("Libraries loaded on first use")
struct LibraryLoadingTests {
    static let photoLibraries = ["libpng16.so", "libjpeg.so"]

    /// The libraries the dynamic loader reported loading in `result`.
    static func loaded(_ result: BowTiesResult) -> [String] {
        photoLibraries.filter { result.stderr.contains("file=\($0)") }
    }

    @Test("show, wear, rate, favorite, history, count, --version and --help start without libpng and libjpeg")
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
}
