#ifndef CGD_SHIM_H
#define CGD_SHIM_H

// libgd, plus the built-in bitmap font the collage draws rank numbers with (no font files).
#include <gd.h>
#include <gdfontg.h>

#endif
