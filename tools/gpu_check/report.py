#!/usr/bin/env python3
"""Writes the GPU check's results file (Markdown) and its raw JSON.

Usage (run_on_gpu.sh calls it):
    python3 report.py WORK_DIR --out-md FILE.md --out-json FILE.json

WORK_DIR holds what run_on_gpu.sh collected:
    env.json                      machine, GPU, driver, versions, command
    steps.tsv                     step <TAB> PASS|FAIL|SKIP <TAB> detail
    logits.txt                    compare_logits.py's output (cuda:0 vs cpu)
    switchyard_r<R>_b<B>.json     `switchyard run --report` per round and batch
    pytorch_r<R>_b<B>.json        pytorch_vgg11_cuda.py --json per round and batch
Only the standard library is used.
"""

import argparse
import glob
import json
import os
import re
import statistics
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def fmt(ms):
    if ms is None:
        return "n/a"
    return "%.3f" % ms if ms < 10 else "%.2f" % ms


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("work")
    parser.add_argument("--out-md", required=True)
    parser.add_argument("--out-json", required=True)
    args = parser.parse_args(argv)
    work = args.work

    env = load(os.path.join(work, "env.json")) if os.path.exists(os.path.join(work, "env.json")) else {}
    steps = []
    if os.path.exists(os.path.join(work, "steps.tsv")):
        with open(os.path.join(work, "steps.tsv")) as f:
            for line in f:
                parts = line.rstrip("\n").split("\t")
                if len(parts) >= 2:
                    steps.append({"step": parts[0], "result": parts[1],
                                  "detail": parts[2] if len(parts) > 2 else ""})
    logits = ""
    if os.path.exists(os.path.join(work, "logits.txt")):
        with open(os.path.join(work, "logits.txt")) as f:
            logits = f.read().strip()

    # Per batch: each run's median, for both peers.
    sy = {}  # batch -> [(round, median, min, max)]
    for path in sorted(glob.glob(os.path.join(work, "switchyard_r*_b*.json"))):
        m = re.search(r"switchyard_r(\d+)_b(\d+)\.json$", path)
        r = load(path)
        ms = r.get("forward_ms", {})
        sy.setdefault(int(m.group(2)), []).append(
            {"round": int(m.group(1)), "median_ms": ms.get("median"),
             "min_ms": ms.get("min"), "max_ms": ms.get("max"),
             "iterations": r.get("iterations"), "warmup": r.get("warmup")})
    pt = {}
    pt_meta = {}
    for path in sorted(glob.glob(os.path.join(work, "pytorch_r*_b*.json"))):
        m = re.search(r"pytorch_r(\d+)_b\d+\.json$", path)
        doc = load(path)
        pt_meta = {k: v for k, v in doc.items() if k != "results"}
        for row in doc.get("results", []):
            pt.setdefault(int(row["batch"]), []).append(
                {"round": int(m.group(1)), "median_ms": row["median_ms"],
                 "min_ms": row["min_ms"], "max_ms": row["max_ms"],
                 "gpu_median_ms": row.get("gpu_median_ms"),
                 "iterations": len(row.get("times_ms", []))})

    rows = []
    for batch in sorted(set(sy) | set(pt)):
        s_runs = sorted(sy.get(batch, []), key=lambda r: r["round"])
        p_runs = sorted(pt.get(batch, []), key=lambda r: r["round"])
        s_med = statistics.median([r["median_ms"] for r in s_runs]) if s_runs else None
        p_med = statistics.median([r["median_ms"] for r in p_runs]) if p_runs else None
        rows.append({
            "batch": batch,
            "switchyard_median_ms": s_med,
            "pytorch_median_ms": p_med,
            "ratio_pytorch_over_switchyard": (p_med / s_med) if s_med and p_med else None,
            "switchyard_images_per_s": batch / (s_med / 1e3) if s_med else None,
            "pytorch_images_per_s": batch / (p_med / 1e3) if p_med else None,
            "pytorch_gpu_median_ms": statistics.median(
                [r["gpu_median_ms"] for r in p_runs if r.get("gpu_median_ms") is not None])
            if p_runs else None,
            "switchyard_runs": s_runs,
            "pytorch_runs": p_runs,
        })

    doc = {"env": env, "steps": steps, "logits_check": logits, "vgg11": rows,
           "pytorch": pt_meta}
    with open(args.out_json, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")

    out = []
    out.append("# VGG-11 on the GPU: Switchyard's CUDA backend vs PyTorch")
    out.append("")
    out.append("- Date: %s" % env.get("date", "?"))
    out.append("- GPU: %s (driver %s); host: %s, %s CPUs" % (
        env.get("gpu", "?"), env.get("driver", "?"), env.get("cpu", "?"), env.get("cpus", "?")))
    out.append("- Switchyard: built by `tools/gpu_check.sh` %s; device code sm_%s + PTX; "
               "at run time cuBLASLt %s and cuDNN %s (PyTorch's, found by the script)" % (
                   env.get("switchyard_build", "?"), env.get("cuda_archs", "90"),
                   env.get("cublaslt", "?"), env.get("cudnn", "?")))
    cudnn = pt_meta.get("cudnn", "?")
    if isinstance(cudnn, int):
        cudnn = "%d.%d.%d" % (cudnn // 10000, cudnn % 10000 // 100, cudnn % 100)
    out.append("- PyTorch %s (CUDA %s, cuDNN %s), torchvision %s" % (
        pt_meta.get("version", "?"), pt_meta.get("cuda", "?"), cudnn,
        pt_meta.get("torchvision", "?")))
    out.append("- Math: FP32 on both sides, TF32 off (Switchyard: CUBLAS_COMPUTE_32F, "
               "CUDNN_FMA_MATH; PyTorch: allow_tf32 = False for matmul and cuDNN, "
               "float32_matmul_precision %s); cuDNN algorithms benchmarked once per shape on "
               "both sides (Switchyard always; PyTorch `cudnn.benchmark = True`)" %
               pt_meta.get("tf32", {}).get("float32_matmul_precision", "?"))
    out.append("- Method: one invocation of `gpu_bundle/run_on_gpu.sh`; the peers run one "
               "after the other, never at once, in %s rounds whose order alternates. Each "
               "run builds the model, uploads the weights, runs untimed warm-up forwards "
               "(the first one benchmarks cuDNN), then times single forwards with the input "
               "already on the GPU: wall clock from the call until the device has finished "
               "(Switchyard: `Module::Forward`, which synchronizes; PyTorch: `model(x)` then "
               "`torch.cuda.synchronize()`). Medians below: the median of the runs' medians." %
               env.get("rounds", "?"))
    out.append("- Ratio = PyTorch / Switchyard: above 1 means Switchyard is faster.")
    out.append("- Command: `%s`" % env.get("command", "gpu_bundle/run_on_gpu.sh"))
    out.append("")
    out.append("| Batch | Switchyard median (ms) | PyTorch median (ms) | Ratio PyTorch / Switchyard | "
               "Switchyard images/s | PyTorch images/s | PyTorch GPU time (ms, CUDA events) | "
               "Switchyard per-run medians | PyTorch per-run medians |")
    out.append("|---:|---:|---:|---:|---:|---:|---:|---|---|")
    for r in rows:
        ratio = r["ratio_pytorch_over_switchyard"]
        out.append("| %d | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["batch"], fmt(r["switchyard_median_ms"]), fmt(r["pytorch_median_ms"]),
            "**%.2f**" % ratio if ratio else "n/a",
            "%.1f" % r["switchyard_images_per_s"] if r["switchyard_images_per_s"] else "n/a",
            "%.1f" % r["pytorch_images_per_s"] if r["pytorch_images_per_s"] else "n/a",
            fmt(r["pytorch_gpu_median_ms"]),
            ", ".join(fmt(x["median_ms"]) for x in r["switchyard_runs"]),
            ", ".join(fmt(x["median_ms"]) for x in r["pytorch_runs"])))
    out.append("")
    out.append("## Checks")
    out.append("")
    out.append("| Step | Result | Detail |")
    out.append("|---|---|---|")
    for s in steps:
        out.append("| %s | %s | %s |" % (s["step"], s["result"], s["detail"].replace("|", "/")))
    out.append("")
    if logits:
        out.append("## VGG-11 logits, cuda:0 against cpu:0 (batch 2, seed 0)")
        out.append("")
        out.append("```")
        out.append(logits)
        out.append("```")
        out.append("")
    with open(args.out_md, "w") as f:
        f.write("\n".join(out))
    print("wrote %s and %s" % (args.out_md, args.out_json))
    return 0


if __name__ == "__main__":
    sys.exit(main())
