// What glibc's allocator holds, logged from inside a process every few
// seconds: an LD_PRELOAD shim for bench/serve.sh's soaks (sessions 10 to
// 14 of bench/results/serve.md).
//
//   cc -O2 -shared -fPIC -o /tmp/mallinfo_log.so bench/mallinfo_log.c -lpthread
//   SERVE_PREFIX="env LD_PRELOAD=/tmp/mallinfo_log.so MALLINFO_LOG=/tmp/serve.log"
//   BIN=.build/release DURATION=2s SOAK=600 SERVE_PREFIX="$SERVE_PREFIX" bash bench/serve.sh
//   python3 bench/mallinfo_summary.py /tmp/serve.log
//
// MALLINFO_LOG names the file (nothing is logged without it);
// MALLINFO_INTERVAL the seconds between samples (10 by default);
// MALLINFO_TRIM=1 calls malloc_trim(0) before each sample (glibc hands
// the free pages inside every arena back to the kernel), to see what a
// periodic trim would do without building it into the server. One line
// a sample, after a header naming the columns:
//
//   seconds   since the process started (the shim's constructor)
//   in_use    mallinfo2().uordblks: bytes handed out and not freed
//   free      mallinfo2().fordblks: bytes free inside the arenas
//   arena     mallinfo2().arena: bytes of the arenas (in use + free)
//   mmapped   mallinfo2().hblkhd: bytes of blocks mmapped on their own
//   arenas    how many arenas malloc_info() lists (`<heap nr=`)
//   vmrss, rssanon, rssfile   /proc/self/status, kB
//   threads   /proc/self/status
//
// The shim must not change what it measures. Every thread that first
// calls malloc gets an arena of its own (up to M_ARENA_MAX, 8 a core by
// default), so the logging thread never allocates: it reads
// /proc/self/status with read(2) into a stack buffer, formats with
// snprintf into another, and writes with write(2); malloc_info() writes
// into a FILE made in the constructor, on the main thread, with a static
// buffer. It adds one thread to `threads` and no arena.
#define _GNU_SOURCE
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static int log_fd = -1;
static int info_fd = -1;
static FILE *info_file;
static char info_buffer[BUFSIZ];
static unsigned interval = 10;
static int trim;
static struct timespec started;

/// The arenas malloc_info() lists, counted in its XML: one `<heap nr="N">`
/// an arena.
static long count_arenas(void) {
    if (info_file == NULL) return -1;
    if (ftruncate(info_fd, 0) != 0) return -1;
    rewind(info_file);
    if (malloc_info(0, info_file) != 0 || fflush(info_file) != 0) return -1;
    static char xml[1 << 20];
    ssize_t length = pread(info_fd, xml, sizeof xml - 1, 0);
    if (length < 0) return -1;
    xml[length] = 0;
    long count = 0;
    for (const char *at = xml; (at = strstr(at, "<heap nr=")) != NULL; at += 9) count++;
    return count;
}

/// `name`'s value in /proc/self/status (kB, or a count), -1 when missing.
static long status_field(const char *status, const char *name) {
    const char *at = strstr(status, name);
    return at == NULL ? -1 : strtol(at + strlen(name), NULL, 10);
}

static void log_sample(void) {
    char status[8192];
    int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
    ssize_t length = fd < 0 ? -1 : read(fd, status, sizeof status - 1);
    if (fd >= 0) close(fd);
    status[length < 0 ? 0 : length] = 0;
    struct mallinfo2 info = mallinfo2();
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    char line[512];
    int size = snprintf(
        line, sizeof line, "%ld %zu %zu %zu %zu %ld %ld %ld %ld %ld\n", (long)(now.tv_sec - started.tv_sec),
        info.uordblks, info.fordblks, info.arena, info.hblkhd, count_arenas(), status_field(status, "VmRSS:"),
        status_field(status, "RssAnon:"), status_field(status, "RssFile:"), status_field(status, "Threads:"));
    if (size > 0) (void)!write(log_fd, line, (size_t)size);
}

static void *run(void *unused) {
    (void)unused;
    for (;;) {
        if (trim) malloc_trim(0);
        log_sample();
        sleep(interval);
    }
    return NULL;
}

__attribute__((constructor)) static void start(void) {
    const char *path = getenv("MALLINFO_LOG");
    if (path == NULL || *path == 0) return;
    const char *every = getenv("MALLINFO_INTERVAL");
    if (every != NULL && atoi(every) > 0) interval = (unsigned)atoi(every);
    const char *trimming = getenv("MALLINFO_TRIM");
    trim = trimming != NULL && atoi(trimming) > 0;
    log_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    if (log_fd < 0) return;
    // The FILE malloc_info() writes to is made here, on the main thread
    // (the main arena), and buffered in static memory.
    info_fd = memfd_create("mallinfo_log", MFD_CLOEXEC);
    if (info_fd >= 0 && (info_file = fdopen(info_fd, "w+")) != NULL) {
        setvbuf(info_file, info_buffer, _IOFBF, sizeof info_buffer);
    }
    static const char header[] = "seconds in_use free arena mmapped arenas vmrss rssanon rssfile threads\n";
    (void)!write(log_fd, header, sizeof header - 1);
    clock_gettime(CLOCK_MONOTONIC, &started);
    pthread_t thread;
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    pthread_create(&thread, &attributes, run, NULL);
    pthread_attr_destroy(&attributes);
}
