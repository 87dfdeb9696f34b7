import Foundation
import Testing

/// `export --format table` sizes its columns as `list` does: over every
/// tie into a file, so a kept file lines up; from the first page on a
/// terminal or into a pipe, so the first line comes at once (at a million
/// ties, measuring every row first held it back 0.6 s on SQLite, 1.5 s on
/// PostgreSQL).
@Suite("export --format table: column widths")
struct ExportTableWidthsTests {
    /// `export --format table ARGUMENTS | cat`, its lines.
    static func piped(_ bowties: BowTiesRunner, _ arguments: String) throws -> [String] {
        let result = try bowties.piped("export --format table \(arguments)")
        try #require(result.status == 0, "export \(arguments) | cat: exit \(result.status)")
        return result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    @Test("into a file, standard output or --output, every line lines up, a wide name past the first page included")
    func intoAFile() throws {
        let bowties = try ListCommandTests.wideCatalog()
        let redirected = try bowties.run("export", "--format", "table")  // the runner's standard output is a file
        #expect(redirected.status == 0 && redirected.stderr.isEmpty, "\(redirected)")
        let lines = redirected.stdoutLines
        try #require(lines.count == 252, "\(redirected)")  // header, 250 ties, final newline
        #expect(try ListCommandTests.misaligned(lines, header: lines[0]).isEmpty, "\(lines.prefix(3))")
        #expect(lines[0].hasPrefix("KEY   NAME" + String(repeating: " ", count: 18) + "  RATING"), "\(lines[0])")

        let file = bowties.directory.appendingPathComponent("ties.txt")
        let written = try bowties.run("export", "--format", "table", "--output", file.path)
        #expect(written.status == 0 && written.stderr == "Exported 250 bow ties to \(file.path).\n", "\(written)")
        #expect(try String(contentsOf: file, encoding: .utf8) == redirected.stdout)
    }

    @Test("into a pipe, widths come from the first 100 ties so the first line is at once; --widths all lines up")
    func intoAPipe() throws {
        let bowties = try ListCommandTests.wideCatalog()
        let page = try Self.piped(bowties, "")
        try #require(page.count == 252, "\(page)")
        #expect(page[0].hasPrefix("KEY   NAME" + String(repeating: " ", count: 16) + "  RATING"), "\(page[0])")
        // Only the two ties wider than the first page push their lines.
        #expect(try ListCommandTests.misaligned(page, header: page[0]) == [120, 200], "\(page[120])\n\(page[200])")

        let all = try Self.piped(bowties, "--widths all")
        #expect(try ListCommandTests.misaligned(all, header: all[0]).isEmpty, "\(all.prefix(3))")
        // --widths page into a file: the first page's widths there too.
        let paged = try bowties.run("export", "--format", "table", "--widths", "page")
        #expect(paged.status == 0 && paged.stdoutLines == page, "\(paged)")
    }

    @Test("--widths with another format is a usage error that names the table")
    func otherFormats() throws {
        let bowties = try ListCommandTests.wideCatalog()
        let result = try bowties.run("export", "--format", "csv", "--widths", "all")
        #expect(result.status == 64 && result.stdout.isEmpty, "\(result)")
        #expect(result.stderr.contains("--widths applies to --format table"), "\(result)")
    }
}
