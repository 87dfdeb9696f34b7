import Foundation
import Testing

@Suite("bowties wear")
struct WearCommandTests {
    @Test("wear R adds one wear, last worn today")
    func wearOnce() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let before = todayUTC()
        let wear = try bowties.run("wear", "R")
        #expect(wear.status == 0, "\(wear)")
        #expect(wear.stdout == "Wore Classic Red Bow Tie (R): 13 times so far.\n", "\(wear)")
        #expect(wear.stderr.isEmpty, "\(wear)")

        let show = try bowties.run("show", "R")
        let after = todayUTC()
        #expect(show.stdoutLines.contains("# times worn: 13"), "\(show)")
        let lastWorn = try #require(show.stdoutLines.first { $0.hasPrefix("Last worn: ") }, "\(show)")
        #expect(
            [before, after].contains { lastWorn.hasPrefix("Last worn: \($0) ") && lastWorn.hasSuffix(" UTC (today)") },
            "\(show)")
    }

    @Test("8 processes wearing R 25 times each add exactly 200 wears")
    func concurrentWears() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let binary = try BowTiesRunner.executableURL()
        let processes = try (0..<8).map { worker -> Process in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            // Each worker stops at its first failure and says which.
            process.arguments = [
                "-c",
                #"i=0; while [ $i -lt 25 ]; do "$0" wear R >/dev/null || { echo "worker $1: wear $i failed" >&2; exit 1; }; i=$((i+1)); done"#,
                binary.path, String(worker),
            ]
            process.environment = bowties.environment
            process.standardInput = FileHandle.nullDevice
            try process.run()
            return process
        }
        for process in processes {
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
        }
        let show = try bowties.run("show", "R", "--json")
        let tie = try #require(try show.json() as? [String: Any], "\(show)")
        #expect(tie["timesWorn"] as? Int == 12 + 200, "\(show)")
    }

    @Test("wearing an unknown key exits 1 with a hint")
    func unknownKey() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let result = try bowties.run("wear", "Q")
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        #expect(result.stderr.hasPrefix("bowties: error: no bow tie has the search key or id \"Q\""), "\(result)")
        #expect(result.stderr.contains("hint: `bowties list` shows the search keys."), "\(result)")
    }
}
