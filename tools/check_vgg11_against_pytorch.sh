#!/usr/bin/env bash
# End-to-end check of VGG11 against PyTorch (needs tools/setup.sh --with-pytorch):
# torchvision's VGG11 (random init) saved as .safetensors, a random batch of 2,
# Switchyard's logits compared with PyTorch's (|diff| <= 1e-4 * max|logit|,
# same top-1).
#
#   tools/check_vgg11_against_pytorch.sh [DIR]   # DIR default: /tmp/switchyard_vgg11_check
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${1:-/tmp/switchyard_vgg11_check}"
mkdir -p "$dir"

/usr/bin/python3 tools/vgg11_reference.py --out "$dir" --batch 2
bazel run -c opt //:switchyard -- run --model=vgg11 --device=cpu \
  --weights="$dir/vgg11.safetensors" --input="$dir/input.npy" \
  --output="$dir/switchyard_logits.npy" --warmup=0 --iterations=1
/usr/bin/python3 tools/compare_logits.py "$dir/expected_logits.npy" "$dir/switchyard_logits.npy"
