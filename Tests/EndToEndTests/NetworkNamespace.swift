import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A network namespace of its own, as another machine on the network
/// would be: its own interfaces and addresses, reaching this one only
/// through a virtual Ethernet link (a veth pair) on a /30 subnet of its
/// own, `10.X.Y.0/30`, where this machine is `.1` (``hostAddress``) and
/// the namespace `.2` (``address``).
///
/// ```swift
/// let other = try NetworkNamespace()
/// let server = try PostgreSQLServer(listenAddresses: [other.hostAddress])
/// // bowties in that namespace, reaching the server as a remote client:
/// let process = other.process(bowties, ["wear", "R", "--store", "postgresql://…@\(other.hostAddress):…"])
/// ```
///
/// Made as root (the tests run as root in CI) with util-linux and
/// iproute2 (`.ci/run` installs `iproute2` when `ip` is missing):
/// `unshare --net` starts a process that holds the namespace (`sleep`),
/// `ip link add … type veth peer … netns PID` links it, and `nsenter
/// --net --target PID` runs programs in it. Nothing is left behind: no
/// file names the namespace (`ip netns add` would bind-mount one under
/// /run/netns), and ``remove()`` (or `deinit`) ends the holder, which
/// ends the namespace and with it both ends of the link. A machine where
/// this cannot be done fails the test (`#require`), never skips it.
final class NetworkNamespace: @unchecked Sendable {
    /// The process whose namespace this is.
    private var holder: Process?
    /// This machine's end of the link (`bt…h`).
    let hostInterface: String
    /// This machine's address on the link.
    let hostAddress: String
    /// The namespace's address on the link.
    let address: String

    init() throws {
        let tag = String(UInt32.random(in: 0..<0x10_0000), radix: 16)
        hostInterface = "bt\(tag)h"
        let inside = "bt\(tag)n"
        // A /30 in 10.200.0.0–10.254.255.255 (`.1` here, `.2` there).
        let second = Int.random(in: 200...254)
        let third = Int.random(in: 0...255)
        let fourth = Int.random(in: 0...63) * 4
        hostAddress = "10.\(second).\(third).\(fourth + 1)"
        address = "10.\(second).\(third).\(fourth + 2)"

        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        holder.arguments = ["--net", "--", "/bin/sleep", "3600"]
        holder.standardInput = FileHandle.nullDevice
        holder.standardOutput = FileHandle.nullDevice
        holder.standardError = FileHandle.nullDevice
        try holder.run()
        self.holder = holder
        do {
            // unshare has made the namespace once the process it runs
            // (sleep) is in another one than ours.
            let deadline = Date().addingTimeInterval(10)
            let ours = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/ns/net")
            while (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(holder.processIdentifier)/ns/net"))
                == ours
            {
                try #require(holder.isRunning && Date() < deadline, "unshare --net did not make a network namespace (root needed)")
                usleep(10_000)
            }
            let pid = String(holder.processIdentifier)
            for command in [
                ["/usr/sbin/ip", "link", "add", hostInterface, "type", "veth", "peer", "name", inside, "netns", pid],
                ["/usr/sbin/ip", "addr", "add", "\(hostAddress)/30", "dev", hostInterface],
                ["/usr/sbin/ip", "link", "set", hostInterface, "up"],
                ["/usr/bin/nsenter", "--net", "--target", pid, "--", "/usr/sbin/ip", "addr", "add", "\(address)/30", "dev", inside],
                ["/usr/bin/nsenter", "--net", "--target", pid, "--", "/usr/sbin/ip", "link", "set", inside, "up"],
                ["/usr/bin/nsenter", "--net", "--target", pid, "--", "/usr/sbin/ip", "link", "set", "lo", "up"],
            ] {
                let result = try PostgreSQLServer.run(command)
                try #require(result.status == 0, "\(command.joined(separator: " ")): \(result.output)")
            }
        } catch {
            remove()
            throw error
        }
    }

    deinit { remove() }

    /// Ends the namespace (and the link). Safe to call twice.
    func remove() {
        if let holder, holder.isRunning {
            kill(holder.processIdentifier, SIGKILL)
            holder.waitUntilExit()
        }
        holder = nil
        // Gone with the namespace; in case it was not, by name.
        _ = try? PostgreSQLServer.run(["/usr/sbin/ip", "link", "del", hostInterface])
    }

    /// The command line that runs `arguments` in the namespace.
    func command(_ arguments: [String]) -> [String] {
        ["/usr/bin/nsenter", "--net", "--target", String(holder?.processIdentifier ?? 0), "--"] + arguments
    }

    /// The interfaces inside the namespace (`ip -brief address`), to show
    /// that it is one of its own.
    func interfaces() throws -> String {
        try PostgreSQLServer.run(command(["/usr/sbin/ip", "-brief", "address"])).output
    }
}
