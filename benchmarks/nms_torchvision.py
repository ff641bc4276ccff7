#!/usr/bin/python3
"""The peer of benchmarks/nms_benchmark.cc: torchvision.ops.nms on the same
RPN-like boxes, timed the same way (median of repeated calls after warm-up).

    bazel build -c opt //benchmarks:nms_benchmark
    bazel-bin/benchmarks/nms_benchmark --write_boxes=/tmp/nms_boxes
    /usr/bin/python3 benchmarks/nms_torchvision.py --boxes-dir=/tmp/nms_boxes
    bazel-bin/benchmarks/nms_benchmark --threads=1 --benchmark_repetitions=10 \\
        --benchmark_report_aggregates_only=true

Needs Debian's python3-torch and python3-torchvision (tools/setup.sh
--with-pytorch); the `python3` on PATH may be a pyenv shim without them.
Reads DIR/nms_rpn_<N>.safetensors (boxes [N, 4] as x1, y1, x2, y2, scores
[N], metadata iou_threshold) and prints, per file, the median, minimum and
p90 of the call in milliseconds over --repetitions timed calls (each the
median of --inner calls, so that short calls are not dominated by the
timer), and the number of boxes kept, which must equal nms_benchmark's
`kept` counter. torchvision's CPU nms is single-threaded; --threads sets
torch's intra-op threads anyway (default 1). With --cuda, also on the GPU
(torch.cuda.synchronize() after each call), when there is one.
"""

import argparse
import glob
import json
import os
import re
import statistics
import sys
import time

import torch
import torchvision
from torchvision.ops import nms

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "tools"))
from pytorch_io import load_safetensors  # noqa: E402


def time_calls(fn, repetitions, inner, sync=lambda: None):
    for _ in range(3):  # warm-up
        fn()
    sync()
    samples = []
    for _ in range(repetitions):
        times = []
        for _ in range(inner):
            start = time.perf_counter()
            fn()
            sync()
            times.append(time.perf_counter() - start)
        samples.append(statistics.median(times) * 1e3)
    samples.sort()
    return {
        "median_ms": statistics.median(samples),
        "min_ms": samples[0],
        "p90_ms": samples[min(len(samples) - 1, int(0.9 * len(samples)))],
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--boxes-dir", required=True)
    parser.add_argument("--repetitions", type=int, default=10)
    parser.add_argument("--inner", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--cuda", action="store_true")
    parser.add_argument("--json", help="also write the results here")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    files = glob.glob(os.path.join(args.boxes_dir, "nms_rpn_*.safetensors"))
    files.sort(key=lambda f: int(re.search(r"nms_rpn_(\d+)", f).group(1)))
    if not files:
        sys.exit("no nms_rpn_*.safetensors in %s; run nms_benchmark "
                 "--write_boxes=%s first" % (args.boxes_dir, args.boxes_dir))
    print("torch %s, torchvision %s, %d thread(s)" % (
        torch.__version__, torchvision.__version__, torch.get_num_threads()))
    results = []
    for path in files:
        tensors, meta = load_safetensors(path)
        boxes = torch.from_numpy(tensors["boxes"])
        scores = torch.from_numpy(tensors["scores"])
        iou = float(meta["iou_threshold"])
        devices = [("cpu", boxes, scores, lambda: None)]
        if args.cuda and torch.cuda.is_available():
            devices.append(("cuda", boxes.cuda(), scores.cuda(), torch.cuda.synchronize))
        for name, b, s, sync in devices:
            kept = int(nms(b, s, iou).numel())
            stats = time_calls(lambda: nms(b, s, iou), args.repetitions,
                               args.inner, sync)
            row = {"device": name, "boxes": int(b.shape[0]), "iou": iou,
                   "kept": kept, **stats}
            results.append(row)
            print("torchvision.ops.nms %-4s boxes=%-6d kept=%-5d median %.3f ms "
                  "(min %.3f, p90 %.3f)" % (name, row["boxes"], kept,
                                            stats["median_ms"], stats["min_ms"],
                                            stats["p90_ms"]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
