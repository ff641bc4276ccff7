#!/usr/bin/env bash
# Builds the CUDA check here (no GPU needed) and packs it for the GPU machine,
# which has CUDA 13 and PyTorch but no Bazel or Java:
#
#   tools/gpu_check.sh [BUNDLE_DIR]        # default gpu_bundle/ (git-ignored)
#   PACK_FROM=bazel-bin tools/gpu_check.sh /tmp/b   # packs an earlier -c opt
#                                          # build's binaries, no Bazel
#
# then, on the GPU machine, with the bundle copied there (e.g. carried by the
# device tool):
#
#   OUT=/some/dir bash gpu_bundle/run_on_gpu.sh
#
# The bundle (tools/gpu_check/run_on_gpu.sh says what the run does):
#   run_on_gpu.sh, MANIFEST.txt      the script to run there; what was packed
#   bin.tar.xz                       bin/ and lib/ (xz -9e: 88 MiB -> 10; the
#                                    script unpacks it under its $TMP):
#   bin/                             switchyard and the test binaries, stripped
#   lib/                             the shared libraries they need that a
#                                    machine without this Debian build lacks:
#                                    Abseil, libatomic, the tests' Bazel
#                                    libraries
#   lib/fallback/                    libstdc++/libgcc_s, used there only if the
#                                    system's are older than the build's
#   tests/golden/data/               the golden fixtures (nms/ included)
#   tests/images/                    the readable test images (the verdict
#                                    runs' fallback when PIL is missing there)
#   data/onnx_node_tests.tar.gz      ONNX's node tests that pass on cpu:0
#                                    here (onnx_node_test --verbose lists
#                                    them; the GPU machine has no Debian
#                                    libonnx-testdata)
#   data/onnx_models.tar.gz          tests/onnx_models (the torchvision
#                                    families), unless the bundle and the
#                                    working tree together would pass 64 MiB:
#                                    then run_on_gpu.sh reads the working
#                                    tree's copy, which travels anyway
#   benchmarks/                      pytorch_peer.py (+ pytorch_vgg11_cpu.py,
#                                    which it imports), compare.py,
#                                    torchvision_pipeline.py (the slow image
#                                    set), models/ (the diagnosis models)
#   tools/                           compare_logits.py, export_onnx_models.py
#                                    (ResNet-50 is exported there: 100 MB);
#                                    gpu_check/: the PyTorch peers (TF32
#                                    on/off, VGG11, NMS), onnx_logits.py,
#                                    make_slow_images.py, the report writer,
#                                    lib_versions.py (cuBLASLt/cuDNN versions
#                                    without a GPU), compare_outputs.py
#   data/models/<kind>/              the `models` step's opset-18, float16
#                                    and int8 QDQ cases (tests/onnx_cases),
#                                    and the detector's name (SOURCE)
# Not packed: cuBLAS and cuDNN (hundreds of MB); the script finds PyTorch's.
#
# Targets that do not exist in this tree (e.g. NMS before it lands) are left
# out with a note; run_on_gpu.sh skips their steps.
#
# Binaries are built -c opt for generic x86-64-v3 (.bazelrc; never
# -march=native) with device code for SWITCHYARD_CUDA_ARCHS (default sm_90 +
# PTX). The device tool carries the working tree (tracked and untracked,
# not ignored) and the bundle together within 64 MiB; this script fails if
# they would not fit.
set -euo pipefail
cd "$(dirname "$0")/.."

BUNDLE="${1:-gpu_bundle}"
LIMIT_BYTES=$((64 * 1024 * 1024))
# Everything that runs on cuda:N (check with
# `bazel query 'rdeps(tests(//...), //backends/cuda)'`), and relu_fusion_test,
# the fusion rules CUDA claims by. Keep run_on_gpu.sh's TESTS in step.
WANTED=(
  //tools/cli:switchyard
  //core:caching_allocator_test
  //backends/cuda:cuda_libraries_test
  //backends/cuda:cuda_backend_test
  //backends/cuda:cuda_partition_test
  //passes:relu_fusion_test
  //backends/cuda:cuda_kernels_test
  //tests:golden_test
  //tests:conformance_test
  //tests:concurrency_test
  //tests:nms_test
  //tests:nms_golden_test
  //benchmarks:nms_benchmark
  //tests:onnx_node_test
  //tests:onnx_models_test
)
# PACK_FROM=<the bazel-bin of an earlier -c opt build>: pack what is there,
# without Bazel (a dry run of the packing while the Bazel server is busy;
# the binaries are as old as that build).
if [[ -n "${PACK_FROM:-}" ]]; then
  BIN_DIR="$(cd "$PACK_FROM" && pwd -P)"
  OUTPUT_BASE="${BIN_DIR%/execroot/*}"
  TARGETS=()
  for t in "${WANTED[@]}"; do
    pkg="${t#//}"; pkg="${pkg%%:*}"
    if [[ -x "$BIN_DIR/$pkg/${t##*:}" ]]; then
      TARGETS+=("$t")
    else
      echo "note: $t is not built in $BIN_DIR; not packed"
    fi
  done
  echo "== packing from $BIN_DIR without building (PACK_FROM)"
else
  # Those that exist in this tree (--keep_going: a missing one is an error
  # message, not a failure).
  mapfile -t TARGETS < <(bazel query --keep_going "set(${WANTED[*]})" 2>/dev/null | sort)
  for t in "${WANTED[@]}"; do
    printf '%s\n' "${TARGETS[@]}" | grep -qx -- "$t" || echo "note: $t does not exist here; not packed"
  done
fi
printf '%s\n' "${TARGETS[@]}" | grep -qx //tools/cli:switchyard || {
  echo "error: //tools/cli:switchyard is missing" >&2
  exit 1
}

if [[ -z "${PACK_FROM:-}" ]]; then
  echo "== building ${TARGETS[*]} (-c opt)"
  bazel build -c opt "${TARGETS[@]}"
  BIN_DIR="$(bazel info -c opt bazel-bin 2>/dev/null)"
  OUTPUT_BASE="$(bazel info output_base 2>/dev/null)"
fi
if ! grep -q 'CUDA_FOUND = True' "$OUTPUT_BASE/external/local_cuda/defs.bzl"; then
  echo "error: this build has no CUDA ($(grep CUDA_MISSING_REASON "$OUTPUT_BASE/external/local_cuda/defs.bzl"))" >&2
  exit 1
fi

rm -rf "$BUNDLE"
mkdir -p "$BUNDLE"/{bin,lib/fallback,tests/golden/data,tests/images,tools/gpu_check,data,benchmarks/models}

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
install -m 644 tools/compare_logits.py tools/export_onnx_models.py "$BUNDLE/tools/"
install -m 644 tools/gpu_check/pytorch_vgg11_cuda.py tools/gpu_check/pytorch_peer_tf32.py \
  tools/gpu_check/torchvision_nms_cuda.py tools/gpu_check/report.py \
  tools/gpu_check/onnx_logits.py tools/gpu_check/make_slow_images.py \
  tools/gpu_check/lib_versions.py tools/gpu_check/compare_outputs.py "$BUNDLE/tools/gpu_check/"
install -m 644 benchmarks/pytorch_peer.py benchmarks/pytorch_vgg11_cpu.py benchmarks/compare.py \
  benchmarks/torchvision_pipeline.py "$BUNDLE/benchmarks/"
install -m 644 benchmarks/models/*.onnx "$BUNDLE/benchmarks/models/"
# The images the decoders read (not the bad_* ones, which only test errors).
find tests/images -maxdepth 1 -type f \( -name '*.jpg' -o -name '*.png' \) ! -name 'bad_*' \
  -exec install -m 644 {} "$BUNDLE/tests/images/" \;

# ONNX's backend test cases (all four suites) that pass on cpu:0 here: the
# GPU machine runs them on cpu:0 and cuda:0 (a case failing there on cuda:0
# only is a CUDA finding).
NODE_DIR="${ONNX_TESTDATA_DIR:-/usr/share/libonnx-testdata/data}"
NODE_CASES=0
if [[ -x "$BIN_DIR/tests/onnx_node_test" && -d "$NODE_DIR/node" ]]; then
  "$BIN_DIR/tests/onnx_node_test" --data_dir="$NODE_DIR" --devices=cpu:0 --verbose \
    >"$BUNDLE/data/onnx_node_tests_cpu.txt" 2>&1 || true
  # "passed  node/test_abs on cpu:0" -> node/test_abs
  mapfile -t node_cases < <(sed -n 's/^passed  *\([a-z-]*\/test_[A-Za-z0-9_]*\) on cpu:0$/\1/p' \
    "$BUNDLE/data/onnx_node_tests_cpu.txt" | sort -u)
  NODE_CASES=${#node_cases[@]}
  echo "== ONNX test suites: $(tail -n1 "$BUNDLE/data/onnx_node_tests_cpu.txt"); packing the $NODE_CASES that pass"
  if ((NODE_CASES > 0)); then
    tar -czf "$BUNDLE/data/onnx_node_tests.tar.gz" -C "$NODE_DIR" "${node_cases[@]}"
  fi
  # The list and the counts stay; the per-case lines would only repeat it.
  grep -v '^\(passed\|skipped\) ' "$BUNDLE/data/onnx_node_tests_cpu.txt" >"$BUNDLE/data/onnx_node_tests.txt" || true
  printf '%s\n' "${node_cases[@]}" >>"$BUNDLE/data/onnx_node_tests.txt"
  rm "$BUNDLE/data/onnx_node_tests_cpu.txt"
else
  echo "note: no onnx_node_test or no $NODE_DIR/node (libonnx-testdata): the ONNX test cases are not packed"
fi
# The model kinds of run_on_gpu.sh's `models` step: one ONNX case of each
# kind (a few KB), named in SOURCE. The detector (0.7 MB) is only named:
# run_on_gpu.sh reads it from the working tree, which travels anyway.
pack_model() {  # KIND CASE_DIR [name-only]
  if [[ -f "$2/model.onnx" ]]; then
    mkdir -p "$BUNDLE/data/models/$1"
    [[ -n "${3:-}" ]] || install -m 644 "$2/model.onnx" "$BUNDLE/data/models/$1/model.onnx"
    echo "$2" >"$BUNDLE/data/models/$1/SOURCE"
  else
    echo "note: no $2/model.onnx: the $1 model step will skip"
  fi
}
pack_model opset18 tests/onnx_cases/opset18/test_reduce_mean_default_axes
pack_model float16 tests/onnx_cases/float16/test_conv_bn_relu_pool_gemm
pack_model int8 tests/onnx_cases/quant/test_quant_qdq13_conv_relu
pack_model detector tests/onnx_models/fasterrcnn_narrow name-only
if compgen -G 'tests/onnx_models/*/model.onnx' >/dev/null; then
  tar -czf "$BUNDLE/data/onnx_models.tar.gz" --exclude=BUILD tests/onnx_models
fi

# Facts about the binaries, then bin/ and lib/ as one xz archive (about
# 47 MiB -> 6; run_on_gpu.sh unpacks it under its $TMP).
GLIBC_LINE="max GLIBC $(objdump -T "$BUNDLE"/bin/* "$BUNDLE"/lib/*.so* 2>/dev/null | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -n1), max GLIBCXX $(objdump -T "$BUNDLE"/bin/* "$BUNDLE"/lib/*.so* 2>/dev/null | grep -o 'GLIBCXX_[0-9.]*' | sort -uV | tail -n1)"
# The GPU machine needs at least the glibc of the highest GLIBC_ symbol
# (run_on_gpu.sh checks it there with ldd --version).
GLIBC_NEED="$(echo "$GLIBC_LINE" | sed -n 's/^max GLIBC GLIBC_\([0-9.]*\),.*/\1/p')"
echo "== the binaries need glibc ${GLIBC_NEED:-?} or newer on the GPU machine (this one has $(ldd --version | head -n1 | grep -o '[0-9]*\.[0-9]*$'))"
BIN_SHAS="$(cd "$BUNDLE" && find bin lib -type f | sort | xargs sha256sum | awk '{print "  " $2 "  " $1}')"
BIN_BYTES=$(du -sb "$BUNDLE/bin" "$BUNDLE/lib" | awk '{s += $1} END {print s}')
echo "== compressing bin/ and lib/ ($((BIN_BYTES / 1024 / 1024)) MiB) into bin.tar.xz"
# xz's strongest preset: 1.8 MB smaller than the default, which the 64 MiB
# of bundle and working tree together needed (40 s on 2 cores).
XZ_OPT=-9e tar -cJf "$BUNDLE/bin.tar.xz" -C "$BUNDLE" bin lib
rm -rf "$BUNDLE/bin" "$BUNDLE/lib"

# What the device tool carries: the working tree (tracked and untracked
# files that git does not ignore) and the bundle, 64 MiB together.
# (A tracked file deleted in the working tree does not travel: stat's
# failure on it is no error.)
tree_bytes() {
  { git ls-files -z --cached --others --exclude-standard |
    xargs -0 stat -c %s 2>/dev/null || true; } | awk '{s += $1} END {print s + 0}'
}
TREE=$(tree_bytes)
total=$(du -sb "$BUNDLE" | cut -f1)
# (1 MiB kept for MANIFEST.txt and slack.)
if ((total + TREE >= LIMIT_BYTES - 1024 * 1024)) && [[ -f "$BUNDLE/data/onnx_models.tar.gz" ]] &&
    [[ -d tests/onnx_models ]]; then
  echo "note: bundle + working tree would pass 64 MiB; leaving out data/onnx_models.tar.gz (run_on_gpu.sh reads the working tree's tests/onnx_models)"
  rm "$BUNDLE/data/onnx_models.tar.gz"
fi
ARCHS="$(sed -n 's/^CUDA_ARCHS = //p' "$OUTPUT_BASE/external/local_cuda/defs.bzl" | tr -d '[]" ')"
{
  echo "built $(date -u +%FT%TZ) on $(uname -n), -c opt, -march=x86-64-v3, CUDA $(sed -n 's/^CUDA_VERSION = "\(.*\)"/\1/p' "$OUTPUT_BASE/external/local_cuda/defs.bzl") (static cudart)"
  echo "cuda_archs ${ARCHS}"
  echo "commit $(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet HEAD 2>/dev/null || echo ' + uncommitted changes')"
  echo "targets ${TARGETS[*]}"
  echo "onnx node tests: $NODE_CASES cases that pass on cpu:0 here (data/onnx_node_tests.txt); tests/onnx_models: $([[ -f "$BUNDLE/data/onnx_models.tar.gz" ]] && echo "data/onnx_models.tar.gz" || echo "the working tree's copy (not packed: 64 MiB)")"
  echo "$GLIBC_LINE"
  echo "files:"
  (cd "$BUNDLE" && find . -type f ! -name MANIFEST.txt | sort | xargs sha256sum | awk '{print "  " $2 "  " $1}')
  echo "in bin.tar.xz ($BIN_BYTES bytes unpacked):"
  echo "$BIN_SHAS"
} >"$BUNDLE/MANIFEST.txt"

total=$(du -sb "$BUNDLE" | cut -f1)
echo "== $BUNDLE: $(find "$BUNDLE" -type f | wc -l) files, $((total / 1024 / 1024)) MiB ($total bytes); with the working tree ($((TREE / 1024 / 1024)) MiB) $(((total + TREE) / 1024 / 1024)) MiB of the device tool's 64"
du -sh "$BUNDLE"/bin.tar.xz "$BUNDLE"/tests "$BUNDLE"/benchmarks "$BUNDLE"/tools "$BUNDLE"/data/* |
  sed 's/^/   /'
echo "   (bin.tar.xz unpacked: $((BIN_BYTES / 1024 / 1024)) MiB; $(echo "$BIN_SHAS" | grep -c '^  bin/') binaries)"
if ((total >= LIMIT_BYTES)); then
  echo "error: the bundle is over 64 MiB" >&2
  exit 1
fi
if ((total + TREE >= LIMIT_BYTES)); then
  echo "error: the bundle and the working tree together are over 64 MiB (the device tool's limit)" >&2
  exit 1
fi
echo "== on the GPU machine: OUT=<dir> bash $BUNDLE/run_on_gpu.sh"
