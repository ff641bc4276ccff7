#!/usr/bin/env bash
# The image input pipeline: Switchyard's (image_pipeline_benchmark, data/)
# against torchvision's transforms + PIL through a DataLoader
# (torchvision_pipeline.py) with the same number of loader threads / workers,
# on the same JPEGs, in one session: build (-c opt), write the images, then
# Switchyard, torchvision, Switchyard again, torchvision again, so that drift
# in load falls on both. Prints the CPU and the load average around them.
#
#   benchmarks/compare_image_pipeline.sh        # COUNT=64 WORKERS=1,2 BATCH=32
#   AUGMENT=train benchmarks/compare_image_pipeline.sh
#   IMAGES=/data/imagenet/val/n01440764 benchmarks/compare_image_pipeline.sh
#
# Needs Debian's python3-torch, python3-torchvision, python3-pil
# (tools/setup.sh --with-pytorch). See docs/benchmarks.md.
set -euo pipefail
cd "$(dirname "$0")/.."

COUNT=${COUNT:-64}
WORKERS=${WORKERS:-1,2}
BATCH=${BATCH:-32}
AUGMENT=${AUGMENT:-eval}
if [[ -z "${IMAGES:-}" ]]; then
  IMAGES=$(mktemp -d)
  /usr/bin/python3 benchmarks/torchvision_pipeline.py --make-images="$IMAGES" --count="$COUNT"
fi

bazel build -c opt //benchmarks:image_pipeline_benchmark >&2
bin="$(bazel info -c opt bazel-bin 2>/dev/null)/benchmarks/image_pipeline_benchmark"

lscpu | grep -E '^(Model name|CPU\(s\)):' || true
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for round in 1 2; do
  echo "== round $round: Switchyard"
  "$bin" --images="$IMAGES" --loader_threads="$WORKERS" --batch="$BATCH" \
    --augment="$AUGMENT" --benchmark_counters_tabular=true 2>&1 |
    grep -E '^(BM_|Benchmark|-|images|mean_pixels)' || true
  echo "== round $round: torchvision"
  /usr/bin/python3 benchmarks/torchvision_pipeline.py --images="$IMAGES" \
    --workers="$WORKERS" --batch="$BATCH" --augment="$AUGMENT"
  echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
done
