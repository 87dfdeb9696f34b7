import Foundation
import Testing

/// `sslmode=` in a PostgreSQL address: libpq's TLS, against a test server
/// that speaks TLS only (``PostgreSQLServer/init(tls:)``, a throwaway CA
/// and a certificate for `localhost`).
///
/// A refused server certificate ends the command with exit 69 (service
/// unavailable), as an unreachable server does: the client refuses the
/// server, not the server the user, so no password or privilege (77)
/// would help; the address or the trusted CA must change.
@Suite("PostgreSQL over TLS")
struct PostgreSQLTLSTests {
    @Test("sslmode=require: import and list work, as on SQLite; a client without TLS is refused")
    func require() throws {
        let server = try PostgreSQLServer(tls: true)
        defer { server.stop() }
        let bowties = try BowTiesRunner()
        let address = try server.createDatabase() + "?sslmode=require"
        let imported = try bowties.run(
            arguments: ["import", BowTiesRunner.sampleDataURL.path, "--store", address],
            environment: server.clientEnvironment)
        #expect(imported.status == 0, "\(imported)")
        #expect(
            imported.stdout.hasPrefix("Imported SampleData.plist into \(address): added 7, updated 0, unchanged 0.\n"),
            "\(imported)")
        try bowties.importSampleData()
        let expected = try bowties.run("list")
        let list = try bowties.run(arguments: ["list", "--store", address], environment: server.clientEnvironment)
        #expect(list.status == 0 && list.stdout == expected.stdout, "\(list)\n\(expected)")

        // The server takes TLS only: the same address without it is refused.
        let plain = try bowties.run(
            arguments: ["list", "--store", server.address(database: "catalog1") + "?sslmode=disable"],
            environment: server.clientEnvironment)
        #expect(plain.status == 77, "\(plain)")
        #expect(plain.stderr.contains("no encryption"), "\(plain)")
        #expect(!plain.stderr.contains(PostgreSQLServer.ownerPassword), "\(plain)")
    }

    @Test("sslmode=verify-full with the CA (sslrootcert= or $PGSSLROOTCERT) and host localhost works")
    func verifyFull() throws {
        let server = try PostgreSQLServer(tls: true)
        defer { server.stop() }
        let bowties = try BowTiesRunner()
        _ = try server.createDatabase()
        let address =
            server.address(database: "catalog1", host: "localhost")
            + "?sslmode=verify-full&sslrootcert=\(server.certificateAuthority.path)"
        let imported = try bowties.run(
            arguments: ["import", BowTiesRunner.sampleDataURL.path, "--store", address],
            environment: server.clientEnvironment)
        #expect(imported.status == 0, "\(imported)")
        #expect(imported.stdout.contains(": added 7, updated 0, unchanged 0.\n"), "\(imported)")
        try bowties.importSampleData()
        let expected = try bowties.run("list")
        let list = try bowties.run(arguments: ["list", "--store", address], environment: server.clientEnvironment)
        #expect(list.status == 0 && list.stdout == expected.stdout, "\(list)\n\(expected)")

        // The CA from the environment, the mode too.
        var environment = server.clientEnvironment
        environment["PGSSLROOTCERT"] = server.certificateAuthority.path
        environment["PGSSLMODE"] = "verify-full"
        let wear = try bowties.run(
            arguments: [
                "wear", "R", "--on", "2026-11-20", "--store", server.address(database: "catalog1", host: "localhost"),
            ],
            environment: environment)
        #expect(wear.status == 0, "\(wear)")
        let shown = try bowties.run(
            arguments: ["show", "R", "--store", server.address(database: "catalog1", host: "localhost")],
            environment: environment)
        try #require(try bowties.run("wear", "R", "--on", "2026-11-20").status == 0)
        let expectedShow = try bowties.run("show", "R")
        #expect(shown.status == 0 && shown.stdout == expectedShow.stdout, "\(shown)\n\(expectedShow)")
    }

    @Test("verify-full without the CA, or for another host name: exit 69, located, libpq's reason, nothing written")
    func verifyFullRefused() throws {
        let server = try PostgreSQLServer(tls: true)
        defer { server.stop() }
        let bowties = try BowTiesRunner()
        _ = try server.createDatabase()
        // No CA: libpq looks for ~/.postgresql/root.crt; HOME is an empty folder.
        var environment = server.clientEnvironment
        environment["HOME"] = bowties.directory.path
        let noCA = try bowties.run(
            arguments: [
                "import", BowTiesRunner.sampleDataURL.path, "--store",
                server.address(database: "catalog1", host: "localhost") + "?sslmode=verify-full&sslpassword=key-secret",
            ], environment: environment)
        #expect(noCA.status == 69, "\(noCA)")
        #expect(
            noCA.stderr.hasPrefix(
                "bowties: error: cannot connect to the catalog at postgresql://bowties@localhost:\(server.port)/catalog1"
                    + "?sslmode=verify-full&sslpassword=*** (database catalog1 on localhost port \(server.port) as bowties): "
                    + "root certificate file \"\(bowties.directory.path)/.postgresql/root.crt\" does not exist\n"),
            "\(noCA)")
        #expect(noCA.stderr.contains("hint: The server's identity could not be checked over TLS"), "\(noCA)")
        #expect(noCA.stdout.isEmpty, "\(noCA)")

        // The right CA, the wrong name: the certificate is for localhost only.
        let address =
            "postgresql://\(PostgreSQLServer.owner):\(PostgreSQLServer.ownerPassword)@127.0.0.1:\(server.port)/catalog1"
            + "?sslmode=verify-full&sslrootcert=\(server.certificateAuthority.path)"
        let wrongHost = try bowties.run(
            arguments: ["import", BowTiesRunner.sampleDataURL.path],
            environment: environment.merging(["BOWTIES_STORE": address, "PGPASSWORD": nil]) { $1 })
        #expect(wrongHost.status == 69, "\(wrongHost)")
        #expect(
            wrongHost.stderr.hasPrefix(
                "bowties: error: cannot connect to the catalog at postgresql://bowties:***@127.0.0.1:\(server.port)/catalog1"
            ),
            "\(wrongHost)")
        #expect(
            wrongHost.stderr.contains("server certificate for \"localhost\"")
                && wrongHost.stderr.contains("does not match host name \"127.0.0.1\"\n"),
            "\(wrongHost)")
        #expect(wrongHost.stderr.contains("hint: The server's identity could not be checked over TLS"), "\(wrongHost)")

        for result in [noCA, wrongHost] {
            let text = result.stdout + result.stderr
            #expect(!text.contains(PostgreSQLServer.ownerPassword) && !text.contains("key-secret"), "\(result)")
        }
        // Nothing written: the database has no table.
        let tables = try server.sql(
            "SELECT count(*) FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')",
            database: "catalog1")
        #expect(tables.trimmingCharacters(in: .whitespacesAndNewlines) == "0", "\(tables)")
    }
}
