#ifndef CMALLOC_SHIM_H
#define CMALLOC_SHIM_H

// glibc's allocator settings: `<malloc.h>` (`mallopt`, `M_ARENA_MAX`),
// which Swift's Glibc module leaves out. Part of the C library, so
// nothing to link. Only bowties-serve imports it (MemoryPolicy.swift).

#include <malloc.h>

#endif
