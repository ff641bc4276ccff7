#!/usr/bin/env bash
# The GPU check, run ON the GPU machine from the bundle that tools/gpu_check.sh
# packed (no Bazel, no Java there). Copied into the bundle as
# gpu_bundle/run_on_gpu.sh; run it from anywhere:
#
#   OUT=/some/dir bash gpu_bundle/run_on_gpu.sh
#
# What it does, each step logged and summed up (PASS / FAIL / SKIP):
#   1. the machine: nvidia-smi, CPU, python and PyTorch versions;
#   2. cuBLASLt 13 and cuDNN 9: found with `find` (PyTorch's nvidia-* pip
#      packages first), given to Switchyard in SWITCHYARD_CUDA_LIBRARY_PATH;
#   3. `switchyard devices`;
#   4. every CUDA test binary (and the goldens and conformance suite, which
#      run on every cuda:N);
#   5. VGG11 (seeded init, batch 2) on cuda:0 against cpu:0: within
#      1e-4 x max|logit|, same top-1 (tools/compare_logits.py);
#   6. VGG11 forward times at batch 1, 8, 64 on cuda:0, beside PyTorch on the
#      same GPU in the same run (FP32, TF32 off in both, cudnn.benchmark on in
#      PyTorch), ROUNDS rounds in alternating order;
#   7. the results file for benchmarks/results/.
#
# Writes into $OUT (default ./gpu_check_out), few files, flat:
#   summary.txt                 one line per step, and the verdict
#   gpu_check.log               everything every command printed
#   devices.txt                 `switchyard devices`
#   cuda_vgg11_<date>.md        the results file: commit it as
#                               benchmarks/results/cuda_vgg11_<date>.md
#   cuda_vgg11_<date>.json      its raw numbers
#
# Exit status: 0 all passed; 1 something failed; 2 no GPU here (tests ran and
# skipped, nothing was timed).
#
# Environment: OUT, PYTHON (default python3), ROUNDS (2), WARMUP (5),
# ITERATIONS_1 / _8 / _64 (50 / 30 / 20 timed forwards per run),
# SKIP_PYTORCH=1, SKIP_BENCH=1 (no timings at all).
set -u

BUNDLE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${OUT:-$PWD/gpu_check_out}"
PYTHON="${PYTHON:-python3}"
ROUNDS="${ROUNDS:-2}"
WARMUP="${WARMUP:-5}"
BATCHES=(1 8 64)
declare -A ITERATIONS=([1]="${ITERATIONS_1:-50}" [8]="${ITERATIONS_8:-30}" [64]="${ITERATIONS_64:-20}")
DATE="$(date -u +%F)"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/gpu_check.XXXXXX")"
LOG="$OUT/gpu_check.log"
SUMMARY="$OUT/summary.txt"
: >"$LOG"
: >"$SUMMARY"
: >"$WORK/steps.tsv"
SECONDS=0

log() { echo "$*" | tee -a "$LOG"; }
# step NAME RESULT DETAIL
step() {
  printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$WORK/steps.tsv"
  printf '%-34s %-4s %s\n' "$1" "$2" "$3" | tee -a "$SUMMARY" | tee -a "$LOG"
}
# run_logged CMD...: runs with output to the log (and the terminal); status of CMD.
run_logged() {
  log "\$ $*"
  "$@" 2>&1 | tee -a "$LOG"
  return "${PIPESTATUS[0]}"
}

log "== Switchyard GPU check, $(date -u +%FT%TZ), bundle $BUNDLE, output $OUT"
[[ -f "$BUNDLE/MANIFEST.txt" ]] && cat "$BUNDLE/MANIFEST.txt" >>"$LOG"

# --- 1. the machine -------------------------------------------------------------
GPU_NAME="none"
DRIVER="none"
if command -v nvidia-smi >/dev/null 2>&1; then
  run_logged nvidia-smi
  GPU_NAME="$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n1)"
  DRIVER="$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -n1)"
  step "nvidia-smi" PASS "${GPU_NAME:-?}, driver ${DRIVER:-?}"
else
  step "nvidia-smi" SKIP "nvidia-smi is not installed here"
fi
CPU_MODEL="$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')"
log "CPU: $CPU_MODEL, $(nproc) CPUs; $(uname -sr)"
HAVE_TORCH=0
if [[ "${SKIP_PYTORCH:-0}" != 1 ]] && "$PYTHON" -c 'import torch, torchvision' >/dev/null 2>&1; then
  HAVE_TORCH=1
  run_logged "$PYTHON" -c 'import torch, torchvision, sys; print("python", sys.version.split()[0], "torch", torch.__version__, "CUDA", torch.version.cuda, "cuDNN", torch.backends.cudnn.version(), "torchvision", torchvision.__version__, "cuda available", torch.cuda.is_available())'
fi

# --- 2. cuBLASLt and cuDNN ---------------------------------------------------------
# PyTorch's wheels (site-packages/nvidia/*/lib) first, then anywhere.
SEARCH_ROOTS=()
if [[ "$HAVE_TORCH" == 1 ]]; then
  SITE="$("$PYTHON" -c 'import os, torch; print(os.path.dirname(os.path.dirname(torch.__file__)))' 2>/dev/null)"
  [[ -d "$SITE/nvidia" ]] && SEARCH_ROOTS+=("$SITE/nvidia")
fi
find_lib_dir() {  # SONAME -> the first directory holding it
  local root found
  for root in "${SEARCH_ROOTS[@]}" /; do
    found="$(find "$root" \( -path /proc -o -path /sys -o -path /dev -o -path "$BUNDLE" \) -prune \
      -o \( -name "$1" -a \( -type f -o -type l \) \) -print 2>/dev/null | head -n1)"
    if [[ -n "$found" ]]; then
      dirname "$found"
      return 0
    fi
  done
  return 1
}
LIB_DIRS=()
for soname in libcublasLt.so.13 libcudnn.so.9; do
  if dir="$(find_lib_dir "$soname")"; then
    LIB_DIRS+=("$dir")
    step "find $soname" PASS "$dir"
  else
    step "find $soname" FAIL "not found anywhere (find / -name '$soname')"
  fi
done
SWITCHYARD_CUDA_LIBRARY_PATH="$(IFS=:; echo "${LIB_DIRS[*]}")"
export SWITCHYARD_CUDA_LIBRARY_PATH
# The bundle's own libraries (Abseil, the test binaries' Bazel libraries);
# the CUDA library directories too, for cuDNN's sub-libraries.
export LD_LIBRARY_PATH="$BUNDLE/lib${SWITCHYARD_CUDA_LIBRARY_PATH:+:$SWITCHYARD_CUDA_LIBRARY_PATH}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
log "SWITCHYARD_CUDA_LIBRARY_PATH=$SWITCHYARD_CUDA_LIBRARY_PATH"
log "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"

# The bundle's libstdc++ only if the system's is older than the build's.
SY="$BUNDLE/bin/switchyard"
if ldd "$SY" 2>&1 | grep -q -e 'not found' -e 'version .* not found'; then
  log "system libraries are missing or too old for the bundle:"
  ldd "$SY" 2>&1 | grep -e 'not found' | tee -a "$LOG"
  export LD_LIBRARY_PATH="$BUNDLE/lib/fallback:$LD_LIBRARY_PATH"
  log "using the bundle's libstdc++ and libgcc_s (lib/fallback)"
fi
if ldd "$SY" 2>&1 | grep -q 'not found'; then
  step "binaries load" FAIL "$(ldd "$SY" 2>&1 | grep 'not found' | head -n3 | tr '\n' ' ')"
else
  step "binaries load" PASS "all shared libraries resolve"
fi

# --- 3. devices -----------------------------------------------------------------
"$SY" devices >"$OUT/devices.txt" 2>&1
status=$?
cat "$OUT/devices.txt" | tee -a "$LOG"
HAVE_GPU=0
if [[ $status -ne 0 ]]; then
  step "switchyard devices" FAIL "exit $status"
elif grep -q '^  cuda:0 ' "$OUT/devices.txt"; then
  HAVE_GPU=1
  step "switchyard devices" PASS "$(grep '^  cuda:0 ' "$OUT/devices.txt" | cut -c1-160)"
  if grep '^  cuda:' "$OUT/devices.txt" | grep -q 'unavailable'; then
    step "cuBLASLt/cuDNN loaded" FAIL "$(grep -o '\(cuBLASLt\|cuDNN\) unavailable[^)]*' "$OUT/devices.txt" | head -n2 | tr '\n' ' ')"
  else
    step "cuBLASLt/cuDNN loaded" PASS "versions in devices.txt"
  fi
else
  step "switchyard devices" SKIP "no cuda device: $(sed -n 's/^cuda: no devices: //p' "$OUT/devices.txt" | cut -c1-200)"
fi

# --- 4. tests ---------------------------------------------------------------------
# From the bundle's root: the goldens read tests/golden/data.
for test in caching_allocator_test cuda_libraries_test cuda_backend_test \
    cuda_partition_test cuda_kernels_test golden_test conformance_test; do
  if [[ ! -x "$BUNDLE/bin/$test" ]]; then
    step "test $test" FAIL "not in the bundle"
    continue
  fi
  log "\$ bin/$test"
  (cd "$BUNDLE" && "bin/$test" --gtest_color=no) >"$WORK/$test.txt" 2>&1
  status=$?
  cat "$WORK/$test.txt" >>"$LOG"
  passed="$(grep -c '^\[       OK \]' "$WORK/$test.txt")"
  # Per-test lines end in "(N ms)"; gtest repeats the names in its summary.
  skipped="$(grep -cE '^\[  SKIPPED \] .* \([0-9]+ ms\)$' "$WORK/$test.txt")"
  failed="$(grep -cE '^\[  FAILED  \] .* \([0-9]+ ms\)$' "$WORK/$test.txt")"
  detail="$passed passed, $skipped skipped, $failed failed"
  if [[ $status -ne 0 ]]; then
    step "test $test" FAIL "exit $status; $detail: $(grep -E '^\[  FAILED  \] .* \([0-9]+ ms\)$' "$WORK/$test.txt" | head -n3 | cut -c14- | tr '\n' ' ')"
  else
    step "test $test" PASS "$detail"
  fi
done

if [[ "$HAVE_GPU" != 1 ]]; then
  step "vgg11 logits cuda:0 vs cpu" SKIP "no GPU"
  step "vgg11 timings" SKIP "no GPU"
else
  # --- 5. logits ------------------------------------------------------------------
  ok=1
  for device in cpu cuda:0; do
    name="${device%%:*}"
    run_logged "$SY" run --model=vgg11 --batch=2 --seed=0 --device="$device" \
      --warmup=0 --iterations=1 --output="$WORK/logits_$name.npy" || ok=0
  done
  if [[ $ok == 1 ]] && run_logged "$PYTHON" "$BUNDLE/tools/compare_logits.py" \
      "$WORK/logits_cpu.npy" "$WORK/logits_cuda.npy" >"$WORK/logits.txt" 2>&1; then
    step "vgg11 logits cuda:0 vs cpu" PASS "$(grep ratio "$WORK/logits.txt" | sed 's/  */ /g')"
  else
    step "vgg11 logits cuda:0 vs cpu" FAIL "$(tail -n3 "$WORK/logits.txt" 2>/dev/null | tr '\n' ' ')"
  fi

  # --- 6. timings -----------------------------------------------------------------
  if [[ "${SKIP_BENCH:-0}" == 1 ]]; then
    step "vgg11 timings" SKIP "SKIP_BENCH=1"
  else
    switchyard_round() {
      local r=$1 b
      for b in "${BATCHES[@]}"; do
        run_logged "$SY" run --model=vgg11 --device=cuda:0 --batch="$b" --seed=0 \
          --warmup="$WARMUP" --iterations="${ITERATIONS[$b]}" \
          --report="$WORK/switchyard_r${r}_b${b}.json" ||
          step "switchyard vgg11 batch $b round $r" FAIL "see gpu_check.log"
      done
    }
    pytorch_round() {
      local r=$1
      if [[ "$HAVE_TORCH" != 1 ]]; then return; fi
      # One process per batch size, like Switchyard's runs.
      local b
      for b in "${BATCHES[@]}"; do
        run_logged "$PYTHON" "$BUNDLE/tools/gpu_check/pytorch_vgg11_cuda.py" --batch "$b" \
          --warmup "$WARMUP" --iterations "${ITERATIONS[$b]}" \
          --json "$WORK/pytorch_r${r}_b${b}.json" ||
          step "pytorch vgg11 batch $b round $r" FAIL "see gpu_check.log"
      done
    }
    for ((r = 1; r <= ROUNDS; r++)); do
      if ((r % 2 == 1)); then switchyard_round $r; pytorch_round $r
      else pytorch_round $r; switchyard_round $r; fi
    done
    n_sy=$(ls "$WORK"/switchyard_r*_b*.json 2>/dev/null | wc -l)
    n_pt=$(ls "$WORK"/pytorch_r*_b*.json 2>/dev/null | wc -l)
    expected=$((ROUNDS * ${#BATCHES[@]}))
    if [[ $n_sy -eq $expected && ( $n_pt -eq $expected || $HAVE_TORCH != 1 ) ]]; then
      step "vgg11 timings" PASS "$n_sy switchyard runs, $n_pt pytorch runs"
    else
      step "vgg11 timings" FAIL "$n_sy of $expected switchyard runs, $n_pt of $expected pytorch runs"
    fi
    [[ "$HAVE_TORCH" == 1 ]] || step "pytorch peer" SKIP "no torch/torchvision for $PYTHON"
    # The profiling/bench command, if this build has it: informative only.
    if "$SY" 2>&1 | grep -q '^  bench '; then
      timeout 300 "$SY" bench --model=vgg11 --devices=cpu,cuda:0 --batch=1,8,64 >>"$LOG" 2>&1 ||
        log "(switchyard bench failed or timed out; informative only)"
    fi
  fi
fi

# --- 7. results ---------------------------------------------------------------------
CUBLASLT="$(grep -o 'cuBLASLt [0-9.]*' "$OUT/devices.txt" | head -n1 | cut -d' ' -f2)"
CUDNN="$(grep -o 'cuDNN [0-9.]*' "$OUT/devices.txt" | head -n1 | cut -d' ' -f2)"
"$PYTHON" - "$WORK/env.json" "$(date -u +%FT%TZ)" "$GPU_NAME" "$DRIVER" "$CPU_MODEL" "$(nproc)" \
    "$(grep -m1 '^built ' "$BUNDLE/MANIFEST.txt" 2>/dev/null | cut -c7-)" \
    "$(grep -m1 '^cuda_archs ' "$BUNDLE/MANIFEST.txt" 2>/dev/null | cut -c12-)" \
    "${CUBLASLT:-?}" "${CUDNN:-?}" "$ROUNDS" \
    "ROUNDS=$ROUNDS WARMUP=$WARMUP ITERATIONS_1=${ITERATIONS[1]} ITERATIONS_8=${ITERATIONS[8]} ITERATIONS_64=${ITERATIONS[64]} bash gpu_bundle/run_on_gpu.sh" <<'EOF'
import json, sys
keys = ["date", "gpu", "driver", "cpu", "cpus", "switchyard_build", "cuda_archs",
        "cublaslt", "cudnn", "rounds", "command"]
json.dump(dict(zip(keys, sys.argv[2:])), open(sys.argv[1], "w"), indent=2)
EOF
if [[ "$HAVE_GPU" == 1 ]]; then
  run_logged "$PYTHON" "$BUNDLE/tools/gpu_check/report.py" "$WORK" \
    --out-md "$OUT/cuda_vgg11_${DATE}.md" --out-json "$OUT/cuda_vgg11_${DATE}.json"
fi

failures=$(cut -f2 "$WORK/steps.tsv" | grep -c FAIL)
if [[ $failures -gt 0 ]]; then
  verdict="FAIL: $failures step(s) failed"
  code=1
elif [[ "$HAVE_GPU" != 1 ]]; then
  verdict="NO GPU: nothing needing a GPU ran (the tests ran and skipped); see devices.txt"
  code=2
else
  verdict="PASS"
  code=0
fi
log ""
echo "$verdict (${SECONDS} s)" | tee -a "$SUMMARY" | tee -a "$LOG"
rm -rf "$WORK"
exit $code
