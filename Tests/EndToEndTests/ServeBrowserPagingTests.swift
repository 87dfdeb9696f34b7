import Foundation
import Testing

/// `bowties serve`'s first- and last-page buttons in a real browser:
/// Debian's Chromium driven by chromedriver and Python's Selenium
/// (`Fixtures/serve_paging.py`), in a desktop's window and a phone's, on a
/// catalog of two pages and a bit, in the orders by name, rating and last
/// wear (those schema v5 indexes).
@Suite("bowties serve: first and last page in Chromium", .serialized)
struct ServeBrowserPagingTests {
    /// 123 ties whose orders differ from the order they were added in:
    /// names in a shuffled order, ratings repeated (the row number breaks
    /// ties), one tie in 7 never worn (no last wear).
    static func ties() -> String {
        (0..<123).map { index in
            var fields = [
                #""name": "Tie \#(String(format: "%03d", (index * 37) % 123)) \#(["Silk", "Paisley", "Velvet"][index % 3])""#,
                #""searchKey": "P\#(index)""#,
                #""rating": \#(Double(index % 11) / 2)"#,
            ]
            if index % 7 != 0 {
                let day = 1 + (index * 13) % 28
                fields.append(#""timesWorn": 1"#)
                fields.append(#""lastWorn": "2024-0\#(1 + index % 9)-\#(String(format: "%02d", day))T12:00:00Z""#)
            }
            return "{" + fields.joined(separator: ", ") + "}"
        }.joined(separator: "\n") + "\n"
    }

    @Test(
        "Last page and First page show the order's last and first 50 ties, on a desktop and a phone",
        .enabled(if: ServeBrowserTests.canRun, "needs chromium and chromium-driver (.ci/run installs them)"))
    func firstAndLastPage() throws {
        let workspace = try CatalogWorkspace()
        let file = try workspace.writeInput(Self.ties(), to: "ties.jsonl")
        let imported = try workspace.run("import", file.path)
        try #require(imported.status == 0, "\(imported)")
        let server = try ServedCatalog(workspace)
        let shots = workspace.outputDirectory
        let script = BowTiesRunner.packageURL.appendingPathComponent("Tests/EndToEndTests/Fixtures/serve_paging.py")
        let python = try SpawnedProcess.start(
            URL(fileURLWithPath: "/usr/bin/python3"),
            [script.path, String(server.port), try BowTiesRunner.executableURL().path, workspace.storeURL.path, shots.path],
            environment: ["PATH": "/usr/bin:/bin", "HOME": workspace.outputDirectory.path],
            outputs: workspace.outputDirectory)
        let exit = python.wait(timeout: 180)
        #expect(exit.status == 0, "\(exit)\n\(python.stdout)\n\(python.stderr)")
        for window in ["desktop", "phone"] {
            for sort in ["name", "rating", "lastWorn"] {
                for step in ["Last page shows ties 74–123", "First page shows ties 1–50"] {
                    let line = "ok: \(window), \(sort): \(step)"
                    #expect(python.stdout.contains(line), "missing \(line):\n\(python.stdout)\n\(python.stderr)")
                }
            }
        }
        // For a person to look at: SERVE_SCREENSHOTS=folder keeps them.
        if let keep = ProcessInfo.processInfo.environment["SERVE_SCREENSHOTS"], !keep.isEmpty {
            for name in ["serve-last-page-desktop.png", "serve-last-page-phone.png"] {
                let target = URL(fileURLWithPath: keep).appendingPathComponent(name)
                try? FileManager.default.removeItem(at: target)
                try FileManager.default.copyItem(at: shots.appendingPathComponent(name), to: target)
            }
        }
    }
}
