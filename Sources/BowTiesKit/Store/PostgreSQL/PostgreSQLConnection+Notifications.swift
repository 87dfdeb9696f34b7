internal import CLibPQ
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `LISTEN` and the notifications it brings: how a connection hears of
/// the commits of every other one without asking the server anything.
///
/// The server sends a notification on the connection's socket when a
/// transaction that raised `NOTIFY` on a channel the connection listens
/// to commits (never for one that rolls back, and once per transaction,
/// however often it raised it). libpq keeps what arrived during a
/// statement; between statements it arrives unread, and
/// ``waitForInput(timeout:)`` sleeps in `poll(2)` until the socket has
/// something: no statement is sent to wait.
///
/// ```swift
/// try connection.listen(to: "bowties_changed")
/// if try connection.waitForInput(timeout: .milliseconds(500)) {
///     for notification in try connection.notifications() { … }
/// }
/// ```
extension PostgreSQLConnection {
    /// One `NOTIFY`: its channel and payload.
    struct Notification: Equatable {
        var channel: String
        var payload: String
    }

    /// Starts listening on `channel` (outside any transaction: `LISTEN`
    /// inside one takes effect only at its commit).
    func listen(to channel: String) throws {
        _ = try execute("LISTEN \"\(channel.replacingOccurrences(of: "\"", with: "\"\""))\"")
    }

    /// Reads what the socket holds (without waiting) and returns the
    /// notifications received since the last call, oldest first.
    ///
    /// - Throws: ``PostgreSQLError`` when the connection is lost.
    func notifications() throws -> [Notification] {
        try settleDeferred()
        guard PQconsumeInput(handle) == 1 else { throw PostgreSQLError(connectionMessage: lastMessage) }
        var received: [Notification] = []
        while let notify = PQnotifies(handle) {
            received.append(
                Notification(
                    channel: notify.pointee.relname.map { String(cString: $0) } ?? "",
                    payload: notify.pointee.extra.map { String(cString: $0) } ?? ""))
            PQfreemem(notify)
        }
        return received
    }

    /// Sleeps until the server sends something on this connection (a
    /// notification, or the end of the connection) or `timeout` passes.
    ///
    /// - Returns: True when there is something to read.
    /// - Throws: ``PostgreSQLError`` when the connection has no socket.
    func waitForInput(timeout: Duration) throws -> Bool {
        try settleDeferred()
        let socket = PQsocket(handle)
        guard socket >= 0 else { throw PostgreSQLError(connectionMessage: lastMessage) }
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        let (seconds, attoseconds) = timeout.components
        let milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000)
        let ready = poll(&descriptor, 1, milliseconds)
        // EINTR (a signal) counts as a wake-up with nothing to read.
        return ready > 0
    }
}
