#!/usr/bin/env bash
# The int8 speed table of issue 37: quantized .onnx files (QDQ, QOperator,
# dynamic) run by Switchyard's CPU backends (`switchyard bench`) and by ONNX
# Runtime (benchmarks/onnxruntime_peer.js) on the same file, one run after the
# other in one invocation, merged by cpu_models_table.py into one Markdown
# table: a row per file and batch, best Switchyard / ONNX Runtime (below 1.0:
# Switchyard is faster) and whether that meets the goal (<= 1.0).
#
# The models, once (a few minutes; git-ignored benchmarks/onnx_models/int8/,
# with README.md: sizes, ops, top-1 agreement with the float models):
#     /usr/bin/python3 tools/export_int8_models.py
# (run here automatically when a default file is missing).
#
# Usage: benchmarks/compare_int8_models.sh [MODEL_FILES] [BATCHES] [THREADS]
#   MODEL_FILES  comma-separated .onnx files, a row each, named by the file
#                name less .onnx (default, in MODELS_DIR: resnet50_qdq,
#                resnet50_qoperator, mobilenet_v2_qdq, mobilenet_v2_qoperator,
#                transformer_encoder_dynamic)
#   BATCHES      default 1,8 (the models' first dimension is symbolic)
#   THREADS      default 2 (switchyard --threads; ONNX Runtime intra-op
#                threads, inter-op 1)
# Environment:
#   ROUNDS=3                 processes per model and side, one round after the
#                            other; the table pools their samples
#                            (merge_rounds.py says why)
#   WARMUP=2 ITERATIONS=9    untimed and timed iterations per model and batch;
#                            fewer than 9 timed ones is refused unless
#                            ALLOW_FEW_ITERATIONS=1 (smoke tests)
#   SWITCHYARD=path          a switchyard binary (default: bazel build -c opt
#                            //tools/cli:switchyard, then a private copy)
#   DNNL_PLUGIN=path         libswitchyard_dnnl_plugin.so (default: built too)
#   BACKENDS=cpu,default     the Switchyard devices, each in its own process;
#                            default: the device `switchyard run` takes without
#                            flags (dnnl:0 where the oneDNN plugin loads)
#   MODELS_DIR=benchmarks/onnx_models/int8   where the default files live
#   RUN_TIMEOUT=3600         seconds before one run is stopped as failed
#   QUIET_WAIT=300           seconds to wait for the machine to go quiet
#   OUT_DIR=benchmarks/results
# Writes OUT_DIR/int8_models_<date>/<row>/*.json (every run's JSON, schema
# switchyard.bench/1), .../runs.tsv (load averages), .../models.json (the
# models' report from tools/export_int8_models.py) and
# OUT_DIR/int8_models_<date>.md; a second run on the same day replaces them.
# A Switchyard backend that declines a model (every row of its JSON an error,
# e.g. an op it does not import) shows "refused: reason" in its cells and
# does not fail the script; anything else that fails shows "failed: reason".
# Exit status 1 when anything failed (refusals alone: 0).
set -uo pipefail

if [[ $# -gt 3 || "${1:-}" == -h || "${1:-}" == --help ]]; then
  sed -n '2,41p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
ARGS=("$@")
BATCHES="${2:-1,8}"
THREADS="${3:-2}"
cd "$(dirname "$0")/.." || exit 2
ROOT="$(pwd)"
WARMUP="${WARMUP:-2}"
ITERATIONS="${ITERATIONS:-9}"
ROUNDS="${ROUNDS:-3}"
BACKENDS="${BACKENDS:-cpu,default}"
MODELS_DIR_SET="${MODELS_DIR:-}"
MODELS_DIR="$(realpath -m "${MODELS_DIR:-benchmarks/onnx_models/int8}")"
RUN_TIMEOUT="${RUN_TIMEOUT:-3600}"
OUT_DIR="${OUT_DIR:-benchmarks/results}"
PYTHON=/usr/bin/python3
BAZEL_FLAGS=(--disk_cache="${HOME}/.cache/switchyard-bazel" -c opt)
DEFAULT_ROWS=resnet50_qdq,resnet50_qoperator,mobilenet_v2_qdq,mobilenet_v2_qoperator
DEFAULT_ROWS+=,transformer_encoder_dynamic

die() { echo "compare_int8_models.sh: $*" >&2; exit 2; }
[[ "${ITERATIONS}" =~ ^[0-9]+$ && "${WARMUP}" =~ ^[0-9]+$ && "${ROUNDS}" =~ ^[1-9][0-9]*$ ]] ||
  die "WARMUP and ITERATIONS must be whole numbers, ROUNDS at least 1"
if ((ITERATIONS < 9)) && [[ "${ALLOW_FEW_ITERATIONS:-0}" != 1 ]]; then
  die "ITERATIONS=${ITERATIONS}: the table needs the median of at least 9 timed" \
    "iterations (ALLOW_FEW_ITERATIONS=1 for a smoke test)"
fi
((ITERATIONS >= 1)) || die "ITERATIONS must be at least 1"
[[ "${BATCHES}" =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || die "bad BATCHES '${BATCHES}' (e.g. 1,8)"
[[ "${THREADS}" =~ ^[1-9][0-9]*$ ]] || die "bad THREADS '${THREADS}'"
IFS=, read -r -a BACKEND_LIST <<< "${BACKENDS}"

# The files and their row names (file name less .onnx, each once).
FILES=()
ROWS=()
if [[ -n "${1:-}" ]]; then
  IFS=, read -r -a FILES <<< "$1"
else
  IFS=, read -r -a names <<< "${DEFAULT_ROWS}"
  for n in "${names[@]}"; do FILES+=("${MODELS_DIR}/${n}.onnx"); done
fi
for f in "${FILES[@]}"; do
  row="$(basename "${f}" .onnx)"
  [[ "${row}" =~ ^[A-Za-z0-9_.+-]+$ ]] || die "model file name '${row}' is not a plain name"
  [[ " ${ROWS[*]} " == *" ${row} "* ]] && die "two model files are named ${row}"
  ROWS+=("${row}")
done
MODELS="$(IFS=,; echo "${ROWS[*]}")"

DATE="$(date +%F)"
STARTED="$(date -u '+%F %H:%M UTC')"
RUN_DIR="${OUT_DIR}/int8_models_${DATE}"
REPORT="${OUT_DIR}/int8_models_${DATE}.md"
SECONDS=0
source benchmarks/quiet.sh
source benchmarks/bench_runs.sh
rm -rf "${RUN_DIR}"
mkdir -p "${RUN_DIR}" || exit 2
RUNS="${RUN_DIR}/runs.tsv"
printf 'model\trun\tstart\tload_before\tload_after\tseconds\tstatus\n' > "${RUNS}"
TMP_DIR="$(mktemp -d)"
trap 'rm -rf "${TMP_DIR}"' EXIT

# The default models, made once (before any measurement: it uses all cores).
if [[ -z "${1:-}" ]]; then
  missing=()
  for f in "${FILES[@]}"; do [[ -f "${f}" ]] || missing+=("${f}"); done
  if ((${#missing[@]})); then
    echo "== making the int8 models into ${MODELS_DIR} (tools/export_int8_models.py)"
    (cd / && "${PYTHON}" "${ROOT}/tools/export_int8_models.py" --out="${MODELS_DIR}") \
      > "${TMP_DIR}/export.log" 2>&1 || cat "${TMP_DIR}/export.log" >&2
  fi
fi
for k in "${!FILES[@]}"; do
  mkdir -p "${RUN_DIR}/${ROWS[k]}"
  [[ -f "${FILES[k]}" ]] || echo "no model file ${FILES[k]} (make it: /usr/bin/python3" \
    "tools/export_int8_models.py)" > "${RUN_DIR}/${ROWS[k]}/model.missing"
done
[[ -f "${MODELS_DIR}/report.json" ]] && cp "${MODELS_DIR}/report.json" "${RUN_DIR}/models.json"

# Switchyard and the oneDNN plugin (bench_runs.sh): BIN, PLUGIN, BUILD_FAILED.
build_switchyard

# after_bench ROW RUN MODEL_FILE (bench_backends calls it after each run): a
# Switchyard JSON whose every row is an error means it declined the model (an
# import error, the same for every batch): the cells say "refused: <the first
# error, less the list of ops it imports>".
after_bench() {
  local json="${RUN_DIR}/$1/$2.json" why
  [[ -f "${json}" ]] || return 0
  why="$("${PYTHON}" - "${json}" "$3" <<'EOF'
import json, sys
rows = json.load(open(sys.argv[1])).get("results", [])
errors = [r.get("error") for r in rows]
if rows and all(errors):
    why = errors[0].split(" Switchyard imports these")[0]
    if why.startswith(sys.argv[2] + ": "):
        why = why[len(sys.argv[2]) + 2:]
    print(" ".join(why.split())[:400])
EOF
)"
  [[ -n "${why}" ]] && echo "refused: ${why}" > "${RUN_DIR}/$1/$2.failed"
}

# Every model on every side, once per round (in_rounds, bench_runs.sh).
measure_models() {
  local k m onnx missing
  for k in "${!FILES[@]}"; do
    m="${ROWS[k]}"
    onnx="$(realpath -m "${FILES[k]}")"
    mkdir -p "${RUN_DIR}/${m}"
    missing=""
    [[ -f "${BASE_DIR}/${m}/model.missing" ]] && missing="$(cat "${BASE_DIR}/${m}/model.missing")"
    bench_backends "${m}" "${onnx}" "${missing}"
    onnxruntime_run "${m}" "${onnx}" "${missing}"
  done
}
in_rounds measure_models || exit 1

command="ROUNDS=${ROUNDS} WARMUP=${WARMUP} ITERATIONS=${ITERATIONS}"
[[ "${ALLOW_FEW_ITERATIONS:-0}" == 1 ]] && command="ALLOW_FEW_ITERATIONS=1 ${command}"
[[ "${BACKENDS}" != cpu,default ]] && command+=" BACKENDS=${BACKENDS}"
[[ -n "${SWITCHYARD:-}" ]] && command+=" SWITCHYARD=${SWITCHYARD}"
[[ -n "${DNNL_PLUGIN:-}" ]] && command+=" DNNL_PLUGIN=${DNNL_PLUGIN}"
[[ -n "${MODELS_DIR_SET:-}" ]] && command+=" MODELS_DIR=${MODELS_DIR}"
[[ "${OUT_DIR}" != benchmarks/results ]] && command+=" OUT_DIR=${OUT_DIR}"
command+=" benchmarks/compare_int8_models.sh ${ARGS[*]}"

"${PYTHON}" benchmarks/cpu_models_table.py "${RUN_DIR}" --models "${MODELS}" \
  --batches "${BATCHES}" --threads "${THREADS}" --backends "${BACKENDS}" \
  --peers onnxruntime --warmup "${WARMUP}" --iterations "$((ROUNDS * ITERATIONS))" \
  --rounds "${ROUNDS}" \
  --command "${command% }" --started "${STARTED}" --out "${REPORT}" \
  --title "int8 models: Switchyard's CPU backends against ONNX Runtime" || exit 1
# The ISA the int8 kernels can use, and where the models came from.
{
  echo
  echo "- int8 ISA (/proc/cpuinfo flags): $(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' |
    grep -E '^(avx2|avx512(f|bw|vl|_vnni|_bf16)|avx_vnni|amx_(int8|tile))$' |
    tr '\n' ' ' | sed 's/ $//')"
  echo "- models: tools/export_int8_models.py (tools/quantize_onnx.py); sizes, ops and"
  echo "  top-1 agreement with the float models in $(basename "${RUN_DIR}")/models.json"
  for k in "${!FILES[@]}"; do echo "  - ${ROWS[k]}: ${FILES[k]}"; done
} >> "${REPORT}"
cat "${REPORT}"
echo "== done in ${SECONDS} s: ${REPORT}"
# Anything not measured, refusals aside.
not_ok="$(awk -F'\t' 'NR > 1 && $7 != "ok" { print $1 "\t" $2 "\t" $7 }' "${RUNS}" |
  while IFS=$'\t' read -r m run status; do
    grep -qs '^refused:' "${RUN_DIR}/${m}/${run}.failed" || echo "  ${m} ${run}: ${status}"
  done)"
for f in "${RUN_DIR}"/*/*.failed; do
  [[ -f "${f}" ]] || continue
  m="$(basename "$(dirname "${f}")")" run="$(basename "${f}" .failed)"
  awk -F'\t' -v m="${m}" -v r="${run}" '$1 == m && $2 == r { f = 1 } END { exit !f }' \
    "${RUNS}" || not_ok+=$'\n'"  ${m} ${run}: $(cat "${f}")"
done
if [[ -n "${not_ok}" ]]; then
  echo "compare_int8_models.sh: some runs failed (their cells say why):" >&2
  echo "${not_ok}" | grep -v '^$' >&2
  exit 1
fi
