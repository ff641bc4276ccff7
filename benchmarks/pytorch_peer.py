#!/usr/bin/python3
"""PyTorch peer of `switchyard bench`: the same workloads, the same JSON.

Usage:
    /usr/bin/python3 benchmarks/pytorch_peer.py [--model vgg11] [--devices cpu,cuda:0]
        [--batch 1,8] [--warmup 2] [--iterations 10] [--threads 2] [--json FILE]

What it measures is what `switchyard bench` measures, per device and batch:
torchvision.models.<model>(weights=None) (random init: nothing is downloaded,
and speed does not depend on the values) in eval mode under
torch.inference_mode(). Each iteration copies a host tensor (ordinary,
pageable memory, as Switchyard's input) into a preallocated device tensor
(h2d), runs the model (forward), copies the output into a preallocated host
tensor (d2h). On CUDA the three are timed with CUDA events on the current
stream (the device's clock, as Switchyard's DeviceClock) and the iteration
ends with torch.cuda.synchronize(); on the CPU with time.perf_counter around
each step (CPU ops are synchronous). End to end is host time around the whole
iteration. `warmup` untimed iterations come first (cuDNN autotuning,
allocator warm-up).

Devices: by default the CPU and every CUDA device torch sees; when torch sees
none, a "cuda" entry says why (not available), as `switchyard bench` does.
On the CPU the Debian build of PyTorch (python3-torch) is used; on a GPU
machine, whatever torch /usr/bin/python3 imports.

--json FILE writes the schema of `switchyard bench --json`
("switchyard.bench/1", framework "pytorch"); benchmarks/compare.py merges
both into a Markdown table and a bar chart.
"""

import argparse
import datetime
import json
import math
import os
import platform
import sys
import time

import torch
import torchvision

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pytorch_vgg11_cpu import build_info  # noqa: E402  (same folder)

SCHEMA = "switchyard.bench/1"
BASELINE = "cpu:0"


def percentile(values, q):
    """Linear interpolation between order statistics (numpy's default), as
    switchyard bench computes its p95."""
    if not values:
        return 0.0
    s = sorted(values)
    pos = q * (len(s) - 1)
    lo = int(math.floor(pos))
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (pos - lo) * (s[hi] - s[lo])


def stats(samples):
    return {
        "median": percentile(samples, 0.5),
        "p95": percentile(samples, 0.95),
        "min": min(samples),
        "max": max(samples),
        "mean": sum(samples) / len(samples),
        "samples": samples,
    }


def canonical(name):
    """'cpu' -> 'cpu:0', 'cuda' -> 'cuda:0' (Switchyard's spelling)."""
    return name if ":" in name else name + ":0"


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "CPU"


def choose_devices(names):
    """[(name, torch.device or None, reason)] for the requested names, or for
    the CPU and every CUDA device when none are given."""
    if not names:
        out = [("cpu:0", torch.device("cpu"), "")]
        if torch.cuda.is_available():
            for i in range(torch.cuda.device_count()):
                out.append(("cuda:%d" % i, torch.device("cuda", i), ""))
        else:
            out.append(("cuda", None, cuda_reason()))
        return out
    out = []
    for raw in names:
        name = canonical(raw)
        kind, index = name.split(":")
        if kind == "cpu" and index == "0":
            out.append((name, torch.device("cpu"), ""))
        elif kind == "cuda":
            if not torch.cuda.is_available():
                out.append((name, None, cuda_reason()))
            elif int(index) >= torch.cuda.device_count():
                out.append((name, None, "torch sees %d CUDA device(s)" %
                            torch.cuda.device_count()))
            else:
                out.append((name, torch.device("cuda", int(index)), ""))
        else:
            out.append((name, None, "the PyTorch peer knows cpu and cuda only"))
    return out


def cuda_reason():
    if torch.version.cuda is None:
        return "this PyTorch build has no CUDA support (torch.version.cuda is None)"
    return "torch.cuda.is_available() is False (no NVIDIA driver or GPU)"


def measure(model, device, shape, warmup, iterations, seed):
    """Samples (ms) of h2d, forward, d2h and end to end."""
    gen = torch.Generator().manual_seed(seed)
    x_host = torch.randn(shape, generator=gen)
    x_dev = torch.empty(shape, device=device)
    with torch.inference_mode():
        out_shape = model(x_dev.copy_(x_host)).shape
    out_host = torch.empty(out_shape)
    cuda = device.type == "cuda"
    samples = {"h2d": [], "forward": [], "d2h": [], "end_to_end": []}
    with torch.inference_mode():
        for i in range(warmup + iterations):
            if cuda:
                ev = [torch.cuda.Event(enable_timing=True) for _ in range(4)]
                t0 = time.perf_counter()
                ev[0].record()
                x_dev.copy_(x_host)
                ev[1].record()
                out = model(x_dev)
                ev[2].record()
                out_host.copy_(out)
                ev[3].record()
                torch.cuda.synchronize(device)
                t1 = time.perf_counter()
                parts = [ev[0].elapsed_time(ev[1]), ev[1].elapsed_time(ev[2]),
                         ev[2].elapsed_time(ev[3])]
            else:
                t0 = time.perf_counter()
                x_dev.copy_(x_host)
                ta = time.perf_counter()
                out = model(x_dev)
                tb = time.perf_counter()
                out_host.copy_(out)
                t1 = time.perf_counter()
                parts = [(ta - t0) * 1e3, (tb - ta) * 1e3, (t1 - tb) * 1e3]
            if i < warmup:
                continue
            samples["h2d"].append(parts[0])
            samples["forward"].append(parts[1])
            samples["d2h"].append(parts[2])
            samples["end_to_end"].append((t1 - t0) * 1e3)
    return samples


def main(argv=None):
    parser = argparse.ArgumentParser(description="PyTorch peer of switchyard bench.")
    parser.add_argument("--model", default="vgg11")
    parser.add_argument("--devices", default="", help="e.g. cpu,cuda:0 (default: all)")
    parser.add_argument("--batch", default="1,8", help="comma-separated batch sizes")
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--threads", type=int, default=0,
                        help="torch.set_num_threads (0: PyTorch's default)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", metavar="FILE", help="write the results as JSON")
    args = parser.parse_args(argv)
    batches = [int(b) for b in args.batch.split(",") if b.strip()]
    if args.iterations < 1 or args.warmup < 0 or not batches or min(batches) < 1:
        parser.error("need iterations >= 1, warmup >= 0, batch sizes >= 1")
    if not hasattr(torchvision.models, args.model):
        parser.error("torchvision has no model '%s'" % args.model)
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)

    devices, results = [], []
    for name, device, reason in choose_devices(
            [d for d in args.devices.split(",") if d.strip()]):
        if device is None:
            devices.append({"device": name, "available": False, "reason": reason})
            print("%s: unavailable: %s" % (name, reason))
            continue
        entry = {"device": name, "available": True}
        if device.type == "cuda":
            entry["name"] = torch.cuda.get_device_name(device)
            entry["properties"] = {"cuda": str(torch.version.cuda)}
        else:
            entry["name"] = cpu_name()
            entry["properties"] = {"threads": str(torch.get_num_threads())}
        devices.append(entry)
        model = getattr(torchvision.models, args.model)(weights=None).eval().to(device)
        for batch in batches:
            print("%s batch %d: %d + %d iterations" % (name, batch, args.warmup,
                                                       args.iterations), file=sys.stderr)
            s = measure(model, device, (batch, 3, 224, 224), args.warmup,
                        args.iterations, args.seed + 1 + batch)
            row = {"device": name, "batch": batch}
            for key in ("forward", "h2d", "d2h", "end_to_end"):
                row[key + "_ms"] = stats(s[key])
            row["images_per_s"] = batch / (row["end_to_end_ms"]["median"] / 1e3)
            row["speedup_vs_cpu"] = None
            results.append(row)
        del model
        if device.type == "cuda":
            torch.cuda.empty_cache()

    for base in results:
        if base["device"] != BASELINE:
            continue
        for row in results:
            if row["batch"] == base["batch"]:
                row["speedup_vs_cpu"] = {
                    "forward": base["forward_ms"]["median"] / row["forward_ms"]["median"],
                    "end_to_end": (base["end_to_end_ms"]["median"] /
                                   row["end_to_end_ms"]["median"]),
                }

    print("pytorch %s, torchvision %s, %d threads" % (
        torch.__version__, torchvision.__version__, torch.get_num_threads()))
    print("%-8s %5s %18s %18s %18s %18s %9s" % (
        "device", "batch", "forward", "h2d", "d2h", "end to end", "images/s"))
    for r in results:
        def mp(k):
            return "%.3f / %.3f" % (r[k]["median"], r[k]["p95"])
        print("%-8s %5d %18s %18s %18s %18s %9.2f" % (
            r["device"], r["batch"], mp("forward_ms"), mp("h2d_ms"), mp("d2h_ms"),
            mp("end_to_end_ms"), r["images_per_s"]))

    if args.json:
        command = ("/usr/bin/python3 benchmarks/pytorch_peer.py --model %s --batch %s "
                   "--warmup %d --iterations %d" % (
                       args.model, ",".join(map(str, batches)), args.warmup,
                       args.iterations))
        if args.devices:
            command += " --devices " + args.devices
        if args.threads:
            command += " --threads %d" % args.threads
        doc = {
            "schema": SCHEMA,
            "framework": "pytorch",
            "model": args.model,
            "warmup": args.warmup,
            "iterations": args.iterations,
            "batches": batches,
            "context": {
                "pytorch": torch.__version__,
                "torchvision": torchvision.__version__,
                "cpu_threads": str(torch.get_num_threads()),
                "build": json.dumps(build_info(torch.get_num_threads())),
                "date": datetime.datetime.now(datetime.timezone.utc).strftime(
                    "%Y-%m-%dT%H:%M:%SZ"),
                "command": command,
            },
            "devices": devices,
            "results": results,
        }
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=2)
            f.write("\n")
        print("wrote %s" % args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
