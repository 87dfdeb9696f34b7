import Synchronization

extension SourceLocation {
    /// A file's display name, interned: equal names are equal numbers, so
    /// that a ``SourceLocation`` is plain data, copied without reference
    /// counting.
    ///
    /// ```swift
    /// let file = SourceLocation.FileName("Ties.plist")   // once per reader
    /// let location = SourceLocation(fileName: file, line: 3, column: 5)
    /// location.file   // "Ties.plist"
    /// ```
    ///
    /// The names live as long as the process: one per file a process
    /// reads, which for a command is one or two.
    public struct FileName: Sendable, Hashable {
        private let id: UInt32

        public init(_ name: String) {
            id = FileNames.shared.intern(name)
        }

        /// The name as given.
        public var name: String {
            FileNames.shared.name(of: id)
        }
    }
}

/// The names behind ``SourceLocation/FileName``, shared by every thread.
private final class FileNames: Sendable {
    static let shared = FileNames()

    private struct Table {
        var ids: [String: UInt32] = [:]
        var names: [String] = []
    }

    private let table = Mutex(Table())

    func intern(_ name: String) -> UInt32 {
        table.withLock { table in
            if let id = table.ids[name] { return id }
            let id = UInt32(truncatingIfNeeded: table.names.count)
            table.names.append(name)
            table.ids[name] = id
            return id
        }
    }

    func name(of id: UInt32) -> String {
        table.withLock { $0.names[Int(id)] }
    }
}
