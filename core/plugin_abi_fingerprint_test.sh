#!/bin/bash
# The plugin boundary's headers are the ones core/plugin_abi_fingerprint.txt
# records for this kPluginAbiVersion; and, on a copy of core/, the check
# catches a changed boundary: a comment passes, code fails until the version
# is bumped and the fingerprint updated, and --update refuses without a bump.

set -u
root="${TEST_SRCDIR:-$(dirname "$0")/..}"
[[ -d "$root/switchyard/core" ]] && root="$root/switchyard"
PY=/usr/bin/python3
CHECK="$root/tools/plugin_abi_fingerprint.py"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

"$PY" "$CHECK" --root="$root" || fail "the boundary differs from core/plugin_abi_fingerprint.txt (above)"

copy="$(mktemp -d "${TEST_TMPDIR:-/tmp}/abi.XXXXXX")"
mkdir -p "$copy/core"
cp "$root"/core/*.h "$root/core/plugin_abi_fingerprint.txt" "$copy/core/"
chmod u+w "$copy"/core/*
check() { "$PY" "$CHECK" --root="$copy" "$@" > "$copy/out" 2>&1; }

echo "// a comment changes nothing" >> "$copy/core/backend.h"
check || fail "a comment counted as a boundary change: $(cat "$copy/out")"

sed -i 's/^class BackendDevice {$/class BackendDevice {\n public:\n  virtual void NewSlot();/' "$copy/core/backend.h"
grep -q NewSlot "$copy/core/backend.h" || fail "the test's edit did not apply"
if check; then
  fail "a new virtual function in BackendDevice passed the check"
else
  grep -q "core/backend.h" "$copy/out" || fail "the error does not name core/backend.h: $(cat "$copy/out")"
  grep -q "bump kPluginAbiVersion" "$copy/out" || fail "the error does not say to bump: $(cat "$copy/out")"
fi
check --update && fail "--update recorded a changed boundary without a new version"

version=$(sed -nE 's/.*kPluginAbiVersion = ([0-9]+);.*/\1/p' "$copy/core/plugin.h")
sed -i "s/kPluginAbiVersion = ${version};/kPluginAbiVersion = $((version + 1));/" "$copy/core/plugin.h"
if check; then
  fail "a bumped version passed without --update"
else
  grep -q -- "--update" "$copy/out" || fail "the error does not say --update: $(cat "$copy/out")"
fi
check --update || fail "--update after a bump failed: $(cat "$copy/out")"
check || fail "the check after --update failed: $(cat "$copy/out")"

if [[ $failures -gt 0 ]]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "PASS"
