import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Imports killed with SIGKILL (no clean-up code runs) at chosen moments:
/// the catalog must hold all of the import or none of it, SQLite must find
/// no damage, and a photo file the import wrote for nothing must be found
/// (and removed) by `bowties check --repair`.
@Suite("Crash: imports killed with SIGKILL")
struct CrashTests {
    static let records = 100_000
    /// Replays a run: the moments are drawn from this seed.
    static let seed: UInt64 = 0xB0_71E5

    /// Photos the records use: two small ones stored inside the catalog,
    /// four above the 100 KiB threshold stored as files. The big ones are
    /// first used a quarter of the file apart, so their files are written
    /// at four moments spread over the import.
    static let smallPhotos = [("small0", 20_000), ("small1", 60_000)]
    static let bigPhotos = [("big0", 300_000), ("big1", 1_000_000), ("big2", 2_000_000), ("big3", 4_000_000)]

    static func photo(forRecord index: Int) -> String? {
        if index % 7 == 0 { return bigPhotos[index * bigPhotos.count / records].0 }
        if index % 3 == 0 { return smallPhotos[index % smallPhotos.count].0 }
        return nil
    }

    /// When to kill one import.
    enum Moment: CustomStringConvertible {
        /// This long after it started.
        case after(TimeInterval)
        /// As soon as the n-th temporary photo file (1-based) appears in the
        /// photo folder: in the middle of writing a photo.
        case photoWrite(Int)
        /// This long after the importer has read the whole file: around
        /// the commit of its transaction.
        case afterReading(TimeInterval)

        var description: String {
            switch self {
            case .after(let seconds): String(format: "after %.2f s", seconds)
            case .photoWrite(let n): "during photo write \(n)"
            case .afterReading(let seconds): String(format: "%.3f s after reading the file", seconds)
            }
        }
    }

    @Test("kill -9 at 20 moments of a 100,000-record import: all or nothing, no stray photo file")
    func killedImports() throws {
        let bowties = try BowTiesRunner()
        let started = Date()
        let images = bowties.directory.appendingPathComponent("Images", isDirectory: true)
        for (index, (name, size)) in (Self.smallPhotos + Self.bigPhotos).enumerated() {
            try GeneratedPlist.writePhoto(named: name, bytes: size, seed: UInt64(index + 1), in: images)
        }
        let plist = bowties.directory.appendingPathComponent("Many.plist")
        try GeneratedPlist.write(to: plist, records: Self.records, keyPrefix: "K", photo: Self.photo(forRecord:))
        let generated = Date()

        // One whole import first: it must work, and it says how long an
        // import takes on this machine, to spread the kills over.
        let reference = bowties.directory.appendingPathComponent("reference/catalog.sqlite")
        let (duration, tail) = try Self.timeImport(plist, store: reference, bowties: bowties)
        #expect(
            try Self.count(store: reference, bowties: bowties) == Self.records,
            "the reference import did not import every record")
        #expect(
            ((try? FileManager.default.contentsOfDirectory(
                atPath: reference.deletingLastPathComponent().appendingPathComponent(".catalog_SUPPORT/_EXTERNAL_DATA")
                    .path)) ?? []).count == Self.bigPhotos.count)

        // 13 moments anywhere in the import; 4 between reading the last
        // record and exiting (the commit); 3 in the middle of photo writes.
        // Drawn from the seed, in a seeded order.
        var generator = SeededGenerator(seed: Self.seed)
        var moments: [Moment] = (0..<13).map { _ in .after(Double.random(in: 0.02...1, using: &generator) * duration) }
        moments += (0..<4).map { _ in .afterReading(Double.random(in: 0...1, using: &generator) * tail) }
        moments += [.photoWrite(1), .photoWrite(2), .photoWrite(3)]
        moments.shuffle(using: &generator)

        var outcomes: [String] = []
        var repairs = 0
        for (round, moment) in moments.enumerated() {
            // Even rounds import into a new store (the import creates it),
            // odd ones into a store that already holds the sample ties.
            let store = bowties.directory.appendingPathComponent("round\(round)/catalog.sqlite")
            let before = round % 2 == 0 ? 0 : 7
            if before == 7 {
                let sample = try bowties.run("import", "--store", store.path)
                try #require(sample.status == 0, "\(sample)")
            }
            let killed = try Self.importAndKill(plist, store: store, at: moment, bowties: bowties)

            let state = "round \(round) (\(moment), \(killed ? "killed" : "finished first"))"
            let outcome = try Self.verify(
                store: store, before: before, state: state, bowties: bowties, repairs: &repairs)
            outcomes.append("\(state): \(outcome)")
        }
        print(
            "crash: \(Self.records) records, import \(String(format: "%.1f", duration)) s "
                + "(\(String(format: "%.2f", tail)) s after reading the file), plist written in "
                + "\(String(format: "%.1f", generated.timeIntervalSince(started))) s, \(repairs) repairs, "
                + "total \(String(format: "%.0f", Date().timeIntervalSince(started))) s\n  "
                + outcomes.joined(separator: "\n  "))
    }

    /// Runs one whole import, which must succeed.
    /// - Returns: How long it took, and how much of that came after it had
    ///   read the whole file (the last records, the commit, the exit).
    static func timeImport(_ plist: URL, store: URL, bowties: BowTiesRunner) throws -> (TimeInterval, TimeInterval) {
        let process = try startImport(plist, store: store, bowties: bowties)
        let start = Date()
        waitUntilRead(plist, by: process)
        let read = Date()
        process.waitUntilExit()
        let end = Date()
        try #require(process.terminationStatus == 0, "the reference import failed")
        return (end.timeIntervalSince(start), end.timeIntervalSince(read))
    }

    /// The number of ties in a store, as `config --json` says.
    static func count(store: URL, bowties: BowTiesRunner) throws -> Int {
        let config = try bowties.run("config", "--json", "--store", store.path)
        try #require(config.status == 0, "\(config)")
        return try #require(try config.json() as? [String: Any])["bowTies"] as? Int ?? -1
    }

    static func startImport(_ plist: URL, store: URL, bowties: BowTiesRunner) throws -> Process {
        let process = Process()
        process.executableURL = try BowTiesRunner.executableURL()
        process.arguments = ["import", plist.path, "--store", store.path]
        process.environment = bowties.environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Waits until `process` has read `file` to its end (or closed it),
    /// watching its descriptors and their offsets in `/proc`.
    static func waitUntilRead(_ file: URL, by process: Process) {
        let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0
        let fds = "/proc/\(process.processIdentifier)/fd"
        var opened = false
        while process.isRunning {
            let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: fds)) ?? []
            let reading = descriptors.first {
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "\(fds)/\($0)")) == file.path
            }
            if let reading {
                opened = true
                let info =
                    (try? String(
                        contentsOfFile: "/proc/\(process.processIdentifier)/fdinfo/\(reading)", encoding: .utf8)) ?? ""
                let position = info.split(separator: "\n").first { $0.hasPrefix("pos:") }
                    .flatMap { Int($0.dropFirst(4).trimmingCharacters(in: .whitespaces)) }
                if let position, position >= size { return }
            } else if opened {
                return  // read and closed
            }
            usleep(1_000)
        }
    }

    /// Starts an import and kills it at `moment`.
    /// - Returns: False when it had finished before the kill.
    static func importAndKill(_ plist: URL, store: URL, at moment: Moment, bowties: BowTiesRunner) throws -> Bool {
        let process = try startImport(plist, store: store, bowties: bowties)
        let start = Date()
        switch moment {
        case .afterReading(let seconds):
            waitUntilRead(plist, by: process)
            usleep(useconds_t(seconds * 1_000_000))
        case .after(let seconds):
            let remaining = seconds - Date().timeIntervalSince(start)
            if remaining > 0 { usleep(useconds_t(remaining * 1_000_000)) }
        case .photoWrite(let n):
            let folder = store.deletingLastPathComponent()
                .appendingPathComponent(".catalog_SUPPORT/_EXTERNAL_DATA").path
            var seen: Set<String> = []
            while process.isRunning && seen.count < n {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
                seen.formUnion(names.filter { $0.contains(".tmp-") })
                if seen.count < n { usleep(200) }
            }
        }
        guard process.isRunning else {
            process.waitUntilExit()
            return false
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        return process.terminationReason == .uncaughtSignal
    }

    /// Checks the store after a kill; repairs it when the check asks for
    /// it, and checks that the repair says what it removed.
    /// - Returns: What was found, for the summary.
    static func verify(
        store: URL, before: Int, state: String, bowties: BowTiesRunner, repairs: inout Int
    ) throws -> String {
        let support = store.deletingLastPathComponent().appendingPathComponent(".catalog_SUPPORT/_EXTERNAL_DATA")
        let check = try bowties.run("check", "--json", "--store", store.path)
        if check.status == 66 {
            // Killed before the store existed: nothing may have been left.
            #expect(before == 0, "\(state): \(check)")
            let files = (try? FileManager.default.contentsOfDirectory(atPath: support.path)) ?? []
            #expect(files.isEmpty, "\(state): no store but files \(files)")
            return "no store"
        }
        #expect([0, 65].contains(check.status), "\(state): \(check)")
        let report = try #require(try check.json() as? [String: Any], "\(state): \(check)")
        let problems = report["problems"] as? [[String: Any]] ?? []
        let kinds = Set(problems.compactMap { $0["kind"] as? String })
        // A kill may leave an unused photo file (written, never committed)
        // or, for a new store, no schema yet; never anything else.
        #expect(kinds.isSubset(of: ["orphanFile", "migrationsPending"]), "\(state): \(check)")
        let count = report["bowTies"] as? Int ?? -1
        let all = before + records
        #expect(
            count == before || count == all || (count == 0 && kinds == ["migrationsPending"]),
            "\(state): \(count) bow ties, expected \(before) or \(all)")
        var outcome = count == all ? "all" : "none"
        if check.status == 65 {
            repairs += 1
            let repair = try bowties.run("check", "--repair", "--store", store.path)
            #expect(repair.status == 0, "\(state): \(repair)")
            for problem in problems where problem["kind"] as? String == "orphanFile" {
                let file = try #require(problem["file"] as? String)
                #expect(repair.stdout.contains(file), "\(state): the repair does not name \(file)\n\(repair)")
                #expect(!FileManager.default.fileExists(atPath: file), "\(state): \(file) is still there")
            }
            #expect(repair.stdout.contains("A new check finds no problems."), "\(state): \(repair)")
            outcome += ", repaired " + kinds.sorted().joined(separator: " and ")
            let again = try bowties.run("check", "--store", store.path)
            #expect(again.status == 0, "\(state): \(again)")
        }
        // Every file left is a photo some record uses: the big photos the
        // records use when the import went through, none when it did not
        // (the sample ties' two files in odd rounds).
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: support.path)) ?? []).count
        let expected = (before == 7 ? 2 : 0) + (outcome.hasPrefix("all") ? bigPhotos.count : 0)
        #expect(files == expected, "\(state): \(files) files, expected \(expected)")
        return outcome
    }
}
