#!/bin/bash
# Adversarial test of the `switchyard` command line (issue 13): output files
# that must not be replaced, resource bounds, validation before any work,
# flags that do not apply, help and --version, and outputs people read.
# Every case checks the exit code and that the message names the flag or path
# and the reason. Two VGG11 runs and one bench run; everything else is refused
# before the weights are initialised (checked: no "parameters" line).

set -u

# The shared helpers (run_cli, expect_exit, expect_in, ...; BIN, TMP):
# tests/cli_test_lib.sh, in the runfiles tree or beside this script.
CLI_TEST_LIB="${TEST_SRCDIR:-$0.runfiles}/switchyard/tests/cli_test_lib.sh"
[[ -f "$CLI_TEST_LIB" ]] || CLI_TEST_LIB="$(dirname "$0")/cli_test_lib.sh"
source "$CLI_TEST_LIB"
CLI_TIMEOUT_S=120  # a hang is a failure
TMP="$TMP/adversarial"
rm -rf "$TMP"
mkdir -p "$TMP/w"
W="$TMP/w"  # where outputs go; checked for leftovers

PY=""
for p in python3 python; do
  if command -v "$p" >/dev/null 2>&1; then PY="$p"; break; fi
done

# refused NAME CODE TEXT... ARGS: exits CODE (1 or 2), stderr holds each TEXT,
# and nothing was initialised (no model line on stdout).
refused() {
  local name="$1" code="$2"
  shift 2
  local texts=()
  while [[ "$1" != "--" ]]; do texts+=("$1"); shift; done
  shift
  run_cli "$name" "$@"
  expect_exit "$name" "$code"
  for t in "${texts[@]}"; do expect_in "$name" err "$t"; done
  expect_not_in "$name" out "parameters) on"
}
same_file() {  # same_file NAME PATH EXPECTED_CONTENT
  if [[ "$(cat "$2" 2>/dev/null)" != "$3" ]]; then
    fail "$1: $2 was changed or replaced"
  fi
}

# A small valid .npy of float32 with the given shape and fill (nan allowed).
make_npy() {  # make_npy PATH FILL DIMS...
  "$PY" - "$@" <<'PYEOF'
import struct, sys
path, fill, dims = sys.argv[1], float(sys.argv[2]), [int(d) for d in sys.argv[3:]]
shape = "(" + ", ".join(str(d) for d in dims) + ("," if len(dims) == 1 else "") + ")"
header = "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }" % shape
header += " " * (63 - (10 + len(header)) % 64) + "\n"
n = 1
for d in dims: n *= d
with open(path, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
    f.write(struct.pack("<%df" % n, *([fill] * n)))
PYEOF
}

# === 1. Output files ==========================================================
echo "weights" >"$W/w.safetensors"
refused out_is_weights 1 "--output" "same file as --weights" "$W/w.safetensors" -- \
    run --weights="$W/w.safetensors" --output="$W/w.safetensors"
same_file out_is_weights "$W/w.safetensors" "weights"
refused report_is_weights 1 "--report" "same file as --weights" -- \
    run --weights="$W/w.safetensors" --report="$W/./w.safetensors"
ln "$W/w.safetensors" "$W/w_link.safetensors"
refused out_is_weights_hardlink 1 "hard links" -- \
    run --weights="$W/w.safetensors" --output="$W/w_link.safetensors"
rm -f "$W/w_link.safetensors"
echo "model" >"$W/m.onnx"
refused out_is_model 1 "--output" "same file as --model" -- \
    run --model="$W/m.onnx" --output="$W/m.onnx"
same_file out_is_model "$W/m.onnx" "model"
refused bench_json_is_model 1 "--json" "same file as --model" -- \
    bench --model="$W/m.onnx" --json="$W/m.onnx"
same_file bench_json_is_model "$W/m.onnx" "model"
rm -f "$W/m.onnx"
refused report_is_output 1 "--report=" "same file as --output=" -- \
    run --output="$W/a.npy" --report="$W/a.npy"
refused profile_is_report 1 "--profile=" "same file as --report=" -- \
    run --report="$W/a.json" --profile="$W/../w/a.json"
refused two_outputs_one_path 1 "same file" -- run --output="$W/a.npy,$W/a.npy"
refused out_device 1 "FAILED_PRECONDITION" "'/dev/null'" "device" -- run --output=/dev/null
refused report_device 1 "FAILED_PRECONDITION" "device" -- run --report=/dev/full
refused out_directory 1 "directory" -- run --report="$W"
ln -s "$W/target.npy" "$W/link.npy"
echo "target" >"$W/target.npy"
refused out_symlink 1 "symbolic link" "$W/link.npy" -- run --output="$W/link.npy"
same_file out_symlink "$W/target.npy" "target"
rm -f "$W/link.npy"
ln "$W/target.npy" "$W/hard.npy"
refused out_hardlink 1 "hard links" "$W/hard.npy" -- run --output="$W/hard.npy"
rm -f "$W/hard.npy" "$W/target.npy"
echo "readonly" >"$W/ro.npy"
chmod 444 "$W/ro.npy"
refused out_readonly 1 "PERMISSION_DENIED" "read-only" "$W/ro.npy" -- run --output="$W/ro.npy"
same_file out_readonly "$W/ro.npy" "readonly"
chmod 644 "$W/ro.npy"
rm -f "$W/ro.npy"
refused out_missing_folder 1 "NOT_FOUND" "$W/nope/y.npy" "does not exist" -- \
    run --output="$W/nope/y.npy"
refused report_missing_folder 1 "NOT_FOUND" "--report" -- run --report="$W/nope/r.json"
refused trace_missing_folder 1 "NOT_FOUND" "--profile" -- run --profile="$W/nope/t.json"
refused bench_json_missing_folder 1 "NOT_FOUND" "--json" -- \
    bench --json="$W/nope/b.json" --devices=cpu --batch=1 --iterations=1 --warmup=0
refused bench_same_json_markdown 1 "same file" -- \
    bench --json="$W/b.out" --markdown="$W/b.out" --devices=cpu --batch=1
if [[ "$(id -u)" -ne 0 ]]; then
  mkdir "$W/locked" && chmod 555 "$W/locked"
  refused out_unwritable_folder 1 "PERMISSION_DENIED" "$W/locked/y.npy" -- \
      run --output="$W/locked/y.npy"
  chmod 755 "$W/locked" && rmdir "$W/locked"
fi
if [[ -n "$(ls -A "$W" | grep -v '^w.safetensors$')" ]]; then
  fail "refused runs left files behind: $(ls -A "$W")"
fi

# === 2. Bounds ================================================================
refused batch_huge 1 "RESOURCE_EXHAUSTED" "--batch=100000" "use a batch of at most" -- \
    run --batch=100000
refused batch_beyond_limit 1 "--batch=" "out of range" -- run --batch=99999999999
refused batch_zero 1 "--batch=0" -- run --batch=0
refused batch_negative 1 "--batch=-5" -- run --batch=-5
refused batch_text 1 "--batch wants an integer" -- run --batch=many
refused threads_huge 1 "--threads=100000" "out of range" "per core" -- run --threads=100000
refused threads_negative 1 "--threads=-1" -- run --threads=-1
refused threads_option_huge 1 "cpu.threads=100000" "out of range" -- \
    devices --backend_option=cpu.threads=100000
refused prefetch_overflow 1 "--prefetch=2147483647" "between 1 and 1024" -- \
    run --batches=2 --prefetch=2147483647
refused prefetch_zero 1 "--prefetch=0" -- run --batches=2 --prefetch=0
refused loader_threads_huge 1 "--loader-threads=100000" -- \
    run --batches=2 --loader-threads=100000
refused loader_threads_zero 1 "--loader-threads=0" -- run --batches=2 --loader-threads=0
refused loader_cost_inf 1 "--loader-cost-ms=inf" "finite" -- run --batches=2 --loader-cost-ms=inf
refused loader_cost_nan 1 "--loader-cost-ms=nan" -- run --batches=2 --loader-cost-ms=nan
refused loader_cost_negative 1 "--loader-cost-ms=-1" -- run --batches=2 --loader-cost-ms=-1
refused loader_work_bad 1 "--loader-work must be busy or sleep" -- \
    run --batches=2 --loader-work=spin
refused batches_negative 1 "--batches=-1" -- run --batches=-1
refused iterations_zero 1 "--iterations=0" -- run --iterations=0
refused iterations_huge 1 "--iterations=2000000000" "out of range" -- run --iterations=2000000000
refused warmup_negative 1 "--warmup=-1" -- run --warmup=-1
refused profile_rows_negative 1 "--profile-rows=-3" "out of range" -- \
    run --model=vgg11 --profile-summary --profile-rows=-3
refused profile_rows_alone 1 "--profile-rows" "--profile-summary" -- run --model=vgg11 --profile-rows=5
refused bench_iterations_zero 1 "--iterations=0" -- bench --iterations=0
refused bench_warmup_negative 1 "--warmup=-3" -- bench --warmup=-3
refused bench_batch_zero 1 "--batch=0" -- bench --batch=1,0

# === 3. Validate before work ==================================================
refused input_dev_zero 1 "--input" "/dev/zero" "not a file" -- run --input=/dev/zero
refused input_directory 1 "--input" "directory" -- run --input="$TMP"
refused weights_device 1 "--weights" "/dev/urandom" "not a file" -- run --weights=/dev/urandom
refused weights_missing 1 "NOT_FOUND" "--weights" "$W/missing.safetensors" -- \
    run --weights="$W/missing.safetensors"
refused input_missing 1 "NOT_FOUND" "--input" -- run --input="$W/missing.npy"
refused labels_device 1 "--labels" "not a file" -- run --labels=/dev/zero
: >"$TMP/empty_labels.txt"
refused labels_empty 1 "--labels" "empty" -- run --labels="$TMP/empty_labels.txt"
refused batch_with_input 1 "--batch and --input" -- run --input="$W/x.npy" --batch=4
refused bad_device 1 "cuda:7" -- run --device=cuda:7
refused bad_placement 1 "placement" -- run --placement=sometimes
if [[ -n "$PY" ]]; then
  make_npy "$TMP/rank2.npy" 0 2 3
  refused input_wrong_rank 1 "--input=" "the shape given, [2, 3], has rank 2" "has rank 4" -- \
      run --input="$TMP/rank2.npy"
  make_npy "$TMP/channels.npy" 0 1 4 32 32
  refused input_wrong_channels 1 "shape [1, 4, 32, 32]" -- run --input="$TMP/channels.npy"
fi
refused output_with_batches 1 "--output with --batches" "give --images=DIR" -- \
    run --batches=2 --output="$W/y.npy"
refused loader_without_batches 1 "--prefetch applies to a stream" -- run --prefetch=4

# Flags that do not apply to the command: named, with the commands that take it.
refused bench_profile 2 "--profile does not apply to \`switchyard bench\`" "taken by: run" -- \
    bench --profile="$W/t.json"
refused run_format 2 "--format does not apply" "taken by: graph" -- run --format=dot
refused graph_output 2 "--output does not apply" -- graph --output="$W/y.npy"
refused devices_weights 2 "--weights does not apply" -- devices --weights=x
refused run_json 2 "--json does not apply" "bench, devices" -- run --json="$W/x.json"
refused run_markdown 2 "--markdown does not apply" -- run --markdown="$W/x.md"
refused graph_iterations 2 "--iterations does not apply" -- graph --iterations=3
refused bench_labels 2 "--labels does not apply" -- bench --labels=x
refused plugin_empty 2 "--plugin is empty" -- devices --plugin=
refused unknown_flag 1 "Unknown command line flag" -- run --no-such-flag=1
refused near_miss_flag 1 "unknown flag --inputs; did you mean --input?" -- run --inputs=x.npy
refused near_miss_flag_dashes 1 "did you mean --iterations?" -- run --itreations=3
refused near_miss_device 1 "did you mean --device=cpu:0?" -- run --device=cpu0
refused near_miss_devices 1 "did you mean --devices=cpu:0?" -- bench --devices=cpuu

# === 4. Help and version ======================================================
for form in "help" "-h" "--help"; do
  run_cli "help_$form" $form
  expect_exit "help_$form" 0
  expect_in "help_$form" out "commands:"
  expect_in "help_$form" out "bench"
done
for form in "help run" "run --help" "run -h" "-h run"; do
  name="help_run_${form// /_}"
  run_cli "$name" $form
  expect_exit "$name" 0
  for group in "model and input:" "device and placement:" "timing:" "outputs:" \
      "profiling:" "input pipeline (run --batches):" "backends and plugins:"; do
    expect_in "$name" out "$group"
  done
  expect_in "$name" out "--iterations  (default 5)"
  expect_in "$name" out "--loader-threads"
  expect_not_in "$name" out "No flags matched"
done
run_cli help_bench help bench
expect_exit help_bench 0
expect_in help_bench out "--iterations  (default 10)"
expect_in help_bench out "--batch  (default 1,8)"
expect_not_in help_bench out "--profile"
run_cli help_unknown help frobnicate
expect_exit help_unknown 2
expect_in help_unknown err "unknown command 'frobnicate'"
run_cli version --version
expect_exit version 0
expect_in version out "switchyard "
expect_in version out "git commit: "
expect_in version out "build mode: opt"
expect_in version out "CUDA: "
expect_in version out "target CPU: x86-64"
run_cli no_command
expect_exit no_command 2
expect_in no_command err "commands:"
run_cli devices_json devices --json
expect_exit devices_json 0
if [[ -n "$PY" ]]; then
  "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["backends"][0]["type"]; assert d["build"]["build_mode"]' \
      "$TMP/devices_json.out" || fail "devices --json: not the expected JSON"
fi
run_cli devices_json_file devices --json="$W/devices.json"
expect_exit devices_json_file 0
[[ -s "$W/devices.json" ]] || fail "devices --json=FILE wrote nothing"
rm -f "$W/devices.json"

# === 5. A run that fails late publishes nothing ===============================
# Two output files for a one-output model is found after compiling; neither
# they nor the report (checked and reserved earlier) may appear.
run_cli late_failure run --batch=1 --iterations=1 --warmup=0 \
    --output="$W/o1.npy,$W/o2.npy" --report="$W/late.json"
expect_exit late_failure 1
expect_in late_failure err "1 output but 2 files"
for f in o1.npy o2.npy late.json; do
  [[ -e "$W/$f" ]] && fail "late_failure: $W/$f was written by a failed run"
done
if [[ -n "$(ls -A "$W" | grep -v '^w.safetensors$')" ]]; then
  fail "late_failure left files behind: $(ls -A "$W")"
fi

# === 6. Outputs people read ===================================================
# A NaN input: the warning, the report field; labels; the user's own
# PATH.tmp is untouched; every output published, no temporaries left.
if [[ -n "$PY" ]]; then
  make_npy "$W/nan.npy" nan 1 3 32 32
  for i in $(seq 0 999); do echo "class_$i"; done >"$W/labels.txt"
  echo "mine" >"$W/y.npy.tmp"
  run_cli nan_run run --input="$W/nan.npy" --iterations=1 --warmup=0 \
      --labels="$W/labels.txt" --output="$W/y.npy" --report="$W/r.json" \
      --profile="$W/trace.json"
  expect_exit nan_run 0
  expect_in nan_run out "warning: output 0 has 1000 NaN"
  expect_in nan_run out "top-5 per sample: class, softmax probability"
  expect_in nan_run out "images/s"
  expect_in nan_run out "set-up: "
  expect_in nan_run out "wrote $W/y.npy"
  same_file nan_run "$W/y.npy.tmp" "mine"
  for f in y.npy r.json trace.json; do
    [[ -s "$W/$f" ]] || fail "nan_run: $W/$f missing"
  done
  "$PY" -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert r["non_finite_outputs"][0]["nan"] == 1000, r["non_finite_outputs"]
assert r["build"]["build_mode"] == "opt" and "git_commit" in r["build"]
assert "cpu_model" in r["machine"]
assert r["setup_ms"]["total"] > 0 and r["images_per_s"] > 0
assert "probability" in r["top5"][0][0]
' "$W/r.json" || fail "nan_run: report fields missing"
  leftovers="$(ls -A "$W" | grep -c 'switchyard-tmp')"
  [[ "$leftovers" -eq 0 ]] || fail "nan_run: $leftovers temporaries left"
  # The same output again: replaced in place, the input refused as output.
  refused input_is_output 1 "same file as --input" -- \
      run --input="$W/nan.npy" --output="$W/nan.npy"
  refused labels_is_report 1 "same file as --labels" -- \
      run --labels="$W/labels.txt" --report="$W/labels.txt"
fi

# bench: JSON with the build and machine facts; non-zero when it measured
# nothing (an unavailable device only).
run_cli bench bench --devices=cpu --batch=1 --iterations=1 --warmup=0 \
    --json="$W/b.json" --markdown="$W/b.md"
expect_exit bench 0
if [[ -n "$PY" ]]; then
  "$PY" -c '
import json, sys
b = json.load(open(sys.argv[1]))
assert b["machine"]["cpu_model"] and "load_average" in b["machine"], b["machine"]
assert b["build"]["version"]
' "$W/b.json" || fail "bench: build/machine facts missing from the JSON"
fi
run_cli devices_for_bench devices
if grep -q "^cuda: no devices" "$TMP/devices_for_bench.out"; then
  run_cli bench_nothing bench --devices=cuda:0 --batch=1 --iterations=1 --warmup=0
  expect_exit bench_nothing 1
  expect_in bench_nothing err "nothing was measured"
fi

finish
