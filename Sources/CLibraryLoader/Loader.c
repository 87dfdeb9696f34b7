#include "CLibraryLoader.h"
#include "Loader.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/// EX_UNAVAILABLE (sysexits.h): a library bowties needs is not there.
static const int CLibraryLoader_unavailable = 69;

__attribute__((noreturn)) static void CLibraryLoader_fail(const struct CLibraryLoader_Library *library, const char *what) {
    const char *reason = dlerror();
    // One write, so that the line is not split by another thread's output.
    char message[1024];
    int length = snprintf(
        message, sizeof message, "bowties: error: cannot load %s%s, which %s needs: %s\n", library->soname, what,
        library->purpose, reason ? reason : "not found");
    if (length > 0) {
        ssize_t ignored = write(STDERR_FILENO, message, (size_t)length < sizeof message ? (size_t)length : sizeof message - 1);
        (void)ignored;
    }
    _exit(CLibraryLoader_unavailable);
}

/// A library is opened once per process, under a lock: the import reads
/// on one thread and stores on another. RTLD_LOCAL: its symbols are only
/// reached through `dlsym` on the handle, so they stand in for nothing else.
static pthread_mutex_t CLibraryLoader_lock = PTHREAD_MUTEX_INITIALIZER;

void *CLibraryLoader_symbol(struct CLibraryLoader_Library *library, const char *name, void **slot) {
    void *address = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (address) { return address; }
    pthread_mutex_lock(&CLibraryLoader_lock);
    if (!library->opened) {
        library->handle = dlopen(library->soname, RTLD_NOW | RTLD_LOCAL);
        library->opened = 1;
    }
    void *handle = library->handle;
    pthread_mutex_unlock(&CLibraryLoader_lock);
    if (!handle) { CLibraryLoader_fail(library, ""); }
    address = dlsym(handle, name);
    if (!address) { CLibraryLoader_fail(library, " (a function is missing)"); }
    __atomic_store_n(slot, address, __ATOMIC_RELEASE);
    return address;
}

int CLibraryLoader_isLoaded(const char *soname) {
    void *handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    if (!handle) { return 0; }
    dlclose(handle);
    return 1;
}
