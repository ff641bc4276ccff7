#!/usr/bin/python3
"""Runs exported ONNX models through Switchyard and compares with PyTorch and ONNX Runtime.

Usage:
    /usr/bin/python3 tools/check_onnx_models.py [DIR] [--switchyard=BIN]
        [--devices=cpu,ref:0] [--models=a,b] [--rtol=1e-4] [--plugin=SO]

DIR (default tests/onnx_models; benchmarks/onnx_models for the full-size
exports of tools/export_onnx_models.py --size=full) holds one folder per model
with model.onnx, input.npy, output_pytorch.npy and, where ONNX Runtime made
it, output_onnxruntime.npy. For each folder and device it runs

    switchyard run --model=DIR/M/model.onnx --input=DIR/M/input.npy
        --output=OUT.npy --device=D --warmup=0 --iterations=1

and prints max |Switchyard - reference| / max |reference| against both
references. A model passes on a device when that ratio is <= --rtol (the
issue's 1e-4) against PyTorch's output. Exit status 0 iff every model passed
on every device; 1 otherwise (a failed run counts as a failure, with the
command's last error line).

BIN defaults to bazel-bin/tools/cli/switchyard (bazel build -c opt
//tools/cli:switchyard first). Devices other than the CPU's need their
backend: --plugin=bazel-bin/backends/reference/libswitchyard_ref_plugin.so
for ref:0.
"""

import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def rel_diff(ref, got):
    ref = ref.astype(np.float64)
    got = got.astype(np.float64)
    if not np.all(np.isfinite(got)):
        return float("inf")
    return float(np.abs(got - ref).max() / max(np.abs(ref).max(), 1e-30))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", nargs="?", default=os.path.join(ROOT, "tests", "onnx_models"))
    parser.add_argument("--switchyard",
                        default=os.path.join(ROOT, "bazel-bin", "tools", "cli", "switchyard"))
    parser.add_argument("--devices", default="cpu")
    parser.add_argument("--models", default="", help="comma-separated folders (default: all)")
    parser.add_argument("--rtol", type=float, default=1e-4)
    parser.add_argument("--plugin", action="append", default=[])
    parser.add_argument("--timeout", type=float, default=600, help="seconds per run")
    args = parser.parse_args(argv)
    if not os.access(args.switchyard, os.X_OK):
        sys.exit("%s: not an executable; bazel build -c opt //tools/cli:switchyard, "
                 "or pass --switchyard" % args.switchyard)
    folders = sorted(f for f in os.listdir(args.dir)
                     if os.path.exists(os.path.join(args.dir, f, "model.onnx")))
    if args.models:
        wanted = [m.strip() for m in args.models.split(",") if m.strip()]
        missing = [m for m in wanted if m not in folders]
        if missing:
            sys.exit("no model folder(s) %s in %s" % (", ".join(missing), args.dir))
        folders = wanted
    devices = [d.strip() for d in args.devices.split(",") if d.strip()]

    failures = 0
    print("%-22s %-6s %-8s %14s %14s" % ("model", "device", "result", "vs pytorch",
                                         "vs onnxruntime"))
    with tempfile.TemporaryDirectory() as tmp:
        for folder in folders:
            base = os.path.join(args.dir, folder)
            ref = np.load(os.path.join(base, "output_pytorch.npy"))
            ort_path = os.path.join(base, "output_onnxruntime.npy")
            ort = np.load(ort_path) if os.path.exists(ort_path) else None
            for device in devices:
                out = os.path.join(tmp, "%s_%s.npy" % (folder, device.replace(":", "_")))
                cmd = [args.switchyard] + ["--plugin=%s" % p for p in args.plugin] + [
                    "run", "--model=" + os.path.join(base, "model.onnx"),
                    "--input=" + os.path.join(base, "input.npy"), "--output=" + out,
                    "--device=" + device, "--warmup=0", "--iterations=1"]
                try:
                    proc = subprocess.run(cmd, capture_output=True, text=True,
                                          timeout=args.timeout)
                    error = proc.returncode != 0 or not os.path.exists(out)
                    message = (proc.stderr.strip().splitlines() or ["exit %d" % proc.returncode])[-1]
                except subprocess.TimeoutExpired:
                    error, message = True, "timed out after %.0f s" % args.timeout
                if error:
                    failures += 1
                    print("%-22s %-6s %-8s %s" % (folder, device, "ERROR", message))
                    continue
                got = np.load(out)
                if got.shape != ref.shape:
                    failures += 1
                    print("%-22s %-6s %-8s output shape %s, PyTorch's %s" % (
                        folder, device, "FAIL", got.shape, ref.shape))
                    continue
                d_pt = rel_diff(ref, got)
                d_ort = rel_diff(ort, got) if ort is not None else None
                ok = d_pt <= args.rtol
                failures += 0 if ok else 1
                print("%-22s %-6s %-8s %14.2e %14s" % (
                    folder, device, "ok" if ok else "FAIL", d_pt,
                    "-" if d_ort is None else "%.2e" % d_ort), flush=True)
    total = len(folders) * len(devices)
    print("%d passed, %d failed" % (total - failures, failures))
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
