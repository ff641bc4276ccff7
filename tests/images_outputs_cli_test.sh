#!/bin/bash
# Issue 40, items 4 and 5, tried as a new user would:
#  - true throughput: a detector taking one image [3, H, W] counts one
#    sample per run (not its 3 channels); a classifier with a batch
#    dimension counts the batch; samples/s (images/s for a batch of images)
#    is batch / median forward; the
#    set-up, the first forward and the timed forwards fit in the command's
#    wall time (nothing counted twice);
#  - `run --images` on a classifier prints each file's top-5 and, with
#    --output=DIR/ (created with its parents), writes DIR/<name>.<output>.npy
#    per file: the same values as `run --input` of that image alone, at any
#    --batch; files that share a stem keep their extensions; an --output
#    that is a file, or a folder that cannot be made, is refused before any
#    work; synthetic --batches still refuses --output.

set -u

CLI_TEST_LIB="${TEST_SRCDIR:-$0.runfiles}/switchyard/tests/cli_test_lib.sh"
[[ -f "$CLI_TEST_LIB" ]] || CLI_TEST_LIB="$(dirname "$0")/cli_test_lib.sh"
source "$CLI_TEST_LIB"
CLI_TIMEOUT_S=180

PY=/usr/bin/python3
DET="$(need_runfile tests/onnx_models/fasterrcnn_narrow/model.onnx)" || exit 1
CLS="$(need_runfile tests/onnx_models/resnet18_dynamic/model.onnx)" || exit 1
DET_DIR="$(dirname "$DET")"

# timed_cli NAME ARGS...: run_cli, with the command's wall time in ms in
# $TMP/NAME.wall_ms.
timed_cli() {
  local name="$1" begin end
  begin=$(date +%s%N)
  run_cli "$@"
  end=$(date +%s%N)
  echo $(( (end - begin) / 1000000 )) > "$TMP/$name.wall_ms"
}

# check_figures NAME BATCH: the report's batch, samples/s == batch / median
# (and as printed), and set-up + first forward + timed forwards <= the
# command's elapsed time (its report) <= the process's wall time.
check_figures() {
  if ! "$PY" - "$TMP/$1.json" "$TMP/$1.out" "$TMP/$1.wall_ms" "$2" <<'PYEOF'
import json, re, sys
report = json.load(open(sys.argv[1]))
out = open(sys.argv[2]).read()
wall_ms = float(open(sys.argv[3]).read())
batch = int(sys.argv[4])
assert report["batch"] == batch, f'report batch {report["batch"]}, expected {batch}'
median = report["forward_ms"]["median"]
want = batch * 1000.0 / median
assert abs(report["images_per_s"] - want) <= 1e-6 * want, (report["images_per_s"], want)
printed = float(re.search(r"; ([0-9.]+) (?:samples|images)/s", out).group(1))
assert abs(printed - want) <= 0.05 + 1e-9, f"printed {printed} per second, batch/median {want:.2f}"
setup = report["setup_ms"]
parts = setup["total"] + setup["first_forward"] + report["forward_ms"]["total"]
# The parts are disjoint spans of the command: within its own elapsed time
# (tight: a span counted twice exceeds it) and the process's wall time.
assert not report["first_forward_timed"]
assert parts <= wall_ms, (f'set-up {setup["total"]:.0f} + first forward {setup["first_forward"]:.0f} '
                          f'+ timed forwards {report["forward_ms"]["total"]:.0f} ms = {parts:.0f} ms '
                          f'> the command\'s wall time {wall_ms:.0f} ms')
assert parts <= report["elapsed_ms"] <= wall_ms, (parts, report["elapsed_ms"], wall_ms)
assert report["forward_ms"]["total"] >= report["iterations"] * report["forward_ms"]["min"] - 1e-6
assert setup["total"] >= setup["weights"] + setup["compile"] - 1e-3, setup
PYEOF
  then
    fail "$1: throughput or set-up figures"
  fi
}

# --- Item 4: figures true for every input layout ------------------------------
timed_cli det_figures run --model="$DET" --input="$DET_DIR/input_240x200.npy" --warmup=1 \
    --iterations=4 --report="$TMP/det_figures.json"
expect_exit det_figures 0
expect_in det_figures out "samples/s (one [3, H, W] image per run)"
expect_in det_figures out "first forward"
expect_in det_figures out "(compiling its segments as it ran)"
check_figures det_figures 1

"$PY" -c "import numpy as np; np.save('$TMP/three.npy', np.random.default_rng(0).standard_normal((3, 3, 64, 64)).astype(np.float32))"
timed_cli cls_figures run --model="$CLS" --input="$TMP/three.npy" --warmup=1 --iterations=5 \
    --report="$TMP/cls_figures.json"
expect_exit cls_figures 0
expect_not_in cls_figures out "image per run"
check_figures cls_figures 3
timed_cli cls_seeded run --model="$CLS" --batch=2 --warmup=2 --iterations=3 \
    --report="$TMP/cls_seeded.json"
expect_exit cls_seeded 0
check_figures cls_seeded 2
run_cli cls_no_warmup run --model="$CLS" --batch=2 --warmup=0 --iterations=2 \
    --report="$TMP/cls_no_warmup.json"
expect_exit cls_no_warmup 0
expect_in cls_no_warmup out "(also the first timed forward: --warmup=0)"
"$PY" -c "import json, sys; sys.exit(not json.load(open('$TMP/cls_no_warmup.json'))['first_forward_timed'])" \
    || fail "cls_no_warmup: the report does not say the first forward was timed"

# --- Item 5: per-file outputs over --images -------------------------------------
# a.png is 64x64: with --resize=64 --image-size=64 the transform only
# normalises it, so `run --input` of the same pixels is the reference.
IMAGES="$TMP/photos"
mkdir -p "$IMAGES"
"$PY" - "$IMAGES" "$TMP" <<'PYEOF'
import sys
import numpy as np
from PIL import Image
folder, tmp = sys.argv[1], sys.argv[2]
rng = np.random.default_rng(7)
sizes = {"a.png": (64, 64), "b.jpg": (80, 100), "b.png": (70, 90), "d.png": (120, 64),
         "e.jpg": (64, 96), "f.png": (100, 100), "g.jpg": (75, 80)}
for name, (h, w) in sizes.items():
    rgb = rng.integers(0, 256, size=(h, w, 3), dtype=np.uint8)
    Image.fromarray(rgb).save(f"{folder}/{name}", quality=95)
    if name == "a.png":
        mean = np.array([0.485, 0.456, 0.406], np.float32).reshape(3, 1, 1)
        std = np.array([0.229, 0.224, 0.225], np.float32).reshape(3, 1, 1)
        chw = rgb.transpose(2, 0, 1).astype(np.float32) / np.float32(255)
        np.save(f"{tmp}/a_input.npy", ((chw - mean) / std)[None].astype(np.float32))
with open(f"{folder}/c_broken.jpg", "wb") as f:
    f.write(b"\xff\xd8\xff not really a JPEG")
PYEOF
printf 'zero\none\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\n' > "$TMP/labels.txt"
IMG_FLAGS=(--image-size=64 --resize=64)

rm -rf "$TMP/out3"
run_cli images_b3 run --model="$CLS" --images="$IMAGES" "${IMG_FLAGS[@]}" --batch=3 \
    --labels="$TMP/labels.txt" --output="$TMP/out3/nested/" --report="$TMP/images_b3.json"
expect_exit images_b3 0
expect_in images_b3 out "top-5 per image: class, softmax probability (raw output), label"
expect_in images_b3 out "image 1/8 $IMAGES/a.png top-5:"
expect_in images_b3 out "image 8/8 $IMAGES/g.jpg top-5:"
expect_not_in images_b3 out "c_broken.jpg top-5"
expect_in images_b3 err "c_broken.jpg"
expect_in images_b3 out "wrote 7 files in $TMP/out3/nested/: <name>.<output>.npy for 7 images"
expect_in images_b3 out "utilization of cpu:0"
rm -rf "$TMP/out1"
run_cli images_b1 run --model="$CLS" --images="$IMAGES" "${IMG_FLAGS[@]}" --batch=1 \
    --output="$TMP/out1/"
expect_exit images_b1 0
run_cli a_input run --model="$CLS" --input="$TMP/a_input.npy" --iterations=1 --output="$TMP/a_ref.npy"
expect_exit a_input 0
if ! "$PY" - "$TMP" "$TMP/images_b3.out" <<'PYEOF'
import os, re, sys
import numpy as np
tmp, out = sys.argv[1], open(sys.argv[2]).read()
names = sorted(os.listdir(f"{tmp}/out3/nested"))
want = ["a.output.npy", "b.jpg.output.npy", "b.png.output.npy", "d.output.npy",
        "e.output.npy", "f.output.npy", "g.output.npy"]
assert names == want, names
assert sorted(os.listdir(f"{tmp}/out1")) == want, os.listdir(f"{tmp}/out1")
ref = np.load(f"{tmp}/a_ref.npy")
for name in want:
    b3, b1 = np.load(f"{tmp}/out3/nested/{name}"), np.load(f"{tmp}/out1/{name}")
    assert b3.shape == (1, ref.shape[1]) and b3.dtype == np.float32, (name, b3.shape, b3.dtype)
    assert np.allclose(b3, b1, rtol=1e-4, atol=1e-4), f"{name}: --batch=3 and --batch=1 differ"
a = np.load(f"{tmp}/out3/nested/a.output.npy")
assert np.allclose(a, ref, rtol=1e-4, atol=1e-4), f"a.png: --images {a[0, :4]}, --input {ref[0, :4]}"
# The printed top-5 of a.png is its output's, with the labels.
best = int(np.argmax(a[0]))
line = re.search(r"image 1/8 .*/a\.png top-5:  (\d+) [0-9.]+ \(([-0-9.]+)\) (\w+)", out)
assert line and int(line.group(1)) == best, (line and line.group(0), best)
assert abs(float(line.group(2)) - a[0, best]) < 1e-3
labels = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
assert best >= len(labels) or line.group(3) == labels[best], line.group(0)
PYEOF
then
  fail "images: per-file outputs differ from --input of the same image, or across --batch"
fi

# Refused before any work: a file as --output, a folder that cannot be made,
# several targets; --batches without --images keeps no outputs.
touch "$TMP/existing.npy"
run_cli out_is_file run --model="$CLS" --images="$IMAGES" "${IMG_FLAGS[@]}" --output="$TMP/existing.npy"
expect_exit out_is_file 1
expect_in out_is_file err "is a file, but with --images each image has its own outputs"
expect_not_in out_is_file out "streaming"
run_cli out_not_folder run --model="$CLS" --images="$IMAGES" "${IMG_FLAGS[@]}" --output="$TMP/new.npy"
expect_exit out_not_folder 1
expect_in out_not_folder err "give a folder (--output=DIR/, created if missing)"
[[ -e "$TMP/new.npy" ]] && fail "out_not_folder: $TMP/new.npy was created"
run_cli out_cannot run --model="$CLS" --images="$IMAGES" "${IMG_FLAGS[@]}" \
    --output="$TMP/existing.npy/sub/"
expect_exit out_cannot 1
expect_in out_cannot err "cannot create the folder"
expect_not_in out_cannot out "streaming"
run_cli out_two run --model="$CLS" --images="$IMAGES" "${IMG_FLAGS[@]}" --output="$TMP/x/,$TMP/y/"
expect_exit out_two 1
expect_in out_two err "give one folder (--output=DIR/)"
run_cli batches_out run --model="$CLS" --batches=3 --output="$TMP/batches/"
expect_exit batches_out 1
expect_in batches_out err "--output with --batches: the streamed batches are seeded random values"

# Without --output: the predictions alone, nothing written.
run_cli images_print run --model="$CLS" --images="$IMAGES" "${IMG_FLAGS[@]}" --batch=4
expect_exit images_print 0
expect_not_in images_print out "image 4/8 $IMAGES/c_broken.jpg"
expect_in images_print out "image 5/8 $IMAGES/d.png top-5:"
expect_not_in images_print out "wrote "

# A per-image detector over --images: its folder made too, with the new names.
rm -rf "$TMP/det_out"
run_cli det_images run --model="$DET" --images="$IMAGES" --output="$TMP/det_out/x/" \
    --report="$TMP/det_images.json"
expect_exit det_images 0
for f in a.boxes.npy b.jpg.scores.npy b.png.labels.npy; do
  [[ -f "$TMP/det_out/x/$f" ]] || fail "det_images: no $TMP/det_out/x/$f"
done
if ! "$PY" - "$TMP/det_images.json" <<'PYEOF'
import json, sys
report = json.load(open(sys.argv[1]))
assert report["batch"] == 1, report["batch"]
model = report["median_ms"]["model"]
assert abs(report["images_per_s"] - 1000.0 / model) <= 1e-6 * report["images_per_s"], report
PYEOF
then
  fail "det_images: the report's batch or images/s"
fi

finish
