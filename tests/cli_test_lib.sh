# What the `switchyard` command-line tests share, sourced after `set -u`:
#
#   source "$(dirname "$0")/cli_test_lib.sh" (see the lines at the top of
#   tests/cli_test.sh for finding it under `bazel test` and outside it)
#   run_cli devices devices          # switchyard devices
#   expect_exit devices 0
#   expect_in devices out "cpu:0"
#   finish                           # PASS, or exit 1 after the failures
#
# It sets BIN (the binary), TMP (where each case's stdout and stderr go),
# FAILURES and CASES, and unsets the variables through which a caller's
# environment could change what the CLI does: BUILD_WORKING_DIRECTORY
# (relative paths), the CPU thread count and the plugin and ref-device
# settings.
#
# Set CLI_TIMEOUT_S (seconds) before run_cli to turn a hang into a failure.

# find_runfile PATH: the first of PATH's places that exists (the runfiles
# tree under bazel test, else the workspace or bazel-bin path next to this
# test), or nothing.
find_runfile() {
  local candidate
  for candidate in \
      "${TEST_SRCDIR:-/nonexistent}/switchyard/$1" \
      "${RUNFILES_DIR:-/nonexistent}/switchyard/$1" \
      "$0.runfiles/switchyard/$1" \
      "$(dirname "$0")/../$1"; do
    if [[ -e "$candidate" ]]; then
      echo "$candidate"
      return 0
    fi
  done
}

# need_runfile PATH: find_runfile PATH, or a FAIL line and status 1:
#   IMAGES="$(need_runfile tests/images)" || exit 1
need_runfile() {
  local found
  found="$(find_runfile "$1")"
  if [[ -z "$found" ]]; then
    echo "FAIL: cannot find $1 (TEST_SRCDIR=${TEST_SRCDIR:-unset})" >&2
    return 1
  fi
  echo "$found"
}

BIN="$(need_runfile tools/cli/switchyard)" || exit 1

TMP="${TEST_TMPDIR:-$(mktemp -d)}"
# The CLI resolves relative paths against BUILD_WORKING_DIRECTORY; a value
# inherited from `bazel run` must not redirect the test's files. Threads are
# left to --threads (or the default); plugins to what each case names.
unset BUILD_WORKING_DIRECTORY SWITCHYARD_CPU_THREADS SWITCHYARD_PLUGIN_PATH \
  SWITCHYARD_REF_DEVICES

FAILURES=0
CASES=0
fail() {
  echo "FAIL: $*"
  FAILURES=$((FAILURES + 1))
}

# run_cli NAME ARGS...: runs the binary, stdout in $TMP/NAME.out, stderr in
# $TMP/NAME.err, exit code in $RC. A crash (death by a signal) fails the
# case, and so does a hang when CLI_TIMEOUT_S is set.
run_cli() {
  local name="$1"
  shift
  CASES=$((CASES + 1))
  timeout "${CLI_TIMEOUT_S:-0}" "$BIN" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
  RC=$?
  echo "--- switchyard $* -> exit $RC"
  if [[ -n "${CLI_TIMEOUT_S:-}" && "$RC" -eq 124 ]]; then
    fail "$name: hung (killed after $CLI_TIMEOUT_S s)"
  fi
  if [[ "$RC" -gt 128 ]]; then fail "$name: died of signal $((RC - 128))"; fi
}

# expect_exit NAME CODE
expect_exit() {
  if [[ "$RC" -ne "$2" ]]; then
    fail "$1: exit code $RC, expected $2"
    sed 's/^/    /' "$TMP/$1.out" "$TMP/$1.err" | head -40
  fi
}

# expect_in NAME STREAM(out|err) TEXT: TEXT occurs literally.
expect_in() {
  if ! grep -qF -- "$3" "$TMP/$1.$2"; then
    fail "$1: std$2 does not contain '$3'"
    sed 's/^/    /' "$TMP/$1.$2" | head -40
  fi
}

# expect_not_in NAME STREAM(out|err) TEXT
expect_not_in() {
  if grep -qF -- "$3" "$TMP/$1.$2"; then
    fail "$1: std$2 contains '$3'"
  fi
}

# finish: the summary line, then exit 1 on any failure, else PASS.
finish() {
  echo
  echo "$CASES cases, $FAILURES failures"
  if [[ "$FAILURES" -ne 0 ]]; then
    exit 1
  fi
  echo "PASS"
}
