#!/usr/bin/env bash
# Installs every Debian 12 package Switchyard's build and tests need.
# Idempotent, and quick when everything is there (no apt-get at all).
#
#   tools/setup.sh                 # build, tests, benchmarks
#   tools/setup.sh --with-pytorch  # also PyTorch, to regenerate goldens and
#                                  # run the PyTorch peer benchmark, and
#                                  # matplotlib for benchmarks/compare.py --png
#   tools/setup.sh --with-peers    # --with-pytorch, and ONNX Runtime (npm's
#                                  # onnxruntime-node, CPU) in the git-ignored
#                                  # third_party/onnxruntime_node, for
#                                  # benchmarks/onnxruntime_peer.js
set -euo pipefail

packages=(
  bazel-bootstrap        # Bazel 4.2.3 at /usr/bin/bazel
  bazel-rules-java       # @rules_java, which Bazel 4 loads even for C++
  g++
  libabsl-dev            # Abseil 20220623
  libeigen3-dev          # Eigen 3.4
  libgtest-dev libgmock-dev googletest
  libbenchmark-dev       # Google Benchmark 1.7.1
  libdnnl-dev            # oneDNN 2.6 (OpenMP): the dnnl backend plugin (backends/dnnl)
  nlohmann-json3-dev
  libonnx-dev libprotobuf-dev  # ONNX import (onnx/): onnx-ml.pb.h, libonnx_proto
  libonnx-testdata       # ONNX's backend node tests (tests/onnx_node_test)
  python3-onnx           # tools/export_onnx_models.py and docs/onnx.md
  python3                # test scripts
  pybind11-dev python3-dev python3-numpy python3-pytest  # the Python module (python/, docs/python.md)
  libjpeg62-turbo-dev libpng-dev  # the image input pipeline (data/)
  clang libclang-rt-14-dev pkg-config  # libFuzzer + sanitizer runtimes: tools/fuzz.sh
  libopenmpi-dev openmpi-bin  # OpenMPI 4.1: mpirun -np N switchyard ... (docs/scaling.md)
)
with_peers=0
for arg in "$@"; do
  case "${arg}" in
    --with-pytorch)
      packages+=(python3-torch python3-torchvision python3-numpy python3-matplotlib python3-pil) ;;
    --with-peers)
      with_peers=1
      packages+=(python3-torch python3-torchvision python3-numpy python3-matplotlib python3-pil) ;;
    *)
      echo "usage: tools/setup.sh [--with-pytorch] [--with-peers]" >&2
      exit 2 ;;
  esac
done
# Node.js and npm: Debian's, unless the machine already has both (a Node.js
# from elsewhere bundles its own npm, which Debian's npm would conflict with).
if ((with_peers)) && ! { command -v node && command -v npm; } >/dev/null; then
  packages+=(nodejs npm)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "tools/setup.sh: installing ${missing[*]}" >&2
  sudo=""
  if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# ONNX Runtime: --ignore-scripts skips the package's install script, which
# would download binaries (and fails offline); the CPU library
# (bin/napi-v6/linux/x64/libonnxruntime.so.1) ships inside the package.
ort_version=1.30.0
ort_dir="$(cd "$(dirname "$0")/.." && pwd)/third_party/onnxruntime_node"
if ((with_peers)) &&
   ! grep -qs "\"version\": \"${ort_version}\"" \
       "${ort_dir}/node_modules/onnxruntime-node/package.json"; then
  echo "tools/setup.sh: npm install onnxruntime-node@${ort_version} into ${ort_dir}" >&2
  mkdir -p "${ort_dir}"
  npm install --prefix "${ort_dir}" --ignore-scripts --no-audit --no-fund --no-save \
    "onnxruntime-node@${ort_version}"
fi
