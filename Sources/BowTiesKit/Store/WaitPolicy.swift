import Foundation

/// How a command waits when another process holds the catalog's write lock.
///
/// ```swift
/// let wait = WaitPolicy(limit: 30) { holder in print("waiting for the catalog: \(holder)") }
/// let catalog = try Catalog(url: url, mode: .mustExist, wait: wait)
/// ```
///
/// Writers queue on SQLite's write lock. By default a command waits as
/// long as the holder lives: the lock dies with its process, so a writer
/// never waits for a crashed one, and a long import is waited out instead
/// of being reported as an error.
public struct WaitPolicy: Sendable {
    /// How long to wait at most, in seconds; nil waits as long as the
    /// holder holds the lock.
    public var limit: TimeInterval?
    /// Called once, after ``announceAfter`` seconds of waiting, with what
    /// the command waits for (`bowties (pid 12) is importing big.plist`).
    public var onWait: (@Sendable (String) -> Void)?
    /// How the holder of the write lock is named in ``onWait`` and in the
    /// busy error: by default its program and pid
    /// (``WriteLockHolder/description``); a command line that knows its
    /// own arguments says what its processes are doing
    /// (`bowties (pid 12) is importing big.plist`).
    public var describeHolder: @Sendable (WriteLockHolder) -> String

    /// Waits shorter than this go unannounced: concurrent commands meet
    /// briefly all the time.
    public static let announceAfter: TimeInterval = 1

    public init(
        limit: TimeInterval? = nil,
        describeHolder: @escaping @Sendable (WriteLockHolder) -> String = { $0.description },
        onWait: (@Sendable (String) -> Void)? = nil
    ) {
        self.limit = limit
        self.describeHolder = describeHolder
        self.onWait = onWait
    }
}
