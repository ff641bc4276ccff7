#!/usr/bin/env bash
# Runs pytest with Debian's interpreter (/usr/bin/python3: numpy, onnx,
# torch; the first python3 on a developer's PATH may be another one) on the
# package built at //python:switchyard, from the test's runfiles:
#   run_pytest.sh python/tests/session_test.py [pytest flags]
set -euo pipefail
root="${TEST_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}"
[[ -d "${root}/switchyard/python" ]] && root="${root}/switchyard"
so="${root}/python/switchyard/_switchyard.so"
# A sanitizer-instrumented extension (bazel test --config=asan or tsan)
# cannot be loaded into Debian's uninstrumented Python: its runtime must come
# first in the process. Say so and pass without running.
if grep -qaE "__(asan|tsan)_init" "${so}"; then
  echo "SKIPPED: ${so} is built with a sanitizer (--config=asan/tsan), which an" \
       "uninstrumented /usr/bin/python3 cannot load; the Python tests run in the plain build"
  exit 0
fi
export PYTHONPATH="${root}/python${PYTHONPATH:+:${PYTHONPATH}}"
export PYTHONDONTWRITEBYTECODE=1
junit=()
[[ -n "${XML_OUTPUT_FILE:-}" ]] && junit=(--junitxml="${XML_OUTPUT_FILE}")
cd "${root}"
exec /usr/bin/python3 -m pytest -p no:cacheprovider -q -rfE \
  --basetemp="${TEST_TMPDIR:-/tmp}/pytest" "${junit[@]}" "$@"
