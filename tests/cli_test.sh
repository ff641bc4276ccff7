#!/bin/bash
# End-to-end test of the `switchyard` command line: devices, run (top-5,
# report, output file), graph (text and dot), and the failures a user meets
# first, each with its exit code and a message that says what to do.
#
# Checks results and messages only; times are printed by the tool but never
# compared.

set -u

# The shared helpers (run_cli, expect_exit, expect_in, ...; BIN, TMP):
# tests/cli_test_lib.sh, in the runfiles tree or beside this script.
CLI_TEST_LIB="${TEST_SRCDIR:-$0.runfiles}/switchyard/tests/cli_test_lib.sh"
[[ -f "$CLI_TEST_LIB" ]] || CLI_TEST_LIB="$(dirname "$0")/cli_test_lib.sh"
source "$CLI_TEST_LIB"

# --- devices ---------------------------------------------------------------
run_cli devices devices
expect_exit devices 0
expect_in devices out "cpu: 1 device"
expect_in devices out "cpu:0"
expect_in devices out "threads"
expect_in devices out "MiB total"
expect_in devices out "option cpu.threads="
expect_in devices out "option cpu.fusion=on"

# Backend options are set before the command, --threads as cpu.threads.
run_cli devices_options devices --backend_option=cpu.fusion=off --threads=1
expect_exit devices_options 0
expect_in devices_options out "option cpu.fusion=off"
expect_in devices_options out "option cpu.threads=1"
expect_in devices_options out "threads 1"
run_cli devices_options_repeated devices --backend-option=cpu.threads=3 \
    --backend_option=cpu.fusion=off,cpu.fusion=on
expect_exit devices_options_repeated 0
expect_in devices_options_repeated out "option cpu.threads=3"
expect_in devices_options_repeated out "option cpu.fusion=on"

# --- run ---------------------------------------------------------------------
run_cli run run --model=vgg11 --batch=1 --iterations=1 --warmup=0 --threads=2 \
    --report="$TMP/r.json" --output="$TMP/y.npy"
expect_exit run 0
expect_in run out "model vgg11 (132863336 parameters) on cpu:0, 1 input on cpu:0:"
expect_in run out "input [batch, 3, height, width] float32: [1, 3, 224, 224] float32 seeded"
expect_in run out "images/s"
expect_in run out "output [1, 1000]"
expect_in run out "sample 0 top-5:"
expect_in run out "forward: median"
expect_in run out "wrote $TMP/r.json"

if [[ ! -s "$TMP/r.json" ]]; then
  fail "run: no report at $TMP/r.json"
else
  PY=""
  for p in /usr/bin/python3 python3; do
    if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import json' 2>/dev/null; then
      PY="$p"
      break
    fi
  done
  if [[ -n "$PY" ]]; then
    if ! "$PY" - "$TMP/r.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
problems = []
def want(cond, what):
    if not cond:
        problems.append(what)
want(r.get("model") == "vgg11", "model == vgg11")
want(r.get("device") == "cpu:0", "device == cpu:0")
want(r.get("batch") == 1, "batch == 1")
want(r.get("iterations") == 1 and r.get("warmup") == 0, "iterations 1, warmup 0")
want(r.get("input_shape") == [1, 3, 224, 224], "input_shape")
want(r.get("output_shape") == [1, 1000], "output_shape")
want(r.get("cpu_threads") == 2, "cpu_threads == 2 (from --threads=2)")
want(r.get("backend_options") == {"threads": "2", "fusion": "on",
                                  "conv_algorithm": "auto", "memory_cache_mb": "1024"},
     "backend_options == {threads: 2, fusion: on, conv_algorithm: auto, memory_cache_mb: 1024}")
want(r.get("memory", {}).get("device") == "cpu:0", "memory.device == cpu:0")
ms = r.get("forward_ms", {})
for key in ("median", "min", "max"):
    want(isinstance(ms.get(key), (int, float)) and ms[key] > 0, "forward_ms." + key + " > 0")
if all(isinstance(ms.get(k), (int, float)) for k in ("median", "min", "max")):
    want(ms["min"] <= ms["median"] <= ms["max"], "min <= median <= max")
top5 = r.get("top5", [])
want(len(top5) == 1 and len(top5[0]) == 5, "top5: one sample of five")
if len(top5) == 1 and len(top5[0]) == 5:
    values = [e["value"] for e in top5[0]]
    want(values == sorted(values, reverse=True), "top5 sorted best first")
    want(all(0 <= e["class"] < 1000 for e in top5[0]), "top5 classes in [0, 1000)")
if problems:
    print("report problems: " + "; ".join(problems))
    print(json.dumps(r, indent=1)[:2000])
    sys.exit(1)
EOF
    then
      fail "run: report content"
    fi
  else
    for key in '"model": "vgg11"' '"device": "cpu:0"' '"batch": 1' '"forward_ms"' \
        '"median"' '"min"' '"max"'; do
      grep -qF -- "$key" "$TMP/r.json" || fail "run: report lacks $key"
    done
  fi
fi

if [[ ! -s "$TMP/y.npy" ]]; then
  fail "run: no output at $TMP/y.npy"
else
  head -c 6 "$TMP/y.npy" | grep -q "NUMPY" || fail "run: y.npy is not a .npy file"
  head -c 128 "$TMP/y.npy" | grep -qF "'shape': (1, 1000)" ||
      fail "run: y.npy header lacks shape (1, 1000)"
  head -c 128 "$TMP/y.npy" | grep -qF "'descr': '<f4'" ||
      fail "run: y.npy is not float32"
fi

# --- graph ---------------------------------------------------------------------
run_cli graph_text graph --model=vgg11 --format=text
expect_exit graph_text 0
expect_in graph_text out "input input [1, 3, 224, 224] on cpu:0"
expect_in graph_text out "features.0/conv2d  conv2d([1, 3, 224, 224], [64, 3, 3, 3], [64]) -> [1, 64, 224, 224]  on cpu:0"
expect_in graph_text out "features.20/max_pool2d"
expect_in graph_text out "flatten/flatten"
expect_in graph_text out "classifier.6/linear  linear([1, 4096], [1000, 4096], [1000]) -> [1, 1000]  on cpu:0"
# One line per node: 21 features, avgpool, flatten, 7 classifier = 30.
NODES=$(grep -cE '^[a-z0-9_.]+/[a-z0-9_]+  ' "$TMP/graph_text.out")
[[ "$NODES" -eq 30 ]] || fail "graph: $NODES node lines, expected 30"
# The CPU fuses its 8 conv2d+relu and 2 linear+relu pairs; the buffer plan
# then keeps no buffer for the values inside them.
expect_in graph_text out "fused: 10 groups"
expect_in graph_text out "features.0/conv2d + features.1/relu -> conv2d+relu on cpu:0"
expect_in graph_text out "classifier.3/linear + classifier.4/relu -> linear+relu on cpu:0"
expect_in graph_text out "buffer plan: 2 slots, 15.3 MiB for intermediates"
# What each conv kernel chose (cpu.conv_algorithm, Kernel::Describe).
expect_in graph_text out "features.3/conv2d + features.4/relu on cpu:0: winograd4: F(4x4,3x3)"
run_cli graph_direct graph --model=vgg11 --backend_option=cpu.conv_algorithm=direct
expect_exit graph_direct 0
expect_in graph_direct out "features.3/conv2d + features.4/relu on cpu:0: direct: im2col"
run_cli graph_unfused graph --model=vgg11 --backend_option=cpu.fusion=off
expect_exit graph_unfused 0
expect_in graph_unfused out "fused: 0 groups"
expect_in graph_unfused out "buffer plan: 2 slots, 24.5 MiB for intermediates"

run_cli graph_dot graph --model=vgg11 --format=dot --batch=2
expect_exit graph_dot 0
head -n 1 "$TMP/graph_dot.out" | grep -q '^digraph' || fail "graph dot: does not start with digraph"
expect_in graph_dot out "features.0/conv2d"
expect_in graph_dot out "[2, 1000]"
tail -n 1 "$TMP/graph_dot.out" | grep -q '}' || fail "graph dot: does not end with }"

# --- failures ------------------------------------------------------------------
run_cli no_backend run --device=tpu:0 --iterations=1 --warmup=0
expect_exit no_backend 1
expect_in no_backend err "switchyard run: NOT_FOUND: no backend is registered for device type 'tpu'"
expect_in no_backend err "registered types: [cpu, cuda"

# The CUDA backend is always linked: on a GPU it lists each device; without
# one (or in a build without CUDA) it says why, and cuda:0 is Unavailable
# with that reason.
if grep -q '^cuda: no devices: ' "$TMP/devices.out"; then
  CUDA_REASON=$(sed -n 's/^cuda: no devices: //p' "$TMP/devices.out")
  [[ -n "$CUDA_REASON" ]] || fail "devices: cuda has no devices but gives no reason"
  run_cli cuda_unavailable run --device=cuda:0 --iterations=1 --warmup=0
  expect_exit cuda_unavailable 1
  expect_in cuda_unavailable err "switchyard run: UNAVAILABLE: device cuda:0 is not available: backend 'cuda' has 0 devices ("
  expect_in cuda_unavailable err "$CUDA_REASON"
else
  expect_in devices out "cuda:0"
  expect_in devices out "compute capability"
  expect_in devices out "multiprocessors"
fi

run_cli upper_case run --device=CUDA:0 --iterations=1 --warmup=0
expect_exit upper_case 1
expect_in upper_case err "INVALID_ARGUMENT"
expect_in upper_case err "did you mean 'cuda:0'"

run_cli bad_index graph --device=cpu:3
expect_exit bad_index 1
expect_in bad_index err "device cpu:3 is not available"

run_cli no_weights run --weights=/nonexistent.safetensors --iterations=1 --warmup=0
expect_exit no_weights 1
expect_in no_weights err "NOT_FOUND"
expect_in no_weights err "/nonexistent.safetensors"

# A valid safetensors file holding one tensor that VGG11 does not have.
HEADER='{"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}'
LEN=${#HEADER}
{
  printf "\\$(printf '%03o' "$LEN")\\000\\000\\000\\000\\000\\000\\000"
  printf '%s' "$HEADER"
  printf '\000\000\200\077'  # 1.0f
} >"$TMP/wrong.safetensors"
run_cli wrong_weights run --weights="$TMP/wrong.safetensors" --iterations=1 --warmup=0
expect_exit wrong_weights 1
expect_in wrong_weights err "INVALID_ARGUMENT: $TMP/wrong.safetensors: cannot load state dict into VGG"
expect_in wrong_weights err "missing parameters: features.0.weight, features.0.bias,"
expect_in wrong_weights err "classifier.6.weight, classifier.6.bias"
expect_in wrong_weights err "unexpected parameters: x"

printf 'this is not an array\n' >"$TMP/input.txt"
run_cli text_input run --input="$TMP/input.txt" --iterations=1 --warmup=0
expect_exit text_input 1
expect_in text_input err "INVALID_ARGUMENT: vgg11: $TMP/input.txt: not a .npy file"

run_cli unknown_command frobnicate
expect_exit unknown_command 2
expect_in unknown_command err "unknown command 'frobnicate'"
expect_in unknown_command err "switchyard COMMAND [flags]"

run_cli no_command
expect_exit no_command 2
expect_in no_command err "commands:"

run_cli svg graph --format=svg
expect_exit svg 1
expect_in svg err "--format must be text or dot, got 'svg'"

run_cli unknown_model graph --model=resnet50
expect_exit unknown_model 1
expect_in unknown_model err "unknown model 'resnet50'; known: vgg11, vgg13, vgg16, vgg19"

run_cli zero_batch graph --batch=0
expect_exit zero_batch 1
expect_in zero_batch err "batch must be >= 1, got 0"

run_cli zero_iterations run --iterations=0
expect_exit zero_iterations 1
expect_in zero_iterations err "--iterations=0 is out of range: it must be between 1 and"

run_cli negative_threads run --threads=-1 --iterations=1 --warmup=0
expect_exit negative_threads 1
expect_in negative_threads err "switchyard run: INVALID_ARGUMENT: --threads=-1 is out of range: it must be between 0 and"

run_cli unknown_option graph --backend_option=cpu.bogus=1
expect_exit unknown_option 1
expect_in unknown_option err "switchyard graph: INVALID_ARGUMENT: backend option cpu.bogus=1: the cpu backend has no option 'bogus' (value '1'); its options: threads, fusion"

run_cli bad_fusion graph --backend_option=cpu.fusion=maybe
expect_exit bad_fusion 1
expect_in bad_fusion err "cpu option 'fusion' wants on or off, got 'maybe'"

run_cli malformed_option graph --backend_option=threads
expect_exit malformed_option 1
expect_in malformed_option err "backend option 'threads' is not of the form type.key=value (for example cpu.threads=2)"

run_cli option_unknown_backend graph --backend_option=tpu.cores=2
expect_exit option_unknown_backend 1
expect_in option_unknown_backend err "NOT_FOUND: no backend is registered for device type 'tpu'"

finish
