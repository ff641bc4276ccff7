#!/usr/bin/env bash
# Peak resident memory of a whole `switchyard run` on the default path
# against ONNX Runtime's peer script on the same model file, one after the
# other, as `/usr/bin/time -f %M` reports it: the number issue 38 asks to be
# at most ONNX Runtime's ("weights kept once").
#
# Usage: benchmarks/compare_peak_rss.sh [MODELS] [BATCH] [THREADS]
#   MODELS   default the 18 models of docs/benchmarks.md's default-path
#            table (names under MODELS_DIR: <model>_dynamic/model.onnx), or
#            paths to .onnx files
#   BATCH    default 1
#   THREADS  default 2
# Environment:
#   SWITCHYARD=path   the binary (default bazel-bin/tools/cli/switchyard,
#                     built with bazel build -c opt //tools/cli:switchyard);
#                     the oneDNN plugin is found beside it
#   BASE=path         a second switchyard binary, measured in the same run
#                     (before/after a change)
#   ITERATIONS=5      timed forwards per run (one warm-up)
#   MODELS_DIR=benchmarks/onnx_models
# Prints a Markdown table (MB = MiB) on stdout.
set -uo pipefail

if [[ $# -gt 3 || "${1:-}" == -h || "${1:-}" == --help ]]; then
  sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
cd "$(dirname "$0")/.." || exit 2
DEFAULT_MODELS="resnet50,mobilenet_v2,efficientnet_b0,densenet121,convnext_tiny,vit_b_16,\
mobilenet_v3_small,mobilenet_v3_large,shufflenet_v2_x1_0,squeezenet1_1,googlenet,inception_v3,\
regnet_y_400mf,mnasnet1_0,resnext50_32x4d,efficientnet_v2_s,swin_t,r3d_18"
MODELS="${1:-$DEFAULT_MODELS}"
BATCH="${2:-1}"
THREADS="${3:-2}"
SWITCHYARD="${SWITCHYARD:-bazel-bin/tools/cli/switchyard}"
BASE="${BASE:-}"
ITERATIONS="${ITERATIONS:-5}"
MODELS_DIR="${MODELS_DIR:-benchmarks/onnx_models}"
PY=/usr/bin/python3

[[ -x "$SWITCHYARD" ]] || { echo "no switchyard binary at $SWITCHYARD" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 2; }

# Peak RSS in MiB of a command, or "failed".
peak_mib() {
  local kb
  /usr/bin/time -f "%M" -o /tmp/compare_peak_rss.$$ "$@" >/dev/null 2>&1 || { echo failed; return; }
  kb=$(tail -1 /tmp/compare_peak_rss.$$)
  rm -f /tmp/compare_peak_rss.$$
  echo $((kb / 1024))
}

if [[ -n "$BASE" ]]; then
  echo "| model | input | switchyard (MB) | base (MB) | ONNX Runtime (MB) | switchyard / ONNX Runtime |"
  echo "| --- | --- | ---: | ---: | ---: | ---: |"
else
  echo "| model | input | switchyard (MB) | ONNX Runtime (MB) | switchyard / ONNX Runtime |"
  echo "| --- | --- | ---: | ---: | ---: |"
fi
IFS=',' read -ra LIST <<<"$MODELS"
for m in "${LIST[@]}"; do
  if [[ "$m" == *.onnx ]]; then
    model="$m"
    info=""
  else
    model="$MODELS_DIR/${m}_dynamic/model.onnx"
    info="$MODELS_DIR/${m}_dynamic/info.json"
  fi
  [[ -f "$model" ]] || { echo "| $m | missing: $model | | | |"; continue; }
  shape=""
  if [[ -n "$info" && -f "$info" ]]; then
    shape=$("$PY" -c "import json,sys; s=json.load(open(sys.argv[1]))['input_shape']; s[0]=int(sys.argv[2]); print('x'.join(map(str,s)))" "$info" "$BATCH" 2>/dev/null)
  fi
  [[ -n "$shape" ]] || shape="${BATCH}x3x224x224"
  run=(run --model="$model" --input_shape="$shape" --iterations="$ITERATIONS" --threads="$THREADS")
  ours=$(peak_mib "$SWITCHYARD" "${run[@]}")
  row="| $(basename "${m%.onnx}") | $shape | $ours"
  if [[ -n "$BASE" ]]; then row+=" | $(peak_mib "$BASE" "${run[@]}")"; fi
  peer=$(peak_mib node benchmarks/onnxruntime_peer.js --model "$model" --input-shape "$shape" \
    --batch "$BATCH" --warmup 1 --iterations "$ITERATIONS" --threads "$THREADS")
  ratio=$("$PY" -c "import sys; a,b=sys.argv[1:]; print('%.2f' % (int(a)/int(b)) if a.isdigit() and b.isdigit() else '-')" "$ours" "$peer")
  echo "$row | $peer | $ratio |"
done
