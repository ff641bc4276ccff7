#!/usr/bin/env bash
# NMS: Switchyard's non_max_suppression (nms_benchmark) against
# torchvision.ops.nms (nms_torchvision.py) on the same RPN-like boxes (1,000,
# 6,000, 20,000; IoU 0.7), in one session: build (-c opt), write the boxes,
# then Switchyard, torchvision, Switchyard again, torchvision again, so that
# drift in load falls on both. Prints each run's medians and the CPU.
#
#   benchmarks/compare_nms.sh            # REPETITIONS=10 THREADS=1
#   CUDA=1 benchmarks/compare_nms.sh     # also torchvision's CUDA nms
#
# Needs Debian's python3-torch and python3-torchvision (tools/setup.sh
# --with-pytorch). See docs/benchmarks.md.
set -euo pipefail
cd "$(dirname "$0")/.."

REPETITIONS=${REPETITIONS:-10}
THREADS=${THREADS:-1}
BOXES=${BOXES:-$(mktemp -d)}

bazel build -c opt //benchmarks:nms_benchmark >&2
bin="$(bazel info -c opt bazel-bin 2>/dev/null)/benchmarks/nms_benchmark"
"$bin" --write_boxes="$BOXES"

lscpu | grep -E '^(Model name|CPU\(s\)):' || true
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
switchyard() {  # the medians; a device that is missing, once, with the reason
  local out
  out=$("$bin" --threads="$THREADS" --benchmark_repetitions="$REPETITIONS" \
          --benchmark_report_aggregates_only=true 2>&1)
  grep -E '_median' <<< "$out" || true
  grep -m1 -E 'ERROR OCCURRED' <<< "$out" | sed -E 's/^(BM_Nms\/[^/]*).*ERROR OCCURRED:/\1 skipped:/' || true
}
torchvision() {
  /usr/bin/python3 benchmarks/nms_torchvision.py --boxes-dir="$BOXES" \
    --repetitions="$REPETITIONS" --threads="$THREADS" ${CUDA:+--cuda}
}
for round in 1 2; do
  echo "== round $round: Switchyard (median of $REPETITIONS)"
  switchyard
  echo "== round $round: torchvision"
  torchvision
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
