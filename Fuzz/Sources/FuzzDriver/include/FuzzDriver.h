#ifndef VINYLOGUE_FUZZ_DRIVER_H
#define VINYLOGUE_FUZZ_DRIVER_H

#include <stddef.h>
#include <stdint.h>

/// Hands the process to libFuzzer's driver with the harness's `LLVMFuzzerTestOneInput`.
///
/// SwiftPM links every executable with `main` pointing at `<module>_main`, so libFuzzer's own
/// `main` is never linked in; each harness defines `<module>_main` and calls this instead.
int fuzz_driver_main(int argc, char **argv);

#endif
