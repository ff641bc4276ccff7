#!/usr/bin/env bash
# Builds the CUDA check here (no GPU needed) and packs it for the GPU machine,
# which has CUDA 13 and PyTorch but no Bazel or Java:
#
#   tools/gpu_check.sh [BUNDLE_DIR]        # default gpu_bundle/ (git-ignored)
#
# then, on the GPU machine, with the bundle copied there (e.g. carried by the
# device tool):
#
#   OUT=/some/dir bash gpu_bundle/run_on_gpu.sh
#
# The bundle (tools/gpu_check/run_on_gpu.sh says what the run does):
#   run_on_gpu.sh, MANIFEST.txt      the script to run there; what was packed
#   bin/                             switchyard and the test binaries, stripped
#   lib/                             the shared libraries they need that a
#                                    machine without this Debian build lacks:
#                                    Abseil, libatomic, the tests' Bazel
#                                    libraries
#   lib/fallback/                    libstdc++/libgcc_s, used there only if the
#                                    system's are older than the build's
#   tests/golden/data/               the golden fixtures (nms/ included)
#   benchmarks/                      pytorch_peer.py (+ pytorch_vgg11_cpu.py,
#                                    which it imports) and compare.py
#   tools/                           compare_logits.py; gpu_check/: the
#                                    PyTorch peers (TF32 on/off, VGG11, NMS)
#                                    and the report writer
# Not packed: cuBLAS and cuDNN (hundreds of MB); the script finds PyTorch's.
#
# Targets that do not exist in this tree (e.g. NMS before it lands) are left
# out with a note; run_on_gpu.sh skips their steps.
#
# Binaries are built -c opt for generic x86-64-v3 (.bazelrc; never
# -march=native) with device code for SWITCHYARD_CUDA_ARCHS (default sm_90 +
# PTX). The bundle must stay under 64 MiB (the device tool's limit); this
# script fails if it does not.
set -euo pipefail
cd "$(dirname "$0")/.."

BUNDLE="${1:-gpu_bundle}"
LIMIT_BYTES=$((64 * 1024 * 1024))
# Everything that runs on cuda:N (check with
# `bazel query 'rdeps(tests(//...), //backends/cuda)'`), and relu_fusion_test,
# the fusion rules CUDA claims by. Keep run_on_gpu.sh's TESTS in step.
WANTED=(
  //tools/cli:switchyard
  //backends/cuda:caching_allocator_test
  //backends/cuda:cuda_libraries_test
  //backends/cuda:cuda_backend_test
  //backends/cuda:cuda_partition_test
  //core:relu_fusion_test
  //backends/cuda:cuda_kernels_test
  //tests:golden_test
  //tests:conformance_test
  //tests:concurrency_test
  //tests:nms_test
  //tests:nms_golden_test
  //benchmarks:nms_benchmark
)
# Those that exist in this tree (--keep_going: a missing one is an error
# message, not a failure).
mapfile -t TARGETS < <(bazel query --keep_going "set(${WANTED[*]})" 2>/dev/null | sort)
for t in "${WANTED[@]}"; do
  printf '%s\n' "${TARGETS[@]}" | grep -qx -- "$t" || echo "note: $t does not exist here; not packed"
done
printf '%s\n' "${TARGETS[@]}" | grep -qx //tools/cli:switchyard || {
  echo "error: //tools/cli:switchyard is missing" >&2
  exit 1
}

echo "== building ${TARGETS[*]} (-c opt)"
bazel build -c opt "${TARGETS[@]}"
BIN_DIR="$(bazel info -c opt bazel-bin 2>/dev/null)"
OUTPUT_BASE="$(bazel info output_base 2>/dev/null)"
if ! grep -q 'CUDA_FOUND = True' "$OUTPUT_BASE/external/local_cuda/defs.bzl"; then
  echo "error: this build has no CUDA ($(grep CUDA_MISSING_REASON "$OUTPUT_BASE/external/local_cuda/defs.bzl"))" >&2
  exit 1
fi

rm -rf "$BUNDLE"
mkdir -p "$BUNDLE"/{bin,lib/fallback,tests/golden/data,tools/gpu_check}

# Binaries: switchyard, the tests and nms_benchmark, stripped.
paths=()
for t in "${TARGETS[@]}"; do
  pkg="${t#//}"; pkg="${pkg%%:*}"; name="${t##*:}"
  paths+=("$BIN_DIR/$pkg/$name")
done
for p in "${paths[@]}"; do
  install -m 755 "$p" "$BUNDLE/bin/"
  strip --strip-all "$BUNDLE/bin/$(basename "$p")"
done

# Shared libraries: whatever the binaries resolve outside the C and C++
# runtimes (which every Linux has; libstdc++/libgcc_s go to fallback/).
declare -A seen=()
for p in "${paths[@]}"; do
  while read -r lib path; do
    case "$lib" in
      linux-vdso.so.*|ld-linux-*|libc.so.*|libm.so.*|libpthread.so.*|libdl.so.*|librt.so.*) continue ;;
      libstdc++.so.*|libgcc_s.so.*) dest="$BUNDLE/lib/fallback" ;;
      *) dest="$BUNDLE/lib" ;;
    esac
    [[ -n "${seen[$lib]:-}" ]] && continue
    seen[$lib]=1
    if [[ "$path" != /* ]]; then
      echo "error: $(basename "$p") needs $lib, which does not resolve here" >&2
      exit 1
    fi
    install -m 644 "$(readlink -f "$path")" "$dest/$lib"
    strip --strip-unneeded "$dest/$lib" 2>/dev/null || true
  done < <(ldd "$p" | awk '$2 == "=>" { print $1, $3 }')
done

cp tests/golden/data/*.safetensors "$BUNDLE/tests/golden/data/"
if compgen -G 'tests/golden/data/nms/*.safetensors' >/dev/null; then
  mkdir -p "$BUNDLE/tests/golden/data/nms"
  cp tests/golden/data/nms/*.safetensors "$BUNDLE/tests/golden/data/nms/"
fi
install -m 755 tools/gpu_check/run_on_gpu.sh "$BUNDLE/run_on_gpu.sh"
install -m 644 tools/compare_logits.py "$BUNDLE/tools/"
install -m 644 tools/gpu_check/pytorch_vgg11_cuda.py tools/gpu_check/pytorch_peer_tf32.py \
  tools/gpu_check/torchvision_nms_cuda.py tools/gpu_check/report.py "$BUNDLE/tools/gpu_check/"
mkdir -p "$BUNDLE/benchmarks"
install -m 644 benchmarks/pytorch_peer.py benchmarks/pytorch_vgg11_cpu.py benchmarks/compare.py \
  "$BUNDLE/benchmarks/"

ARCHS="$(sed -n 's/^CUDA_ARCHS = //p' "$OUTPUT_BASE/external/local_cuda/defs.bzl" | tr -d '[]" ')"
{
  echo "built $(date -u +%FT%TZ) on $(uname -n), -c opt, -march=x86-64-v3, CUDA $(sed -n 's/^CUDA_VERSION = "\(.*\)"/\1/p' "$OUTPUT_BASE/external/local_cuda/defs.bzl") (static cudart)"
  echo "cuda_archs ${ARCHS}"
  echo "commit $(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet HEAD 2>/dev/null || echo ' + uncommitted changes')"
  echo "targets ${TARGETS[*]}"
  echo "max GLIBC $(objdump -T "$BUNDLE"/bin/* "$BUNDLE"/lib/*.so* 2>/dev/null | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -n1), max GLIBCXX $(objdump -T "$BUNDLE"/bin/* "$BUNDLE"/lib/*.so* 2>/dev/null | grep -o 'GLIBCXX_[0-9.]*' | sort -uV | tail -n1)"
  echo "files:"
  (cd "$BUNDLE" && find . -type f ! -name MANIFEST.txt | sort | xargs sha256sum | awk '{print "  " $2 "  " $1}')
} >"$BUNDLE/MANIFEST.txt"

total=$(du -sb "$BUNDLE" | cut -f1)
echo "== $BUNDLE: $(find "$BUNDLE" -type f | wc -l) files, $((total / 1024 / 1024)) MiB ($total bytes)"
du -sh "$BUNDLE"/bin/* "$BUNDLE"/lib "$BUNDLE"/lib/fallback "$BUNDLE"/tests "$BUNDLE"/benchmarks "$BUNDLE"/tools | sed 's/^/   /'
if ((total >= LIMIT_BYTES)); then
  echo "error: the bundle is over 64 MiB" >&2
  exit 1
fi
echo "== on the GPU machine: OUT=<dir> bash $BUNDLE/run_on_gpu.sh"
