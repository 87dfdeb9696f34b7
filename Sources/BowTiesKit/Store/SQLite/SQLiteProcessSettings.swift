internal import CSQLiteSettings

/// SQLite's settings for the whole process, made once, before the first
/// connection opens (SQLite accepts them only before it initializes).
///
/// ```swift
/// SQLiteProcessSettings.apply()   // then open connections as usual
/// ```
enum SQLiteProcessSettings {
    /// Whether SQLite took the settings: false when something in this
    /// process had already opened a connection (a test that opened a
    /// store first, say), and SQLite's defaults stay. Either way SQLite
    /// works the same; only its speed differs.
    static let applied: Bool = {
        // No memory statistics: bowties never asks SQLite how much memory
        // it uses, and counting takes a global mutex in every
        // `sqlite3_malloc` and `sqlite3_free` (SQLITE_CONFIG_MEMSTATUS):
        // 5 % of an import's storing thread, measured with callgrind.
        CSQLiteSettings_disableMemoryStatistics() == 0
    }()

    /// Makes the settings, the first time only.
    static func apply() {
        _ = applied
    }

    /// For a process that runs for long and opens statements all the
    /// time (`bowties serve`): each SQLite page cache allocates its pages
    /// as it needs them, instead of 20 at once at its first page
    /// (87 KB, for every connection and every temporary b-tree a
    /// statement makes). Must come before the first connection opens.
    ///
    /// - Returns: false when SQLite was already initialized in this
    ///   process, and keeps its default.
    static func allocatePagesOneByOne() -> Bool {
        CSQLiteSettings_allocatePagesOneByOne() == 0
    }
}
