import CMallocTrim
import ServiceLifecycle

/// Gives the memory requests freed back to the system every few seconds.
///
/// Every request opens its catalog and closes it again, and SwiftNIO's
/// threads allocate from several of glibc's arenas. The bytes in use stay
/// flat (2.2 to 2.6 MB over a 5-minute soak of 770,000 requests), but the
/// freed memory glibc keeps inside its arenas grew by about 0.37 MB a
/// minute, and with it the server's anonymous memory
/// (`bench/results/serve.md`, session 11): glibc returns a free chunk's
/// pages only from the top of an arena, and most of it was not there.
/// `malloc_trim(0)` returns the whole free pages of every arena (`madvise`),
/// wherever they are. It takes each arena's lock for a moment, a few
/// megabytes to walk: done every ``interval``, not after each request.
/// A service of the application: it stops with it.
struct MemoryTrim: Service {
    static let interval: Duration = .seconds(5)

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.interval)
                _ = bowties_malloc_trim()
            }
        }
    }
}
