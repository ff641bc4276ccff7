#ifndef SWITCHYARD_TESTS_FUZZ_FUZZ_CHECK_H_
#define SWITCHYARD_TESTS_FUZZ_FUZZ_CHECK_H_

// FUZZ_CHECK(cond): a property of the code under fuzzing. A failure prints
// the condition and aborts, which libFuzzer reports as a crash (and saves the
// input) and the replay tests report as a failed test. Unlike assert() it is
// active in optimized (-DNDEBUG) builds.

#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(cond)                                                \
  do {                                                                  \
    if (!(cond)) {                                                      \
      std::fprintf(stderr, "%s:%d: FUZZ_CHECK failed: %s\n", __FILE__, \
                   __LINE__, #cond);                                    \
      std::abort();                                                     \
    }                                                                   \
  } while (0)

#endif  // SWITCHYARD_TESTS_FUZZ_FUZZ_CHECK_H_
