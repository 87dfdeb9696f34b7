import Foundation
import Testing

/// Many bowties processes on one store at once, as a shell user with
/// scripts and cron jobs would run them.
@Suite("Stress: concurrent processes on one store")
struct StressTests {
    /// How long a command waits for the write lock (`Catalog.busyTimeout`,
    /// documented in the README). Imports here stay far below it, so no
    /// command may give up with exit 75.
    static let busyTimeout: TimeInterval = 10

    static let workers = 8
    static let wearsPerWorker = 200
    static let recordsPerImport = 200

    @Test("8 processes wear R 200 times each while another imports and exports run: every wear counted")
    func wearsWhileImportingAndExporting() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let binary = try BowTiesRunner.executableURL()
        let started = Date()

        // Import batches of new ties, each with a photo of its own above
        // the 100 KiB threshold, so every import also writes a photo file.
        let batches = 60
        let images = bowties.directory.appendingPathComponent("StressImages", isDirectory: true)
        var files: [URL] = []
        for batch in 0..<batches {
            try GeneratedPlist.writePhoto(named: "photo\(batch)", bytes: 150_000, seed: UInt64(batch + 1), in: images)
            let file = bowties.directory.appendingPathComponent("Batch\(batch).plist")
            try GeneratedPlist.write(
                to: file, records: Self.recordsPerImport, keyPrefix: "S\(batch)-", seed: UInt64(1000 + batch),
                photo: { $0 % 10 == 0 ? "photo\(batch)" : nil })
            files.append(file)
        }
        let stop = bowties.directory.appendingPathComponent("stop")
        let log = bowties.directory.appendingPathComponent("stress.log")

        // Each worker stops at its first failure and says which, with the
        // exit status and the error.
        let wearers = try (0..<Self.workers).map { worker in
            try shell(
                """
                i=0
                while [ $i -lt \(Self.wearsPerWorker) ]; do
                    "$BIN" wear R >/dev/null 2>"$DIR/wear-$1.err" || {
                        rc=$?; echo "worker $1: wear $i exited $rc: $(cat "$DIR/wear-$1.err")" >>"$DIR/stress.log"; exit $rc; }
                    i=$((i+1))
                done
                """, arguments: [String(worker)], bowties: bowties, binary: binary)
        }
        // The importer goes through the batches until the wearers are done,
        // timing each import.
        let importer = try shell(
            """
            for f in "$@"; do
                [ -e "$DIR/stop" ] && break
                s=$(date +%s%N)
                "$BIN" import "$f" --images "$DIR/StressImages" >/dev/null 2>"$DIR/import.err" || {
                    rc=$?; echo "import $f exited $rc: $(cat "$DIR/import.err")" >>"$DIR/stress.log"; exit $rc; }
                echo "$(( ($(date +%s%N) - s) / 1000000 ))" >>"$DIR/imports.ms"
            done
            """, arguments: files.map(\.path), bowties: bowties, binary: binary)

        // Meanwhile this test exports again and again, alternating standard
        // output and --output FILE, and checks that each export is one
        // consistent snapshot.
        var exports = 0
        var lastWorn = 12
        var lastRows = 7
        while wearers.contains(where: \.isRunning) {
            let toFile = exports % 2 == 1
            let file = bowties.directory.appendingPathComponent("export.csv")
            let result = try toFile ? bowties.run("export", "--output", file.path) : bowties.run("export")
            #expect(result.status == 0, "\(result)")
            guard result.status == 0 else { break }
            let bytes = try toFile ? Data(contentsOf: file) : result.stdoutData
            let rows = try #require(Self.parseCSV(bytes), "export \(exports) is not CSV").dropFirst()
            #expect(rows.allSatisfy { $0.count == ExportCommandTests.header.count }, "export \(exports)")
            // Whole imports only: 7 sample ties plus complete batches, and
            // never fewer rows than a previous export saw.
            let imported = rows.count - 7
            #expect(imported >= 0 && imported % Self.recordsPerImport == 0, "export \(exports): \(rows.count) rows")
            #expect(rows.count >= lastRows, "export \(exports): \(rows.count) rows after \(lastRows)")
            var batchSizes: [Substring: Int] = [:]
            for row in rows where row[2].hasPrefix("S") {
                batchSizes[row[2].split(separator: "-").first ?? "", default: 0] += 1
            }
            #expect(batchSizes.values.allSatisfy { $0 == Self.recordsPerImport }, "export \(exports): \(batchSizes)")
            // Times worn only grows, between the start and the end values.
            let red = try #require(rows.first { $0[2] == "R" }, "export \(exports) has no R")
            let worn = try #require(Int(red[4]))
            #expect(worn >= lastWorn && worn <= 12 + Self.workers * Self.wearsPerWorker, "export \(exports): \(worn)")
            lastWorn = worn
            lastRows = rows.count
            exports += 1
        }
        try Data().write(to: stop)
        for wearer in wearers {
            wearer.waitUntilExit()
            #expect(wearer.terminationStatus == 0, "a wearer failed")
        }
        importer.waitUntilExit()
        #expect(importer.terminationStatus == 0, "the importer failed")
        let failures = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        #expect(failures.isEmpty, "\(failures)")

        let show = try bowties.run("show", "R", "--json")
        let tie = try #require(try show.json() as? [String: Any], "\(show)")
        #expect(tie["timesWorn"] as? Int == 12 + Self.workers * Self.wearsPerWorker, "\(show)")

        let importTimes =
            ((try? String(contentsOf: bowties.directory.appendingPathComponent("imports.ms"), encoding: .utf8)) ?? "")
            .split(separator: "\n").compactMap { Int($0) }
        #expect(importTimes.count >= 1, "no import finished during the stress")
        #expect(try bowties.tieCount() == 7 + importTimes.count * Self.recordsPerImport)
        // Imports must stay well inside the busy timeout, or a wear could
        // legitimately give up and this test would prove nothing.
        #expect((importTimes.max() ?? 0) < Int(Self.busyTimeout * 1000) / 2, "imports took \(importTimes) ms")

        let check = try bowties.run("check")
        #expect(check.status == 0, "\(check)")
        print(
            "stress: \(Self.workers * Self.wearsPerWorker) wears, \(importTimes.count) imports "
                + "(\(importTimes.min() ?? 0)...\(importTimes.max() ?? 0) ms), \(exports) exports "
                + "in \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
    }

    /// Splits RFC 4180 CSV into rows, working on bytes: the exports here
    /// grow to thousands of rows, and a debug build's `String` is slow.
    /// - Returns: nil when the text is not CSV with CRLF line ends.
    static func parseCSV(_ data: Data) -> [[String]]? {
        let bytes = [UInt8](data)
        var rows: [[String]] = []
        var row: [String] = []
        var cell: [UInt8] = []
        var quoted = false
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if quoted {
                if byte != UInt8(ascii: "\"") {
                    cell.append(byte)
                } else if index < bytes.count && bytes[index] == UInt8(ascii: "\"") {
                    cell.append(byte)
                    index += 1
                } else {
                    quoted = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                quoted = true
            case UInt8(ascii: ","):
                row.append(String(decoding: cell, as: UTF8.self))
                cell.removeAll(keepingCapacity: true)
            case UInt8(ascii: "\r"):
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\n") else { return nil }
                index += 1
                row.append(String(decoding: cell, as: UTF8.self))
                rows.append(row)
                row = []
                cell.removeAll(keepingCapacity: true)
            case UInt8(ascii: "\n"):
                return nil
            default:
                cell.append(byte)
            }
        }
        return row.isEmpty && cell.isEmpty && !quoted ? rows : nil
    }

    /// Starts `/bin/sh -c script` with `$BIN` (the bowties binary), `$DIR`
    /// (the runner's folder) and `arguments` as `$1...`.
    @Test("4 processes wear R while 2 undo and redo: the history and the counts agree, the catalog checks clean")
    func undoWhileWearing() throws {
        let bowties = try BowTiesRunner()
        try bowties.importSampleData()
        let binary = try BowTiesRunner.executableURL()
        let wearers = try (0..<4).map { worker in
            try shell(
                """
                i=0
                while [ $i -lt 40 ]; do
                    "$BIN" wear R >/dev/null 2>>"$DIR/undo-stress.err" || {
                        echo "wearer $1: exit $?" >>"$DIR/undo-stress.log"; exit 1; }
                    i=$((i+1))
                done
                """, arguments: [String(worker)], bowties: bowties, binary: binary)
        }
        // Each undoer undoes the latest wear it sees. Undo and redo may
        // find nothing to do (exit 1) or an action
        // another process changed since (exit 65): both are refusals that
        // change nothing. Anything else is a failure.
        let undoers = try (0..<2).map { worker in
            try shell(
                """
                i=0
                while [ $i -lt 30 ]; do
                    # The latest wear, by number: a bare undo could reach the import.
                    id=$("$BIN" log --json --limit 5 | python3 -c '
                import json, sys
                ids = [a["id"] for a in json.load(sys.stdin) if a["title"].startswith("Wear") and not a["undone"]]
                print(ids[0] if ids else "")')
                    [ -n "$id" ] || { i=$((i+1)); continue; }
                    "$BIN" undo "$id" >/dev/null 2>>"$DIR/undo-stress.err"; rc=$?
                    [ $rc -eq 0 ] && echo undone >>"$DIR/undone.txt"
                    case $rc in 0|1|65) ;; *) echo "undoer $1: undo exit $rc" >>"$DIR/undo-stress.log"; exit 1;; esac
                    if [ $((i % 3)) -eq 0 ]; then
                        "$BIN" redo >/dev/null 2>>"$DIR/undo-stress.err"; rc=$?
                        case $rc in 0|1|65) ;; *) echo "undoer $1: redo exit $rc" >>"$DIR/undo-stress.log"; exit 1;; esac
                    fi
                    i=$((i+1))
                done
                """, arguments: [String(worker)], bowties: bowties, binary: binary)
        }
        for process in wearers + undoers { process.waitUntilExit() }
        let log = (try? String(contentsOf: bowties.directory.appendingPathComponent("undo-stress.log"), encoding: .utf8))
        #expect(log == nil, "\(log ?? "")")
        #expect((wearers + undoers).allSatisfy { $0.terminationStatus == 0 })
        let undone = (try? String(contentsOf: bowties.directory.appendingPathComponent("undone.txt"), encoding: .utf8))
        #expect((undone ?? "").split(separator: "\n").count > 5, "the undoers undid (almost) nothing")

        // Whatever was undone, the count is the import's 12 plus the wears
        // the history holds, and the store is sound.
        let history = try bowties.run("history", "R", "--json")
        #expect(history.status == 0, "\(history)")
        let object = try #require(try history.json() as? [String: Any], "\(history)")
        let wears = try #require(object["wears"] as? [Any], "\(history)")
        #expect(object["timesWorn"] as? Int == 12 + wears.count, "\(history)")
        let check = try bowties.run("check")
        #expect(check.status == 0, "\(check)")
    }

    private func shell(_ script: String, arguments: [String], bowties: BowTiesRunner, binary: URL) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script, "sh"] + arguments
        var environment = bowties.environment
        environment["BIN"] = binary.path
        environment["DIR"] = bowties.directory.path
        process.environment = environment
        process.currentDirectoryURL = bowties.directory
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        return process
    }
}
