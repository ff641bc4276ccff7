#!/usr/bin/env bash
# Installs every Debian 12 package Switchyard's build and tests need.
# Idempotent, and quick when everything is there (no apt-get at all).
#
#   tools/setup.sh                 # build, tests, benchmarks
#   tools/setup.sh --with-pytorch  # also PyTorch, to regenerate goldens and
#                                  # run the PyTorch peer benchmark, and
#                                  # matplotlib for benchmarks/compare.py --png
set -euo pipefail

packages=(
  bazel-bootstrap        # Bazel 4.2.3 at /usr/bin/bazel
  bazel-rules-java       # @rules_java, which Bazel 4 loads even for C++
  g++
  libabsl-dev            # Abseil 20220623
  libeigen3-dev          # Eigen 3.4
  libgtest-dev libgmock-dev googletest
  libbenchmark-dev       # Google Benchmark 1.7.1
  nlohmann-json3-dev
  libonnx-dev libprotobuf-dev  # ONNX import (onnx/): onnx-ml.pb.h, libonnx_proto
  libonnx-testdata       # ONNX's backend node tests (tests/onnx_node_test)
  python3-onnx           # tools/export_onnx_models.py and docs/onnx.md
  python3                # test scripts
  clang libclang-rt-14-dev pkg-config  # libFuzzer + sanitizer runtimes: tools/fuzz.sh
)
if [[ "${1:-}" == "--with-pytorch" ]]; then
  packages+=(python3-torch python3-torchvision python3-numpy python3-matplotlib)
elif [[ $# -gt 0 ]]; then
  echo "usage: tools/setup.sh [--with-pytorch]" >&2
  exit 2
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [[ ${#missing[@]} -eq 0 ]]; then
  exit 0
fi

echo "tools/setup.sh: installing ${missing[*]}" >&2
sudo=""
if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
$sudo apt-get update -q
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
