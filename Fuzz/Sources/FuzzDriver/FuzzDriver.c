#include "FuzzDriver.h"

// From libFuzzer (linked by -sanitize=fuzzer).
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
// From the harness being linked.
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int fuzz_driver_main(int argc, char **argv) {
    return LLVMFuzzerRunDriver(&argc, &argv, LLVMFuzzerTestOneInput);
}
