#ifndef CMALLOCTRIM_H
#define CMALLOCTRIM_H

/// glibc's `malloc_trim(0)` (declared in <malloc.h>, which the Glibc
/// module does not export): returns the whole free pages of every arena to
/// the system. `bowties serve` calls it every few seconds (MemoryTrim.swift).
int bowties_malloc_trim(void);

#endif
