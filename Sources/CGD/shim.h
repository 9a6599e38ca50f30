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

#endif
