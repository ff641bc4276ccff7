#!/bin/bash
# `switchyard run --images` end to end on tests/images (tools/make_test_images.py):
# the image pipeline feeds VGG11 through the loader threads; bad files are
# skipped and reported by path, or fail the run; --profile-summary prints the
# loader table; the trace has a lane per loader thread with the stages as
# "loader" events; the report lists the bad files; flag errors come before
# any work. Small inputs (32x32) keep VGG11 fast: four set-ups, ~10 s.

set -u

# The shared helpers (run_cli, expect_exit, expect_in, ...; BIN, TMP):
# tests/cli_test_lib.sh, in the runfiles tree or beside this script.
CLI_TEST_LIB="${TEST_SRCDIR:-$0.runfiles}/switchyard/tests/cli_test_lib.sh"
[[ -f "$CLI_TEST_LIB" ]] || CLI_TEST_LIB="$(dirname "$0")/cli_test_lib.sh"
source "$CLI_TEST_LIB"
IMAGES="$(need_runfile tests/images)" || exit 1
PY=/usr/bin/python3

SMALL=(--model=vgg11 --image-size=32 --batch=2 --threads=2)

# --- eval pipeline, one loader thread, every bad file skipped ------------------------
run_cli eval run "${SMALL[@]}" --images="$IMAGES" --loader-threads=1 --profile-summary \
    --profile="$TMP/eval_trace.json" --report="$TMP/eval_report.json"
expect_exit eval 0
expect_in eval out "from 15 files in $IMAGES (eval: resize 37, center crop 32), 1 loader thread"
expect_in eval out "streaming 8 batches of [2, 3, 32, 32]"
expect_in eval out "images: 16 samples from 15 files; 5 bad files skipped"
expect_in eval out "loader: 1 thread, 16 samples"
for stage in read decode resize crop normalize batch "all stages" "copy to device (driver)"; do
  expect_in eval out "  $stage "
done
expect_in eval out "images/s per loader thread"
expect_in eval out "diagnosis:"
for bad in bad_corrupt.jpg bad_empty.jpg bad_huge.jpg bad_huge.png bad_not_an_image.txt; do
  expect_in eval err "skipped bad image: $IMAGES/$bad: "
done
expect_in eval err "bad_huge.png: the PNG header says 100000x100000 pixels, over the decoder's limit"
expect_in eval err "bad_corrupt.jpg: corrupt JPEG: the file ends before the image data does"
if [[ $(grep -c "skipped bad image" "$TMP/eval.err") -ne 5 ]]; then
  fail "eval: each bad file must be reported once"
fi
if ! "$PY" - "$TMP/eval_trace.json" "$TMP/eval_report.json" <<'PYEOF'
import json, sys
trace = json.load(open(sys.argv[1]))
events = trace["traceEvents"]
lanes = {e["tid"]: e["args"]["name"] for e in events if e.get("name") == "thread_name"}
loader = [e for e in events if e.get("cat") == "loader"]
problems = []
if not loader: problems.append("no loader events")
if {lanes[e["tid"]] for e in loader} != {"loader 0"}: problems.append("loader events off lane 'loader 0'")
stages = {e["name"] for e in loader}
if stages != {"read", "decode", "resize", "crop", "normalize", "batch"}: problems.append(f"stages {stages}")
if sum(e["name"] == "batch" for e in loader) != 16: problems.append("not one batch span per sample")
if any(e["dur"] < 0 for e in loader): problems.append("negative duration")
report = json.load(open(sys.argv[2]))
images = report["images"]
if len(images["bad_files"]) != 5: problems.append(f"bad files {images['bad_files']}")
if images["samples"] != 16 or images["files"] != 15: problems.append("counts")
if abs(sum(s["share"] for s in images["stages"].values()) - 1) > 1e-6: problems.append("shares")
if images["stages"]["decode"]["ms_per_sample"] <= 0: problems.append("decode time")
for p in problems: print("  " + p)
sys.exit(1 if problems else 0)
PYEOF
then fail "eval: trace or report"; fi

# --- train pipeline, two loader threads, a glob, --batches ---------------------------
run_cli train run "${SMALL[@]}" --images="$IMAGES/rgb_*.jpg" --augment=train \
    --loader-threads=2 --prefetch=1 --batches=3 --seed=5 --profile-summary
expect_exit train 0
expect_in train out "streaming 3 batches of [2, 3, 32, 32] from 2 files"
expect_in train out "train: random resized crop 32, horizontal flip"
expect_in train out "0 bad files skipped"
expect_in train out "  flip "
expect_not_in train err "skipped bad image"

# --- --bad-images=fail: the first bad file's error ----------------------------------
run_cli fail run "${SMALL[@]}" --images="$IMAGES/bad_*" --bad-images=fail
expect_exit fail 1
expect_in fail err "--images: $IMAGES/bad_"
expect_in fail err "(--bad-images=skip skips such files)"
# Every file bad, skipping: an error, not a hang.
run_cli allbad run "${SMALL[@]}" --images="$IMAGES/bad_*"
expect_exit allbad 1
expect_in allbad err "none of the 5 files could be decoded as an image"

# --- flag errors, before the model is built ------------------------------------------
refused() {  # NAME SUBSTRING -- ARGS...
  local name="$1" substring="$2"
  shift 3
  run_cli "$name" "$@"
  expect_exit "$name" 1
  expect_in "$name" err "$substring"
  expect_not_in "$name" out "parameters"
}
refused nowhere "--images: 'nowhere/' is not a folder" -- run --images=nowhere/
refused nomatch "--images: no files in" -- run --images="$IMAGES/*.gif"
refused policy "--bad-images must be skip or fail, got 'maybe'" -- \
    run --images="$IMAGES" --bad-images=maybe
refused augment "--augment must be eval or train" -- run --images="$IMAGES" --augment=test
refused size "--image-size=0 is out of range" -- run --images="$IMAGES" --image-size=0
refused small_resize "give --resize >= --image-size" -- \
    run --images="$IMAGES" --image-size=64 --resize=32
refused no_images "--augment applies to an image stream: give --images" -- run --augment=train
refused cost "--loader-cost-ms sets the synthetic loader's cost" -- \
    run --images="$IMAGES" --loader-cost-ms=5
refused both "--input and --images were both given" -- \
    run --images="$IMAGES" --input="$IMAGES/rgb_500x375.jpg"

# --- help --------------------------------------------------------------------------
run_cli help help run
expect_exit help 0
for flag in --images --bad-images --image-size --resize --augment; do
  expect_in help out "  $flag  (default"
done

finish
