#!/bin/bash
# dnnl:0's median forward under OpenMP wait policies, idle or beside busy
# loops (benchmarks/results/openmp_spin_2026-12-04.md):
#
#   HOGS=2 ROUNDS=7 benchmarks/openmp_wait_policies.sh MODEL.onnx [--input_shape=1x3x224x224]
#
# Rounds interleave the policies (POLICIES, space-separated VAR=VALUE; X=1
# is "nothing set": Switchyard's own default); each prints the median of its
# rounds and every round. HOGS shell busy loops run beside, each holding a
# core's worth of work. BIN: the switchyard binary (bazel-bin's by default).
set -u
BIN=${BIN:-bazel-bin/tools/cli/switchyard}
MODEL=${1:?give a model file}
SHAPE=${2:-}
HOGS=${HOGS:-0}
ROUNDS=${ROUNDS:-5}
read -r -a POLICIES <<< "${POLICIES:-X=1 OMP_WAIT_POLICY=passive GOMP_SPINCOUNT=1000 GOMP_SPINCOUNT=300000}"

measure() {
  env "$@" "$BIN" run --model="$MODEL" $SHAPE --iterations=10 --warmup=2 --threads=2 2>&1 |
    sed -nE 's/^forward: median ([0-9.]+) ms.*/\1/p'
}

hogs=()
trap 'kill "${hogs[@]}" 2>/dev/null' EXIT
for ((h = 0; h < HOGS; h++)); do (while :; do :; done) & hogs+=($!); done
declare -A rounds
for ((k = 0; k < ROUNDS; k++)); do
  for policy in "${POLICIES[@]}"; do rounds[$policy]+="$(measure "$policy") "; done
done
for policy in "${POLICIES[@]}"; do
  median=$(tr ' ' '\n' <<< "${rounds[$policy]}" | grep . | sort -n |
           awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}')
  echo "$(basename "$MODEL") hogs=$HOGS $policy: median ${median} ms [${rounds[$policy]% }]"
done
