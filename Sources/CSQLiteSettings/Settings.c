#include "CSQLiteSettings.h"

#include <sqlite3.h>

int CSQLiteSettings_disableMemoryStatistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

int CSQLiteSettings_allocatePagesOneByOne(void) {
    return sqlite3_config(SQLITE_CONFIG_PAGECACHE, (void *)0, 0, 0);
}
