#ifndef CMALLOCTUNING_H
#define CMALLOCTUNING_H

/// glibc's allocator settings, which Swift's Glibc module does not
/// import (`<malloc.h>`): `bowties-serve`'s MemoryPolicy.

/// `mallopt(M_ARENA_MAX, count)`: 1 when glibc took it.
int CMallocTuning_limitArenas(int count);

/// `malloc_trim(0)`: free pages of every arena back to the kernel; 1 when
/// some memory was released.
int CMallocTuning_trim(void);

#endif
