#pragma once

// A property check for fuzz targets: on failure, prints the condition and
// crashes through __builtin_trap so libFuzzer records the input. Fuzz targets
// are test programs, not part of mpidbg.
#include <cstdio>

#define FUZZ_CHECK(condition)                                                                  \
  do {                                                                                         \
    if (!(condition)) {                                                                        \
      std::fprintf(stderr, "FUZZ_CHECK failed: %s (%s:%d)\n", #condition, __FILE__, __LINE__); \
      __builtin_trap();                                                                        \
    }                                                                                          \
  } while (0)
