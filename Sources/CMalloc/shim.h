#ifndef CMALLOC_SHIM_H
#define CMALLOC_SHIM_H

// glibc's malloc_trim and mallopt, which Swift's Glibc module does not declare. stdlib.h
// first: it is what defines __GLIBC__ on glibc systems.
#include <stdlib.h>
#if defined(__GLIBC__)
#include <malloc.h>
// Hands memory freed on every arena back to the system.
static inline void cmalloc_release_free_memory(void) { malloc_trim(0); }
// At most `count` malloc arenas: glibc's default is eight per core, each holding freed memory
// of its own. Takes effect for arenas made after it, so it is called before the first thread.
static inline void cmalloc_limit_arenas(int count) { mallopt(M_ARENA_MAX, count); }
#else
static inline void cmalloc_release_free_memory(void) {}
static inline void cmalloc_limit_arenas(int count) { (void)count; }
#endif

#endif
