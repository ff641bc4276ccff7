#!/usr/bin/env python3
"""torchvision.ops.nms on CUDA: the peer of nms_benchmark's BM_Nms/cuda:0.

Usage (run_on_gpu.sh calls it):
    python3 torchvision_nms_cuda.py [--boxes-dir DIR] [--sizes 1000,6000,20000]
        [--iou 0.7] [--repetitions 10] [--inner 5] [--cpu] [--json FILE]

Boxes: region-proposal-like and clustered, as in benchmarks/nms_benchmark.cc
(RpnBoxes: a 1000 x 800 image, 85% of the boxes jittered copies of 20
objects scored high near them, 15% anywhere scored low), seed = the box
count. With --boxes-dir, DIR/nms_rpn_<N>.safetensors written by
`nms_benchmark --write_boxes=DIR` are read where they exist (the very same
boxes, so `kept` must equal nms_benchmark's counter); otherwise the boxes
are generated here by a port of RpnBoxes (mt19937_64 and the same uniform
and Box-Muller draws, so they match the C++ boxes too; `source` in the JSON
says which).

Timing, as benchmarks/nms_torchvision.py does: 3 warm-up calls, then
--repetitions samples, each the median of --inner calls, every call followed
by torch.cuda.synchronize(); the boxes and scores are already on the GPU.
--cpu adds torchvision's CPU nms on the same boxes (single-threaded).

Exit status 0; 2 when torch has no CUDA device (nothing timed, the JSON says
why); 1 on any other error. Only torch and torchvision are needed.
"""

import argparse
import json
import math
import os
import statistics
import struct
import sys
import time

MASK64 = (1 << 64) - 1


class MT19937_64:
    """std::mt19937_64, bit for bit."""

    def __init__(self, seed):
        self.mt = [0] * 312
        self.mt[0] = seed & MASK64
        for i in range(1, 312):
            prev = self.mt[i - 1]
            self.mt[i] = (6364136223846793005 * (prev ^ (prev >> 62)) + i) & MASK64
        self.index = 312

    def _twist(self):
        mt = self.mt
        for i in range(312):
            x = (mt[i] & 0xFFFFFFFF80000000) | (mt[(i + 1) % 312] & 0x7FFFFFFF)
            xa = x >> 1
            if x & 1:
                xa ^= 0xB5026F5AA96619E9
            mt[i] = mt[(i + 156) % 312] ^ xa
        self.index = 0

    def __call__(self):
        if self.index >= 312:
            self._twist()
        y = self.mt[self.index]
        self.index += 1
        y ^= (y >> 29) & 0x5555555555555555
        y ^= (y << 17) & 0x71D67FFFEDA60000
        y ^= (y << 37) & 0xFFF7EEE000000000
        y ^= y >> 43
        return y & MASK64


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def rpn_boxes(n, seed):
    """A port of RpnBoxes in benchmarks/nms_benchmark.cc: ([x1, y1, x2, y2]*n
    as float32-rounded Python floats, scores)."""
    rng = MT19937_64(seed)

    def uniform(lo, hi):
        return lo + (hi - lo) * float(rng() >> 11) * 2.0 ** -53

    def normal(sigma):
        u1 = 1.0 - uniform(0, 1)
        u2 = uniform(0, 1)
        return sigma * math.sqrt(-2.0 * math.log(u1)) * math.cos(2 * math.pi * u2)

    objects = 20
    cx, cy, size = [], [], []
    for _ in range(objects):
        cx.append(uniform(100, 900))
        cy.append(uniform(100, 700))
        size.append(uniform(40, 250))
    boxes, scores = [], []
    for _ in range(n):
        o = rng() % objects
        background = uniform(0, 1) < 0.15
        jx = normal(0.15) * size[o]
        jy = normal(0.15) * size[o]
        x = uniform(0, 1000) if background else cx[o] + jx
        y = uniform(0, 800) if background else cy[o] + jy
        scale = size[o] * math.exp(normal(0.25))
        aspect = math.exp(normal(0.3))
        w = scale * math.sqrt(aspect)
        h = scale / math.sqrt(aspect)
        boxes.append([f32(x - w / 2), f32(y - h / 2), f32(x + w / 2), f32(y + h / 2)])
        distance = math.hypot(jx, jy) / size[o]
        scores.append(f32(uniform(0, 0.3) if background
                          else math.exp(-2 * distance) * uniform(0.7, 1.0)))
    return boxes, scores


def read_safetensors(path, torch):
    """{name: float32 tensor}, metadata; F32 only (what --write_boxes writes)."""
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    meta = header.pop("__metadata__", {}) or {}
    base = 8 + n
    out = {}
    for name, info in header.items():
        if info["dtype"] != "F32":
            raise ValueError("%s: %s is %s, expected F32" % (path, name, info["dtype"]))
        b, e = info["data_offsets"]
        t = torch.frombuffer(bytearray(data[base + b:base + e]), dtype=torch.float32)
        out[name] = t.reshape(info["shape"]).clone()
    return out, meta


def time_calls(fn, repetitions, inner, sync):
    for _ in range(3):
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
    return {"median_ms": statistics.median(samples), "min_ms": samples[0],
            "p90_ms": samples[min(len(samples) - 1, int(0.9 * len(samples)))],
            "samples_ms": samples}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boxes-dir")
    parser.add_argument("--sizes", default="1000,6000,20000")
    parser.add_argument("--iou", type=float, default=0.7)
    parser.add_argument("--repetitions", type=int, default=10)
    parser.add_argument("--inner", type=int, default=5)
    parser.add_argument("--cpu", action="store_true", help="also time the CPU nms")
    parser.add_argument("--generate-only", metavar="DIR",
                        help="write the generated boxes as DIR/gen_<N>.json and exit "
                        "(for checking the port against nms_benchmark --write_boxes)")
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]

    if args.generate_only:
        os.makedirs(args.generate_only, exist_ok=True)
        for n in sizes:
            boxes, scores = rpn_boxes(n, n)
            with open(os.path.join(args.generate_only, "gen_%d.json" % n), "w") as f:
                json.dump({"boxes": boxes, "scores": scores}, f)
        return 0

    import torch
    import torchvision
    from torchvision.ops import nms

    doc = {"framework": "torchvision", "torch": torch.__version__,
           "torchvision": torchvision.__version__, "cuda": torch.version.cuda,
           "iou_threshold": args.iou, "repetitions": args.repetitions,
           "inner": args.inner, "results": []}
    cuda = torch.cuda.is_available()
    if cuda:
        doc["gpu"] = torch.cuda.get_device_name(0)
    else:
        doc["reason"] = ("this PyTorch build has no CUDA support" if torch.version.cuda is None
                         else "torch.cuda.is_available() is False")
    print("torch %s (CUDA %s), torchvision %s, %s" % (
        torch.__version__, torch.version.cuda, torchvision.__version__,
        doc.get("gpu", "no GPU: " + doc.get("reason", ""))))
    torch.set_num_threads(1)
    for n in sizes:
        source = "generated (port of RpnBoxes, seed %d)" % n
        path = os.path.join(args.boxes_dir, "nms_rpn_%d.safetensors" % n) if args.boxes_dir else ""
        iou = args.iou
        if path and os.path.exists(path):
            tensors, meta = read_safetensors(path, torch)
            boxes, scores = tensors["boxes"], tensors["scores"]
            iou = float(meta.get("iou_threshold", iou))
            source = "nms_benchmark --write_boxes"
        else:
            b, s = rpn_boxes(n, n)
            boxes = torch.tensor(b, dtype=torch.float32)
            scores = torch.tensor(s, dtype=torch.float32)
        devices = []
        if args.cpu:
            devices.append(("cpu:0", boxes, scores, lambda: None))
        if cuda:
            devices.append(("cuda:0", boxes.cuda(), scores.cuda(), torch.cuda.synchronize))
        for name, bx, sc, sync in devices:
            kept = int(nms(bx, sc, iou).numel())
            stats = time_calls(lambda: nms(bx, sc, iou), args.repetitions, args.inner, sync)
            row = {"device": name, "boxes": n, "iou": iou, "kept": kept, "source": source,
                   **stats}
            doc["results"].append(row)
            print("torchvision.ops.nms %-6s boxes=%-6d kept=%-5d median %.3f ms "
                  "(min %.3f, p90 %.3f)  [%s]" % (name, n, kept, stats["median_ms"],
                                                  stats["min_ms"], stats["p90_ms"], source))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=2)
            f.write("\n")
    return 0 if cuda else 2


if __name__ == "__main__":
    sys.exit(main())
