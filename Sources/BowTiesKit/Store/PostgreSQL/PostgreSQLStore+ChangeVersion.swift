import Foundation
import Synchronization

extension PostgreSQLStore {
    /// How many commits of this catalog the connection has heard of since
    /// its first call: the first one `LISTEN`s on
    /// ``ObjectModel/postgreSQLChangeChannel`` (outside any transaction),
    /// and each one after reads what the socket holds without sending a
    /// statement. Every commit that changed a table of the catalog, by any
    /// connection, raises one notification (the triggers of
    /// ``ObjectModel/postgreSQLNotifySQL``); other databases' commits, other
    /// schemas' and the server's checkpoints raise none.
    func changeVersion() throws -> Int64 {
        try mapErrors { try heardChanges() }
    }

    /// Sleeps in `poll(2)` on the connection's socket until a notification
    /// arrives or `timeout` passes: no statement is sent while nothing
    /// changes.
    func waitForChange(after version: Int64, timeout: Duration) throws -> Int64 {
        try mapErrors {
            let now = try heardChanges()
            guard now == version else { return now }
            guard try connection.waitForInput(timeout: timeout) else { return now }
            return try heardChanges()
        }
    }

    /// Listens if not yet, then counts the notifications of this
    /// catalog's schema that arrived.
    private func heardChanges() throws -> Int64 {
        let schema =
            try changeListener.schema
            ?? {
                let result = try connection.execute("SELECT current_schema()")
                var schema = "public"
                if result.rowCount == 1, case .text(let name) = result.value(0, 0) { schema = name }
                try connection.listen(to: ObjectModel.postgreSQLChangeChannel)
                changeListener.schema = schema
                return schema
            }()
        let heard = try connection.notifications().filter {
            $0.channel == ObjectModel.postgreSQLChangeChannel && $0.payload == schema
        }
        return changeListener.add(heard.count)
    }
}

/// What a PostgreSQL store that listens for its changes knows: the schema
/// whose notifications count (nil until it listens), and how many it
/// heard of.
final class ChangeListener: Sendable {
    private struct State {
        var schema: String?
        var count: Int64 = 0
    }
    private let state = Mutex(State())

    var schema: String? {
        get { state.withLock { $0.schema } }
        set { state.withLock { $0.schema = newValue } }
    }

    /// Adds `heard` to the count and returns it.
    func add(_ heard: Int) -> Int64 {
        state.withLock { state in
            state.count += Int64(heard)
            return state.count
        }
    }
}
