import CMallocTuning
import ServiceLifecycle

/// glibc's allocator, set for a process that runs for days.
///
/// Measured under `bench/serve.sh`'s soak (8 API clients and the CLI
/// wearing one tie, wrk on the page and the list): the bytes the server
/// has allocated stay flat, 3 to 4 MB (`mallinfo2`'s `uordblks` every
/// 10 s), so nothing is kept per request; what grew was what the
/// allocator keeps *free*. Each thread that allocates while another holds
/// an arena gets an arena of its own, up to 8 per core, and SwiftNIO's
/// event loops, Dispatch's workers (SQLite runs there) and Swift's
/// cooperative pool are many threads: freed chunks stay scattered over
/// their arenas, which glibc shrinks only from the top. The free bytes
/// grew 2.1 → 4.4 MB in 4 minutes, and the resident memory with them
/// (`bench/results/serve.md`).
///
/// So: two arenas (contention is low: one request's work is short), and
/// every ``trimInterval`` `malloc_trim(0)` hands the free pages inside
/// every arena back to the kernel (`MADV_DONTNEED`; a few hundred
/// microseconds on these heaps). The resident memory then follows what is
/// in use.
enum MemoryPolicy {
    /// How often free memory goes back to the kernel.
    static let trimInterval: Duration = .seconds(30)

    /// At most two malloc arenas. Called first thing, before SwiftNIO's
    /// threads start: the limit applies to arenas created after it.
    static func apply() {
        _ = CMallocTuning_limitArenas(2)
    }

    /// Returns free pages of every arena to the kernel.
    static func trim() {
        _ = CMallocTuning_trim()
    }

    /// A service of the application: trims every ``trimInterval`` until
    /// the server stops.
    struct Trimmer: Service {
        func run() async throws {
            await cancelWhenGracefulShutdown {
                while !Task.isCancelled {
                    do { try await Task.sleep(for: MemoryPolicy.trimInterval) } catch { return }
                    MemoryPolicy.trim()
                }
            }
        }
    }
}
