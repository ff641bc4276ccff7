#!/usr/bin/env bash
# `switchyard bench` and its PyTorch peer on the same workloads, one after the
# other in one invocation, merged by compare.py into a Markdown table with
# ratios and a bar chart.
#
# Usage: benchmarks/bench_vs_pytorch.sh [OUT_DIR]     (default benchmarks/results)
# Environment:
#   THREADS=2       CPU threads of both (switchyard --threads, torch.set_num_threads)
#   BATCHES=1,8     batch sizes
#   WARMUP=2        untimed iterations per device and batch
#   ITERATIONS=10   timed iterations per device and batch
#   DEVICES=        devices (cpu,cuda:0); empty: every device each one sees
#   QUIET_WAIT=300  seconds to wait for other processes to go quiet before each run
# Writes OUT_DIR/bench_vgg11_<date>/{switchyard,pytorch}.json and
# OUT_DIR/bench_vgg11_<date>.md and .png (a second run on the same day
# replaces them). About 15 s + 40 s on 2 cores with the defaults, plus the build.
set -euo pipefail

cd "$(dirname "$0")/.."
THREADS="${THREADS:-2}"
BATCHES="${BATCHES:-1,8}"
WARMUP="${WARMUP:-2}"
ITERATIONS="${ITERATIONS:-10}"
DEVICES="${DEVICES:-}"
OUT_DIR="${1:-benchmarks/results}"
PYTHON=/usr/bin/python3
DATE="$(date +%F)"
RUN_DIR="${OUT_DIR}/bench_vgg11_${DATE}"
SECONDS=0
source benchmarks/quiet.sh

echo "== building //tools/cli:switchyard (-c opt)"
bazel build -c opt //tools/cli:switchyard
# A private copy: another build may replace bazel-bin while this runs.
TMP_DIR="$(mktemp -d)"
trap 'rm -rf "${TMP_DIR}"' EXIT
cp "$(bazel info -c opt bazel-bin)/tools/cli/switchyard" "${TMP_DIR}/"
mkdir -p "${RUN_DIR}"

loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
LOADS=()

wait_for_quiet
echo "== switchyard bench, load $(loadavg)"
LOADS+=("switchyard: load $(loadavg) before")
"${TMP_DIR}/switchyard" bench --model=vgg11 --batch="${BATCHES}" --warmup="${WARMUP}" \
  --iterations="${ITERATIONS}" --threads="${THREADS}" ${DEVICES:+--devices="${DEVICES}"} \
  --json="${RUN_DIR}/switchyard.json"
LOADS+=("switchyard: load $(loadavg) after")

wait_for_quiet
echo "== pytorch_peer.py, load $(loadavg)"
LOADS+=("pytorch: load $(loadavg) before")
"${PYTHON}" benchmarks/pytorch_peer.py --model vgg11 --batch "${BATCHES}" \
  --warmup "${WARMUP}" --iterations "${ITERATIONS}" --threads "${THREADS}" \
  ${DEVICES:+--devices "${DEVICES}"} --json "${RUN_DIR}/pytorch.json"
LOADS+=("pytorch: load $(loadavg) after")

REPORT="${OUT_DIR}/bench_vgg11_${DATE}.md"
"${PYTHON}" benchmarks/compare.py "${RUN_DIR}/switchyard.json" "${RUN_DIR}/pytorch.json" \
  --out "${REPORT}" --png "${OUT_DIR}/bench_vgg11_${DATE}.png"
{
  echo
  echo "Produced by \`THREADS=${THREADS} BATCHES=${BATCHES} WARMUP=${WARMUP} ITERATIONS=${ITERATIONS}${DEVICES:+ DEVICES=${DEVICES}} benchmarks/bench_vs_pytorch.sh\` on $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'))."
  echo "Load averages (1, 5, 15 min): $(printf '%s; ' "${LOADS[@]}")"
  echo
  echo "![chart](bench_vgg11_${DATE}.png)"
} >> "${REPORT}"
echo "== done in ${SECONDS} s: ${REPORT}"
