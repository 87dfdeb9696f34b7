import Dispatch
import Foundation
import Synchronization

/// Turns SIGINT, SIGTERM and SIGHUP into an orderly stop for a command
/// that must not be killed half-way (an import): the signal is noted,
/// the work is interrupted, and the command rolls back, cleans up, says
/// so and exits with 128 + the signal's number, as shells expect.
///
/// ```swift
/// let trap = SignalTrap()
/// trap.onSignal { catalog.interrupt() }
/// ...
/// if let signal = trap.received { exit(128 + signal) }
/// ```
///
/// The handlers run on a dispatch queue, not in signal context, so they
/// may do anything. A second signal of the same kind is ignored: the
/// first one's clean-up is under way.
final class SignalTrap: Sendable {
    static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    /// What the handlers and the command share.
    private final class Shared: Sendable {
        struct State {
            var received: Int32?
            var action: (@Sendable () -> Void)?
        }
        let state = Mutex(State())

        func handle(_ number: Int32) {
            let action: (@Sendable () -> Void)? = state.withLock { state in
                guard state.received == nil else { return nil }
                state.received = number
                return state.action
            }
            action?()
        }
    }

    private let shared = Shared()
    /// Written once here, cancelled once in deinit, never shared: the
    /// dispatch sources are not Sendable, but nothing else touches them.
    private nonisolated(unsafe) let sources: [any DispatchSourceSignal]

    init() {
        let queue = DispatchQueue(label: "bowties.signals")
        let shared = shared
        sources = Self.signals.map { number in
            // The default action would end the process before the handler runs.
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { shared.handle(number) }
            source.resume()
            return source
        }
    }

    deinit {
        for source in sources { source.cancel() }
        for number in Self.signals { signal(number, SIG_DFL) }
    }

    /// The first signal received, if any.
    var received: Int32? { shared.state.withLock { $0.received } }

    /// Runs `action` when a signal arrives, or now if one already has.
    func onSignal(_ action: @escaping @Sendable () -> Void) {
        let already = shared.state.withLock { state in
            state.action = action
            return state.received != nil
        }
        if already { action() }
    }
}
