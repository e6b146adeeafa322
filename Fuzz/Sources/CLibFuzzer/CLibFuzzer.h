// libFuzzer's driver, from compiler-rt's libclang_rt.fuzzer (linked by `-sanitize=fuzzer`).
// Called from a Swift `main` because SwiftPM renames an executable's `main` symbol, which leaves
// no room for libFuzzer's own.
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
