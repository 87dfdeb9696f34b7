import Foundation

/// What ``Catalog/check()`` found: what it looked at, and every problem.
public struct CheckReport: Sendable {
    /// The store's SQLite file.
    public var store: URL
    /// Records checked against the model.
    public var bowTieCount = 0
    /// Distinct photos the catalog holds (inline or in files).
    public var photoCount = 0
    /// Entries found in the photo folder (photo files and anything else).
    public var photoFolderEntries = 0
    public var problems: [StoreProblem] = []
    /// Set when the store was made by an earlier release and read as it
    /// is (``Catalog/olderSchema``): not a problem, the next command that
    /// changes the catalog upgrades it.
    public var olderSchema: Catalog.SchemaVersions?

    public init(store: URL) {
        self.store = store
    }

    /// True when nothing is wrong.
    public var isHealthy: Bool { problems.isEmpty }

    /// The problems `check --repair` can fix.
    public var repairable: [StoreProblem] { problems.filter { $0.repair != nil } }
}

/// What ``Catalog/repair(announce:)`` did.
public struct RepairReport: Sendable {
    /// The problems found under the write lock, before repairing.
    public var found: CheckReport
    /// The problems it repaired (all of `found`'s repairable ones).
    public var repaired: [StoreProblem]
    /// The action `bowties undo` takes back to undo the repairs that are
    /// in the history (``StoreProblem/isUndoable``); nil when none is.
    public var undoAction: UndoAction?
    /// A fresh check after the repair.
    public var after: CheckReport
}

extension RepairReport {
    /// The repairs `bowties undo` cannot take back: files removed from
    /// the photo folder, unused photos, sizes, the schema, rows whose
    /// parent was gone.
    public var notUndoable: [StoreProblem] { repaired.filter { !$0.isUndoable } }
}
