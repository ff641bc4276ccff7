#!/usr/bin/env python3
"""benchmarks/pytorch_peer.py with TF32 set explicitly, for the GPU check.

Usage (run_on_gpu.sh calls it; every other flag goes to pytorch_peer.py):
    python3 pytorch_peer_tf32.py --tf32 off|on --peer-dir DIR [pytorch_peer flags]
        [--json FILE]

PyTorch's defaults mix the two (cuDNN convolutions may use TF32, matmuls may
not), so both are set before the peer runs: --tf32 off is FP32 everywhere
(Switchyard's default: CUBLAS_COMPUTE_32F, CUDNN_FMA_MATH), --tf32 on allows
TF32 in matmuls and convolutions (Switchyard's --backend_option=
cuda.allow_tf32=true). PyTorch 2.9 and later take the fp32_precision API
("ieee" / "tf32"), older ones allow_tf32; only one of the two is used, since
mixing them is an error in recent releases. --cudnn-benchmark on (default)
sets torch.backends.cudnn.benchmark = True, as Switchyard's conv2d times
every cuDNN algorithm on the first run of a shape
(cudnnFindConvolutionForwardAlgorithmEx); the warm-up iterations absorb it.

The JSON is pytorch_peer.py's ("switchyard.bench/1"), with
context.tf32 = {"requested", "api", "matmul", "cudnn_conv",
"cudnn_benchmark"} added and
framework "pytorch" kept (compare.py labels the runs by file name).
"""

import argparse
import json
import os
import sys


def _has(obj, name):
    """hasattr that survives torch's __getattr__ raising AssertionError."""
    try:
        getattr(obj, name)
        return True
    except Exception:  # noqa: BLE001
        return False


def set_tf32(torch, on):
    """Sets TF32 for matmuls and cuDNN convolutions; returns what is in force."""
    matmul = torch.backends.cuda.matmul
    conv = getattr(torch.backends.cudnn, "conv", None)
    if _has(matmul, "fp32_precision") and conv is not None and _has(conv, "fp32_precision"):
        value = "tf32" if on else "ieee"
        matmul.fp32_precision = value
        conv.fp32_precision = value
        return {"api": "fp32_precision", "matmul": matmul.fp32_precision,
                "cudnn_conv": conv.fp32_precision}
    matmul.allow_tf32 = on
    torch.backends.cudnn.allow_tf32 = on
    return {"api": "allow_tf32", "matmul": "tf32" if matmul.allow_tf32 else "ieee",
            "cudnn_conv": "tf32" if torch.backends.cudnn.allow_tf32 else "ieee"}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tf32", choices=["off", "on"], required=True)
    parser.add_argument("--peer-dir", required=True,
                        help="the folder holding pytorch_peer.py and pytorch_vgg11_cpu.py")
    parser.add_argument("--cudnn-benchmark", choices=["off", "on"], default="on")
    parser.add_argument("--json", metavar="FILE")
    args, rest = parser.parse_known_args(argv)

    import torch

    state = set_tf32(torch, args.tf32 == "on")
    state["requested"] = args.tf32
    torch.backends.cudnn.benchmark = args.cudnn_benchmark == "on"
    state["cudnn_benchmark"] = torch.backends.cudnn.benchmark
    print("pytorch %s: TF32 %s (%s: matmul %s, cudnn conv %s)" % (
        torch.__version__, args.tf32, state["api"], state["matmul"], state["cudnn_conv"]))
    sys.path.insert(0, os.path.abspath(args.peer_dir))
    import pytorch_peer  # noqa: E402  (benchmarks/pytorch_peer.py)

    if args.json:
        rest += ["--json", args.json]
    status = pytorch_peer.main(rest)
    if args.json and os.path.exists(args.json):
        with open(args.json) as f:
            doc = json.load(f)
        doc.setdefault("context", {})["tf32"] = json.dumps(state)
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=2)
            f.write("\n")
    return status


if __name__ == "__main__":
    sys.exit(main())
