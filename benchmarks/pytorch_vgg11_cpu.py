#!/usr/bin/python3
"""PyTorch CPU peer for Switchyard's VGG-11 Google Benchmark.

Usage:
    /usr/bin/python3 benchmarks/pytorch_vgg11_cpu.py [--threads 2] [--batch 1,8]
        [--warmup 2] [--iterations 10] [--per-layer] [--json FILE] [--seed 0]

Runs torchvision.models.vgg11(weights=None) (random init, nothing is
downloaded; speed does not depend on the weight values) in eval mode under
torch.inference_mode(), with torch.set_num_threads(threads). For each batch
size: `warmup` untimed forwards, then `iterations` forwards, each timed with
time.perf_counter; prints median/min/max ms and images/s (batch / median).

With --per-layer, each module of features, avgpool, the flatten step and
each module of classifier is timed on its own, on the real input it sees in
a forward pass (captured once), median over `iterations` after `warmup`.

--json FILE writes
    {"framework": "pytorch", "version": ..., "torchvision": ..., "threads": N,
     "interop_threads": N, "warmup": W, "iterations": I,
     "build": {"mkldnn": true, "cpu_capability": "AVX2", "blas_info": ..,
               "onednn_isa": "Intel AVX-512 ... (conv: jit:avx512_core)"},
     "results": [{"batch": 1, "median_ms": .., "min_ms": .., "max_ms": ..,
                  "times_ms": [..each timed forward..], "images_per_s": ..}, ...],
     "layers": [{"batch": 1, "name": "features.0", "type": "Conv2d",
                 "input_shape": [...], "output_shape": [...],
                 "median_ms": .., "min_ms": .., "max_ms": .., "times_ms": [..]},
                ...]}
("layers" is empty without --per-layer).
"""

import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import time

import torch
import torchvision


def time_calls(fn, warmup, iterations):
    for _ in range(warmup):
        fn()
    times_ms = []
    for _ in range(iterations):
        t0 = time.perf_counter()
        fn()
        times_ms.append((time.perf_counter() - t0) * 1e3)
    return {
        "median_ms": statistics.median(times_ms),
        "min_ms": min(times_ms),
        "max_ms": max(times_ms),
        "times_ms": times_ms,
    }


def build_info(threads):
    """What this torch build computes with (CPU kernels, BLAS, oneDNN)."""
    info = {"mkldnn": bool(torch.backends.mkldnn.is_available())}
    config = torch.__config__.show()
    capability = re.search(r"CPU capability usage: (\S+)", config)
    blas = re.search(r"BLAS_INFO=([^,\s]+)", config)
    info["cpu_capability"] = capability.group(1) if capability else None
    info["blas_info"] = blas.group(1) if blas else None
    info["onednn_isa"] = onednn_isa(threads) if info["mkldnn"] else None
    return info


def onednn_isa(threads):
    """The ISA oneDNN dispatches to at run time (it may differ from ATen's
    cpu_capability), from DNNL_VERBOSE in a child process, so that nothing
    timed here runs with verbose output on."""
    # A VGG-sized conv with this run's thread count: PyTorch only hands
    # convolutions that pass its size heuristics to oneDNN.
    snippet = ("import torch\n"
               "torch.set_num_threads(%d)\n"
               "with torch.inference_mode():\n"
               "    torch.nn.Conv2d(64, 128, 3, padding=1)(torch.randn(1, 64, 56, 56))\n"
               % threads)
    env = dict(os.environ, DNNL_VERBOSE="1", ONEDNN_VERBOSE="1")
    try:
        out = subprocess.run([sys.executable, "-c", snippet], env=env,
                             capture_output=True, text=True, timeout=120).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    isa = re.search(r"verbose,info,cpu,isa:([^\n]+)", out)
    kernel = re.search(r"verbose,exec,cpu,convolution,([^,]+),", out)
    if not isa:
        return None
    return isa.group(1).strip() + (" (conv: %s)" % kernel.group(1) if kernel else "")


def model_steps(model):
    """(name, callable) in forward order, matching torchvision VGG.forward."""
    steps = []
    for i, m in enumerate(model.features):
        steps.append(("features.%d" % i, m))
    steps.append(("avgpool", model.avgpool))
    steps.append(("flatten", lambda t: torch.flatten(t, 1)))
    for i, m in enumerate(model.classifier):
        steps.append(("classifier.%d" % i, m))
    return steps


def per_layer(model, x, warmup, iterations):
    rows = []
    h = x
    for name, fn in model_steps(model):
        inp = h.clone()  # own copy: in-place ReLU must not alter the captured input
        out = fn(inp.clone())
        stats = time_calls(lambda: fn(inp), warmup, iterations)
        rows.append(dict({
            "batch": int(x.shape[0]),
            "name": name,
            "type": type(fn).__name__ if isinstance(fn, torch.nn.Module) else "flatten",
            "input_shape": list(inp.shape),
            "output_shape": list(out.shape),
        }, **stats))
        h = out
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description="PyTorch CPU VGG-11 benchmark.")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--batch", default="1,8", help="comma-separated batch sizes")
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--per-layer", action="store_true", help="also time each layer")
    parser.add_argument("--json", metavar="FILE", help="write results as JSON")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    batches = [int(b) for b in args.batch.split(",") if b.strip()]
    if args.iterations < 1 or args.warmup < 0 or not batches or min(batches) < 1:
        parser.error("need iterations >= 1, warmup >= 0, batch sizes >= 1")

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    model = torchvision.models.vgg11(weights=None).eval()

    print("pytorch %s, torchvision %s, threads %d (interop %d), %s" % (
        torch.__version__, torchvision.__version__, torch.get_num_threads(),
        torch.get_num_interop_threads(), platform.machine()))
    results, layers = [], []
    with torch.inference_mode():
        for batch in batches:
            x = torch.randn(batch, 3, 224, 224)
            stats = time_calls(lambda: model(x), args.warmup, args.iterations)
            stats = dict({"batch": batch}, **stats)
            stats["images_per_s"] = batch / (stats["median_ms"] / 1e3)
            results.append(stats)
            print("batch %3d: median %9.2f ms  min %9.2f ms  max %9.2f ms  %8.2f images/s" % (
                batch, stats["median_ms"], stats["min_ms"], stats["max_ms"],
                stats["images_per_s"]))
            if args.per_layer:
                rows = per_layer(model, x, args.warmup, args.iterations)
                layers.extend(rows)
                total = sum(r["median_ms"] for r in rows)
                for r in rows:
                    print("  %-14s %-18s %-20s -> %-20s %9.3f ms  %5.1f%%" % (
                        r["name"], r["type"], r["input_shape"], r["output_shape"],
                        r["median_ms"], 100.0 * r["median_ms"] / total if total else 0.0))
                print("  sum of layer medians: %.2f ms" % total)

    if args.json:
        doc = {
            "framework": "pytorch",
            "version": torch.__version__,
            "torchvision": torchvision.__version__,
            "threads": torch.get_num_threads(),
            "interop_threads": torch.get_num_interop_threads(),
            "warmup": args.warmup,
            "iterations": args.iterations,
            "build": build_info(torch.get_num_threads()),
            "results": results,
            "layers": layers,
        }
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=2)
            f.write("\n")
        print("wrote %s" % args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
