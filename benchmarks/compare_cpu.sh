#!/usr/bin/env bash
# Switchyard vs PyTorch, VGG-11 inference on the CPU, measured in one run.
#
# Builds //benchmarks:vgg11_benchmark (-c opt), then runs the two peers one
# after the other, never at once, for ROUNDS rounds whose order alternates
# (round 1: Switchyard then PyTorch, round 2: PyTorch then Switchyard, ...),
# so slow drift in machine load or clock affects both alike. Each peer run:
# the model is built, 2 untimed warm-up forwards, then ITERATIONS timed
# single forwards per batch size. benchmarks/cpu_comparison.py pools every
# timed forward per peer and writes a Markdown table of medians and their
# ratio.
#
# Usage: benchmarks/compare_cpu.sh [OUT_DIR]     (default benchmarks/results)
# Environment:
#   THREADS=2        threads of both peers
#   BATCHES=1,8      batch sizes
#   ITERATIONS=10    timed forwards per batch size and run
#   ROUNDS=2         rounds (each runs both peers once)
#   PER_LAYER=0      1: also time each layer alone on both peers (batch
#                    LAYER_BATCH, default 1) and add a per-layer table
#   QUIET_WAIT=300   seconds to wait, before each run, for other processes to
#                    go quiet (this machine is shared); 0: do not wait
# Writes OUT_DIR/cpu_vgg11_<date>.md and the raw JSON of every run under
# OUT_DIR/cpu_vgg11_<date>/ (a second run on the same day replaces both).
set -euo pipefail

cd "$(dirname "$0")/.."
THREADS="${THREADS:-2}"
BATCHES="${BATCHES:-1,8}"
ITERATIONS="${ITERATIONS:-10}"
ROUNDS="${ROUNDS:-2}"
PER_LAYER="${PER_LAYER:-0}"
LAYER_BATCH="${LAYER_BATCH:-1}"
OUT_DIR="${1:-benchmarks/results}"
PYTHON=/usr/bin/python3
DEVICE=cpu:0

DATE="$(date +%F)"
RUN_DIR="${OUT_DIR}/cpu_vgg11_${DATE}"
REPORT="${OUT_DIR}/cpu_vgg11_${DATE}.md"
SECONDS=0

echo "== building //benchmarks:vgg11_benchmark (-c opt)"
bazel build -c opt //benchmarks:vgg11_benchmark
# Run a private copy: another build in this workspace may replace the
# output (or repoint bazel-bin) while the benchmark runs.
TMP_DIR="$(mktemp -d)"
trap 'rm -rf "${TMP_DIR}"' EXIT
cp "$(bazel info -c opt bazel-bin)/benchmarks/vgg11_benchmark" "${TMP_DIR}/"
BENCH="${TMP_DIR}/vgg11_benchmark"

rm -rf "${RUN_DIR}"
mkdir -p "${RUN_DIR}"
RUNS="${RUN_DIR}/runs.tsv"
printf 'round\tpeer\tkind\tstart\tend\tload_before\tload_after\tother_cpus\tfile\n' \
  > "${RUNS}"

loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

# busy_ticks, wait_for_quiet, CLK_TCK
source benchmarks/quiet.sh
# CPU seconds (user + system) of this shell's finished children, from a file
# that `times` wrote. `times` itself must run in this shell (not in $(...),
# a subshell, which has no children of its own yet).
child_cpu_s() {
  tail -n 1 "$1" | awk '{
    s = 0
    for (i = 1; i <= NF; ++i) { split($i, p, "m"); sub("s", "", p[2]); s += p[1] * 60 + p[2] }
    printf "%.3f", s }'
}
now_s() { date +%s.%N; }

QUIET_WAIT="${QUIET_WAIT:-300}"

# run_peer ROUND PEER KIND FILE COMMAND...: runs COMMAND and logs it in
# runs.tsv with the load average around it and the CPUs that other processes
# kept busy meanwhile (machine busy time minus the run's own CPU time).
run_peer() {
  local round="$1" peer="$2" kind="$3" file="$4"
  shift 4
  mkdir -p "$(dirname "${RUN_DIR}/${file}")"
  wait_for_quiet
  local start load_before busy0 t0 others
  start="$(date -u +%FT%TZ)"
  load_before="$(loadavg)"
  echo "== round ${round}: ${peer} (${kind}), load ${load_before}"
  busy0="$(busy_ticks)"
  times > "${TMP_DIR}/times_before"
  t0="$(now_s)"
  "$@"
  times > "${TMP_DIR}/times_after"
  others="$(awk -v b="$(( $(busy_ticks) - busy0 ))" -v hz="${CLK_TCK}" \
    -v c0="$(child_cpu_s "${TMP_DIR}/times_before")" \
    -v c1="$(child_cpu_s "${TMP_DIR}/times_after")" -v t0="${t0}" -v t1="$(now_s)" \
    'BEGIN { o = (b / hz - (c1 - c0)) / (t1 - t0); printf "%.2f", (o < 0 ? 0 : o) }')"
  echo "   other processes kept ${others} CPUs busy meanwhile"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "${round}" "${peer}" "${kind}" \
    "${start}" "$(date -u +%FT%TZ)" "${load_before}" "$(loadavg)" "${others}" \
    "${file}" >> "${RUNS}"
}

switchyard_model() {
  run_peer "$1" switchyard model "round$1/switchyard.json" \
    "${BENCH}" --threads="${THREADS}" --devices="${DEVICE}" \
    --batches="${BATCHES}" --repetitions="${ITERATIONS}" --layer_batch=0 \
    --benchmark_filter='BM_Vgg11/' \
    --benchmark_out="${RUN_DIR}/round$1/switchyard.json" \
    --benchmark_out_format=json
}

pytorch_model() {
  run_peer "$1" pytorch model "round$1/pytorch.json" \
    "${PYTHON}" benchmarks/pytorch_vgg11_cpu.py --threads "${THREADS}" \
    --batch "${BATCHES}" --warmup 2 --iterations "${ITERATIONS}" \
    --json "${RUN_DIR}/round$1/pytorch.json"
}

for ((round = 1; round <= ROUNDS; round++)); do
  if ((round % 2 == 1)); then
    switchyard_model "${round}"
    pytorch_model "${round}"
  else
    pytorch_model "${round}"
    switchyard_model "${round}"
  fi
done

if [[ "${PER_LAYER}" == 1 ]]; then
  run_peer layers switchyard layers "layers/switchyard.json" \
    "${BENCH}" --threads="${THREADS}" --devices="${DEVICE}" \
    --layer_batch="${LAYER_BATCH}" --benchmark_filter='BM_Vgg11Layer/' \
    --benchmark_out="${RUN_DIR}/layers/switchyard.json" \
    --benchmark_out_format=json
  run_peer layers pytorch layers "layers/pytorch.json" \
    "${PYTHON}" benchmarks/pytorch_vgg11_cpu.py --threads "${THREADS}" \
    --batch "${LAYER_BATCH}" --warmup 2 --iterations "${ITERATIONS}" --per-layer \
    --json "${RUN_DIR}/layers/pytorch.json"
fi

"${PYTHON}" benchmarks/cpu_comparison.py "${RUN_DIR}" --out "${REPORT}" \
  --threads "${THREADS}" --device "${DEVICE}" \
  --command "THREADS=${THREADS} BATCHES=${BATCHES} ITERATIONS=${ITERATIONS} ROUNDS=${ROUNDS} PER_LAYER=${PER_LAYER} benchmarks/compare_cpu.sh"
echo "== done in ${SECONDS} s: ${REPORT}"
