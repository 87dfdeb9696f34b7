import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A throwaway PostgreSQL server for one test: a cluster made by `initdb`
/// in a temporary folder, `postgres` listening on 127.0.0.1 at a free port
/// (its socket in the same folder), stopped and removed by ``stop()`` or
/// when the server is released, also when the test fails.
///
/// ```swift
/// let server = try PostgreSQLServer()
/// let address = try server.createDatabase()     // postgresql://bowties@127.0.0.1:PORT/db1
/// let result = try bowties.run("list", "--store", address,
///                              environment: server.clientEnvironment)
/// ```
///
/// The programs come from `pg_config --bindir`, else the newest
/// `/usr/lib/postgresql/*/bin` (Debian's `postgresql` package; `.ci/run`
/// installs it). `initdb` and `postgres` refuse to run as root: as root,
/// both run as `nobody` through `setpriv --reuid=65534 --regid=65534
/// --clear-groups` (as ``UnwritableCatalog`` runs bowties), and the
/// temporary folder is handed to `nobody` (`chown`, mode 0700) first.
///
/// The cluster's owner role is ``owner``, with the password
/// ``ownerPassword``; connections over TCP must give it
/// (`scram-sha-256`), connections over the socket are trusted (the
/// helper's own administration). Clients find the password in
/// `PGPASSWORD` (``clientEnvironment``), never in an argument.
///
/// `PostgreSQLServer(tls: true)` also speaks TLS (`ssl=on`): `openssl`
/// makes a throwaway CA and a server certificate for `localhost` (no IP
/// address in it) in the temporary folder, the key mode 0600 and owned by
/// the server's user, as `postgres` demands; over TCP it accepts TLS
/// connections only (`hostssl` in `pg_hba.conf`). Clients that verify
/// (`sslmode=verify-full`) trust ``certificateAuthority`` and name the
/// host `localhost` (``address(database:user:host:)``).
final class PostgreSQLServer: @unchecked Sendable {
    static let owner = "bowties"
    static let ownerPassword = "owner-secret-\(UInt32.random(in: 100_000...999_999))"

    /// The temporary folder: `data/` (the cluster) and the socket.
    let directory: URL
    let port: Int
    let binDirectory: URL
    /// Whether the server speaks TLS (``init(tls:listenAddresses:)``).
    let tls: Bool
    /// Where it listens besides 127.0.0.1 (``init(tls:listenAddresses:)``).
    let listenAddresses: [String]
    private var process: Process?
    private var databases = 0

    /// The throwaway CA's certificate (PEM), which signed the server's:
    /// what `sslrootcert=` or `PGSSLROOTCERT` names to verify it. Only
    /// with `tls`.
    var certificateAuthority: URL { directory.appendingPathComponent("ca.crt") }

    /// Makes the cluster and starts the server (about 2 s); with `tls`,
    /// a CA and a certificate for `localhost` first, and `ssl=on`.
    ///
    /// - Parameter listenAddresses: Addresses of this machine to listen
    ///   on too (the host ends of ``NetworkNamespace``s' links), for
    ///   clients in the subnets they are on (`samenet`, with the password).
    init(tls: Bool = false, listenAddresses: [String] = []) throws {
        binDirectory = try Self.findBinDirectory()
        self.tls = tls
        self.listenAddresses = listenAddresses
        directory = URL(fileURLWithPath: "/tmp", isDirectory: true)
            .appendingPathComponent("bowties-pg-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        port = try Self.freePort()
        do {
            if tls { try makeCertificates() }
            try start()
        } catch {
            stop()
            throw error
        }
    }

    deinit { stop() }

    /// The launcher that runs the server's programs as an unprivileged
    /// user when this process is root.
    private static var launcher: [String] {
        getuid() == 0 ? ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"] : []
    }

    private var dataDirectory: URL { directory.appendingPathComponent("data", isDirectory: true) }

    private func start() throws {
        let passwordFile = directory.appendingPathComponent("pwfile")
        try Data((Self.ownerPassword + "\n").utf8).write(to: passwordFile)
        if getuid() == 0 {
            chmod(directory.path, 0o700)
            chown(directory.path, 65534, 65534)
            chown(passwordFile.path, 65534, 65534)
        }
        let initdb = try Self.run(
            Self.launcher + [
                binDirectory.appendingPathComponent("initdb").path, "-D", dataDirectory.path, "-U", Self.owner,
                "--pwfile", passwordFile.path, "--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8",
                "--locale=C", "--no-sync",
            ])
        try #require(initdb.status == 0, "initdb: \(initdb.output)")
        try? FileManager.default.removeItem(at: passwordFile)
        if !listenAddresses.isEmpty {
            let rules = dataDirectory.appendingPathComponent("pg_hba.conf")
            let handle = try FileHandle(forWritingTo: rules)
            try handle.seekToEnd()
            try handle.write(contentsOf: Data("host all all samenet scram-sha-256\n".utf8))
            try handle.close()
        }
        if tls {
            // Over TCP, TLS only (`hostssl`): a client that connects at all
            // spoke TLS, and one that will not (`sslmode=disable`) is refused.
            let rules = dataDirectory.appendingPathComponent("pg_hba.conf")
            let text = try String(contentsOf: rules, encoding: .utf8)
                .split(separator: "\n", omittingEmptySubsequences: false)
                .map { $0.hasPrefix("host ") ? "hostssl" + $0.dropFirst(4) : String($0) }
                .joined(separator: "\n")
            try Data(text.utf8).write(to: rules)
        }
        let server = Process()
        server.executableURL = URL(fileURLWithPath: (Self.launcher.first ?? binDirectory.appendingPathComponent("postgres").path))
        server.arguments =
            Array(Self.launcher.dropFirst()) + (Self.launcher.isEmpty ? [] : [binDirectory.appendingPathComponent("postgres").path])
            + [
                "-D", dataDirectory.path, "-p", String(port), "-k", directory.path,
                "-c", "listen_addresses=" + (["127.0.0.1"] + listenAddresses).joined(separator: ","),
                "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
                "-c", "max_connections=40", "-c", "shared_buffers=16MB", "-c", "logging_collector=off",
            ]
            + (tls
                ? [
                    "-c", "ssl=on", "-c", "ssl_cert_file=\(directory.appendingPathComponent("server.crt").path)",
                    "-c", "ssl_key_file=\(directory.appendingPathComponent("server.key").path)",
                ] : [])
        let log = directory.appendingPathComponent("server.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        server.standardOutput = handle
        server.standardError = handle
        try server.run()
        process = server
        // Ready when it accepts connections on the socket.
        let deadline = Date().addingTimeInterval(30)
        while true {
            let ready = try Self.run([
                binDirectory.appendingPathComponent("pg_isready").path, "-q", "-h", directory.path, "-p", String(port),
            ])
            if ready.status == 0 { break }
            if !server.isRunning || Date() > deadline {
                let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
                throw ServerError(message: "postgres did not start: \(text)")
            }
            usleep(50_000)
        }
    }

    /// A CA (`ca.crt`, its key `ca.key`) and the server's certificate
    /// (`server.crt`, for DNS name `localhost` only, signed by the CA) and
    /// key (`server.key`, 0600, owned by the server's user), P-256, valid
    /// two days.
    private func makeCertificates() throws {
        let openssl = "/usr/bin/openssl"
        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
        let extensions = directory.appendingPathComponent("server.ext")
        try Data("subjectAltName=DNS:localhost\n".utf8).write(to: extensions)
        let curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        for command in [
            [openssl, "req", "-x509"] + curve + [
                "-keyout", path("ca.key"), "-out", path("ca.crt"), "-days", "2", "-subj", "/CN=bowties test CA",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            ],
            [openssl, "req", "-new"] + curve + [
                "-keyout", path("server.key"), "-out", path("server.csr"), "-subj", "/CN=localhost",
            ],
            [
                openssl, "x509", "-req", "-in", path("server.csr"), "-CA", path("ca.crt"), "-CAkey", path("ca.key"),
                "-set_serial", "1", "-days", "2", "-out", path("server.crt"), "-extfile", extensions.path,
            ],
        ] {
            let result = try Self.run(command)
            try #require(result.status == 0, "openssl: \(result.output)")
        }
        chmod(path("server.key"), 0o600)
        if getuid() == 0 {
            for name in ["server.key", "server.crt"] { chown(path(name), 65534, 65534) }
        }
    }

    /// Stops the server (fast shutdown) and removes the folder. Safe to
    /// call twice.
    func stop() {
        if let process, process.isRunning {
            kill(process.processIdentifier, SIGINT)
            let deadline = Date().addingTimeInterval(10)
            while process.isRunning && Date() < deadline { usleep(20_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        process = nil
        try? FileManager.default.removeItem(at: directory)
    }

    /// Runs `sql` as the owner (or `user`) over the socket (psql,
    /// stopping at the first error).
    @discardableResult
    func sql(_ sql: String, database: String = "postgres", user: String = PostgreSQLServer.owner) throws -> String {
        let result = try Self.run([
            binDirectory.appendingPathComponent("psql").path, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1",
            "-h", directory.path, "-p", String(port), "-U", user, "-d", database, "-c", sql,
        ])
        try #require(result.status == 0, "psql \(sql): \(result.output)")
        return result.output
    }

    /// Creates an empty database owned by ``owner`` and returns its
    /// address, without a password (``clientEnvironment`` gives it).
    func createDatabase() throws -> String {
        databases += 1
        let name = "catalog\(databases)"
        try sql("CREATE DATABASE \"\(name)\"")
        return address(database: name)
    }

    /// `postgresql://USER@HOST:PORT/DATABASE` (HOST 127.0.0.1 unless
    /// given: `localhost` is the name the TLS certificate holds).
    func address(database: String, user: String = PostgreSQLServer.owner, host: String = "127.0.0.1") -> String {
        "postgresql://\(user)@\(host):\(port)/\(database)"
    }

    /// What a client needs besides the address: the owner's password in
    /// `PGPASSWORD`, and no `~/.pgpass` or service file of the machine's.
    var clientEnvironment: [String: String?] {
        [
            "PGPASSWORD": Self.ownerPassword, "PGPASSFILE": "/nonexistent", "PGSERVICEFILE": "/nonexistent",
            "PGHOST": nil, "PGPORT": nil, "PGUSER": nil, "PGDATABASE": nil, "PGSSLMODE": nil,
            "PGSSLROOTCERT": nil,
        ]
    }

    // MARK: - Helpers

    struct ServerError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    /// `pg_config --bindir`, else the newest `/usr/lib/postgresql/*/bin`
    /// with `initdb` in it.
    static func findBinDirectory() throws -> URL {
        if let result = try? run(["/usr/bin/env", "pg_config", "--bindir"]), result.status == 0 {
            let path = result.output.trimmingCharacters(in: .whitespacesAndNewlines)
            if FileManager.default.isExecutableFile(atPath: path + "/initdb") { return URL(fileURLWithPath: path) }
        }
        let base = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: base)) ?? [])
            .compactMap(Int.init).sorted()
        for version in versions.reversed() where FileManager.default.isExecutableFile(atPath: "\(base)/\(version)/bin/initdb") {
            return URL(fileURLWithPath: "\(base)/\(version)/bin")
        }
        throw ServerError(message: "no PostgreSQL server programs (initdb): install Debian's postgresql package")
    }

    /// A TCP port on 127.0.0.1 no one listens on now (the kernel's choice).
    static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw ServerError(message: "socket: errno \(errno)") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(socket, pointer, length) == 0 && getsockname(socket, pointer, &length) == 0
            }
        }
        guard bound else { throw ServerError(message: "bind: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Runs a program to its end; its output and error as one text.
    static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        var environment = ProcessInfo.processInfo.environment
        environment["PGPASSWORD"] = nil
        environment["LC_ALL"] = "C"
        process.environment = environment
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("bowties-pg-out-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        let handle = try FileHandle(forWritingTo: output)
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        // As root, nobody must be able to read the cluster's folder only;
        // the programs run from anywhere.
        process.currentDirectoryURL = URL(fileURLWithPath: "/")
        try process.run()
        process.waitUntilExit()
        try handle.close()
        return (process.terminationStatus, (try? String(contentsOf: output, encoding: .utf8)) ?? "")
    }
}
