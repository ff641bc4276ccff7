"""fuzz_target: one libFuzzer target's corpus replay test.

A target NAME is three files by convention, the same ones tools/fuzz.sh
builds and runs with clang and libFuzzer:

    tests/fuzz/NAME_fuzzer.cc    LLVMFuzzerTestOneInput
    tests/fuzz/corpus/NAME/      its seeds and past findings
    tests/fuzz/NAME.dict         (optional) its libFuzzer dictionary

fuzz_target(name = NAME, deps = [...]) makes //tests/fuzz:NAME_fuzzer_replay_test,
which compiles NAME_fuzzer.cc with the project's compiler and runs every
corpus input through it (replay_main.cc), so `bazel test //...` and
`--config=asan` keep the corpus passing. A target added here must also be
added to TARGETS in tools/fuzz.sh, which links the sources Bazel lists for
the replay test.
"""

def fuzz_target(name, deps, size = "small", **kwargs):
    """Declares NAME_fuzzer_replay_test.

    Args:
      name: the fuzz target, e.g. "npy" (tools/fuzz.sh's name for it).
      deps: what NAME_fuzzer.cc uses besides fuzz_check.h and the replay main.
      size: the test size.
      **kwargs: passed to the cc_test (tags, timeout, ...).
    """
    corpus = "corpus/" + name
    native.cc_test(
        name = name + "_fuzzer_replay_test",
        size = size,
        srcs = [name + "_fuzzer.cc"],
        args = ["tests/fuzz/" + corpus],
        data = native.glob([corpus + "/*"]),
        deps = [
            ":fuzz_check",
            ":replay_main",
        ] + deps,
        **kwargs
    )
