#ifndef CGD_SHIM_H
#define CGD_SHIM_H

// libgd, plus the built-in bitmap font the collage draws rank numbers with (no font files).
#include <gd.h>
#include <gdfontg.h>

// Silences libgd's error reports, given its gdSetErrorMethod (looked up at run time): a
// handler takes a va_list, which Swift cannot declare.
static void cgd_ignore_error(int priority, const char *format, va_list args) {
    (void)priority;
    (void)format;
    (void)args;
}
static inline void cgd_silence(void *set_error_method) {
    ((void (*)(gdErrorMethod))set_error_method)(cgd_ignore_error);
}

// glibc's malloc_trim, to give back a render's freed memory (not in Swift's Glibc module).
#if defined(__GLIBC__)
#include <malloc.h>
static inline void cgd_release_free_memory(void) { malloc_trim(0); }
#else
static inline void cgd_release_free_memory(void) {}
#endif

#endif
