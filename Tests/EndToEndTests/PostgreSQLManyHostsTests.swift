import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Writers from many machines: bowties processes in three network
/// namespaces (``NetworkNamespace``: each its own network stack, reaching
/// the server over a link of its own, as three hosts would) wear one tie
/// while an import from this machine holds the write lock. The database
/// serialises them (the advisory lock, never a file), every wear is
/// counted, and readers are not blocked meanwhile.
@Suite("PostgreSQL: writers from several hosts")
struct PostgreSQLManyHostsTests {
    @Test("12 wears from 3 network namespaces during an import: all counted; list answers at once meanwhile")
    func wearsFromThreeHosts() throws {
        // An import that dies leaves the test writing into a closed pipe.
        signal(SIGPIPE, SIG_IGN)
        let hosts = try (0..<3).map { _ in try NetworkNamespace() }
        defer { for host in hosts { host.remove() } }
        let server = try PostgreSQLServer(listenAddresses: hosts.map(\.hostAddress))
        defer { server.stop() }
        let bowties = try BowTiesRunner()
        var environment = server.clientEnvironment
        environment["BOWTIES_STORE"] = try server.createDatabase()
        let made = try bowties.run(arguments: ["import", BowTiesRunner.sampleDataURL.path], environment: environment)
        try #require(made.status == 0, "\(made)")
        let before = try #require(
            try bowties.run(arguments: ["show", "R", "--json"], environment: environment).json() as? [String: Any])
        let timesWornBefore = try #require(before["timesWorn"] as? Int)
        for host in hosts {
            // Its own stack: its link and loopback, not this machine's.
            let interfaces = try host.interfaces()
            #expect(interfaces.contains(host.address) && !interfaces.contains(host.hostAddress), "\(interfaces)")
        }

        // The import reads its records from a pipe this test fills: it
        // holds the write lock until the test closes it.
        var merged = bowties.environment
        for (name, value) in environment { merged[name] = value }
        let input = Pipe()
        let importer = Process()
        importer.executableURL = try BowTiesRunner.executableURL()
        importer.arguments = ["import", "-"]
        importer.environment = merged
        importer.standardInput = input
        let importOutput = bowties.directory.appendingPathComponent("import.out")
        _ = FileManager.default.createFile(atPath: importOutput.path, contents: nil)
        importer.standardOutput = try FileHandle(forWritingTo: importOutput)
        importer.standardError = importer.standardOutput
        try importer.run()
        func records(_ range: Range<Int>) -> Data {
            Data(range.map { "{\"name\": \"Stock \($0)\", \"searchKey\": \"S\($0)\"}\n" }.joined().utf8)
        }
        try input.fileHandleForWriting.write(contentsOf: records(0..<500))
        _ = try server.waitForWriteLock(database: "catalog1")

        // Four wears from each host, at once, each of another day; they
        // reach the server at the host end of their namespace's link.
        let wears = try hosts.enumerated().flatMap { index, host in
            try (0..<4).map { number -> Process in
                let process = Process()
                let arguments = host.command([
                    try BowTiesRunner.executableURL().path, "wear", "R", "--on", "2026-10-\(10 + index * 4 + number)",
                    "--store", server.address(database: "catalog1", host: host.hostAddress),
                ])
                process.executableURL = URL(fileURLWithPath: arguments[0])
                process.arguments = Array(arguments.dropFirst())
                process.environment = merged
                process.standardInput = FileHandle.nullDevice
                process.standardOutput = FileHandle.nullDevice
                process.standardError = FileHandle.nullDevice
                try process.run()
                return process
            }
        }
        // All twelve wait for the lock, from three addresses.
        let deadline = Date().addingTimeInterval(60)
        var waiting: [String] = []
        repeat {
            waiting = try server.sql(
                """
                SELECT client_addr FROM pg_stat_activity WHERE datname = 'catalog1' \
                AND wait_event_type = 'Lock' AND wait_event = 'advisory' ORDER BY 1
                """
            ).split(separator: "\n").map(String.init)
            if waiting.count == 12 { break }
            usleep(50_000)
        } while Date() < deadline
        #expect(waiting.count == 12, "\(waiting)")
        #expect(Set(waiting) == Set(hosts.map(\.address)), "\(waiting)")

        // Readers, here and on another host, are not blocked: list
        // answers while the import and the twelve wears wait.
        let readers: [NetworkNamespace?] = [nil, hosts[0]]
        for host in readers {
            let started = Date()
            let list: BowTiesResult
            if let host {
                bowties.launcher = host.command([])
                defer { bowties.launcher = [] }
                list = try bowties.run(
                    arguments: ["list", "--store", server.address(database: "catalog1", host: host.hostAddress)],
                    environment: environment)
            } else {
                list = try bowties.run(arguments: ["list"], environment: environment)
            }
            let seconds = Date().timeIntervalSince(started)
            #expect(list.status == 0 && list.stdout.contains("Classic Red Bow Tie"), "\(list)")
            #expect(!list.stdout.contains("Stock 1"), "a reader sees only what was committed: \(list)")
            #expect(seconds < 5, "list took \(seconds) s while the writers waited")
        }
        #expect(importer.isRunning && wears.allSatisfy(\.isRunning), "the writers were still waiting")

        try input.fileHandleForWriting.write(contentsOf: records(500..<1000))
        try input.fileHandleForWriting.close()
        importer.waitUntilExit()
        for wear in wears { wear.waitUntilExit() }
        let imported = try String(contentsOf: importOutput, encoding: .utf8)
        #expect(importer.terminationStatus == 0, "\(imported)")
        #expect(imported.contains(": added 1000, updated 0, unchanged 0.\n"), "\(imported)")
        #expect(wears.map(\.terminationStatus) == Array(repeating: 0, count: 12))

        let after = try #require(
            try bowties.run(arguments: ["show", "R", "--json"], environment: environment).json() as? [String: Any])
        #expect(after["timesWorn"] as? Int == timesWornBefore + 12, "\(after)")
        let history = try bowties.run(arguments: ["history", "R"], environment: environment)
        #expect(history.stdout.contains("\(timesWornBefore + 12) times worn: 12 recorded"), "\(history)")
        let count = try bowties.run(arguments: ["count"], environment: environment)
        #expect(count.stdout == "1007\n", "\(count)")
    }
}
