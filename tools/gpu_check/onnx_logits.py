#!/usr/bin/env python3
"""Logits of one exported ONNX model, on one input, from every runner at hand.

Usage (run_on_gpu.sh's resnet50 step calls it):
    python3 onnx_logits.py --model-dir DIR --tools-dir TOOLS
        [--switchyard cpu:0=sy_cpu.npy --switchyard cuda:0=sy_cuda.npy]
        [--name resnet50] [--seed 0] [--rtol 1e-4] [--json FILE]

DIR is what tools/export_onnx_models.py wrote for the model (model.onnx,
input.npy, output_pytorch.npy: PyTorch on the CPU). This script adds:
  pytorch cuda:0   the same model rebuilt with the exporter's own seeded
                   build() (TOOLS/export_onnx_models.py: the same weights as
                   the file), eval mode, FP32 with TF32 off (as Switchyard's
                   default), on input.npy
  onnxruntime cpu  ONNX Runtime's CPU provider on model.onnx, when the
                   onnxruntime module is installed
and compares every pair that matters: Switchyard cuda:0 against Switchyard
cpu:0, PyTorch cuda:0, PyTorch CPU; Switchyard cpu:0 against PyTorch CPU
and ONNX Runtime; PyTorch cuda:0 against PyTorch CPU. Each comparison is
max |a - b| / max |b| <= rtol and the same top-1 class per sample (the
project's rule, tools/compare_logits.py). A runner that is missing (no
CUDA, no onnxruntime, a Switchyard run that failed) leaves its comparisons
out with the reason.

Exit status: 0 when every comparison made passes and Switchyard cuda:0 was
compared with something, or (no cuda:0) Switchyard cpu:0 was; 1 when one
fails; 2 when nothing could be compared.
"""

import argparse
import json
import os
import sys

import numpy as np


def rel_diff(a, b):
    a = np.asarray(a, dtype=np.float64).reshape(len(a), -1)
    b = np.asarray(b, dtype=np.float64).reshape(len(b), -1)
    if a.shape != b.shape:
        return None, "shape %s vs %s" % (a.shape, b.shape)
    if not np.all(np.isfinite(a)):
        return float("inf"), "NaN or Inf"
    scale = float(np.abs(b).max())
    diff = float(np.abs(a - b).max())
    return (diff / scale if scale > 0 else (0.0 if diff == 0 else float("inf"))), ""


def pytorch_cuda(tools_dir, name, seed, x, device):
    """PyTorch's logits on `device` for the exporter's seeded model."""
    sys.path.insert(0, tools_dir)
    sys.path.insert(0, os.path.join(tools_dir, "gpu_check"))
    import torch  # noqa: E402
    if not torch.cuda.is_available():
        return None, "torch sees no CUDA device"
    import export_onnx_models  # noqa: E402
    from pytorch_peer_tf32 import set_tf32  # noqa: E402
    set_tf32(torch, False)
    model, _ = export_onnx_models.build(name, "full", seed)
    model = model.to(device)
    with torch.no_grad():
        y = model(torch.from_numpy(x).to(device)).float().cpu().numpy()
    return y, "torch %s, %s" % (torch.__version__, torch.cuda.get_device_name(0))


def onnxruntime_cpu(model_path, x):
    try:
        import onnxruntime as ort
    except ImportError:
        return None, "onnxruntime is not installed"
    session = ort.InferenceSession(model_path, providers=["CPUExecutionProvider"])
    name = session.get_inputs()[0].name
    return session.run(None, {name: x})[0], "onnxruntime %s (CPU)" % ort.__version__


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model-dir", required=True)
    parser.add_argument("--tools-dir", required=True,
                        help="the folder holding export_onnx_models.py and gpu_check/")
    parser.add_argument("--switchyard", action="append", default=[],
                        metavar="DEVICE=FILE.npy", help="Switchyard's logits on DEVICE")
    parser.add_argument("--name", default="resnet50")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rtol", type=float, default=1e-4)
    parser.add_argument("--torch-device", default="cuda:0")
    parser.add_argument("--no-torch-cuda", action="store_true")
    parser.add_argument("--json")
    args = parser.parse_args(argv)

    x = np.load(os.path.join(args.model_dir, "input.npy"))
    logits, notes = {}, {}
    ref = os.path.join(args.model_dir, "output_pytorch.npy")
    if os.path.exists(ref):
        logits["pytorch cpu"] = np.load(ref)
    for spec in args.switchyard:
        device, _, path = spec.partition("=")
        key = "switchyard " + device.split(":")[0] + ":" + (device.split(":") + ["0"])[1]
        if os.path.exists(path):
            logits[key] = np.load(path)
        else:
            notes[key] = "no output (%s): the run failed or was not made" % path
    if args.no_torch_cuda:
        notes["pytorch cuda:0"] = "not run (--no-torch-cuda)"
    else:
        try:
            y, why = pytorch_cuda(args.tools_dir, args.name, args.seed, x, args.torch_device)
        except Exception as e:  # noqa: BLE001  (any failure is reported, not fatal)
            y, why = None, "failed: %s: %s" % (type(e).__name__, str(e).splitlines()[0][:200])
        if y is not None:
            logits["pytorch cuda:0"] = y
        notes["pytorch cuda:0"] = why
    try:
        y, why = onnxruntime_cpu(os.path.join(args.model_dir, "model.onnx"), x)
    except Exception as e:  # noqa: BLE001
        y, why = None, "failed: %s: %s" % (type(e).__name__, str(e).splitlines()[0][:200])
    if y is not None:
        logits["onnxruntime cpu"] = y
    notes["onnxruntime cpu"] = why

    pairs = [("switchyard cuda:0", "switchyard cpu:0"), ("switchyard cuda:0", "pytorch cuda:0"),
             ("switchyard cuda:0", "pytorch cpu"), ("switchyard cpu:0", "pytorch cpu"),
             ("switchyard cpu:0", "onnxruntime cpu"), ("pytorch cuda:0", "pytorch cpu")]
    rows = []
    print("input %s; rule: max|a-b| / max|b| <= %.0e and the same top-1" % (
        "x".join(map(str, x.shape)), args.rtol))
    for a, b in pairs:
        if a not in logits or b not in logits:
            missing = a if a not in logits else b
            rows.append({"a": a, "b": b, "result": "SKIP",
                         "reason": "%s: %s" % (missing, notes.get(missing, "not available"))})
            continue
        diff, why = rel_diff(logits[a], logits[b])
        top1_a = np.argmax(logits[a].reshape(len(logits[a]), -1), axis=1).tolist()
        top1_b = np.argmax(logits[b].reshape(len(logits[b]), -1), axis=1).tolist()
        ok = diff is not None and diff <= args.rtol and top1_a == top1_b
        rows.append({"a": a, "b": b, "result": "PASS" if ok else "FAIL", "rel_diff": diff,
                     "top1_a": top1_a, "top1_b": top1_b, "reason": why,
                     "max_abs_b": float(np.abs(logits[b]).max())})
    for r in rows:
        if r["result"] == "SKIP":
            print("%-18s vs %-18s SKIP  %s" % (r["a"], r["b"], r["reason"]))
        else:
            print("%-18s vs %-18s %s  ratio %.2e  top-1 %s / %s%s" % (
                r["a"], r["b"], r["result"], r["rel_diff"] if r["rel_diff"] is not None else
                float("nan"), r["top1_a"], r["top1_b"], ("  " + r["reason"]) if r["reason"] else ""))
    for k, v in notes.items():
        print("note: %s: %s" % (k, v))

    compared = [r for r in rows if r["result"] != "SKIP"]
    failed = [r for r in compared if r["result"] == "FAIL"]
    cuda_compared = any(r["a"] == "switchyard cuda:0" for r in compared)
    cpu_compared = any(r["a"] == "switchyard cpu:0" for r in compared)
    code = 1 if failed else (0 if cuda_compared or cpu_compared else 2)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"model": args.name, "input_shape": list(x.shape), "rtol": args.rtol,
                       "comparisons": rows, "runners": sorted(logits), "notes": notes,
                       "exit": code}, f, indent=1)
            f.write("\n")
    return code


if __name__ == "__main__":
    sys.exit(main())
