#!/usr/bin/env bash
# Two Switchyard builds on the same models, alternating run by run so that
# a drift in the machine's load falls on both: the "not slower than before"
# check of a change. Each run is `switchyard bench` (forward medians); the
# summary takes, per (model, batch), the median over runs of each build's
# forward median, and the ratio after / before.
#
# Usage: benchmarks/compare_builds.sh BEFORE_BIN AFTER_BIN MODEL...
#   BEFORE_BIN, AFTER_BIN  switchyard binaries (e.g. one built at the
#               commit before the change: git worktree add /tmp/base REV,
#               bazel build -c opt //tools/cli:switchyard there)
#   MODEL       a built-in name (vgg11) or an .onnx file with a symbolic
#               batch (tools/export_onnx_models.py --size=full --dynamic-batch)
# Environment:
#   ROUNDS=3                runs of each build per model
#   BATCHES=1,8 THREADS=2   bench --batch, --threads
#   WARMUP=2 ITERATIONS=10  bench --warmup, --iterations
#   QUIET_WAIT=120          seconds to wait for other processes to go quiet
#                           before each run (benchmarks/quiet.sh)
#   OUT=benchmarks/results/builds_<date>   where the JSON and summary go
# Writes OUT/<model>_<before|after>_<round>.json and OUT/summary.md.
set -uo pipefail

if [[ $# -lt 3 || "$1" == -h || "$1" == --help ]]; then
  sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
cd "$(dirname "$0")/.."
source benchmarks/quiet.sh
BEFORE="$(realpath "$1")" AFTER="$(realpath "$2")"
shift 2
ROUNDS="${ROUNDS:-3}" BATCHES="${BATCHES:-1,8}" THREADS="${THREADS:-2}"
WARMUP="${WARMUP:-2}" ITERATIONS="${ITERATIONS:-10}"
OUT="${OUT:-benchmarks/results/builds_$(date -u +%Y-%m-%d)}"
mkdir -p "$OUT"

for model in "$@"; do
  [[ "$model" == *.onnx ]] && model="$(realpath "$model")"
  name="$(basename "$(dirname "$model")")"
  [[ "$model" != *.onnx ]] && name="$model"
  for ((round = 1; round <= ROUNDS; ++round)); do
    for build in before after; do
      bin="$BEFORE"
      [[ $build == after ]] && bin="$AFTER"
      wait_for_quiet
      echo "== $name $build round $round"
      "$bin" bench --model="$model" --batch="$BATCHES" --devices=cpu --threads="$THREADS" \
          --warmup="$WARMUP" --iterations="$ITERATIONS" \
          --json="$OUT/${name}_${build}_${round}.json" > /dev/null || exit 1
    done
  done
done

/usr/bin/python3 - "$OUT" "$BEFORE" "$AFTER" << 'PY' | tee "$OUT/summary.md"
import glob, json, os, statistics, sys
out, before_bin, after_bin = sys.argv[1:4]
medians = {}  # (model, batch, build) -> [forward median per run]
context = {}
for path in sorted(glob.glob(os.path.join(out, "*.json"))):
    model, build, _ = os.path.basename(path)[:-5].rsplit("_", 2)
    d = json.load(open(path))
    context[build] = d["context"]
    for r in d["results"]:
        medians.setdefault((model, r["batch"], build), []).append(r["forward_ms"]["median"])
print("| model | batch | before ms | after ms | after / before | runs |")
print("| --- | ---: | ---: | ---: | ---: | ---: |")
for model, batch in sorted({(m, b) for m, b, _ in medians}):
    b = medians.get((model, batch, "before"), [])
    a = medians.get((model, batch, "after"), [])
    if not a or not b:
        continue
    mb, ma = statistics.median(b), statistics.median(a)
    print(f"| {model} | {batch} | {mb:.1f} | {ma:.1f} | {ma / mb:.3f} | {len(b)} + {len(a)} |")
print()
for build, binary in (("before", before_bin), ("after", after_bin)):
    c = context.get(build, {})
    print(f"- {build}: {binary} (commit {c.get('git_commit', '?')}), {c.get('cpu_model', '?')}, "
          f"{c.get('cpu_threads', '?')} threads, {c.get('target_cpu', '?')}")
print("- each cell: the median over runs of each run's forward median "
      "(`switchyard bench`, cpu:0), runs alternating between the builds")
PY
