#!/usr/bin/env bash
# Switchyard's CPU backends (cpu and the oneDNN plugin's dnnl:0) against ONNX
# Runtime and PyTorch on full-size torchvision models, one run after the
# other in one invocation, merged by cpu_models_table.py into one Markdown
# table: a row per model and batch, the best Switchyard backend / ONNX
# Runtime (below 1.0: Switchyard is faster) and whether that meets the goal
# (<= 1.0). This is the table of docs/benchmarks.md (issue 22).
#
# Usage: benchmarks/compare_cpu_models.sh [MODELS] [BATCHES] [THREADS]
#   MODELS   default resnet50,mobilenet_v2,efficientnet_b0,densenet121,
#            convnext_tiny,vit_b_16 (names of tools/export_onnx_models.py and
#            of torchvision.models)
#   BATCHES  default 1,8
#   THREADS  default 2 (switchyard --threads: cpu.threads and dnnl.threads;
#            ONNX Runtime intra-op threads, inter-op 1; torch.set_num_threads)
# Environment:
#   ROUNDS=3                 processes per model and side, one round after the
#                            other; the table pools their samples
#                            (merge_rounds.py says why)
#   WARMUP=2 ITERATIONS=9    untimed and timed iterations per model and batch;
#                            fewer than 9 timed ones is refused (the issue's
#                            rule) unless ALLOW_FEW_ITERATIONS=1 (smoke tests)
#   SWITCHYARD=path          a switchyard binary (default: bazel build -c opt
#                            //tools/cli:switchyard, then a private copy)
#   DNNL_PLUGIN=path         libswitchyard_dnnl_plugin.so (default: built
#                            with bazel as above, then a private copy)
#   BACKENDS=cpu,default     the Switchyard devices, each in its own process;
#                            default: the device `switchyard run` takes without
#                            flags (dnnl:0 where the oneDNN plugin loads)
#   PEERS=onnxruntime,pytorch
#   MODELS_DIR=benchmarks/onnx_models   where the .onnx exports live
#                            (<model>_dynamic/model.onnx; git-ignored)
#   RUN_TIMEOUT=3600         seconds before one run is stopped as failed
#   QUIET_WAIT=300           seconds to wait for other processes to go quiet
#                            before each run
#   OUT_DIR=benchmarks/results
# Writes OUT_DIR/cpu_models_<date>/<model>/*.json (every run's JSON, schema
# switchyard.bench/1), OUT_DIR/cpu_models_<date>/runs.tsv (load averages) and
# OUT_DIR/cpu_models_<date>.md; a second run on the same day replaces them.
# A backend or peer that fails shows as "failed: reason" in its cells; the
# other runs go on. Exit status 1 when anything failed.
set -uo pipefail

if [[ $# -gt 3 || "${1:-}" == -h || "${1:-}" == --help ]]; then
  sed -n '2,36p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
ARGS=("$@")
MODELS="${1:-resnet50,mobilenet_v2,efficientnet_b0,densenet121,convnext_tiny,vit_b_16}"
BATCHES="${2:-1,8}"
THREADS="${3:-2}"
cd "$(dirname "$0")/.." || exit 2
ROOT="$(pwd)"
WARMUP="${WARMUP:-2}"
ITERATIONS="${ITERATIONS:-9}"
ROUNDS="${ROUNDS:-3}"
BACKENDS="${BACKENDS:-cpu,default}"
PEERS="${PEERS:-onnxruntime,pytorch}"
MODELS_DIR="$(realpath -m "${MODELS_DIR:-benchmarks/onnx_models}")"
RUN_TIMEOUT="${RUN_TIMEOUT:-3600}"
OUT_DIR="${OUT_DIR:-benchmarks/results}"
PYTHON=/usr/bin/python3
BAZEL_FLAGS=(--disk_cache="${HOME}/.cache/switchyard-bazel" -c opt)

die() { echo "compare_cpu_models.sh: $*" >&2; exit 2; }
[[ "${ITERATIONS}" =~ ^[0-9]+$ && "${WARMUP}" =~ ^[0-9]+$ && "${ROUNDS}" =~ ^[1-9][0-9]*$ ]] ||
  die "WARMUP and ITERATIONS must be whole numbers, ROUNDS at least 1"
if ((ITERATIONS < 9)) && [[ "${ALLOW_FEW_ITERATIONS:-0}" != 1 ]]; then
  die "ITERATIONS=${ITERATIONS}: the table needs the median of at least 9 timed" \
    "iterations (ALLOW_FEW_ITERATIONS=1 for a smoke test)"
fi
((ITERATIONS >= 1)) || die "ITERATIONS must be at least 1"
[[ "${BATCHES}" =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || die "bad BATCHES '${BATCHES}' (e.g. 1,8)"
[[ "${THREADS}" =~ ^[1-9][0-9]*$ ]] || die "bad THREADS '${THREADS}'"
IFS=, read -r -a MODEL_LIST <<< "${MODELS}"
IFS=, read -r -a BACKEND_LIST <<< "${BACKENDS}"
IFS=, read -r -a PEER_LIST <<< "${PEERS}"
for p in "${PEER_LIST[@]}"; do
  [[ "${p}" == onnxruntime || "${p}" == pytorch ]] ||
    die "unknown peer '${p}' (onnxruntime, pytorch)"
done

DATE="$(date +%F)"
STARTED="$(date -u '+%F %H:%M UTC')"
RUN_DIR="${OUT_DIR}/cpu_models_${DATE}"
REPORT="${OUT_DIR}/cpu_models_${DATE}.md"
SECONDS=0
source benchmarks/quiet.sh
source benchmarks/bench_runs.sh
rm -rf "${RUN_DIR}"
mkdir -p "${RUN_DIR}" || exit 2
RUNS="${RUN_DIR}/runs.tsv"
printf 'model\trun\tstart\tload_before\tload_after\tseconds\tstatus\n' > "${RUNS}"
TMP_DIR="$(mktemp -d)"
trap 'rm -rf "${TMP_DIR}"' EXIT

# The model files, exported once: everything else waits until they exist, so
# an export (all cores) never overlaps a measurement.
for m in "${MODEL_LIST[@]}"; do
  file="${MODELS_DIR}/${m}_dynamic/model.onnx"
  [[ -f "${file}" ]] && continue
  echo "== exporting ${m} (full size, symbolic batch) into ${MODELS_DIR}"
  mkdir -p "${RUN_DIR}/${m}"
  # From / with absolute paths: the repo's onnx/ folder (C++ sources, no
  # __init__.py) must never be importable in place of the onnx package.
  if ! (cd / && "${PYTHON}" "${ROOT}/tools/export_onnx_models.py" --size=full \
          --dynamic-batch --models="${m}" --out="${MODELS_DIR}") \
        > "${TMP_DIR}/export_${m}.log" 2>&1 || [[ ! -f "${file}" ]]; then
    cat "${TMP_DIR}/export_${m}.log" >&2
    echo "export failed: $(reason_of "${TMP_DIR}/export_${m}.log")" \
      > "${RUN_DIR}/${m}/export.failed"
  fi
done

# Switchyard and the oneDNN plugin (bench_runs.sh): BIN, PLUGIN, BUILD_FAILED.
build_switchyard


# Every model on every side, once per round (in_rounds, bench_runs.sh).
measure_models() {
  local m dir onnx export_failed p
  for m in "${MODEL_LIST[@]}"; do
    dir="${RUN_DIR}/${m}"
    mkdir -p "${dir}"
    onnx="${MODELS_DIR}/${m}_dynamic/model.onnx"
    export_failed=""
    [[ -f "${BASE_DIR}/${m}/export.failed" ]] && export_failed="$(cat "${BASE_DIR}/${m}/export.failed")"

    bench_backends "${m}" "${onnx}" "${export_failed}"

    for p in "${PEER_LIST[@]}"; do
      if [[ "${p}" == onnxruntime ]]; then
        onnxruntime_run "${m}" "${onnx}" "${export_failed}"
      else
        # torchvision's own model of the same name, built in PyTorch (no .onnx).
        run_one "${m}" pytorch "${dir}/pytorch.json" "${PYTHON}" benchmarks/pytorch_peer.py \
          --model "${m}" --devices cpu --batch "${BATCHES}" --warmup "${WARMUP}" \
          --iterations "${ITERATIONS}" --threads "${THREADS}" --json "${dir}/pytorch.json"
      fi
    done
  done
}
in_rounds measure_models || exit 1

# The command that reproduces this report, every setting that differs from
# the defaults spelled out.
command="ROUNDS=${ROUNDS} WARMUP=${WARMUP} ITERATIONS=${ITERATIONS}"
[[ "${ALLOW_FEW_ITERATIONS:-0}" == 1 ]] && command="ALLOW_FEW_ITERATIONS=1 ${command}"
[[ "${BACKENDS}" != cpu,default ]] && command+=" BACKENDS=${BACKENDS}"
[[ "${PEERS}" != onnxruntime,pytorch ]] && command+=" PEERS=${PEERS}"
[[ -n "${SWITCHYARD:-}" ]] && command+=" SWITCHYARD=${SWITCHYARD}"
[[ -n "${DNNL_PLUGIN:-}" ]] && command+=" DNNL_PLUGIN=${DNNL_PLUGIN}"
[[ "${OUT_DIR}" != benchmarks/results ]] && command+=" OUT_DIR=${OUT_DIR}"
command+=" benchmarks/compare_cpu_models.sh ${ARGS[*]}"

"${PYTHON}" benchmarks/cpu_models_table.py "${RUN_DIR}" --models "${MODELS}" \
  --batches "${BATCHES}" --threads "${THREADS}" --backends "${BACKENDS}" \
  --peers "${PEERS}" --warmup "${WARMUP}" --iterations "$((ROUNDS * ITERATIONS))" \
  --rounds "${ROUNDS}" \
  --command "${command% }" --started "${STARTED}" --out "${REPORT}" || exit 1
cat "${REPORT}"
echo "== done in ${SECONDS} s: ${REPORT}"
# Anything not measured: a run without JSON (RUN.failed), or one that exited
# non-zero with its reasons in the JSON's rows.
not_ok="$(awk -F'\t' 'NR > 1 && $7 != "ok" { print "  " $1 " " $2 ": " $7 }' "${RUNS}")"
for f in "${RUN_DIR}"/*/*.failed; do
  [[ -f "${f}" ]] || continue
  m="$(basename "$(dirname "${f}")")" run="$(basename "${f}" .failed)"
  # Runs skipped without starting (export or build failed) are not in runs.tsv.
  awk -F'\t' -v m="${m}" -v r="${run}" '$1 == m && $2 == r { f = 1 } END { exit !f }' \
    "${RUNS}" || not_ok+=$'\n'"  ${m} ${run}: $(cat "${f}")"
done
if [[ -n "${not_ok}" ]]; then
  echo "compare_cpu_models.sh: some runs failed (their cells say why):" >&2
  echo "${not_ok}" | grep -v '^$' >&2
  exit 1
fi
