#!/usr/bin/env bash
# Faster R-CNN (torchvision's fasterrcnn_resnet50_fpn, full size, seeded
# random weights) at 800x800 on the CPU: Switchyard's cpu:0 and dnnl:0 (with
# --placement=auto) against ONNX Runtime, one image fed to all as the same
# .npy, each in its own process after waiting for the machine to go quiet.
# The detector row of issue 22's table (docs/benchmarks.md); the classifiers
# are benchmarks/compare_cpu_models.sh's.
#
# Usage: benchmarks/compare_fasterrcnn.sh [THREADS]   (default 2)
# Environment:
#   WARMUP=2 ITERATIONS=9   untimed and timed runs (fewer than 9 timed ones
#                           only with ALLOW_FEW_ITERATIONS=1)
#   SWITCHYARD=path DNNL_PLUGIN=path   prebuilt binaries (default: bazel
#                           build -c opt, then private copies)
#   MODEL_DIR=benchmarks/onnx_models/fasterrcnn_800   the export
#                           (benchmarks/export_fasterrcnn_full.py runs there
#                           when fasterrcnn.onnx is missing; git-ignored)
#   QUIET_WAIT=300 OUT_DIR=benchmarks/results
# Writes OUT_DIR/fasterrcnn_800_<date>.md (table, commands, load averages,
# and how far each runtime's sorted scores are from PyTorch's) and the
# runs' JSON next to it in OUT_DIR/fasterrcnn_800_<date>/.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
ROOT="$(pwd)"
THREADS="${1:-2}"
WARMUP="${WARMUP:-2}"
ITERATIONS="${ITERATIONS:-9}"
MODEL_DIR="$(realpath -m "${MODEL_DIR:-benchmarks/onnx_models/fasterrcnn_800}")"
OUT_DIR="${OUT_DIR:-benchmarks/results}"
PYTHON=/usr/bin/python3
die() { echo "compare_fasterrcnn.sh: $*" >&2; exit 2; }
[[ "${THREADS}" =~ ^[1-9][0-9]*$ ]] || die "bad THREADS '${THREADS}'"
[[ "${ITERATIONS}" =~ ^[1-9][0-9]*$ && "${WARMUP}" =~ ^[0-9]+$ ]] ||
  die "WARMUP and ITERATIONS must be whole numbers (ITERATIONS >= 1)"
if ((ITERATIONS < 9)) && [[ "${ALLOW_FEW_ITERATIONS:-0}" != 1 ]]; then
  die "ITERATIONS=${ITERATIONS}: the table needs the median of at least 9 (ALLOW_FEW_ITERATIONS=1 for a smoke test)"
fi
source benchmarks/quiet.sh

MODEL="${MODEL_DIR}/fasterrcnn.onnx"
IMAGE="${MODEL_DIR}/image_800.npy"
if [[ ! -f "${MODEL}" ]]; then
  echo "== exporting fasterrcnn_resnet50_fpn into ${MODEL_DIR}"
  mkdir -p "${MODEL_DIR}" &&
    (cd "${MODEL_DIR}" && "${PYTHON}" "${ROOT}/benchmarks/export_fasterrcnn_full.py") ||
    die "export failed"
fi
[[ -f "${MODEL}" && -f "${IMAGE}" ]] || die "no ${MODEL} or ${IMAGE}"

TMP_DIR="$(mktemp -d)"
trap 'rm -rf "${TMP_DIR}"' EXIT
BIN="${SWITCHYARD:-}" PLUGIN="${DNNL_PLUGIN:-}"
if [[ -z "${BIN}" || -z "${PLUGIN}" ]]; then
  flags=(--disk_cache="${HOME}/.cache/switchyard-bazel" -c opt)
  bazel build "${flags[@]}" //tools/cli:switchyard //backends/dnnl:libswitchyard_dnnl_plugin.so ||
    die "bazel build failed"
  bin_dir="$(bazel info "${flags[@]}" bazel-bin)"
  # Private copies: another build may replace bazel-bin during the runs.
  cp "${bin_dir}/tools/cli/switchyard" "${bin_dir}/backends/dnnl/libswitchyard_dnnl_plugin.so" "${TMP_DIR}/"
  BIN="${BIN:-${TMP_DIR}/switchyard}" PLUGIN="${PLUGIN:-${TMP_DIR}/libswitchyard_dnnl_plugin.so}"
fi

DATE="$(date +%F)"
RUN_DIR="${OUT_DIR}/fasterrcnn_800_${DATE}"
REPORT="${OUT_DIR}/fasterrcnn_800_${DATE}.md"
rm -rf "${RUN_DIR}" && mkdir -p "${RUN_DIR}" || exit 2
LOADS="${RUN_DIR}/loads.tsv"
printf 'run\tload_before\tload_after\n' > "${LOADS}"

# measure NAME COMMAND...: waits for quiet, runs, notes the load around it.
measure() {
  local name="$1" before
  shift
  wait_for_quiet
  before="$(cut -d' ' -f1-3 /proc/loadavg)"
  echo "== ${name}, load ${before}"
  "$@" > "${RUN_DIR}/${name}.log" 2>&1 || echo "   ${name} failed: $(tail -n 1 "${RUN_DIR}/${name}.log")"
  printf '%s\t%s\t%s\n' "${name}" "${before}" "$(cut -d' ' -f1-3 /proc/loadavg)" >> "${LOADS}"
}

common=(--model="${MODEL}" --input="${IMAGE}" --threads="${THREADS}" --warmup="${WARMUP}"
        --iterations="${ITERATIONS}")
measure switchyard_cpu "${BIN}" run "${common[@]}" --device=cpu \
  --report="${RUN_DIR}/switchyard_cpu.json" --output="${RUN_DIR}/switchyard_cpu/"
# oneDNN's OpenMP workers wait passively: spinning between primitives steals
# the cores from the CPU-backend nodes that run between its partitions.
measure switchyard_dnnl env OMP_WAIT_POLICY=passive "${BIN}" --plugin="${PLUGIN}" run \
  "${common[@]}" --device=dnnl:0 --placement=auto \
  --report="${RUN_DIR}/switchyard_dnnl.json" --output="${RUN_DIR}/switchyard_dnnl/"
measure onnxruntime node benchmarks/onnxruntime_peer.js --model "${MODEL}" --input "${IMAGE}" \
  --warmup "${WARMUP}" --iterations "${ITERATIONS}" --threads "${THREADS}" \
  --json "${RUN_DIR}/onnxruntime.json" --output "${RUN_DIR}/onnxruntime/"

command="WARMUP=${WARMUP} ITERATIONS=${ITERATIONS}"
[[ "${ALLOW_FEW_ITERATIONS:-0}" == 1 ]] && command="ALLOW_FEW_ITERATIONS=1 ${command}"
command+=" benchmarks/compare_fasterrcnn.sh ${THREADS}"
"${PYTHON}" - "${RUN_DIR}" "${MODEL_DIR}/scores_800.npy" "${REPORT}" "${command}" \
  "${THREADS}" "$(lscpu | sed -n 's/^Model name: *//p' | head -n 1)" <<'EOF' || exit 1
import json, os, sys
import numpy as np

run_dir, golden, report, command, threads, cpu = sys.argv[1:7]
golden_scores = np.sort(np.load(golden))[::-1]

def scores_gap(folder):
    """Largest |difference| between sorted scores and PyTorch's, or why not."""
    files = [f for f in os.listdir(folder) if f.endswith("scores.npy")] if os.path.isdir(folder) else []
    if not files:
        return "no scores written"
    s = np.sort(np.load(os.path.join(folder, files[0])).ravel())[::-1]
    if s.shape != golden_scores.shape:
        return "%d detections (PyTorch: %d)" % (s.size, golden_scores.size)
    return "%.1e" % float(np.max(np.abs(s - golden_scores)))

def forward(name):
    path = os.path.join(run_dir, name + ".json")
    if not os.path.exists(path):
        return None
    j = json.load(open(path))
    # switchyard run --report has forward_ms at the top; the peer's bench
    # schema has one row per batch under results.
    f = j["forward_ms"] if "forward_ms" in j else j["results"][0]["forward_ms"]
    return f["median"], f["min"]

rows = [("Switchyard cpu:0", "switchyard_cpu"),
        ("Switchyard dnnl:0 (auto placement)", "switchyard_dnnl"),
        ("ONNX Runtime 1.30 (all optimizations)", "onnxruntime")]
ort = forward("onnxruntime")
loads = dict(line.split("\t")[0:2] for line in open(os.path.join(run_dir, "loads.tsv")).read().splitlines()[1:])
out = ["# Faster R-CNN ResNet-50 FPN at 800x800 on the CPU (%s)" % os.path.basename(run_dir).split("_")[-1], "",
       "CPU: %s, %s threads everywhere. One seeded `torch.rand(3, 800, 800)` image fed to every "
       "runtime as the same .npy; seeded random weights (benchmarks/export_fasterrcnn_full.py). "
       "Made by:" % (cpu or "(lscpu names no model)", threads), "", "    " + command, "",
       "| runtime | forward median (min), ms | against ONNX Runtime | sorted scores vs PyTorch, max abs diff | load before |",
       "| --- | ---: | ---: | ---: | --- |"]
for label, name in rows:
    f = forward(name)
    folder = os.path.join(run_dir, name)
    if f is None:
        out.append("| %s | failed (see %s.log) | | | %s |" % (label, name, loads.get(name, "")))
        continue
    ratio = "%.2f" % (f[0] / ort[0]) if ort else "-"
    out.append("| %s | %.1f (%.1f) | %s | %s | %s |" % (label, f[0], f[1], ratio, scores_gap(folder), loads.get(name, "")))
open(report, "w").write("\n".join(out) + "\n")
print("\n".join(out))
EOF
echo "== wrote ${REPORT}"
