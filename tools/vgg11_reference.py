#!/usr/bin/python3
"""Writes a full-size VGG-11 reference (weights, input, expected logits).

Usage:
    /usr/bin/python3 tools/vgg11_reference.py --out DIR [--batch 2] [--seed 0] [--threads 2]
    /usr/bin/python3 tools/vgg11_reference.py compare EXPECTED.npy ACTUAL.npy [--rtol 1e-4]

The first form builds torchvision.models.vgg11(weights=None) with random
initialisation after torch.manual_seed(seed) (nothing is downloaded), puts
it in eval mode and writes:
    DIR/vgg11.safetensors     the state_dict, names exactly as torchvision's
                              (features.0.weight ... classifier.6.bias),
                              float32, ~507 MiB; streamed tensor by tensor;
                              metadata: model, seed, torch/torchvision versions
    DIR/input.npy             [batch, 3, 224, 224] float32 randn, drawn from a
                              separate generator seeded with seed + 1
    DIR/expected_logits.npy   [batch, 1000] float32, model(input)
The result depends only on --seed and --batch (and on the torch version);
--threads changes speed, not the values beyond float rounding.

The `compare` form is the same as tools/compare_logits.py: exit 0 iff
max|a-b| <= 1e-4 * max|expected| and every sample's top-1 agrees.
These files are large: never commit them (write them under /tmp or an
ignored directory).
"""

import argparse
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def generate(argv):
    parser = argparse.ArgumentParser(description="Write a random-init VGG-11 reference.")
    parser.add_argument("--out", required=True, help="output directory")
    parser.add_argument("--batch", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)

    import torch
    import torchvision
    from pytorch_io import save_safetensors

    torch.set_num_threads(args.threads)
    os.makedirs(args.out, exist_ok=True)

    t0 = time.perf_counter()
    torch.manual_seed(args.seed)
    model = torchvision.models.vgg11(weights=None).eval()
    print("built vgg11 (%.1f s)" % (time.perf_counter() - t0))

    gen = torch.Generator().manual_seed(args.seed + 1)
    x = torch.randn(args.batch, 3, 224, 224, generator=gen, dtype=torch.float32)

    t0 = time.perf_counter()
    with torch.inference_mode():
        logits = model(x)
    print("forward batch %d (%.2f s)" % (args.batch, time.perf_counter() - t0))

    state = model.state_dict()
    weights_path = os.path.join(args.out, "vgg11.safetensors")
    metadata = {
        "model": "vgg11",
        "seed": str(args.seed),
        "torch": torch.__version__,
        "torchvision": torchvision.__version__,
        "num_classes": "1000",
        "input_size": "224",
    }
    t0 = time.perf_counter()
    save_safetensors(weights_path, state, metadata)
    print("wrote %s (%d bytes, %d tensors, %.1f s)" % (
        weights_path, os.path.getsize(weights_path), len(state), time.perf_counter() - t0))

    input_path = os.path.join(args.out, "input.npy")
    np.save(input_path, np.ascontiguousarray(x.numpy(), dtype=np.float32))
    print("wrote %s %s" % (input_path, list(x.shape)))

    logits_np = np.ascontiguousarray(logits.numpy(), dtype=np.float32)
    logits_path = os.path.join(args.out, "expected_logits.npy")
    np.save(logits_path, logits_np)
    print("wrote %s %s" % (logits_path, list(logits_np.shape)))
    print("max|logit| = %.6f, top-1 = %s" % (
        float(np.abs(logits_np).max()), json.dumps(np.argmax(logits_np, axis=1).tolist())))
    return 0


def main():
    argv = sys.argv[1:]
    if argv and argv[0] == "compare":
        import compare_logits
        return compare_logits.main(argv[1:])
    return generate(argv)


if __name__ == "__main__":
    sys.exit(main())
