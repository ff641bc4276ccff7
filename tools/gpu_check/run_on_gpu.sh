#!/usr/bin/env bash
# The GPU check, run ON the GPU machine from the bundle that tools/gpu_check.sh
# packed (no Bazel, no Java there). Copied into the bundle as
# gpu_bundle/run_on_gpu.sh; run it from anywhere:
#
#   OUT=/some/dir bash gpu_bundle/run_on_gpu.sh
#
# Every step runs under `timeout` with its own budget, cut to what is left of
# BUDGET_TOTAL; a failing or timed-out step is recorded and the next one
# runs (the script never stops at the first failure). Steps (STEPS selects,
# default all: machine,tests,onnx,logits,models,bench,resnet50,profile,util,verdicts,nms;
# a step cut for want of time is the last ones'):
#   machine  nvidia-smi, CPU, python and PyTorch; cuBLASLt 13 and cuDNN 9 for
#            CUDA 13 found (PyTorch's nvidia-* wheels first, both layouts) for
#            SWITCHYARD_CUDA_LIBRARY_PATH; one `versions` line (driver, runtime,
#            cuBLASLt, cuDNN), and without either library the steps that need
#            them stop with that reason; the glibc the binaries need against
#            this machine's; the binaries load; `switchyard devices` (always run)
#   tests    every CUDA test binary, the goldens, the conformance suite, the
#            concurrency and NMS tests (all of them run on every cuda:N), with
#            SWITCHYARD_SYNC_EACH_NODE=1 and CUDA_LAUNCH_BLOCKING=1 (a fault
#            names its node)
#   onnx     the ONNX importer's tests on cpu:0 and cuda:0: ONNX's node tests
#            (the cases that passed on cpu:0 where the bundle was packed) and
#            the torchvision families (tests/onnx_models) against PyTorch's
#            and ONNX Runtime's logits; each failing case is its own line
#   logits   VGG11 (seeded init, batch 2) on cuda:0 against cpu:0: within
#            1e-4 x max|logit|, same top-1 (tools/compare_logits.py)
#   models   the model kinds added lately, each run by `switchyard run` on
#            cpu:0 and cuda:0 and compared (tools/gpu_check/compare_outputs.py):
#            an opset-18 model, a float16 model, an int8 QDQ model (from
#            tests/onnx_cases, packed as data/models/<kind>/), and the
#            detector (tests/onnx_models/fasterrcnn_narrow) over the folder
#            tests/images, each image at its own size
#   bench    `switchyard bench --model=vgg11 --devices=cpu,cuda:0
#            --batch=1,8,64` (FP32), again on cuda:0 with
#            --backend_option=cuda.allow_tf32=true; the PyTorch peer
#            (benchmarks/pytorch_peer.py) with TF32 off on cpu and cuda:0,
#            then with TF32 on on cuda:0; benchmarks/compare.py over the four
#   resnet50 ResNet-50 (torchvision's, seeded weights) exported here by
#            tools/export_onnx_models.py --size=full --dynamic-batch;
#            `switchyard bench` of the .onnx on cpu and cuda:0 at batch
#            1,8,64; its logits on cuda:0 against cpu:0, PyTorch on CUDA and
#            on the CPU and ONNX Runtime, the same file and input
#            (tools/gpu_check/onnx_logits.py)
#   profile  `switchyard run --batch=8 --device=cuda:0 --profile=trace.json
#            --profile-summary`
#   util     the utilisation report (`switchyard run --batches=N`) of an
#            input-starved and a well-fed run on cuda:0, each with nvidia-smi
#            sampling utilization.gpu and memory.used every 100 ms beside it
#   verdicts issue 12's diagnosis on a real GPU, each with nvidia-smi
#            sampling: VGG11 fed by `--images` (64 progressive 3000x2000
#            JPEGs made here) with 1 loader thread (starved) and with 8;
#            detection_postprocess.onnx (one op: NMS); copy_bound.onnx
#            (copies)
#   nms      nms_benchmark on cpu:0 and cuda:0 (1,000 / 6,000 / 20,000
#            RPN-like boxes, IoU 0.7) and torchvision.ops.nms on CUDA on the
#            same boxes (tools/gpu_check/torchvision_nms_cuda.py)
# then report.py writes gpu_<date>.md (commit it as
# benchmarks/results/gpu_<date>.md) and gpu_<date>.json.
#
# Everything goes under $OUT (default ./gpu_check_out):
#   summary.txt, gpu_check.log   one line per step and the verdict; everything
#   steps.tsv, env.json          the same, for report.py
#   logs/<step>.txt              each command's own output
#   devices.txt, tests/, logits_*.npy, bench/, profile/, util/, nms/,
#   onnx/, resnet50/, verdicts/
#   gpu_<date>.md, gpu_<date>.json
# The device tool brings back at most 8 files from $OUT, so at the end
# (PACK_OUT=1, the default) everything but summary.txt and gpu_<date>.md /
# .json goes into gpu_check_out.tar.gz (split into .part files over 15 MiB).
# report.py can be rerun on the unpacked folder:
#   mkdir out && tar -xzf gpu_check_out.tar.gz -C out &&
#   python3 gpu_bundle/tools/gpu_check/report.py out
#
# Exit status: 0 all passed; 1 something failed or timed out, or a step was
# not run for want of time (INCOMPLETE); 2 no GPU here
# (the tests ran and skipped their GPU cases, every GPU step skipped).
#
# Environment: OUT, PYTHON (default: the first of python3, /usr/bin/python3
# that imports torch and torchvision), STEPS, BUDGET_TOTAL (540 s),
# T_<STEP> per-step limits (see below), BENCH_WARMUP (3),
# BENCH_ITERATIONS (20), BENCH_BATCHES (1,8,64), BENCH_THREADS (nproc, both
# peers' CPU threads), UTIL_BATCH (8),
# UTIL_BATCHES (400), UTIL_COST_MS (20), UTIL_FED_LOADERS (12),
# PROFILE_BATCH (8), PROFILE_ITERATIONS (10), NMS_DEVICES (cpu:0,cuda:0),
# R50_BATCHES (1,8,64), R50_WARMUP (2), R50_ITERATIONS (10),
# IMG_COUNT (64), IMG_SIZE (3000x2000), IMG_BATCH (8), IMG_FED_LOADERS (8),
# VERDICT_BATCHES (20),
# DRY_DEVICE (cpu:0 tests this script without a GPU: the GPU steps run there),
# ROUNDS (0: the old alternating Switchyard/PyTorch `run` timings, off),
# SKIP_PYTORCH=1, PACK_OUT (1: pack $OUT at the end, see above).
set -u

BUNDLE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${OUT:-$PWD/gpu_check_out}"
ALL_STEPS=machine,tests,onnx,logits,models,bench,resnet50,profile,util,verdicts,nms
STEPS=",${STEPS:-$ALL_STEPS},"
BUDGET_TOTAL="${BUDGET_TOTAL:-540}"
REPORT_RESERVE=20          # seconds kept back for the report
BENCH_WARMUP="${BENCH_WARMUP:-3}"
BENCH_ITERATIONS="${BENCH_ITERATIONS:-20}"
BENCH_BATCHES="${BENCH_BATCHES:-1,8,64}"
BENCH_THREADS="${BENCH_THREADS:-$(nproc)}"   # CPU threads, the same for both peers
UTIL_BATCH="${UTIL_BATCH:-8}"
UTIL_BATCHES="${UTIL_BATCHES:-400}"
UTIL_COST_MS="${UTIL_COST_MS:-20}"
# 12 busy loaders (switchyard allows 4 per core), leaving the driver a core.
UTIL_FED_LOADERS="${UTIL_FED_LOADERS:-$(( $(nproc) * 4 < 12 ? $(nproc) * 4 : 12 ))}"
NMS_DEVICES="${NMS_DEVICES:-cpu:0,cuda:0}"
PROFILE_BATCH="${PROFILE_BATCH:-8}"
PROFILE_ITERATIONS="${PROFILE_ITERATIONS:-10}"
R50_BATCHES="${R50_BATCHES:-1,8,64}"
R50_WARMUP="${R50_WARMUP:-2}"
R50_ITERATIONS="${R50_ITERATIONS:-10}"
IMG_COUNT="${IMG_COUNT:-64}"
IMG_SIZE="${IMG_SIZE:-3000x2000}"
IMG_BATCH="${IMG_BATCH:-8}"
IMG_FED_LOADERS="${IMG_FED_LOADERS:-8}"
VERDICT_BATCHES="${VERDICT_BATCHES:-20}"
PACK_OUT="${PACK_OUT:-1}"
# DRY_DEVICE=cpu:0 (testing this script on a machine without a GPU): every
# GPU step runs, on that device instead of cuda:0.
DEV="${DRY_DEVICE:-cuda:0}"
ROUNDS="${ROUNDS:-0}"
# Per-step limits in seconds (each also cut to what is left of the total).
T_FIND="${T_FIND:-60}" T_DEVICES="${T_DEVICES:-30}" T_TEST="${T_TEST:-90}"
T_TEST_LONG="${T_TEST_LONG:-150}" T_LOGITS="${T_LOGITS:-60}"
T_BENCH="${T_BENCH:-150}" T_BENCH_TF32="${T_BENCH_TF32:-60}" T_PEER="${T_PEER:-150}"
T_PEER_TF32="${T_PEER_TF32:-90}" T_COMPARE="${T_COMPARE:-30}" T_PROFILE="${T_PROFILE:-60}"
T_UTIL="${T_UTIL:-60}" T_NMS="${T_NMS:-90}" T_NMS_TORCH="${T_NMS_TORCH:-90}"
T_ONNX_NODE="${T_ONNX_NODE:-90}" T_ONNX_MODELS="${T_ONNX_MODELS:-120}"
T_EXPORT="${T_EXPORT:-120}" T_R50_BENCH="${T_R50_BENCH:-120}" T_R50_RUN="${T_R50_RUN:-60}"
T_R50_LOGITS="${T_R50_LOGITS:-90}" T_IMAGES="${T_IMAGES:-90}" T_VERDICT="${T_VERDICT:-60}"
T_MODEL="${T_MODEL:-45}"
DATE="$(date -u +%F)"

mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
mkdir -p "$OUT"/{logs,tests,bench,profile,util,nms,onnx,resnet50,verdicts,models}
LOG="$OUT/gpu_check.log"
SUMMARY="$OUT/summary.txt"
STEPS_TSV="$OUT/steps.tsv"
TMP="$(mktemp -d "${TMPDIR:-/tmp}/gpu_check.XXXXXX")"
: >"$LOG"
: >"$SUMMARY"
: >"$STEPS_TSV"
SECONDS=0

log() { echo "$*" | tee -a "$LOG"; }
want() { [[ "$STEPS" == *",$1,"* ]]; }
# step NAME RESULT DETAIL [SECONDS]
# A step cut for want of time is a SKIP that makes the run INCOMPLETE.
BUDGET_CUT=0
step() {
  local result=$2 detail=$3
  if [[ "$result" == FAIL && "$detail" == "not run: out of the total budget"* ]]; then
    result=SKIP
    detail="not run: out of the total budget ($BUDGET_TOTAL s)"
    BUDGET_CUT=$((BUDGET_CUT + 1))
  fi
  printf '%s\t%s\t%s\t%s\n' "$1" "$result" "$detail" "${4:-}" >>"$STEPS_TSV"
  printf '%-36s %-4s %s\n' "$1" "$result" "$detail" | tee -a "$SUMMARY" | tee -a "$LOG"
}
# budget WANT: seconds this step may take (WANT, cut to what is left).
budget() {
  local left=$((BUDGET_TOTAL - REPORT_RESERVE - SECONDS))
  ((left < $1)) && echo "$left" || echo "$1"
}
# run_step LOGNAME LIMIT CMD...: CMD under `timeout`, its output in
# logs/LOGNAME.txt and gpu_check.log; sets RC (124: timed out) and ELAPSED.
# LIMIT below 5 s: not run (RC=125).
run_step() {
  local name=$1 limit=$2
  shift 2
  local t0=$SECONDS
  if ((limit < 5)); then
    RC=125
    ELAPSED=0
    echo "not run: out of the total budget of $BUDGET_TOTAL s" >"$OUT/logs/$name.txt"
    log "(not run: $name, out of the total budget of $BUDGET_TOTAL s)"
    return 125
  fi
  log "\$ [$name, limit ${limit}s] $*"
  timeout --kill-after=5 "$limit" "$@" >"$OUT/logs/$name.txt" 2>&1
  RC=$?
  ELAPSED=$((SECONDS - t0))
  cat "$OUT/logs/$name.txt" >>"$LOG"
  log "(exit $RC after ${ELAPSED}s)"
  return $RC
}
# why RC LIMIT: "exit N" / "timed out after N s" / "out of budget".
why() {
  case "$1" in
    124|137) echo "timed out after $2 s" ;;
    125) echo "not run: out of the total budget" ;;
    *) echo "exit $1" ;;
  esac
}
# py ...: Python with the environment the script started with (not the
# bundle's libraries); PY: the same as a command for run_step.
py() { env LD_LIBRARY_PATH="$ORIG_LD_LIBRARY_PATH" "$PYTHON" "$@"; }

ORIG_LD_LIBRARY_PATH="${LD_LIBRARY_PATH:-}"
log "== Switchyard GPU check, $(date -u +%FT%TZ), bundle $BUNDLE, output $OUT, steps ${STEPS//,/ }, budget ${BUDGET_TOTAL}s"
[[ -f "$BUNDLE/MANIFEST.txt" ]] && cat "$BUNDLE/MANIFEST.txt" >>"$LOG"

# --- machine ------------------------------------------------------------------
GPU_NAME="none"
DRIVER="none"
HAVE_SMI=0
if command -v nvidia-smi >/dev/null 2>&1 && timeout 20 nvidia-smi >"$OUT/nvidia-smi.txt" 2>&1; then
  HAVE_SMI=1
  cat "$OUT/nvidia-smi.txt" >>"$LOG"
  GPU_NAME="$(timeout 10 nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n1)"
  DRIVER="$(timeout 10 nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -n1)"
  timeout 10 nvidia-smi -q >>"$OUT/nvidia-smi.txt" 2>&1
  step "nvidia-smi" PASS "${GPU_NAME:-?}, driver ${DRIVER:-?}"
else
  step "nvidia-smi" SKIP "nvidia-smi is not installed here or found no GPU"
fi
CPU_MODEL="$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')"
log "CPU: $CPU_MODEL, $(nproc) CPUs; $(uname -sr); $(grep -m1 MemTotal /proc/meminfo)"

HAVE_TORCH=0
TORCH_CUDA=0
if [[ -z "${PYTHON:-}" ]]; then
  PYTHON=python3
  for candidate in python3 /usr/bin/python3; do
    if timeout 60 "$candidate" -c 'import torch, torchvision' >/dev/null 2>&1; then
      PYTHON="$candidate"
      break
    fi
  done
fi
PY=(env "LD_LIBRARY_PATH=$ORIG_LD_LIBRARY_PATH" "$PYTHON")
if [[ "${SKIP_PYTORCH:-0}" != 1 ]] &&
    timeout 60 "$PYTHON" -c 'import torch, torchvision' >/dev/null 2>&1; then
  HAVE_TORCH=1
  TORCH_VERSIONS="$(timeout 60 "$PYTHON" -c 'import torch, torchvision, sys; print("python", sys.version.split()[0], "torch", torch.__version__, "CUDA", torch.version.cuda, "cuDNN", torch.backends.cudnn.version(), "torchvision", torchvision.__version__, "cuda_available", torch.cuda.is_available())' 2>&1 | tail -n1)"
  [[ "$TORCH_VERSIONS" == *"cuda_available True"* ]] && TORCH_CUDA=1
  step "pytorch" PASS "$PYTHON: $TORCH_VERSIONS"
else
  TORCH_VERSIONS="none"
  step "pytorch" SKIP "no torch/torchvision for $PYTHON${SKIP_PYTORCH:+ (SKIP_PYTORCH=$SKIP_PYTORCH)}"
fi

# cuBLASLt 13 and cuDNN 9 built for CUDA 13: PyTorch's wheels first, in
# both layouts (CUDA 13 wheels: site-packages/nvidia/cu13/lib for cuBLAS,
# nvidia/cudnn/lib for cuDNN; CUDA 12 wheels: nvidia/cublas/lib, whose
# libcublasLt.so.12 this CUDA 13 build cannot use), then /usr/local/cuda*,
# /usr, /opt, then anywhere. Every copy found is asked its version and the
# CUDA it was built for (lib_versions.py, ctypes, no GPU needed); the first
# that fits is taken. A cuDNN 9 for CUDA 12 has the same file name.
SEARCH_ROOTS=()
if [[ "$HAVE_TORCH" == 1 ]]; then
  SITE="$(timeout 60 "$PYTHON" -c 'import os, torch; print(os.path.dirname(os.path.dirname(torch.__file__)))' 2>/dev/null)"
  for sub in nvidia/cu13/lib nvidia/cublas/lib nvidia/cudnn/lib nvidia torch/lib; do
    [[ -n "$SITE" && -d "$SITE/$sub" ]] && SEARCH_ROOTS+=("$SITE/$sub")
  done
fi
for root in /usr/local/cuda /usr/local /usr/lib/x86_64-linux-gnu /usr /opt; do
  [[ -d "$root" ]] && SEARCH_ROOTS+=("$root")
done
LIB_HINT="Hint: a CUDA 13 PyTorch (torch+cu130) brings both: site-packages/nvidia/cu13/lib (cuBLASLt 13) and nvidia/cudnn/lib (cuDNN 9 for CUDA 13); a CUDA 12 wheel's nvidia/cublas/lib (libcublasLt.so.12) will not do. Else install the CUDA 13 toolkit's cuBLAS and cuDNN 9 for CUDA 13, or point SWITCHYARD_CUDA_LIBRARY_PATH at them"
FIND_DEADLINE=$((SECONDS + $(budget "$T_FIND")))
# pick_lib SONAME WANT: walks the search roots (then /, only if nothing was
# found there) and stops at the first copy whose lib_versions.py line
# matches WANT (grep -E); sets LIB_FILE, LIB_LINE, and LIB_SEEN (the copies
# that did not fit, for the reason).
pick_lib() {
  local root file line left any=0
  LIB_FILE="" LIB_LINE="" LIB_SEEN=""
  declare -A seen=()
  for root in "${SEARCH_ROOTS[@]}" /; do
    [[ "$root" == / && $any == 1 ]] && return 0
    left=$((FIND_DEADLINE - SECONDS))
    ((left < 1)) && return 0
    while IFS= read -r file; do
      any=1
      [[ -n "${seen[$(readlink -f "$file")]:-}" ]] && continue
      seen[$(readlink -f "$file")]=1
      line="$(timeout 30 "$PYTHON" "$BUNDLE/tools/gpu_check/lib_versions.py" "$file" 2>&1 | tail -n1 | cut -f2)"
      [[ -z "$line" ]] && line="version not read ($PYTHON)"
      if grep -qE "$2" <<<"$line"; then
        LIB_FILE="$file" LIB_LINE="$line"
        return 0
      fi
      ((${#LIB_SEEN} < 300)) && LIB_SEEN+="$file: $line; "
    done < <(timeout "$left" find "$root" \( -path /proc -o -path /sys -o -path /dev -o -path "$BUNDLE" -o -path "$OUT" \) -prune \
      -o \( -name "$1" -a \( -type f -o -type l \) \) -print 2>/dev/null | head -n 20)
  done
}
LIB_DIRS=()
LIBS_OK=1
LIBS_REASON=""
VERSIONS=()
for pair in "libcublasLt.so.13|^cuBLASLt 13\..* for CUDA 13\.|cuBLASLt 13" "libcudnn.so.9|^cuDNN 9\..* for CUDA 13\.|cuDNN 9 for CUDA 13"; do
  IFS='|' read -r soname pattern wanted <<<"$pair"
  pick_lib "$soname" "$pattern"
  if [[ -n "$LIB_FILE" ]]; then
    LIB_DIRS+=("$(dirname "$LIB_FILE")")
    VERSIONS+=("$LIB_LINE")
    step "find $soname" PASS "$LIB_LINE: $(dirname "$LIB_FILE")"
  else
    LIBS_OK=0
    reason="no $wanted found (${LIB_SEEN:-no $soname anywhere})"
    LIBS_REASON+="${LIBS_REASON:+; }$reason"
    VERSIONS+=("$wanted: none")
    if [[ "$HAVE_SMI" == 1 ]]; then
      step "find $soname" FAIL "$reason. $LIB_HINT"
    else
      step "find $soname" SKIP "$reason, and no GPU here"
    fi
  fi
done
# The versions in one line: the driver and the CUDA it supports
# (nvidia-smi), the CUDA runtime linked into the binaries (MANIFEST.txt),
# cuBLASLt and cuDNN.
SMI_CUDA="$(grep -o 'CUDA Version: *[0-9.]*' "$OUT/nvidia-smi.txt" 2>/dev/null | head -n1 | grep -o '[0-9.]*$')"
RUNTIME="$(sed -n 's/.*, CUDA \([0-9.]*\) (static cudart).*/\1/p' "$BUNDLE/MANIFEST.txt" 2>/dev/null)"
versions_detail="driver ${DRIVER} (CUDA ${SMI_CUDA:-?}), runtime CUDA ${RUNTIME:-? (no MANIFEST.txt)} (static, in the binaries); $(IFS=';'; echo "${VERSIONS[*]}" | sed 's/;/; /g')"
if [[ "$HAVE_SMI" == 1 && -n "$SMI_CUDA" && "${SMI_CUDA%%.*}" -lt "${RUNTIME%%.*}" ]] 2>/dev/null; then
  LIBS_OK=0
  LIBS_REASON+="${LIBS_REASON:+; }the driver supports CUDA $SMI_CUDA only, the binaries need CUDA ${RUNTIME%%.*} (a newer driver)"
fi
if [[ "$HAVE_SMI" != 1 ]]; then
  step "versions" SKIP "$versions_detail (no GPU driver here)"
elif [[ "$LIBS_OK" == 1 ]]; then
  step "versions" PASS "$versions_detail"
else
  step "versions" FAIL "$versions_detail. The library-dependent steps stop: $LIBS_REASON"
fi
SWITCHYARD_CUDA_LIBRARY_PATH="$(IFS=:; echo "${LIB_DIRS[*]:-}")"
export SWITCHYARD_CUDA_LIBRARY_PATH
# The bundle's own libraries (Abseil, the test binaries' Bazel libraries);
# the CUDA library directories too, for cuDNN's sub-libraries.
# The binaries and libraries travel as one xz archive (about 47 MiB -> 6);
# unpacked under $TMP, not into the bundle, so that a dry run leaves the
# bundle as small as it was packed.
BIN_ROOT="$BUNDLE"
if [[ -f "$BUNDLE/bin.tar.xz" ]]; then
  BIN_ROOT="$TMP/bundle"
  mkdir -p "$BIN_ROOT"
  if { command -v xz >/dev/null 2>&1 && tar -xJf "$BUNDLE/bin.tar.xz" -C "$BIN_ROOT"; } ||
      "$PYTHON" -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' \
        "$BUNDLE/bin.tar.xz" "$BIN_ROOT"; then
    step "unpack binaries" PASS "bin.tar.xz: $(ls "$BIN_ROOT/bin" | wc -l) binaries, $(du -sm "$BIN_ROOT" | cut -f1) MiB under \$TMP"
  else
    step "unpack binaries" FAIL "bin.tar.xz: neither tar -xJ nor $PYTHON's tarfile could unpack it"
  fi
fi
export LD_LIBRARY_PATH="$BIN_ROOT/lib${SWITCHYARD_CUDA_LIBRARY_PATH:+:$SWITCHYARD_CUDA_LIBRARY_PATH}${ORIG_LD_LIBRARY_PATH:+:$ORIG_LD_LIBRARY_PATH}"
log "SWITCHYARD_CUDA_LIBRARY_PATH=$SWITCHYARD_CUDA_LIBRARY_PATH"

# The glibc the binaries need (their highest GLIBC_ symbol version: objdump
# -T here when there is objdump, else what MANIFEST.txt recorded at packing)
# against this machine's (ldd --version): an older glibc loads nothing, and
# lib/fallback holds only libstdc++ and libgcc_s.
GLIBC_NEED=""
if command -v objdump >/dev/null 2>&1 && compgen -G "$BIN_ROOT/bin/*" >/dev/null; then
  GLIBC_NEED="$(objdump -T "$BIN_ROOT"/bin/* "$BIN_ROOT"/lib/*.so* 2>/dev/null | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -n1)"
  glibc_from="objdump -T of bin/ and lib/"
fi
if [[ -z "$GLIBC_NEED" ]]; then
  GLIBC_NEED="$(sed -n 's/^max GLIBC GLIBC_\([0-9.]*\).*/\1/p' "$BUNDLE/MANIFEST.txt" 2>/dev/null)"
  glibc_from="MANIFEST.txt"
fi
GLIBC_HAVE="$(ldd --version 2>/dev/null | head -n1 | grep -o '[0-9]\+\.[0-9]\+$')"
if [[ -z "$GLIBC_NEED" || -z "$GLIBC_HAVE" ]]; then
  step "glibc" SKIP "not checked: binaries need ${GLIBC_NEED:-?} (${glibc_from}), this machine has ${GLIBC_HAVE:-? (ldd --version)}"
elif [[ "$(printf '%s\n%s\n' "$GLIBC_NEED" "$GLIBC_HAVE" | sort -V | tail -n1)" == "$GLIBC_HAVE" ]]; then
  step "glibc" PASS "the binaries need glibc $GLIBC_NEED or newer ($glibc_from); this machine has $GLIBC_HAVE"
else
  step "glibc" FAIL "the binaries need glibc $GLIBC_NEED, this machine has only $GLIBC_HAVE: they will not load. Pack the bundle on a system with glibc $GLIBC_HAVE or older (e.g. an older Debian or Ubuntu container)"
fi

# The bundle's libstdc++ only if the system's is older than the build's.
SY="$BIN_ROOT/bin/switchyard"
if ldd "$SY" 2>&1 | grep -q 'not found'; then
  log "system libraries are missing or too old for the bundle:"
  ldd "$SY" 2>&1 | grep 'not found' | tee -a "$LOG"
  export LD_LIBRARY_PATH="$BIN_ROOT/lib/fallback:$LD_LIBRARY_PATH"
  log "using the bundle's libstdc++ and libgcc_s (lib/fallback)"
fi
log "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
unresolved=""
for bin in "$BIN_ROOT"/bin/*; do
  missing="$(ldd "$bin" 2>&1 | grep 'not found' | awk '{print $1}' | sort -u | tr '\n' ' ')"
  [[ -n "$missing" ]] && unresolved+="$(basename "$bin"): $missing; "
done
if [[ -n "$unresolved" ]]; then
  step "binaries load" FAIL "$unresolved"
else
  step "binaries load" PASS "$(ls "$BIN_ROOT/bin" | wc -l) binaries, every shared library resolves"
fi

run_step devices "$(budget "$T_DEVICES")" "$SY" devices
status=$RC
cp "$OUT/logs/devices.txt" "$OUT/devices.txt"
cat "$OUT/devices.txt"
HAVE_GPU=0
NO_GPU_REASON="no cuda:0"
NO_GPU_DETAIL=""
if [[ $status -ne 0 ]]; then
  step "switchyard devices" FAIL "$(why $status "$T_DEVICES")"
  NO_GPU_REASON="switchyard devices failed ($(why $status "$T_DEVICES"))"
elif [[ -n "${DRY_DEVICE:-}" ]]; then
  HAVE_GPU=1
  step "switchyard devices" SKIP "DRY_DEVICE=$DEV: the GPU steps run on $DEV (a test of this script)"
elif grep -q '^  cuda:0 ' "$OUT/devices.txt"; then
  HAVE_GPU=1
  step "switchyard devices" PASS "$(grep '^  cuda:0 ' "$OUT/devices.txt" | cut -c1-200)"
  if grep '^  cuda:' "$OUT/devices.txt" | grep -q 'unavailable'; then
    step "cuBLASLt/cuDNN loaded" FAIL "$(grep -o '\(cuBLASLt\|cuDNN\) unavailable[^)]*' "$OUT/devices.txt" | head -n2 | tr '\n' ' ')"
  else
    step "cuBLASLt/cuDNN loaded" PASS "versions in devices.txt"
  fi
else
  NO_GPU_REASON="no cuda:0: $(sed -n 's/^cuda: no devices: //p' "$OUT/devices.txt" | cut -c1-300)"
  step "switchyard devices" SKIP "$NO_GPU_REASON"
  NO_GPU_DETAIL="$NO_GPU_REASON"
  NO_GPU_REASON="no cuda:0 (see switchyard devices)"
fi
# Without cuBLASLt 13 or cuDNN 9 for CUDA 13 every linear and conv fails:
# the steps that run models on the GPU stop here with that reason instead
# of failing one by one (the tests that need neither still run).
if [[ "$HAVE_GPU" == 1 && "$LIBS_OK" != 1 && -z "${DRY_DEVICE:-}" ]]; then
  HAVE_GPU=0
  NO_GPU_REASON="stopped: $LIBS_REASON"
fi
# skip_all NAME...: these steps SKIP with the reason there is no GPU.
skip_no_gpu() { local s; for s in "$@"; do step "$s" SKIP "$NO_GPU_REASON"; done; }

# NVML sampling in the background (nvidia-smi), for the utilisation runs.
# nvml_start FILE / nvml_stop: the sampler is this script's own child.
NVML_PID=""
nvml_start() {
  NVML_PID=""
  [[ "$HAVE_SMI" == 1 ]] || return 0
  TZ=UTC nvidia-smi -i 0 --query-gpu=timestamp,utilization.gpu,memory.used \
    --format=csv -lms 100 >"$1" 2>&1 &
  NVML_PID=$!
  sleep 0.3
}
nvml_stop() {
  if [[ -n "$NVML_PID" ]]; then
    kill "$NVML_PID" 2>/dev/null
    wait "$NVML_PID" 2>/dev/null
  fi
  NVML_PID=""
}
trap 'nvml_stop; rm -rf "$TMP"' EXIT

# --- tests ---------------------------------------------------------------------
# From the bundle's root: the goldens read tests/golden/data.
TESTS=(caching_allocator_test cuda_libraries_test cuda_backend_test cuda_partition_test
  relu_fusion_test cuda_kernels_test golden_test conformance_test concurrency_test
  nms_test nms_golden_test)
# The tests that run linear or conv on cuda:N (cuBLASLt, cuDNN).
LIB_TESTS="cuda_backend_test cuda_kernels_test golden_test conformance_test concurrency_test"
if want tests; then
  for test in "${TESTS[@]}"; do
    if [[ ! -x "$BIN_ROOT/bin/$test" ]]; then
      step "test $test" SKIP "not in the bundle (not built by tools/gpu_check.sh)"
      continue
    fi
    if [[ "$LIBS_OK" != 1 && "$HAVE_SMI" == 1 && " $LIB_TESTS " == *" $test "* ]]; then
      step "test $test" SKIP "stopped: $LIBS_REASON"
      continue
    fi
    limit="$T_TEST"
    case "$test" in cuda_kernels_test|conformance_test|concurrency_test) limit="$T_TEST_LONG" ;; esac
    limit="$(budget "$limit")"
    # The first GPU step: every node synchronised and every launch blocking,
    # so that a first fault names the node and kernel that made it.
    run_step "test_$test" "$limit" env SWITCHYARD_SYNC_EACH_NODE=1 CUDA_LAUNCH_BLOCKING=1 \
      bash -c 'cd "$1" && exec "$4/bin/$2" --gtest_color=no \
      --gtest_output="json:$3"' _ "$BUNDLE" "$test" "$OUT/tests/$test.json" "$BIN_ROOT"
    status=$RC
    cp "$OUT/logs/test_$test.txt" "$OUT/tests/$test.txt"
    f="$OUT/tests/$test.txt"
    passed="$(grep -c '^\[       OK \]' "$f")"
    # Per-test lines end in "(N ms)"; gtest repeats the names in its summary.
    skipped="$(grep -cE '^\[  SKIPPED \] .* \([0-9]+ ms\)$' "$f")"
    failed="$(grep -cE '^\[  FAILED  \] .* \([0-9]+ ms\)$' "$f")"
    detail="$passed passed, $skipped skipped, $failed failed"
    # cuda_kernels_test's report of what cuDNN's fused conv2d+relu (on
    # request only) makes of NaN: whether it could become the default.
    fused_nan="$(grep -m1 "^cuDNN's fused conv2d+relu" "$f" || true)"
    [[ -n "$fused_nan" ]] && detail="$detail; $fused_nan"
    if [[ $status -ne 0 ]]; then
      step "test $test" FAIL "$(why $status "$limit"); $detail: $(grep -E '^\[  FAILED  \] .* \([0-9]+ ms\)$' "$f" | head -n3 | cut -c14- | tr '\n' ' ')" "$ELAPSED"
    else
      step "test $test" PASS "$detail" "$ELAPSED"
    fi
  done
fi

# --- onnx -----------------------------------------------------------------------
# The ONNX importer on cuda:0 (and cpu:0 beside it). Node tests: the cases
# that passed on cpu:0 where the bundle was packed (data/onnx_node_tests.tar.gz;
# this machine has no Debian libonnx-testdata). Families: tests/onnx_models
# (data/onnx_models.tar.gz, else the repository's copy around the bundle),
# read relative to the working directory; ref:0 is left out (the CPU oracle,
# checked in CI). Each failing case gets its own line (at most ONNX_CASE_LINES
# per binary; report.py lists them all).
ONNX_CASE_LINES="${ONNX_CASE_LINES:-30}"
if want onnx; then
  ONNX_DEVICES="cpu:0"
  [[ "$DEV" != cpu* ]] && ONNX_DEVICES="cpu:0,$DEV"
  if [[ "$LIBS_OK" != 1 && "$HAVE_SMI" == 1 && -z "${DRY_DEVICE:-}" ]]; then
    ONNX_DEVICES="cpu:0"
    log "onnx: $DEV left out, $LIBS_REASON"
  fi
  NT="$BIN_ROOT/bin/onnx_node_test"
  if [[ ! -x "$NT" ]]; then
    step "onnx node tests" SKIP "onnx_node_test is not in the bundle"
  elif [[ ! -s "$BUNDLE/data/onnx_node_tests.tar.gz" ]]; then
    step "onnx node tests" SKIP "no node tests in the bundle (data/onnx_node_tests.tar.gz)"
  elif ! { mkdir -p "$TMP/onnx_node" && tar -xzf "$BUNDLE/data/onnx_node_tests.tar.gz" -C "$TMP/onnx_node"; }; then
    step "onnx node tests" FAIL "could not unpack data/onnx_node_tests.tar.gz"
  else
    # The bundle holds suite/test_case folders (node/, simple/, ...).
    cases=$(find "$TMP/onnx_node" -mindepth 2 -maxdepth 2 -type d | wc -l)
    suites=$(find "$TMP/onnx_node" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | sort | paste -sd,)
    limit="$(budget "$T_ONNX_NODE")"
    run_step onnx_node_test "$limit" "$NT" --data_dir="$TMP/onnx_node" --suites="$suites" \
      --devices="$ONNX_DEVICES" --summary_json="$OUT/onnx/node_summary.json"
    status=$RC
    cp "$OUT/logs/onnx_node_test.txt" "$OUT/onnx/node_test.txt"
    counts="$(grep -E '^[a-z]+:[0-9]+ all: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$OUT/onnx/node_test.txt" | tr '\n' ';' | sed 's/;$//; s/;/; /g')"
    unavailable="$(grep -o '^device [^ ]*: not available here' "$OUT/onnx/node_test.txt" | tr '\n' ';')"
    detail="$cases cases, devices $ONNX_DEVICES: ${counts:-no counts}${unavailable:+ ($unavailable)}"
    if [[ $status -eq 0 ]]; then
      step "onnx node tests" PASS "$detail" "$ELAPSED"
    else
      step "onnx node tests" FAIL "$(why $status "$limit"); $detail" "$ELAPSED"
    fi
    n=0
    while IFS= read -r line; do
      n=$((n + 1))
      ((n > ONNX_CASE_LINES)) && continue
      case_dev="${line#FAILED  }"
      step "onnx node ${case_dev%%: *}" FAIL "${case_dev#*: }"
    done < <(grep '^FAILED  ' "$OUT/onnx/node_test.txt")
    ((n > ONNX_CASE_LINES)) && log "($((n - ONNX_CASE_LINES)) more failing node cases in onnx/node_test.txt)"
  fi

  MT="$BIN_ROOT/bin/onnx_models_test"
  models_dir=""
  if [[ -s "$BUNDLE/data/onnx_models.tar.gz" ]]; then
    mkdir -p "$TMP/onnx_work" && tar -xzf "$BUNDLE/data/onnx_models.tar.gz" -C "$TMP/onnx_work" &&
      models_dir="$TMP/onnx_work"
  elif [[ -d "$BUNDLE/../tests/onnx_models" ]]; then
    models_dir="$(cd "$BUNDLE/.." && pwd)"
  fi
  if [[ ! -x "$MT" ]]; then
    step "onnx models test" SKIP "onnx_models_test is not in the bundle"
  elif [[ -z "$models_dir" ]]; then
    step "onnx models test" SKIP "no tests/onnx_models (data/onnx_models.tar.gz, or the repository around the bundle)"
  else
    limit="$(budget "$T_ONNX_MODELS")"
    run_step onnx_models_test "$limit" bash -c 'cd "$1" && exec "$2" --gtest_color=no \
      --gtest_filter="-*ref_0" --gtest_output="json:$3"' _ "$models_dir" "$MT" "$OUT/tests/onnx_models_test.json"
    status=$RC
    f="$OUT/tests/onnx_models_test.txt"
    cp "$OUT/logs/onnx_models_test.txt" "$f"
    passed="$(grep -c '^\[       OK \]' "$f")"
    skipped="$(grep -cE '^\[  SKIPPED \] .* \([0-9]+ ms\)$' "$f")"
    failed="$(grep -cE '^\[  FAILED  \] .* \([0-9]+ ms\)$' "$f")"
    detail="$passed passed, $skipped skipped, $failed failed (cpu:0 and cuda:0 x 15 models; models from ${models_dir/#$TMP/\$TMP})"
    if [[ $status -eq 0 ]]; then
      step "onnx models test" PASS "$detail" "$ELAPSED"
    else
      step "onnx models test" FAIL "$(why $status "$limit"); $detail" "$ELAPSED"
    fi
    n=0
    while IFS= read -r name; do
      n=$((n + 1))
      ((n > ONNX_CASE_LINES)) && continue
      # The assertion's message: the lines gtest printed for that case.
      msg="$(awk -v n="[ RUN      ] Families/OnnxModelsTest.MatchesPyTorchAndOnnxRuntime/$name" \
        '$0 == n {on = 1; next} on && /^\[/ {exit} on' "$f" | grep -v '^\s*$' | tr '\n' ' ' | cut -c1-240)"
      step "onnx model $name" FAIL "${msg:-see tests/onnx_models_test.json}"
    done < <(grep -oE '^\[  FAILED  \] Families/OnnxModelsTest\.MatchesPyTorchAndOnnxRuntime/[A-Za-z0-9_]+.* \([0-9]+ ms\)$' "$f" |
      sed -E 's/.*MatchesPyTorchAndOnnxRuntime\/([A-Za-z0-9_]+).*/\1/')
    ((n > ONNX_CASE_LINES)) && log "($((n - ONNX_CASE_LINES)) more failing model cases in tests/onnx_models_test.txt)"
  fi
fi

# --- logits --------------------------------------------------------------------
if want logits; then
  if [[ "$HAVE_GPU" != 1 ]]; then
    skip_no_gpu "vgg11 logits cuda:0 vs cpu"
  else
    ok=1
    for device in cpu "$DEV"; do
      name="${device%%:*}"
      [[ "$device" == cpu ]] || name=cuda
      run_step "logits_$name" "$(budget "$T_LOGITS")" "$SY" run --model=vgg11 --batch=2 \
        --seed=0 --device="$device" --warmup=0 --iterations=1 \
        --output="$OUT/logits_$name.npy" || ok=0
    done
    if [[ $ok == 1 ]] && run_step logits_compare 30 "${PY[@]}" "$BUNDLE/tools/compare_logits.py" \
        "$OUT/logits_cpu.npy" "$OUT/logits_cuda.npy"; then
      cp "$OUT/logs/logits_compare.txt" "$OUT/logits.txt"
      step "vgg11 logits cuda:0 vs cpu" PASS "$(grep ratio "$OUT/logits.txt" | sed 's/  */ /g')"
    else
      [[ -f "$OUT/logs/logits_compare.txt" ]] && cp "$OUT/logs/logits_compare.txt" "$OUT/logits.txt"
      step "vgg11 logits cuda:0 vs cpu" FAIL "$(tail -n3 "$OUT/logits.txt" 2>/dev/null | tr '\n' ' ')"
    fi
  fi
fi

# --- models ---------------------------------------------------------------------
# The model kinds added lately, on $DEV against cpu:0 with the CLI: `run`
# with seeded inputs (the same --seed on both devices) or over the image
# folder, every output written as .npy, then compare_outputs.py. Tolerances
# (x max|cpu output|): float32 1e-4; float16 1e-2 (outputs rounded to
# float16); int8 QDQ 1e-2 (one quantisation step of 127); detector 1e-3
# (boxes after NMS; another number of detections is a finding).
MODELS_DIR="$BUNDLE/data/models"
if want models; then
  if [[ "$HAVE_GPU" != 1 ]]; then
    skip_no_gpu "model opset18" "model float16" "model int8" "model detector"
  elif ! "${PY[@]}" -c 'import numpy' >/dev/null 2>&1; then
    for kind in opset18 float16 int8 detector; do step "model $kind" SKIP "no numpy for $PYTHON: compare_outputs.py cannot run"; done
  else
    for kind in opset18 float16 int8 detector; do
      # The bundle's copy, else the case SOURCE names in the working tree
      # around the bundle or in the onnx step's unpacked tests/onnx_models.
      what="$(cat "$MODELS_DIR/$kind/SOURCE" 2>/dev/null)"
      model=""
      for candidate in "$MODELS_DIR/$kind/model.onnx" "$BUNDLE/../$what/model.onnx" "$TMP/onnx_work/$what/model.onnx"; do
        [[ -f "$candidate" ]] && { model="$candidate"; break; }
      done
      if [[ -z "$model" ]]; then
        step "model $kind" SKIP "no model: data/models/$kind/model.onnx, or ${what:-its SOURCE} in the working tree"
        continue
      fi
      case "$kind" in opset18) rtol=1e-4 ;; detector) rtol=1e-3 ;; *) rtol=1e-2 ;; esac
      inputs=(--seed=0 --warmup=0 --iterations=1)
      [[ "$kind" == detector ]] && inputs=(--images="$BUNDLE/tests/images/")
      ok=1
      # cpu/ the reference, cuda/ the device checked (cpu:0 too in a dry run).
      for pair in "cpu cpu:0" "cuda $DEV"; do
        read -r name device <<<"$pair"
        rm -rf "$OUT/models/$kind/$name"
        run_step "model_${kind}_$name" "$(budget "$T_MODEL")" "$SY" run --model="$model" \
          --device="$device" "${inputs[@]}" --output="$OUT/models/$kind/$name/" || { ok=0; break; }
      done
      if [[ $ok != 1 ]]; then
        step "model $kind" FAIL "$(why $RC "$T_MODEL") on $device; $what; $(tail -n2 "$OUT/logs/model_${kind}_$name.txt" | tr '\n' ' ' | cut -c1-200)"
      elif run_step "model_${kind}_compare" 30 "${PY[@]}" "$BUNDLE/tools/gpu_check/compare_outputs.py" \
          "$OUT/models/$kind/cpu" "$OUT/models/$kind/cuda" --rtol="$rtol"; then
        step "model $kind" PASS "$what: $(tail -n1 "$OUT/logs/model_${kind}_compare.txt")"
      else
        step "model $kind" FAIL "$what: $(grep -m2 'FAIL\|nothing' "$OUT/logs/model_${kind}_compare.txt" | tr '\n' ' ' | cut -c1-200); $(tail -n1 "$OUT/logs/model_${kind}_compare.txt")"
      fi
    done
  fi
fi

# --- bench ----------------------------------------------------------------------
if want bench; then
  if [[ "$HAVE_GPU" != 1 ]]; then
    skip_no_gpu "bench switchyard fp32" "bench switchyard tf32" "bench pytorch fp32" \
      "bench pytorch tf32" "bench compare.py"
  else
    B="$OUT/bench"
    common=(--model=vgg11 --batch="$BENCH_BATCHES" --warmup="$BENCH_WARMUP" --iterations="$BENCH_ITERATIONS"
      --threads="$BENCH_THREADS")
    BENCH_DEVICES="cpu,$DEV"
    [[ "$DEV" == cpu* ]] && BENCH_DEVICES=cpu
    limit="$(budget "$T_BENCH")"
    if run_step bench_switchyard_fp32 "$limit" "$SY" bench "${common[@]}" --devices="$BENCH_DEVICES" \
        --json="$B/switchyard_fp32.json" --markdown="$B/switchyard_fp32.md"; then
      step "bench switchyard fp32" PASS "$BENCH_DEVICES x batch $BENCH_BATCHES, ${ELAPSED}s" "$ELAPSED"
    else
      step "bench switchyard fp32" FAIL "$(why $RC "$limit"); logs/bench_switchyard_fp32.txt" "$ELAPSED"
    fi
    limit="$(budget "$T_BENCH_TF32")"
    if run_step bench_switchyard_tf32 "$limit" "$SY" bench "${common[@]}" --devices="$DEV" \
        --backend_option=cuda.allow_tf32=true \
        --json="$B/switchyard_tf32.json" --markdown="$B/switchyard_tf32.md"; then
      step "bench switchyard tf32" PASS "$DEV, cuda.allow_tf32=true, ${ELAPSED}s" "$ELAPSED"
    else
      step "bench switchyard tf32" FAIL "$(why $RC "$limit"); logs/bench_switchyard_tf32.txt" "$ELAPSED"
    fi
    if [[ "$HAVE_TORCH" != 1 ]]; then
      step "bench pytorch fp32" SKIP "no torch/torchvision for $PYTHON"
      step "bench pytorch tf32" SKIP "no torch/torchvision for $PYTHON"
    else
      [[ "$TORCH_CUDA" == 1 ]] || log "warning: torch sees no CUDA device; the peer lists cuda:0 as unavailable"
      pcommon=(--model vgg11 --batch "$BENCH_BATCHES" --warmup "$BENCH_WARMUP" --iterations "$BENCH_ITERATIONS"
        --threads "$BENCH_THREADS")
      limit="$(budget "$T_PEER")"
      if run_step bench_pytorch_fp32 "$limit" "${PY[@]}" "$BUNDLE/tools/gpu_check/pytorch_peer_tf32.py" \
          --tf32 off --peer-dir "$BUNDLE/benchmarks" "${pcommon[@]}" --devices cpu,cuda:0 \
          --json "$B/pytorch_fp32.json"; then
        step "bench pytorch fp32" PASS "TF32 off, cudnn.benchmark on, cpu,cuda:0, ${ELAPSED}s" "$ELAPSED"
      else
        step "bench pytorch fp32" FAIL "$(why $RC "$limit"); logs/bench_pytorch_fp32.txt" "$ELAPSED"
      fi
      limit="$(budget "$T_PEER_TF32")"
      if run_step bench_pytorch_tf32 "$limit" "${PY[@]}" "$BUNDLE/tools/gpu_check/pytorch_peer_tf32.py" \
          --tf32 on --peer-dir "$BUNDLE/benchmarks" "${pcommon[@]}" --devices cuda:0 \
          --json "$B/pytorch_tf32.json"; then
        step "bench pytorch tf32" PASS "TF32 on, cudnn.benchmark on, cuda:0, ${ELAPSED}s" "$ELAPSED"
      else
        step "bench pytorch tf32" FAIL "$(why $RC "$limit"); logs/bench_pytorch_tf32.txt" "$ELAPSED"
      fi
    fi
    jsons=()
    for f in switchyard_fp32 pytorch_fp32 switchyard_tf32 pytorch_tf32; do
      [[ -s "$B/$f.json" ]] && jsons+=("$B/$f.json")
    done
    if ((${#jsons[@]} == 0)); then
      step "bench compare.py" SKIP "no bench JSON was written"
    else
      png=()
      py -c 'import matplotlib' >/dev/null 2>&1 && png=(--png "$B/compare.png")
      if run_step bench_compare "$(budget "$T_COMPARE")" "${PY[@]}" "$BUNDLE/benchmarks/compare.py" \
          "${jsons[@]}" --out "$B/compare.md" "${png[@]}" \
          --title "VGG11 on ${GPU_NAME:-cuda:0}: Switchyard vs PyTorch, FP32 and TF32"; then
        step "bench compare.py" PASS "${#jsons[@]} runs -> bench/compare.md${png:+ and compare.png}"
      else
        step "bench compare.py" FAIL "$(why $RC "$T_COMPARE"); logs/bench_compare.txt"
      fi
    fi
  fi
fi

# The old alternating-rounds timings (`switchyard run` vs pytorch_vgg11_cuda.py,
# one process per batch): off unless ROUNDS > 0.
if want bench && [[ "$HAVE_GPU" == 1 && "$ROUNDS" -gt 0 ]]; then
  declare -A ITER=([1]=50 [8]=30 [64]=20)
  for ((r = 1; r <= ROUNDS; r++)); do
    for b in 1 8 64; do
      run_step "rounds_switchyard_r${r}_b$b" "$(budget 60)" "$SY" run --model=vgg11 --device="$DEV" \
        --batch="$b" --seed=0 --warmup=5 --iterations="${ITER[$b]}" \
        --report="$OUT/bench/switchyard_r${r}_b${b}.json"
      [[ "$HAVE_TORCH" == 1 ]] && run_step "rounds_pytorch_r${r}_b$b" "$(budget 60)" \
        "${PY[@]}" "$BUNDLE/tools/gpu_check/pytorch_vgg11_cuda.py" --batch "$b" --warmup 5 \
        --iterations "${ITER[$b]}" --json "$OUT/bench/pytorch_r${r}_b${b}.json"
    done
  done
  step "vgg11 rounds" PASS "$(ls "$OUT"/bench/switchyard_r*_b*.json 2>/dev/null | wc -l) switchyard, $(ls "$OUT"/bench/pytorch_r*_b*.json 2>/dev/null | wc -l) pytorch runs"
fi

# --- resnet50 -------------------------------------------------------------------
# ResNet-50 from ONNX: exported here (PyTorch is here; the file is 100 MB, too
# big to carry), benched on cpu and cuda:0, its logits checked on the same
# file and input against PyTorch (CUDA and CPU) and ONNX Runtime. Without a
# GPU only the export and the cpu:0 logits run (the script's own check).
if want resnet50; then
  R="$OUT/resnet50"
  RM="$TMP/onnx_models/resnet50_dynamic"
  if [[ "$HAVE_TORCH" != 1 ]]; then
    for s in "resnet50 export" "resnet50 bench" "resnet50 logits"; do
      step "$s" SKIP "no torch/torchvision for $PYTHON (the export needs them)"
    done
  else
    limit="$(budget "$T_EXPORT")"
    run_step resnet50_export "$limit" "${PY[@]}" "$BUNDLE/tools/export_onnx_models.py" --size=full \
      --models=resnet50 --dynamic-batch --batch=2 --out="$TMP/onnx_models"
    status=$RC
    if [[ $status -eq 0 && -s "$RM/model.onnx" ]]; then
      cp "$RM/info.json" "$R/info.json" 2>/dev/null
      step "resnet50 export" PASS "$(grep -m1 'resnet50' "$OUT/logs/resnet50_export.txt" | sed 's/  */ /g')" "$ELAPSED"
      if [[ "$HAVE_GPU" != 1 ]]; then
        step "resnet50 bench" SKIP "$NO_GPU_REASON"
      else
        R50_DEVICES="cpu,$DEV"
        [[ "$DEV" == cpu* ]] && R50_DEVICES=cpu
        limit="$(budget "$T_R50_BENCH")"
        if run_step resnet50_bench "$limit" "$SY" bench --model="$RM/model.onnx" --devices="$R50_DEVICES" \
            --batch="$R50_BATCHES" --warmup="$R50_WARMUP" --iterations="$R50_ITERATIONS" \
            --threads="$BENCH_THREADS" --json="$R/bench.json" --markdown="$R/bench.md"; then
          step "resnet50 bench" PASS "$R50_DEVICES x batch $R50_BATCHES, resnet50/bench.json" "$ELAPSED"
        else
          step "resnet50 bench" FAIL "$(why $RC "$limit"); logs/resnet50_bench.txt" "$ELAPSED"
        fi
      fi
      sy_args=()
      r50_runs=(cpu)
      [[ "$HAVE_GPU" == 1 && "$DEV" != cpu* ]] && r50_runs+=("$DEV")
      for device in "${r50_runs[@]}"; do
        name="${device%%:*}"
        run_step "resnet50_run_$name" "$(budget "$T_R50_RUN")" "$SY" run --model="$RM/model.onnx" \
          --input="$RM/input.npy" --device="$device" --warmup=0 --iterations=1 \
          --output="$R/logits_switchyard_$name.npy" &&
          sy_args+=(--switchyard "$name:0=$R/logits_switchyard_$name.npy")
      done
      torch_cuda=()
      [[ "$TORCH_CUDA" == 1 ]] || torch_cuda=(--no-torch-cuda)
      limit="$(budget "$T_R50_LOGITS")"
      run_step resnet50_logits "$limit" "${PY[@]}" "$BUNDLE/tools/gpu_check/onnx_logits.py" \
        --model-dir "$RM" --tools-dir "$BUNDLE/tools" "${sy_args[@]}" "${torch_cuda[@]}" \
        --json "$R/logits.json"
      status=$RC
      cp "$OUT/logs/resnet50_logits.txt" "$R/logits.txt"
      detail="$(grep -E '^switchyard .* (PASS|FAIL) ' "$R/logits.txt" | sed -E 's/  +/ /g; s/ top-1 .*//' | tr '\n' ';' | sed 's/;$//; s/;/; /g')"
      if [[ $status -eq 0 ]]; then
        step "resnet50 logits" PASS "$detail" "$ELAPSED"
      else
        step "resnet50 logits" FAIL "$(why $status "$limit"); ${detail:-logs/resnet50_logits.txt}" "$ELAPSED"
      fi
    else
      step "resnet50 export" FAIL "$(why $status "$limit"); $(tail -n2 "$OUT/logs/resnet50_export.txt" | tr '\n' ' ' | cut -c1-200)" "$ELAPSED"
      step "resnet50 bench" SKIP "no model: the export failed"
      step "resnet50 logits" SKIP "no model: the export failed"
    fi
  fi
fi

# --- profile --------------------------------------------------------------------
if want profile; then
  if [[ "$HAVE_GPU" != 1 ]]; then
    skip_no_gpu "profile vgg11 batch 8 cuda:0"
  else
    limit="$(budget "$T_PROFILE")"
    if run_step profile "$limit" "$SY" run --model=vgg11 --batch="$PROFILE_BATCH" --device="$DEV" --seed=0 \
        --warmup=3 --iterations="$PROFILE_ITERATIONS" --profile="$OUT/profile/trace.json" --profile-summary \
        --report="$OUT/profile/report.json"; then
      cp "$OUT/logs/profile.txt" "$OUT/profile/summary.txt"
      step "profile vgg11 batch 8 cuda:0" PASS "profile/trace.json ($(du -k "$OUT/profile/trace.json" 2>/dev/null | cut -f1) KiB), profile/summary.txt" "$ELAPSED"
    else
      cp "$OUT/logs/profile.txt" "$OUT/profile/summary.txt"
      step "profile vgg11 batch 8 cuda:0" FAIL "$(why $RC "$limit"); logs/profile.txt" "$ELAPSED"
    fi
  fi
fi

# --- util -----------------------------------------------------------------------
# starved: one busy loader, UTIL_COST_MS per batch, far slower than the GPU;
# fed: UTIL_FED_LOADERS (12) busy loaders, prefetch 16 (the host's other cores).
if want util; then
  if [[ "$HAVE_GPU" != 1 ]]; then
    skip_no_gpu "util starved cuda:0" "util fed cuda:0"
  else
    for kind in starved fed; do
      if [[ $kind == starved ]]; then loaders=1 prefetch=2; else loaders=$UTIL_FED_LOADERS prefetch=16; fi
      limit="$(budget "$T_UTIL")"
      nvml_start "$OUT/util/nvml_$kind.csv"
      t0="$(date +%s.%N)"
      run_step "util_$kind" "$limit" "$SY" run --model=vgg11 --device="$DEV" --batch="$UTIL_BATCH" \
        --seed=0 --warmup=3 --batches="$UTIL_BATCHES" --loader-threads=$loaders --prefetch=$prefetch \
        --loader-cost-ms="$UTIL_COST_MS" --loader-work=busy --report="$OUT/util/report_$kind.json"
      status=$RC
      t1="$(date +%s.%N)"
      sleep 0.3
      nvml_stop
      cp "$OUT/logs/util_$kind.txt" "$OUT/util/report_$kind.txt"
      printf '{"start_epoch_s": %s, "end_epoch_s": %s, "loader_threads": %s, "prefetch": %s, "loader_cost_ms": %s, "batch": %s, "batches": %s}\n' \
        "$t0" "$t1" "$loaders" "$prefetch" "$UTIL_COST_MS" "$UTIL_BATCH" "$UTIL_BATCHES" >"$OUT/util/times_$kind.json"
      samples=$(($(wc -l <"$OUT/util/nvml_$kind.csv" 2>/dev/null || echo 1) - 1))
      if [[ $status -eq 0 ]]; then
        step "util $kind cuda:0" PASS "$(grep -m1 ' busy .* of the run' "$OUT/util/report_$kind.txt" | cut -c1-80); $(grep -m1 '^diagnosis: ' "$OUT/util/report_$kind.txt" | cut -c12-60)...; NVML samples: $samples" "$ELAPSED"
      else
        step "util $kind cuda:0" FAIL "$(why $status "$limit"); logs/util_$kind.txt" "$ELAPSED"
      fi
    done
  fi
fi

# --- verdicts -------------------------------------------------------------------
# Issue 12's diagnosis on a real GPU, each run with NVML sampling:
#   images_1 / images_N  VGG11 fed by `run --images` from slow-decoding JPEGs
#                        with 1 loader thread, then IMG_FED_LOADERS (8)
#   one_op               detection_postprocess.onnx (NMS over 6000 boxes)
#   copies               copy_bound.onnx (keeps one pixel of a 100 MB input)
# A verdict other than the expected one is a finding, not a failed step: the
# line says both.
# verdict_run NAME EXPECTED ARGS...: `switchyard run ARGS --profile-summary
# --report=verdicts/report_NAME.json` under NVML sampling.
verdict_run() {
  local name=$1 expected=$2 limit
  shift 2
  limit="$(budget "$T_VERDICT")"
  nvml_start "$OUT/verdicts/nvml_$name.csv"
  local t0 t1
  t0="$(date +%s.%N)"
  run_step "verdict_$name" "$limit" "$SY" run "$@" --profile-summary \
    --report="$OUT/verdicts/report_$name.json"
  local status=$RC
  t1="$(date +%s.%N)"
  sleep 0.3
  nvml_stop
  cp "$OUT/logs/verdict_$name.txt" "$OUT/verdicts/run_$name.txt"
  printf '{"start_epoch_s": %s, "end_epoch_s": %s, "expected": "%s", "command": "switchyard run %s"}\n' \
    "$t0" "$t1" "$expected" "$(echo "$*" | sed "s|$BUNDLE|\$BUNDLE|g; s|$TMP|\$TMP|g; s|\"|'|g")" \
    >"$OUT/verdicts/times_$name.json"
  local samples verdict diagnosis
  samples=$(($(wc -l <"$OUT/verdicts/nvml_$name.csv" 2>/dev/null || echo 1) - 1))
  ((samples < 0)) && samples=0
  verdict="$(grep -o '"verdict": *"[a-z_]*"' "$OUT/verdicts/report_$name.json" 2>/dev/null | sed 's/.*: *"//; s/"$//')"
  diagnosis="$(grep -m1 '^diagnosis: ' "$OUT/verdicts/run_$name.txt" | cut -c12-160)"
  if [[ $status -ne 0 ]]; then
    step "verdict $name" FAIL "$(why $status "$limit"); logs/verdict_$name.txt" "$ELAPSED"
  elif [[ -z "$expected" || "$verdict" == "$expected" ]]; then
    step "verdict $name" PASS "verdict ${verdict:-?}${expected:+ (as expected)}: $diagnosis; NVML samples $samples" "$ELAPSED"
  else
    step "verdict $name" PASS "verdict ${verdict:-?}, EXPECTED $expected (a finding): $diagnosis; NVML samples $samples" "$ELAPSED"
  fi
}
if want verdicts; then
  if [[ "$HAVE_GPU" != 1 ]]; then
    skip_no_gpu "verdict images" "verdict images_1" "verdict images_$IMG_FED_LOADERS" \
      "verdict one_op" "verdict copies"
  else
    # Images: made here with PIL (the slow-decoding set of docs/benchmarks.md),
    # else the bundle's tests/images (small: not starving, only a smoke run).
    IMG_DIR="$TMP/slow_images"
    img_batches=()
    limit="$(budget "$T_IMAGES")"
    if run_step verdict_make_images "$limit" "${PY[@]}" "$BUNDLE/tools/gpu_check/make_slow_images.py" \
        --pipeline "$BUNDLE/benchmarks/torchvision_pipeline.py" --out "$IMG_DIR" \
        --count "$IMG_COUNT" --size "$IMG_SIZE" --progressive; then
      step "verdict images" PASS "$(tail -n1 "$OUT/logs/verdict_make_images.txt" | sed "s|$TMP|\$TMP|g")" "$ELAPSED"
    else
      IMG_DIR="$BUNDLE/tests/images"
      img_batches=(--batches=16)
      step "verdict images" SKIP "could not make the slow set ($(why $RC "$limit"): $(tail -n1 "$OUT/logs/verdict_make_images.txt" | cut -c1-120)); using the bundle's tests/images, 16 batches"
    fi
    img_common=(--model=vgg11 --device="$DEV" --images="$IMG_DIR" --image-size=224 --batch="$IMG_BATCH"
      --seed=0 "${img_batches[@]}")
    verdict_run images_1 starved "${img_common[@]}" --loader-threads=1
    verdict_run "images_$IMG_FED_LOADERS" "" "${img_common[@]}" --loader-threads="$IMG_FED_LOADERS"
    verdict_run one_op one_op --model="$BUNDLE/benchmarks/models/detection_postprocess.onnx" \
      --device="$DEV" --batches="$VERDICT_BATCHES"
    verdict_run copies copies --model="$BUNDLE/benchmarks/models/copy_bound.onnx" --device="$DEV" \
      --batches="$VERDICT_BATCHES" --loader-threads=4 --loader-work=sleep --loader-cost-ms=0
  fi
fi

# --- nms ------------------------------------------------------------------------
if want nms; then
  NB="$BIN_ROOT/bin/nms_benchmark"
  if [[ ! -x "$NB" ]]; then
    step "nms switchyard" SKIP "nms_benchmark is not in the bundle (NMS not built)"
  elif [[ "$HAVE_GPU" != 1 ]]; then
    # The boxes are still written: that checks the binary runs.
    run_step nms_write_boxes 30 "$NB" --write_boxes="$TMP" &&
      log "(nms_benchmark --write_boxes works: $(ls "$TMP"/nms_rpn_*.safetensors 2>/dev/null | wc -l) files)"
    skip_no_gpu "nms switchyard"
  else
    limit="$(budget "$T_NMS")"
    if run_step nms_benchmark "$limit" "$NB" --devices="$NMS_DEVICES" --benchmark_repetitions=5 \
        --benchmark_report_aggregates_only=true --benchmark_out="$OUT/nms/nms_benchmark.json" \
        --benchmark_out_format=json; then
      cp "$OUT/logs/nms_benchmark.txt" "$OUT/nms/nms_benchmark.txt"
      errors=$(grep -c 'ERROR OCCURRED' "$OUT/nms/nms_benchmark.txt")
      if [[ $errors -gt 0 ]]; then
        step "nms switchyard" FAIL "$errors case(s) failed: $(grep -m1 'ERROR OCCURRED' "$OUT/nms/nms_benchmark.txt" | cut -c1-200)" "$ELAPSED"
      else
        step "nms switchyard" PASS "$NMS_DEVICES, 1000/6000/20000 boxes, nms/nms_benchmark.json" "$ELAPSED"
      fi
    else
      cp "$OUT/logs/nms_benchmark.txt" "$OUT/nms/nms_benchmark.txt"
      step "nms switchyard" FAIL "$(why $RC "$limit"); logs/nms_benchmark.txt" "$ELAPSED"
    fi
    run_step nms_write_boxes 30 "$NB" --write_boxes="$TMP"
  fi
  if [[ "$HAVE_TORCH" != 1 ]]; then
    step "nms torchvision cuda" SKIP "no torch/torchvision for $PYTHON"
  elif [[ "$TORCH_CUDA" != 1 ]]; then
    step "nms torchvision cuda" SKIP "torch sees no CUDA device ($TORCH_VERSIONS)"
  else
    limit="$(budget "$T_NMS_TORCH")"
    if run_step nms_torchvision "$limit" "${PY[@]}" "$BUNDLE/tools/gpu_check/torchvision_nms_cuda.py" \
        --boxes-dir "$TMP" --sizes 1000,6000,20000 --cpu --json "$OUT/nms/torchvision_nms.json"; then
      step "nms torchvision cuda" PASS "$(grep -c 'torchvision.ops.nms' "$OUT/logs/nms_torchvision.txt") timings, nms/torchvision_nms.json" "$ELAPSED"
    else
      step "nms torchvision cuda" FAIL "$(why $RC "$limit"); logs/nms_torchvision.txt" "$ELAPSED"
    fi
  fi
fi

# --- report ---------------------------------------------------------------------
CUBLASLT="$(grep -o 'cuBLASLt [0-9.]*' "$OUT/devices.txt" | head -n1 | cut -d' ' -f2)"
CUDNN="$(grep -o 'cuDNN [0-9.]*' "$OUT/devices.txt" | head -n1 | cut -d' ' -f2)"
COMMAND="OUT=\$OUT bash gpu_bundle/run_on_gpu.sh"
[[ "$STEPS" != ",$ALL_STEPS," ]] && COMMAND="STEPS=${STEPS:1:-1} $COMMAND"
[[ "$BUDGET_TOTAL" != 540 ]] && COMMAND="BUDGET_TOTAL=$BUDGET_TOTAL $COMMAND"
"${PYTHON}" - "$OUT/env.json" "$(date -u +%FT%TZ)" "$GPU_NAME" "$DRIVER" "$CPU_MODEL" "$(nproc)" \
    "$(grep -m1 '^built ' "$BUNDLE/MANIFEST.txt" 2>/dev/null | cut -c7-)" \
    "$(grep -m1 '^cuda_archs ' "$BUNDLE/MANIFEST.txt" 2>/dev/null | cut -c12-)" \
    "${CUBLASLT:-?}" "${CUDNN:-?}" "$TORCH_VERSIONS" "$COMMAND" "$HAVE_GPU" "${NO_GPU_DETAIL:-$NO_GPU_REASON}" \
    "$BUDGET_TOTAL" "$(uname -n)" <<'EOF' 2>>"$LOG" || echo '{}' >"$OUT/env.json"
import json, sys
keys = ["date", "gpu", "driver", "cpu", "cpus", "switchyard_build", "cuda_archs",
        "cublaslt", "cudnn", "pytorch", "command", "have_gpu", "no_gpu_reason",
        "budget_s", "host"]
json.dump(dict(zip(keys, sys.argv[2:])), open(sys.argv[1], "w"), indent=2)
EOF
if timeout 60 env LD_LIBRARY_PATH="$ORIG_LD_LIBRARY_PATH" "$PYTHON" "$BUNDLE/tools/gpu_check/report.py" "$OUT" \
    --out-md "$OUT/gpu_${DATE}.md" --out-json "$OUT/gpu_${DATE}.json" >>"$LOG" 2>&1; then
  step "report" PASS "gpu_${DATE}.md, gpu_${DATE}.json"
else
  step "report" FAIL "report.py failed; see gpu_check.log"
fi

failures=$(cut -f2 "$STEPS_TSV" | grep -c FAIL)
if [[ $failures -gt 0 ]]; then
  verdict="FAIL: $failures step(s) failed"
  ((BUDGET_CUT > 0)) && verdict+=", $BUDGET_CUT not run for want of time"
  code=1
elif ((BUDGET_CUT > 0)); then
  verdict="INCOMPLETE: $BUDGET_CUT step(s) not run for want of time (raise BUDGET_TOTAL, or rerun them with STEPS=)"
  code=1
elif [[ "$HAVE_GPU" != 1 ]]; then
  verdict="NO GPU: every GPU step skipped (${NO_GPU_DETAIL:-$NO_GPU_REASON}); the tests ran and skipped their GPU cases"
  code=2
else
  verdict="PASS"
  code=0
fi
log ""
echo "$verdict (${SECONDS} s of a ${BUDGET_TOTAL} s budget)" | tee -a "$SUMMARY" | tee -a "$LOG"

# The device tool brings back at most 8 files (16 MiB each, two folders
# deep): summary.txt, the report, and one archive of everything else.
if [[ "$PACK_OUT" == 1 ]]; then
  packed=()
  for f in gpu_check.log steps.tsv env.json devices.txt nvidia-smi.txt logits.txt logits_cpu.npy \
      logits_cuda.npy logs tests bench profile util nms onnx resnet50 verdicts; do
    [[ -e "$OUT/$f" ]] && packed+=("$f")
  done
  if tar -czf "$TMP/gpu_check_out.tar.gz" -C "$OUT" "${packed[@]}"; then
    (cd "$OUT" && rm -rf "${packed[@]}")
    mv "$TMP/gpu_check_out.tar.gz" "$OUT/"
    size=$(stat -c %s "$OUT/gpu_check_out.tar.gz")
    if ((size > 15 * 1024 * 1024)); then
      split -b 15m -d "$OUT/gpu_check_out.tar.gz" "$OUT/gpu_check_out.tar.gz.part" &&
        rm "$OUT/gpu_check_out.tar.gz"
      echo "everything else: gpu_check_out.tar.gz.part* ($((size / 1024)) KiB; cat them | tar -xz)" | tee -a "$SUMMARY"
    else
      echo "everything else: gpu_check_out.tar.gz ($((size / 1024)) KiB; tar -xzf it, then report.py can be rerun on it)" | tee -a "$SUMMARY"
    fi
  else
    echo "warning: could not pack $OUT; only some of its files may come back" | tee -a "$SUMMARY"
  fi
fi
exit $code
