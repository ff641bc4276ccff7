#!/bin/bash
# `switchyard run --replicas` and `bench --replicas` (docs/scaling.md,
# "Replicas in one process") on the reference backend's devices ref:0..3,
# no GPU needed: outputs of 2 and 4 replicas equal a one-device run bit for
# bit (the .npy files written with --output), batches that do not divide
# (5 over 2, 1 over 4: idle replicas), the per-device table, and the errors
# for duplicate or missing devices and flags that do not go with replicas.
# VGG11 at 32x32 keeps the reference backend's plain loops to seconds.

set -u

CLI_TEST_LIB="${TEST_SRCDIR:-$0.runfiles}/switchyard/tests/cli_test_lib.sh"
[[ -f "$CLI_TEST_LIB" ]] || CLI_TEST_LIB="$(dirname "$0")/cli_test_lib.sh"
source "$CLI_TEST_LIB"
PLUGIN="$(need_runfile backends/reference/libswitchyard_ref_plugin.so)" || exit 1
export SWITCHYARD_REF_DEVICES=4
CLI_TIMEOUT_S=600

# Inputs as .npy files (float32 [N, 3, 32, 32], varied values), written with
# the standard library only.
write_npy() {
  python3 - "$1" "$2" <<'PY'
import math, struct, sys
path, n = sys.argv[1], int(sys.argv[2])
shape = (n, 3, 32, 32)
count = n * 3 * 32 * 32
header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, 3, 32, 32), }" % n
header += " " * (63 - (10 + len(header)) % 64) + "\n"
with open(path, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
    f.write(struct.pack("<%df" % count, *(math.sin(0.37 * i + 0.1 * (i // 3072)) for i in range(count))))
PY
}
write_npy "$TMP/x5.npy" 5 || fail "cannot write $TMP/x5.npy"
write_npy "$TMP/x1.npy" 1 || fail "cannot write $TMP/x1.npy"

# expect_row NAME DEVICE SAMPLES: the per-device table has DEVICE with
# SAMPLES samples per run.
expect_row() {
  if ! grep -qE "^  $2 +$3 " "$TMP/$1.out"; then
    fail "$1: no table row '$2 ... $3 samples/run'"
    grep -A8 "replicas:" "$TMP/$1.out" | sed 's/^/    /'
  fi
}

COMMON=(--plugin="$PLUGIN" run --model=vgg11 --warmup=0 --iterations=1)

# Batch 5: one device, 2 replicas (3 + 2), 4 replicas (2 + 1 + 1 + 1).
run_cli one5 "${COMMON[@]}" --device=ref:0 --input="$TMP/x5.npy" --output="$TMP/one5.npy"
expect_exit one5 0
run_cli two5 "${COMMON[@]}" --replicas=ref:0,ref:1 --input="$TMP/x5.npy" \
  --output="$TMP/two5.npy" --report="$TMP/two5.json"
expect_exit two5 0
expect_in two5 out "on ref:0,ref:1 (one replica each)"
expect_in two5 out "busy share"
expect_row two5 ref:0 3
expect_row two5 ref:1 2
expect_row two5 total 5
grep -q '"replicas"' "$TMP/two5.json" || fail "two5: the report has no replicas entry"
grep -q '"busy_share"' "$TMP/two5.json" || fail "two5: the report has no busy_share"
cmp "$TMP/one5.npy" "$TMP/two5.npy" || fail "two5: outputs differ from one device's"

run_cli four5 "${COMMON[@]}" --replicas=ref:0,ref:1,ref:2,ref:3 --input="$TMP/x5.npy" \
  --output="$TMP/four5.npy"
expect_exit four5 0
expect_row four5 ref:0 2
expect_row four5 ref:1 1
expect_row four5 ref:3 1
cmp "$TMP/one5.npy" "$TMP/four5.npy" || fail "four5: outputs differ from one device's"

# Batch 1 over 4 replicas: three are idle, and say so.
run_cli one1 "${COMMON[@]}" --device=ref:2 --input="$TMP/x1.npy" --output="$TMP/one1.npy"
expect_exit one1 0
run_cli four1 "${COMMON[@]}" --replicas=ref:3,ref:2,ref:1,ref:0 --input="$TMP/x1.npy" \
  --output="$TMP/four1.npy"
expect_exit four1 0
expect_in four1 out "was idle"
expect_row four1 ref:3 1
expect_row four1 ref:0 0
cmp "$TMP/one1.npy" "$TMP/four1.npy" || fail "four1: outputs differ from one device's"

# Seeded batches split the same way (--batch, no file).
run_cli seeded1 "${COMMON[@]}" --device=ref:1 --batch=3 --input_shape=3x3x32x32 \
  --output="$TMP/seeded1.npy"
expect_exit seeded1 0
run_cli seeded2 "${COMMON[@]}" --replicas=ref:1,ref:0 --batch=3 --input_shape=3x3x32x32 \
  --output="$TMP/seeded2.npy"
expect_exit seeded2 0
cmp "$TMP/seeded1.npy" "$TMP/seeded2.npy" || fail "seeded2: outputs differ from one device's"

# Refused before any work, with what to do.
run_cli twice "${COMMON[@]}" --replicas=ref:0,ref:1,ref:0 --batch=2
expect_exit twice 1
expect_in twice err "ref:0 is named twice"
run_cli cpu_twice "${COMMON[@]}" --replicas=cpu,cpu:0 --batch=2
expect_exit cpu_twice 1
expect_in cpu_twice err "cpu:0 is named twice"
run_cli missing "${COMMON[@]}" --replicas=ref:0,ref:7 --batch=2
expect_exit missing 1
expect_in missing err "ref:7 is not available"
expect_in missing err "devices here: cpu:0, ref:0, ref:1, ref:2, ref:3"
run_cli malformed "${COMMON[@]}" --replicas=ref:0,,Ref-1 --batch=2
expect_exit malformed 1
expect_in malformed err "--replicas=ref:0,,Ref-1: 'Ref-1'"
run_cli with_device "${COMMON[@]}" --replicas=ref:0,ref:1 --device=ref:0 --batch=2
expect_exit with_device 1
expect_in with_device err "--replicas and --device"
run_cli with_batches "${COMMON[@]}" --replicas=ref:0,ref:1 --batches=2
expect_exit with_batches 1
expect_in with_batches err "not supported yet"
run_cli with_profile "${COMMON[@]}" --replicas=ref:0,ref:1 --profile-summary
expect_exit with_profile 1
expect_in with_profile err "does not go with --replicas"
run_cli graph_replicas --plugin="$PLUGIN" graph --model=vgg11 --replicas=ref:0,ref:1
expect_exit graph_replicas 2
expect_in graph_replicas err "--replicas does not apply to \`switchyard graph\`"

# bench: the batch split per batch size, a table per batch, JSON.
run_cli bench --plugin="$PLUGIN" bench --model=vgg11 --input_shape=1x3x32x32 \
  --replicas=ref:0,ref:1 --batch=1,3 --warmup=0 --iterations=1 --json="$TMP/bench.json"
expect_exit bench 0
expect_in bench out "switchyard bench --replicas=ref:0,ref:1"
expect_in bench out "batch 3: end to end"
expect_in bench out "busy share"
expect_in bench out "was idle"
grep -q '"switchyard.bench_replicas/1"' "$TMP/bench.json" || fail "bench: JSON schema missing"
run_cli bench_devices --plugin="$PLUGIN" bench --model=vgg11 --replicas=ref:0,ref:1 \
  --devices=ref:0
expect_exit bench_devices 1
expect_in bench_devices err "--replicas and --devices were both given"
run_cli bench_twice --plugin="$PLUGIN" bench --model=vgg11 --replicas=ref:1,ref:1
expect_exit bench_twice 1
expect_in bench_twice err "ref:1 is named twice"

finish
