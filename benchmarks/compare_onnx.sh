#!/usr/bin/env bash
# Switchyard, PyTorch and ONNX Runtime on the same .onnx model, one after the
# other in one invocation, merged by compare.py into a Markdown table (ratios
# to Switchyard and to ONNX Runtime) and a bar chart.
#
# Usage: benchmarks/compare_onnx.sh MODEL.onnx [BATCHES] [THREADS]
#   MODEL.onnx  a model with a symbolic batch dimension when BATCHES has more
#               than its static batch, e.g. from
#               /usr/bin/python3 tools/export_onnx_models.py --size=full \
#                   --models=vgg11,resnet50 --dynamic-batch
#               (benchmarks/onnx_models/vgg11_dynamic/model.onnx)
#   BATCHES     default 1,8
#   THREADS     default 2 (switchyard --threads, torch.set_num_threads,
#               ONNX Runtime intra-op threads; ONNX Runtime inter-op 1)
# Environment:
#   WARMUP=2 ITERATIONS=10   untimed and timed iterations per batch
#   TORCHVISION=name         the PyTorch peer's torchvision model (default: the
#                            model's folder or file name less "_dynamic": vgg11);
#                            the peer builds torchvision's full-size model at
#                            224x224, so this fits full-size exports only
#   SWITCHYARD=path          a switchyard binary (default: bazel build -c opt
#                            //tools/cli:switchyard, then a private copy)
#   QUIET_WAIT=300           seconds to wait for other processes to go quiet
#                            before each run
#   DEVICES=cpu              Switchyard's and PyTorch's devices (ONNX Runtime:
#                            its CPU execution provider)
#   OUT_DIR=benchmarks/results
# Writes OUT_DIR/onnx_<model>_<date>/{switchyard,pytorch,onnxruntime}.json and
# OUT_DIR/onnx_<model>_<date>.md and .png. A peer that cannot run (Switchyard
# before it reads ONNX, ONNX Runtime not installed: tools/setup.sh
# --with-peers) is reported and left out; the others still run.
set -uo pipefail

if [[ $# -lt 1 || $# -gt 3 || "$1" == -h || "$1" == --help ]]; then
  sed -n '2,31p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
MODEL="$(realpath "$1")" || exit 2
BATCHES="${2:-1,8}"
THREADS="${3:-2}"
if [[ ! -f "${MODEL}" ]]; then
  echo "compare_onnx.sh: ${1}: no such file" >&2
  exit 2
fi
cd "$(dirname "$0")/.."
WARMUP="${WARMUP:-2}"
ITERATIONS="${ITERATIONS:-10}"
OUT_DIR="${OUT_DIR:-benchmarks/results}"
DEVICES="${DEVICES:-cpu}"
PYTHON=/usr/bin/python3
name="$(basename "${MODEL}" .onnx)"
[[ "${name}" == model ]] && name="$(basename "$(dirname "${MODEL}")")"
name="${name%_dynamic}"
TORCHVISION="${TORCHVISION:-${name}}"
DATE="$(date +%F)"
RUN_DIR="${OUT_DIR}/onnx_${name}_${DATE}"
SECONDS=0
source benchmarks/quiet.sh
mkdir -p "${RUN_DIR}"
rm -f "${RUN_DIR}"/{switchyard,pytorch,onnxruntime}.json

loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
LOADS=()
FAILED=()
TMP_DIR="$(mktemp -d)"
trap 'rm -rf "${TMP_DIR}"' EXIT

# Switchyard.
BIN="${SWITCHYARD:-}"
if [[ -z "${BIN}" ]]; then
  echo "== building //tools/cli:switchyard (-c opt)"
  if bazel build -c opt //tools/cli:switchyard; then
    # A private copy: another build may replace bazel-bin while this runs.
    cp "$(bazel info -c opt bazel-bin)/tools/cli/switchyard" "${TMP_DIR}/"
    BIN="${TMP_DIR}/switchyard"
  else
    FAILED+=("switchyard: the build failed")
  fi
fi
if [[ -n "${BIN}" ]]; then
  wait_for_quiet
  echo "== switchyard bench --model=${MODEL}, load $(loadavg)"
  LOADS+=("switchyard: load $(loadavg) before")
  if "${BIN}" bench --model="${MODEL}" --devices="${DEVICES}" --batch="${BATCHES}" \
      --warmup="${WARMUP}" --iterations="${ITERATIONS}" --threads="${THREADS}" \
      --json="${RUN_DIR}/switchyard.json" 2> >(tee "${TMP_DIR}/switchyard.err" >&2); then
    LOADS+=("switchyard: load $(loadavg) after")
  else
    FAILED+=("switchyard: \`switchyard bench --model=${MODEL}\` failed (does this build read .onnx yet? the ONNX importer is issue 11): $(tail -n 1 "${TMP_DIR}/switchyard.err")")
    rm -f "${RUN_DIR}/switchyard.json"
  fi
fi

# PyTorch: torchvision's model of the same name.
if "${PYTHON}" -c "import sys, torchvision; sys.exit(not hasattr(torchvision.models, '${TORCHVISION}'))" 2>/dev/null; then
  wait_for_quiet
  echo "== pytorch_peer.py --model ${TORCHVISION}, load $(loadavg)"
  LOADS+=("pytorch: load $(loadavg) before")
  if "${PYTHON}" benchmarks/pytorch_peer.py --model "${TORCHVISION}" --devices "${DEVICES}" \
      --batch "${BATCHES}" --warmup "${WARMUP}" --iterations "${ITERATIONS}" \
      --threads "${THREADS}" --json "${RUN_DIR}/pytorch.json"; then
    LOADS+=("pytorch: load $(loadavg) after")
  else
    FAILED+=("pytorch: pytorch_peer.py failed")
  fi
else
  FAILED+=("pytorch: no torchvision model '${TORCHVISION}' (set TORCHVISION=name), or no PyTorch (tools/setup.sh --with-pytorch)")
fi

# ONNX Runtime.
wait_for_quiet
echo "== onnxruntime_peer.js, load $(loadavg)"
LOADS+=("onnxruntime: load $(loadavg) before")
if node benchmarks/onnxruntime_peer.js --model "${MODEL}" --batch "${BATCHES}" \
    --warmup "${WARMUP}" --iterations "${ITERATIONS}" --threads "${THREADS}" \
    --json "${RUN_DIR}/onnxruntime.json"; then
  LOADS+=("onnxruntime: load $(loadavg) after")
else
  FAILED+=("onnxruntime: onnxruntime_peer.js failed (installed? tools/setup.sh --with-peers)")
fi

jsons=()
for f in switchyard pytorch onnxruntime; do
  [[ -f "${RUN_DIR}/${f}.json" ]] && jsons+=("${RUN_DIR}/${f}.json")
done
if [[ ${#jsons[@]} -eq 0 ]]; then
  printf 'compare_onnx.sh: nothing was measured:\n' >&2
  printf '  %s\n' "${FAILED[@]}" >&2
  exit 1
fi
REPORT="${OUT_DIR}/onnx_${name}_${DATE}.md"
"${PYTHON}" benchmarks/compare.py "${jsons[@]}" --out "${REPORT}" \
  --png "${OUT_DIR}/onnx_${name}_${DATE}.png" || exit 1
{
  echo
  echo "Produced by \`WARMUP=${WARMUP} ITERATIONS=${ITERATIONS} benchmarks/compare_onnx.sh ${1} ${BATCHES} ${THREADS}\` on $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'))."
  echo "Load averages (1, 5, 15 min): $(printf '%s; ' "${LOADS[@]}")"
  if [[ ${#FAILED[@]} -gt 0 ]]; then
    echo
    echo "Not run:"
    echo
    printf -- '- %s\n' "${FAILED[@]}"
  fi
  echo
  echo "![chart](onnx_${name}_${DATE}.png)"
} >> "${REPORT}"
echo "== done in ${SECONDS} s: ${REPORT}"
if [[ ${#FAILED[@]} -gt 0 ]]; then
  printf 'compare_onnx.sh: not run:\n' >&2
  printf '  %s\n' "${FAILED[@]}" >&2
  exit 1
fi
