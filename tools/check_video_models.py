#!/usr/bin/python3
"""The full-size check of torchvision's video classifiers: each model
exported to ONNX (seeded random weights: no network here; dynamic batch,
time, height and width), run by `switchyard run` on a clip and compared with
PyTorch's output (max |diff| / max |output|, limit 1e-4). CI runs the narrow
r3d_18 (tests/onnx_models/r3d_18_narrow, tools/export_family_models.py);
this is the slow check at torchvision's own sizes.

    bazel build //tools/cli:switchyard
    /usr/bin/python3 tools/check_video_models.py [--models=r3d_18,mc3_18,r2plus1d_18]
        [--clip=16x112x112] [--out=/tmp/video_models] [--threads=2]
"""

import argparse
import os
import subprocess
import sys

import numpy as np
import torch
import torchvision

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SWITCHYARD = os.path.join(ROOT, "bazel-out/k8-opt/bin/tools/cli/switchyard")
MODELS = ["r3d_18", "mc3_18", "r2plus1d_18"]


def check(name, clip, out_dir, threads):
    torch.manual_seed(0)
    model = getattr(torchvision.models.video, name)().eval()
    x = np.random.default_rng(0).standard_normal((1, 3) + clip).astype(np.float32)
    folder = os.path.join(out_dir, name)
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "model.onnx")
    torch.onnx.export(model, (torch.from_numpy(x),), path, opset_version=14,
                      input_names=["input"], output_names=["output"],
                      dynamic_axes={"input": {0: "batch", 2: "time", 3: "height", 4: "width"}})
    with torch.no_grad():
        want = model(torch.from_numpy(x)).numpy()
    np.save(os.path.join(folder, "input.npy"), x)
    run = subprocess.run([SWITCHYARD, "run", "--model=" + path,
                          "--input=" + os.path.join(folder, "input.npy"),
                          "--threads=%d" % threads, "--warmup=1", "--iterations=3",
                          "--output=" + os.path.join(folder, "out") + "/"],
                         capture_output=True, text=True)
    if run.returncode != 0:
        return "%s: switchyard run failed: %s" % (name, run.stderr.strip()[-500:])
    got = np.load(os.path.join(folder, "out", "output.npy"))
    diff = float(np.abs(got - want).max() / np.abs(want).max())
    forward = [l for l in run.stdout.splitlines() if l.startswith("forward:")]
    print("%-12s %s params %9d  max|diff|/max|out| %.2g  %s" % (
        name, "x".join(map(str, clip)), sum(p.numel() for p in model.parameters()), diff,
        forward[0] if forward else ""))
    return None if diff <= 1e-4 else "%s: %.3g exceeds 1e-4" % (name, diff)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--clip", default="16x112x112", help="TxHxW")
    parser.add_argument("--out", default="/tmp/video_models")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    if not os.path.exists(SWITCHYARD):
        sys.exit("build it first: bazel build //tools/cli:switchyard")
    clip = tuple(int(d) for d in args.clip.split("x"))
    if len(clip) != 3:
        sys.exit("--clip is TxHxW, e.g. 16x112x112")
    failures = [f for f in (check(n, clip, args.out, args.threads)
                            for n in args.models.split(",") if n) if f]
    for f in failures:
        print("FAILED " + f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
