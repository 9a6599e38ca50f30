#ifndef CGD_SHIM_H
#define CGD_SHIM_H

// libgd, plus the built-in bitmap font the collage draws rank numbers with (no font files).
#include <gd.h>
#include <gdfontg.h>

// glibc's malloc_trim, to give back a render's freed memory (not in Swift's Glibc module).
#if defined(__GLIBC__)
#include <malloc.h>
static inline void cgd_release_free_memory(void) { malloc_trim(0); }
#else
static inline void cgd_release_free_memory(void) {}
#endif

#endif
