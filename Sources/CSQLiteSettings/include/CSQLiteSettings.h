#ifndef CSQLITESETTINGS_H
#define CSQLITESETTINGS_H

// SQLite's process-wide settings (`sqlite3_config`), which must be made
// before SQLite initializes, that is before the first connection opens.
// `sqlite3_config` takes variadic arguments, which Swift cannot pass, so
// each setting bowties makes is a plain C function here.

/// Turns off SQLite's memory statistics (`SQLITE_CONFIG_MEMSTATUS`).
///
/// With them on (the default), every `sqlite3_malloc` and `sqlite3_free`
/// takes a global mutex to count the bytes in use, for
/// `sqlite3_memory_used()` and the soft heap limit, neither of which
/// bowties uses: 5 % of an import's storing thread (bench/README.md,
/// "session 8").
///
/// Returns SQLite's result code: `SQLITE_MISUSE` (21) when SQLite was
/// already initialized in this process, and the setting is left as it was.
int CSQLiteSettings_disableMemoryStatistics(void);

/// Makes every page cache allocate its pages one at a time, as it needs
/// them (`SQLITE_CONFIG_PAGECACHE` with no buffer and no pages).
///
/// By default each page cache, at its first page, allocates room for 20
/// pages at once: 87 KB, for every connection opened and for every
/// temporary b-tree a statement makes (an `IN` list, a sort), even when
/// it then holds one page. A server that runs such statements for every
/// request allocates and frees that block thousands of times a minute.
///
/// Returns SQLite's result code, as above.
int CSQLiteSettings_allocatePagesOneByOne(void);

#endif
