import Foundation
import Testing

/// `bowties serve`'s page in a real browser: Debian's Chromium driven by
/// chromedriver and Python's Selenium (`Fixtures/serve_page.py`), as a
/// user would click it, while another process changes the catalog.
@Suite("bowties serve: the page in Chromium", .serialized)
struct ServeBrowserTests {
    static var canRun: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver")
    }

    @Test(
        "Wear, a CLI wear seen live, a validation error at its field, a hostile name as text, cross-site and foreign-Host refusals",
        .enabled(if: canRun, "needs chromium and chromium-driver (.ci/run installs them)"))
    func pageInChromium() throws {
        let workspace = try CatalogWorkspace()
        try workspace.importSampleData()
        let added = try workspace.run(
            "add", "--name", #"<img src=x onerror="window.__pwned=1">"#, "--key", "X", "--color", "#3A7D44")
        try #require(added.status == 0, "\(added)")
        let server = try ServedCatalog(workspace)
        let shots = workspace.outputDirectory
        let script = BowTiesRunner.packageURL.appendingPathComponent("Tests/EndToEndTests/Fixtures/serve_page.py")
        let python = try SpawnedProcess.start(
            URL(fileURLWithPath: "/usr/bin/python3"),
            [script.path, String(server.port), try BowTiesRunner.executableURL().path, workspace.storeURL.path, shots.path],
            environment: ["PATH": "/usr/bin:/bin", "HOME": workspace.outputDirectory.path],
            outputs: workspace.outputDirectory)
        let exit = python.wait(timeout: 120)
        #expect(exit.status == 0, "\(exit)\n\(python.stdout)\n\(python.stderr)")
        for step in [
            "ok: Wear counted (12 -> 13); the button says Undo \"Wear", "ok: bowties wear from another process showed in",
            "ok: rating 6 refused next to the field: rating is too large.", "ok: a hostile name stays text",
            "ok: a cross-site POST was refused", "ok: a foreign Host was refused",
        ] {
            #expect(python.stdout.contains(step), "missing \(step):\n\(python.stdout)\n\(python.stderr)")
        }
        #expect(try workspace.timesWorn("R") == 14)
        // For a person to look at (the README's picture is taken this way):
        // SERVE_SCREENSHOTS=folder keeps them.
        if let keep = ProcessInfo.processInfo.environment["SERVE_SCREENSHOTS"], !keep.isEmpty {
            for name in ["serve-desktop.png", "serve-phone.png"] {
                let target = URL(fileURLWithPath: keep).appendingPathComponent(name)
                try? FileManager.default.removeItem(at: target)
                try FileManager.default.copyItem(at: shots.appendingPathComponent(name), to: target)
            }
        }
    }
}
