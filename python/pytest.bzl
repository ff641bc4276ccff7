"""py_pytest: a pytest file run by Debian's /usr/bin/python3 on the built
`switchyard` package (python/run_pytest.sh).

Bazel 4's native py_test would start the first `python3` on PATH, which on a
developer's machine may be another interpreter without numpy, onnx or torch;
an sh_test names the interpreter itself.
"""

def py_pytest(name, src, data = [], args = [], tags = [], **kwargs):
    native.sh_test(
        name = name,
        srcs = ["run_pytest.sh"],
        args = ["python/" + src] + args,
        data = [
            src,
            "tests/conftest.py",
            ":switchyard",
        ] + data,
        # no_asan: the module built with --config=asan is ASan-instrumented,
        # and such a shared object cannot be loaded into Debian's
        # uninstrumented Python (the ASan runtime must be the first library of
        # the process); run_pytest.sh passes without running there too.
        tags = ["no_asan", "no_tsan"] + tags,
        **kwargs
    )
