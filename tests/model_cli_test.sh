#!/bin/bash
# `switchyard run|graph|bench` on model files whose inputs are not one
# float32 image batch: two inputs of different dtypes (int64 token ids and a
# bool mask), ONNX's own scalar-output models (test_size, test_size_example),
# a model with symbolic dimensions fed by a file alone; a detector's
# detections (tools/export_detection_model.py's Faster R-CNN), also over an
# image folder at each image's own size; the errors for a
# wrong count, name, dtype or shape; SWITCHYARD_CPU_THREADS bounded; int16,
# float8 and int4 values in and out, on cpu:0 and on dnnl:0 (auto placement).
# Models and inputs: tests/make_cli_test_models.py, run here.

set -u

CLI_TEST_LIB="${TEST_SRCDIR:-$0.runfiles}/switchyard/tests/cli_test_lib.sh"
[[ -f "$CLI_TEST_LIB" ]] || CLI_TEST_LIB="$(dirname "$0")/cli_test_lib.sh"
source "$CLI_TEST_LIB"
CLI_TIMEOUT_S=120

PY=/usr/bin/python3
MAKE="$(need_runfile tests/make_cli_test_models.py)" || exit 1
M="$TMP/models"
if ! "$PY" "$MAKE" "$M"; then
  echo "FAIL: $MAKE did not run (needs python3-onnx: tools/setup.sh)"
  exit 1
fi
# ONNX's node tests (Debian's libonnx-testdata): under bazel test the
# @onnx_testdata runfiles, else where Debian installs them.
size_model() {
  local found
  found="$(find_runfile "external/onnx_testdata/node/$1/model.onnx")"
  [[ -z "$found" ]] && found="/usr/share/libonnx-testdata/data/node/$1/model.onnx"
  echo "$found"
}

# same_npy ACTUAL EXPECTED NAME: equal shape, dtype and values (float: 1e-5).
same_npy() {
  if ! "$PY" - "$1" "$2" <<'PYEOF'
import sys
import numpy as np
a, b = np.load(sys.argv[1]), np.load(sys.argv[2])
if a.shape != b.shape or a.dtype != b.dtype:
    sys.exit(f"shape/dtype {a.shape} {a.dtype}, expected {b.shape} {b.dtype}")
if not np.allclose(a, b, rtol=1e-5, atol=1e-5):
    sys.exit(f"values {a.ravel()[:8]}, expected {b.ravel()[:8]}")
PYEOF
  then
    fail "$3: $1 differs from $2"
  fi
}

# --- two inputs: int64 ids and a bool mask, from files ---------------------
# A model without inputs (ONNX's test_constant) runs, and a folder for
# --output gets its output by the model's name.
run_cli no_inputs run --model="$(size_model test_constant)" --output="$TMP/no_inputs_out/"
expect_exit no_inputs 0
expect_in no_inputs out "0 inputs"
[[ -f "$TMP/no_inputs_out/values.npy" ]] || fail "no_inputs: no $TMP/no_inputs_out/values.npy"

run_cli two_files run --model="$M/two_inputs.onnx" --input="$M/ids.npy,$M/mask.npy" \
    --iterations=1 --warmup=0 --output="$TMP/two/" --report="$TMP/two.json"
expect_exit two_files 0
expect_in two_files out "2 inputs on cpu:0:"
expect_in two_files out "memory: cpu:0: peak "
expect_in two_files out "ids [batch, seq] int64: [2, 5] int64 from $M/ids.npy"
expect_in two_files out "mask [batch, seq] bool: [2, 5] bool from $M/mask.npy"
# pooled [2, 4] float32 looks like scores: top-5 (of 4); count is summarised.
expect_in two_files out "output pooled [2, 4] float32"
expect_in two_files out "sample 1 top-5:"
expect_in two_files out "output count [2] int64: min 3, max 4, first values 3, 4"
expect_in two_files out "samples/s"
expect_not_in two_files out "[N, 3, H, W]"
same_npy "$TMP/two/pooled.npy" "$M/pooled_expected.npy" two_files
same_npy "$TMP/two/count.npy" "$M/count_expected.npy" two_files
if ! "$PY" - "$TMP/two.json" <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1]))
ins = r["inputs"]
assert [i["name"] for i in ins] == ["ids", "mask"], ins
assert [i["dtype"] for i in ins] == ["int64", "bool"], ins
assert ins[0]["shape"] == [2, 5] and ins[0]["declared"] == "ids [batch, seq] int64", ins
assert r["outputs"][1] == {"name": "count", "shape": [2], "dtype": "int64", "elements": 2,
                           "min": 3, "max": 4, "first_values": [3, 4]}, r["outputs"]
assert len(r["top5"]) == 2, r["top5"]
m = r["memory"]
assert m["device"] == "cpu:0" and m["peak_bytes"] >= m["start_bytes"] > 0, m
assert m["first_run_new_blocks"] >= 0 and m["last_run_new_blocks"] >= 0, m
PYEOF
then
  fail "two_files: report"
fi

# By name, in any order, repeated flags.
run_cli two_named run --model="$M/two_inputs.onnx" --input="mask=$M/mask.npy" \
    --input="ids=$M/ids.npy" --iterations=1 --warmup=0 --output="$TMP/named/"
expect_exit two_named 0
same_npy "$TMP/named/count.npy" "$M/count_expected.npy" two_named

# Seeded inputs: --input_shape for one input gives the shared symbols.
run_cli two_seeded run --model="$M/two_inputs.onnx" --input_shape=ids:3x6 \
    --iterations=1 --warmup=0
expect_exit two_seeded 0
expect_in two_seeded out "ids [batch, seq] int64: [3, 6] int64 seeded"
expect_in two_seeded out "mask [batch, seq] bool: [3, 6] bool seeded"
expect_in two_seeded out "output count [3] int64"

# The errors: each names the input, what the model declares, how to fix.
run_cli two_no_shape run --model="$M/two_inputs.onnx" --iterations=1 --warmup=0
expect_exit two_no_shape 1
expect_in two_no_shape err "INVALID_ARGUMENT"
expect_in two_no_shape err "input ids [batch, seq] int64: dimension 1 ('seq') is symbolic"
expect_in two_no_shape err "--input_shape=ids:1x16"
run_cli two_count run --model="$M/two_inputs.onnx" --input="$M/ids.npy"
expect_exit two_count 1
expect_in two_count err "--input gives 1 file but the model takes 2 inputs (ids [batch, seq] int64, mask [batch, seq] bool)"
run_cli two_unknown run --model="$M/two_inputs.onnx" --input="idz=$M/ids.npy,mask=$M/mask.npy"
expect_exit two_unknown 1
expect_in two_unknown err "the model has no input 'idz'; its inputs: ids [batch, seq] int64, mask [batch, seq] bool"
run_cli two_dtype run --model="$M/two_inputs.onnx" --input="$M/ids.npy,$M/mask_int64.npy"
expect_exit two_dtype 1
expect_in two_dtype err "input mask [batch, seq] bool is bool but the file holds int64; save it as bool: np.save(path, x.astype(np.bool_))"
run_cli two_symbols run --model="$M/two_inputs.onnx" --input="$M/ids.npy,$M/mask_short.npy"
expect_exit two_symbols 1
expect_in two_symbols err "symbolic dimension 'seq' is 5 for input 'ids' (--input=$M/ids.npy [2, 5]) but 4 for input 'mask' (--input=$M/mask_short.npy [2, 4])"
run_cli two_shape_and_input run --model="$M/two_inputs.onnx" \
    --input="$M/ids.npy,$M/mask.npy" --input_shape=ids:2x5
expect_exit two_shape_and_input 1
expect_in two_shape_and_input err "--input_shape and --input were both given"
run_cli two_unnamed_shape run --model="$M/two_inputs.onnx" --input_shape=2x5
expect_exit two_unnamed_shape 1
expect_in two_unnamed_shape err "--input_shape=2x5 names no input, but the model has 2 inputs"
run_cli two_batches run --model="$M/two_inputs.onnx" --input_shape=ids:1x4 --batches=2
expect_exit two_batches 1
expect_in two_batches err "--batches streams batches of one float32 input"

# graph, bench and the profiler on the two-input model.
run_cli two_graph graph --model="$M/two_inputs.onnx" --input_shape=ids:2x5
expect_exit two_graph 0
expect_in two_graph out "input input_0 int64[2, 5] on cpu:0"
expect_in two_graph out "input input_1 bool[2, 5] on cpu:0"
run_cli two_graph_no_shape graph --model="$M/two_inputs.onnx"
expect_exit two_graph_no_shape 1
expect_in two_graph_no_shape err "dimension 1 ('seq') is symbolic"
run_cli two_bench bench --model="$M/two_inputs.onnx" --input_shape=ids:1x8 \
    --batch=1,2 --devices=cpu --warmup=0 --iterations=2
expect_exit two_bench 0
expect_in two_bench out "cpu:0"
expect_not_in two_bench out "batch 1: failed"
expect_in two_bench out "cpu:0       2"
run_cli two_profile run --model="$M/two_inputs.onnx" --input="$M/ids.npy,$M/mask.npy" \
    --iterations=2 --warmup=0 --profile="$TMP/two_trace.json" --profile-summary
expect_exit two_profile 0
expect_in two_profile out "wrote trace $TMP/two_trace.json"
grep -qF '"input 1 h2d"' "$TMP/two_trace.json" || fail "two_profile: no 'input 1 h2d' event"

# --- ONNX's scalar-output models: the value, not a crash ----------------------
for name in test_size test_size_example; do
  MODEL="$(size_model "$name")"
  if [[ ! -f "$MODEL" ]]; then
    fail "$name: no $MODEL (Debian's libonnx-testdata: tools/setup.sh)"
    continue
  fi
  run_cli "$name" run --model="$MODEL" --iterations=1 --warmup=0 --output="$TMP/$name/"
  expect_exit "$name" 0
  expect_not_in "$name" out "top-5"
done
# test_size: x [3, 4, 5]; test_size_example: x [2, 3].
expect_in test_size out "output y [] int64: value 60"
expect_in test_size_example out "output y [] int64: value 6"
if [[ -f "$TMP/test_size/y.npy" ]]; then
  "$PY" -c "import numpy as np,sys; y=np.load(sys.argv[1]); sys.exit(0 if y.shape==() and y.dtype==np.int64 and y==60 else 1)" \
      "$TMP/test_size/y.npy" || fail "test_size: y.npy is not the int64 scalar 60"
else
  fail "test_size: no y.npy"
fi

# An output without elements: a summary line, and a (0, 4) file.
run_cli empty run --model="$M/empty.onnx" --iterations=1 --warmup=0 --output="$TMP/empty/"
expect_exit empty 0
expect_in empty out "output none [0, 4] float32: empty"
"$PY" -c "import numpy as np,sys; y=np.load(sys.argv[1]); sys.exit(0 if y.shape==(0, 4) and y.dtype==np.float32 else 1)" \
    "$TMP/empty/none.npy" || fail "empty: none.npy is not float32 (0, 4)"

# --- symbolic dimensions from the file alone ----------------------------------
run_cli symbolic run --model="$M/symbolic.onnx" --input="$M/x.npy" --iterations=1 \
    --warmup=0 --output="$TMP/sym/"
expect_exit symbolic 0
expect_in symbolic out "x [batch, 3, height, width] float32: [2, 3, 5, 7] float32 from"
expect_in symbolic out "output mean [2, 3] float32"
expect_in symbolic out "output dims [4] int64: min 2, max 7, first values 2, 3, 5, 7"
same_npy "$TMP/sym/mean.npy" "$M/mean_expected.npy" symbolic
run_cli symbolic_fixed run --model="$M/symbolic.onnx" --input="$M/x_4channels.npy"
expect_exit symbolic_fixed 1
expect_in symbolic_fixed err "input x [batch, 3, height, width] float32: dimension 1 is fixed at 3 in the model, the array has 4"
run_cli symbolic_named_shape run --model="$M/symbolic.onnx" --input_shape=x:1x3x4x6 \
    --iterations=1 --warmup=0
expect_exit symbolic_named_shape 0
expect_in symbolic_named_shape out "first values 1, 3, 4, 6"
run_cli symbolic_unnamed_shape run --model="$M/symbolic.onnx" --input_shape=2x3x4x6 \
    --iterations=1 --warmup=0
expect_exit symbolic_unnamed_shape 0
expect_in symbolic_unnamed_shape out "first values 2, 3, 4, 6"

# --- SWITCHYARD_CPU_THREADS is bounded as --threads is ------------------------
# Refused before the CPU backend starts a thread; never a hang.
CASES=$((CASES + 1))
SWITCHYARD_CPU_THREADS=20000 timeout 60 "$BIN" devices \
    >"$TMP/env_threads_devices.out" 2>"$TMP/env_threads_devices.err"
RC=$?
expect_exit env_threads_devices 1
expect_in env_threads_devices err "SWITCHYARD_CPU_THREADS=20000 is out of range"
CASES=$((CASES + 1))
SWITCHYARD_CPU_THREADS=20000 timeout 60 "$BIN" run --model="$M/symbolic.onnx" \
    --input="$M/x.npy" --iterations=1 --warmup=0 >"$TMP/env_threads.out" 2>"$TMP/env_threads.err"
RC=$?
expect_exit env_threads 1
expect_in env_threads err "SWITCHYARD_CPU_THREADS=20000 is out of range: it must be between 1 and"
CASES=$((CASES + 1))
SWITCHYARD_CPU_THREADS=2 timeout 60 "$BIN" devices >"$TMP/env_threads_ok.out" 2>"$TMP/env_threads_ok.err"
RC=$?
expect_exit env_threads_ok 0
expect_in env_threads_ok out "option cpu.threads=2"

# --- shapes decided while it runs: NonZero, If on data ------------------------
run_cli staged run --model="$M/staged.onnx" --input="$M/staged_x.npy" \
    --output="$TMP/staged/" --iterations=2 --warmup=1
expect_exit staged 0
expect_in staged out "runs in segments"
# Its memory: the same shapes again take nothing new from the system.
expect_in staged out "memory: cpu:0: peak "
expect_in staged out "the last run took 0 new blocks"
expect_in staged out "output y [2] float32: min 3, max 6, first values 3, 6"
same_npy "$TMP/staged/y.npy" "$M/staged_expected.npy" staged
run_cli staged_profile run --model="$M/staged.onnx" --input="$M/staged_x.npy" --profile-summary
expect_exit staged_profile 0
expect_in staged_profile out "run-time value"
run_cli staged_explain run --model="$M/staged.onnx" --input="$M/staged_x.npy" --explain-placement
expect_exit staged_explain 1
expect_in staged_explain err "runs as a chain of plans"

# --- Loop: a trip count from a shape, a carried value, a scan output ----------
run_cli loop run --model="$M/loop.onnx" --input="$M/loop_x.npy" --profile-summary
expect_exit loop 0
expect_in loop out "output final [3] float32: min 8, max 24, first values 8, 16, 24"
expect_in loop out "output sums [3] float32: min 12, max 48, first values 12, 24, 48"
expect_in loop out "/body/"
run_cli loop_graph graph --model="$M/loop.onnx"
expect_exit loop_graph 0
expect_in loop_graph out "shapes decided while the model runs"
expect_in loop_graph out "Loop/body/Add_acc_next/add"
run_cli staged_graph graph --model="$M/staged.onnx"
expect_exit staged_graph 0
expect_in staged_graph out "needs the contents of 'cond': copied to the host"
expect_in staged_graph out "If/then/Add_doubled/add"
run_cli staged_graph_dot graph --model="$M/staged.onnx" --format=dot
expect_exit staged_graph_dot 1
expect_in staged_graph_dot err "no single graph to draw"
run_cli loop_bench bench --model="$M/loop.onnx" --devices=cpu --batch=1,4 --iterations=2 --warmup=1
expect_exit loop_bench 0
expect_in loop_bench out "cpu:0       4"
run_cli loop_limit run --model="$M/loop.onnx" --input="$M/loop_x.npy" --max-loop-iterations=2
expect_exit loop_limit 1
expect_in loop_limit err "ran 2 iterations, the limit, and has more to run (trip count 3)"
run_cli loop_limit_bad run --model="$M/loop.onnx" --input="$M/loop_x.npy" --max-loop-iterations=0
expect_exit loop_limit_bad 1
expect_in loop_limit_bad err "--max-loop-iterations: the Loop iteration limit must be at least 1"

# --- A detector: torchvision's Faster R-CNN (narrow), detections printed ------
DET="$(find_runfile tests/onnx_models/fasterrcnn_narrow/model.onnx)"
[[ -z "$DET" ]] && DET="$(dirname "$0")/onnx_models/fasterrcnn_narrow/model.onnx"
DET_DIR="$(dirname "$DET")"
printf 'background\nbox\ncircle\nline\n' > "$TMP/shapes.txt"
run_cli detector run --model="$DET" --input="$DET_DIR/input_240x200.npy" --labels="$TMP/shapes.txt" \
    --detections-shown=3 --report="$TMP/detector.json"
expect_exit detector 0
expect_in detector out "runs in segments"
expect_in detector out "detections: 20 (the 3 best by score)"
expect_in detector out "  1. "
expect_in detector out " (class "
expect_in detector out "output boxes [20, 4] float32: min "
expect_not_in detector out "top-5"
if ! "$PY" - "$TMP/detector.json" "$DET_DIR/scores_240x200.npy" <<'PYEOF2'
import json, sys
import numpy as np
report = json.load(open(sys.argv[1]))
want = np.sort(np.load(sys.argv[2]))[::-1]
got = np.sort([d["score"] for d in report["detections"]])[::-1]
if len(got) != len(want) or not np.allclose(got, want, rtol=1e-3, atol=1e-5):
    sys.exit(f"report scores {got[:5]}..., PyTorch's {want[:5]}...")
PYEOF2
then
  fail "detector: the report's detections differ from PyTorch's"
fi
run_cli detector_bad run --model="$DET" --input="$DET_DIR/input_240x200.npy" --detections-shown=-1
expect_exit detector_bad 1
expect_in detector_bad err "--detections_shown"

# --- The detector on an image folder: each image at its own size ------------
# Two PNGs of other sizes and a broken one; each image's outputs must be what
# --input gives for the same pixels as [3, H, W] floats in [0, 1].
mkdir -p "$TMP/det_images" "$TMP/det_direct"
"$PY" - "$TMP/det_images" "$TMP" <<'PYEOF3'
import struct, sys, zlib
import numpy as np
folder, tmp = sys.argv[1], sys.argv[2]
def chunk(kind, data):
    return (struct.pack(">I", len(data)) + kind + data +
            struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
def write_png(path, rgb):
    h, w, _ = rgb.shape
    raw = b"".join(b"\x00" + rgb[y].tobytes() for y in range(h))
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
rng = np.random.default_rng(3)
for name, (h, w) in {"a": (120, 160), "b": (150, 100)}.items():
    rgb = rng.integers(0, 256, size=(h, w, 3), dtype=np.uint8)
    write_png(f"{folder}/{name}.png", rgb)
    chw = (rgb.transpose(2, 0, 1).astype(np.float32) / np.float32(255)).astype(np.float32)
    np.save(f"{tmp}/{name}_chw.npy", chw)
with open(f"{folder}/c_broken.png", "wb") as f:
    f.write(b"\x89PNG\r\n\x1a\nnot an image")
PYEOF3
run_cli det_images run --model="$DET" --images="$TMP/det_images" --output="$TMP/det_out/nested/" \
    --labels="$TMP/shapes.txt" --detections-shown=2 --report="$TMP/det_images.json"
expect_exit det_images 0
expect_in det_images out "3 images from $TMP/det_images, each at its own size"
expect_in det_images out "image 1/3 $TMP/det_images/a.png (160x120): model "
expect_in det_images out "(a new size: "
expect_in det_images out "images: 2 run (2 new sizes), 1 skipped"
expect_in det_images out "verdict: "
expect_in det_images err "skipped $TMP/det_images/c_broken.png"
run_cli det_direct run --model="$DET" --input="$TMP/a_chw.npy" --output="$TMP/det_direct/"
expect_exit det_direct 0
if ! "$PY" - "$TMP" <<'PYEOF4'
import json, sys
import numpy as np
tmp = sys.argv[1]
for name in ("boxes", "labels", "scores"):
    got = np.load(f"{tmp}/det_out/nested/a.{name}.npy")
    want = np.load(f"{tmp}/det_direct/{name}.npy")
    if got.shape != want.shape or not np.allclose(got, want, rtol=1e-5, atol=1e-6):
        sys.exit(f"{name}: --images gave {got.shape}, --input {want.shape}")
report = json.load(open(f"{tmp}/det_images.json"))
assert [i["path"].split("/")[-1] for i in report["images"]] == ["a.png", "b.png"], report
assert len(report["bad_files"]) == 1 and report["verdict"], report
PYEOF4
then
  fail "det_images: --images and --input disagree on the same pixels"
fi
# --precompile: the image's size compiled before the loop (fewer plans for it
# on its first run; the detector's later segments depend on its data), and
# for a model of several inputs, one set of shapes per occurrence.
run_cli det_precompile run --model="$DET" --images="$TMP/det_images/a.png" \
    --precompile=3x120x160,3x150x100 --report="$TMP/det_precompile.json"
expect_exit det_precompile 0
expect_in det_precompile out "precompiled 2 image sizes in "
expect_in det_precompile out ": [3, 120, 160], [3, 150, 100]"
run_cli two_precompile run --model="$M/two_inputs.onnx" --input_shape=ids:2x5,mask:2x5 \
    --precompile=ids:1x5,mask:1x5 --precompile=ids:4x5,mask:4x5 --iterations=1 --warmup=0 \
    --report="$TMP/two_precompile.json"
expect_exit two_precompile 0
expect_in two_precompile out "precompiled 2 input shapes in "
expect_in two_precompile out ": [1, 5] + [1, 5], [4, 5] + [4, 5]"
"$PY" -c "import json,sys; r=json.load(open(sys.argv[1])); assert r['setup_ms']['precompile'] >= 0, r" \
    "$TMP/two_precompile.json" || fail "two_precompile: no setup_ms.precompile in the report"
run_cli bad_precompile run --model="$M/two_inputs.onnx" --input_shape=ids:2x5,mask:2x5 \
    --precompile=ids:1x5x3,mask:1x5 --iterations=1
expect_exit bad_precompile 1
expect_in bad_precompile err "--precompile=ids:1x5x3"
# A built-in model precompiles too (its static plan per shape), checked as
# its --input_shape is.
run_cli zoo_precompile run --model=vgg11 --input_shape=1x3x32x32 --precompile=2x3x32x32 \
    --iterations=1 --warmup=0
expect_exit zoo_precompile 0
expect_in zoo_precompile out "precompiled 1 input shape in "
expect_in zoo_precompile out ": [2, 3, 32, 32]"
run_cli zoo_bad_precompile run --model=vgg11 --input_shape=1x3x32x32 --precompile=2x4x32x32 \
    --iterations=1
expect_exit zoo_bad_precompile 1
expect_in zoo_bad_precompile err "--precompile=2x4x32x32"
run_cli det_images_file run --model="$DET" --images="$TMP/det_images" --output="$TMP/one.npy"
expect_exit det_images_file 1
expect_in det_images_file err "with --images each image has its own outputs (<name>.<output>.npy); give a folder"
run_cli det_images_dir run --model="$DET" --images="$TMP/det_images" --output="$DET/"
expect_exit det_images_dir 1
expect_in det_images_dir err "cannot create the folder '$DET'"
expect_not_in det_images_dir out "image 1/3"
run_cli det_images_size run --model="$DET" --images="$TMP/det_images" --image-size=64
expect_exit det_images_size 1
expect_in det_images_size err "--image-size sets the image pipeline's transform"
run_cli det_images_fail run --model="$DET" --images="$TMP/det_images" --bad-images=fail
expect_exit det_images_fail 1
expect_in det_images_fail err "c_broken.png"

# The quantized storage dtypes: an int16 output stays int16 in its .npy, a
# float8 one is written as float32, an int4 weight is unpacked.
run_cli quant_types run --model="$M/quantized_types.onnx" --input="$M/quant_x.npy" \
    --iterations=1 --warmup=0 --output="$TMP/quant/"
expect_exit quant_types 0
same_npy "$TMP/quant/q16.npy" "$M/q16_expected.npy" quant_types
same_npy "$TMP/quant/f8.npy" "$M/f8_expected.npy" quant_types
same_npy "$TMP/quant/w4.npy" "$M/w4_expected.npy" quant_types
# The same on dnnl:0 under auto placement (the default path): what dnnl:0
# lacks for these dtypes runs on cpu:0, with the same results.
PLUGIN="$(need_runfile backends/dnnl/libswitchyard_dnnl_plugin.so)" || exit 1
run_cli quant_types_dnnl run --plugin="$PLUGIN" --device=dnnl:0 --placement=auto \
    --model="$M/quantized_types.onnx" --input="$M/quant_x.npy" --iterations=1 --warmup=0 \
    --output="$TMP/quant_dnnl/"
expect_exit quant_types_dnnl 0
same_npy "$TMP/quant_dnnl/q16.npy" "$M/q16_expected.npy" quant_types_dnnl
same_npy "$TMP/quant_dnnl/f8.npy" "$M/f8_expected.npy" quant_types_dnnl
same_npy "$TMP/quant_dnnl/w4.npy" "$M/w4_expected.npy" quant_types_dnnl

finish
