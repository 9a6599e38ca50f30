#ifndef CMALLOC_SHIM_H
#define CMALLOC_SHIM_H

// glibc's malloc_trim, which Swift's Glibc module does not declare. stdlib.h first: it is
// what defines __GLIBC__ on glibc systems. The arena limit is not here: deployments set it
// with GLIBC_TUNABLES, which does the same before the first allocation.
#include <stdlib.h>
#if defined(__GLIBC__)
#include <malloc.h>
// Hands memory freed on every arena back to the system.
static inline void cmalloc_release_free_memory(void) { malloc_trim(0); }
#else
static inline void cmalloc_release_free_memory(void) {}
#endif

#endif
