#!/usr/bin/env python3
"""PyTorch peer of `switchyard run --device=cuda:0`: VGG-11 forward times.

Usage:
    python3 pytorch_vgg11_cuda.py [--batch 1,8,64] [--warmup 5] [--iterations 30]
        [--json FILE] [--seed 0] [--device cuda:0]

torchvision.models.vgg11(weights=None) (random init: nothing is downloaded;
speed does not depend on the weights) in eval mode under
torch.inference_mode(), on one GPU, FP32 with TF32 off for matmuls and
convolutions (as Switchyard's default; fp32_precision = "ieee" on 2.9+), torch.backends.cudnn.benchmark on
(cuDNN times its algorithms once per shape, as Switchyard does).

Each timed forward is measured like Switchyard's `run`: wall clock from the
call to the end of torch.cuda.synchronize(), input already on the GPU. The
GPU time of the same forward (CUDA events around it) is recorded beside.

--json FILE writes {"framework": "pytorch", "version", "cuda", "cudnn",
"gpu", "tf32": {...}, "cudnn_benchmark": true, "warmup", "iterations",
"results": [{"batch", "median_ms", "min_ms", "max_ms", "times_ms",
"gpu_median_ms", "images_per_s"}]}.
"""

import argparse
import json
import os
import statistics
import sys
import time


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", default="1,8,64")
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--iterations", type=int, default=30)
    parser.add_argument("--json", metavar="FILE")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--device", default="cuda:0")
    args = parser.parse_args(argv)
    batches = [int(b) for b in args.batch.split(",") if b.strip()]

    import torch
    import torchvision

    if not torch.cuda.is_available():
        print("pytorch: no CUDA device (torch.cuda.is_available() is False)")
        return 2
    # FP32, TF32 off: the fp32_precision API where torch has it (2.9+), else
    # allow_tf32 (mixing the two is an error in recent releases).
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from pytorch_peer_tf32 import set_tf32  # noqa: E402  (same folder)
    tf32_state = set_tf32(torch, False)
    torch.backends.cudnn.benchmark = True
    device = torch.device(args.device)

    torch.manual_seed(args.seed)
    model = torchvision.models.vgg11(weights=None).eval().to(device)
    gpu = torch.cuda.get_device_name(device)
    print("pytorch %s (CUDA %s, cuDNN %s), torchvision %s, %s; fp32 precision: matmul "
          "%s, cudnn conv %s (%s); cudnn.benchmark %s" % (
              torch.__version__, torch.version.cuda, torch.backends.cudnn.version(),
              torchvision.__version__, gpu, tf32_state["matmul"], tf32_state["cudnn_conv"],
              tf32_state["api"], torch.backends.cudnn.benchmark))

    results = []
    with torch.inference_mode():
        for batch in batches:
            generator = torch.Generator(device=device).manual_seed(args.seed + 1)
            x = torch.randn(batch, 3, 224, 224, device=device, generator=generator)
            for _ in range(args.warmup):
                model(x)
            torch.cuda.synchronize(device)
            times_ms, gpu_ms = [], []
            for _ in range(args.iterations):
                start = torch.cuda.Event(enable_timing=True)
                end = torch.cuda.Event(enable_timing=True)
                t0 = time.perf_counter()
                start.record()
                model(x)
                end.record()
                torch.cuda.synchronize(device)
                times_ms.append((time.perf_counter() - t0) * 1e3)
                gpu_ms.append(start.elapsed_time(end))
            median = statistics.median(times_ms)
            row = {
                "batch": batch,
                "median_ms": median,
                "min_ms": min(times_ms),
                "max_ms": max(times_ms),
                "times_ms": times_ms,
                "gpu_median_ms": statistics.median(gpu_ms),
                "images_per_s": batch / (median / 1e3),
            }
            results.append(row)
            print("batch %3d: median %8.3f ms  min %8.3f  max %8.3f  (GPU %8.3f ms)  "
                  "%9.1f images/s" % (batch, median, row["min_ms"], row["max_ms"],
                                      row["gpu_median_ms"], row["images_per_s"]))

    if args.json:
        doc = {
            "framework": "pytorch",
            "version": torch.__version__,
            "torchvision": torchvision.__version__,
            "cuda": torch.version.cuda,
            "cudnn": torch.backends.cudnn.version(),
            "gpu": gpu,
            "tf32": dict(tf32_state, float32_matmul_precision="highest"
                         if tf32_state["matmul"] == "ieee" else "high"),
            "cudnn_benchmark": torch.backends.cudnn.benchmark,
            "warmup": args.warmup,
            "iterations": args.iterations,
            "results": results,
        }
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=2)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
