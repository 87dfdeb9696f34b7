internal import CMalloc

/// glibc's allocator, set for a process that runs for days.
///
/// glibc gives each thread that allocates a malloc arena of its own, up to
/// 8 a core (16 on two), and an arena keeps the memory freed in it for its
/// next allocations: it hands back only a free run at its top. The
/// server's threads are many (SwiftNIO's event loops, Dispatch's workers
/// where SQLite runs, Swift's cooperative pool), so under load its freed
/// memory was spread over 8 to 11 arenas and its resident memory grew
/// with what they kept free, while the bytes in use stayed near 3 MB
/// (bench/results/serve.md, sessions 11 to 14).
///
/// ``arenaLimit`` arenas hold it: with them and the changes one at a time
/// (``CatalogAccess``), the free bytes inside the arenas stayed under
/// 1.4 MB in session 14's soaks (2 to 14 MB on glibc's defaults), and the
/// resident memory grew a quarter to a tenth of what it grew with
/// neither, in the same minutes. A request's
/// work is short, so threads seldom meet on an arena's lock: the page's
/// and the list's CPU time a request stayed within the loaded machine's
/// noise. glibc documents `M_ARENA_MAX` (`MALLOC_ARENA_MAX` in the
/// environment) for this growth.
enum MemoryPolicy {
    /// The most malloc arenas the server uses: one a core of the machine
    /// it was measured on.
    static let arenaLimit: Int32 = 2

    /// Bounds the arenas. Called first thing in `main`, before any thread
    /// starts: a thread takes its arena at its first allocation, and
    /// glibc creates no arena past the limit after this call.
    static func apply() {
        _ = mallopt(M_ARENA_MAX, arenaLimit)
    }
}
