#!/usr/bin/python3
"""Markdown report of Switchyard vs PyTorch VGG-11 on the CPU.

Reads what benchmarks/compare_cpu.sh wrote into one run directory:
    runs.tsv                 one line per peer run, in the order they ran:
                             round, peer, start, end, loadavg before, loadavg
                             after, JSON file (relative to the run directory)
    round<R>/switchyard.json Google Benchmark JSON of vgg11_benchmark
                             (BM_Vgg11/<device>/batch:N, every repetition kept)
    round<R>/pytorch.json    benchmarks/pytorch_vgg11_cpu.py --json output
    layers/switchyard.json   optional, BM_Vgg11Layer cases
    layers/pytorch.json      optional, pytorch_vgg11_cpu.py --per-layer

Every timed forward of every round is pooled per peer and batch; the table
gives the medians of the pools and their ratio (PyTorch / Switchyard: above
1 means Switchyard is faster), plus each round's own median so drift between
rounds shows.

Usage:
    /usr/bin/python3 benchmarks/cpu_comparison.py RUN_DIR --out REPORT.md
        [--threads N] [--device cpu:0] [--top-layers 10]
"""

import argparse
import csv
import datetime
import json
import os
import platform
import re
import sys

import numpy as np

_MODEL_CASE = re.compile(r"^BM_Vgg11/(?P<device>[^/]+)/batch:(?P<batch>\d+)/")
_LAYER_CASE = re.compile(
    r"^BM_Vgg11Layer/(?P<device>[^/]+)/(?P<node>.+)/batch:(?P<batch>\d+)/")
_TO_MS = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def cpu_details():
    """"family 26, model 2; AVX2, FMA, AVX-512F" from /proc/cpuinfo."""
    fields = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                key = key.strip()
                if key in ("cpu family", "model", "flags") and key not in fields:
                    fields[key] = value.strip()
    except OSError:
        return ""
    flags = set(fields.get("flags", "").split())
    isa = [name for flag, name in (("avx2", "AVX2"), ("fma", "FMA"),
                                   ("avx512f", "AVX-512F")) if flag in flags]
    return "family %s, model %s; %s" % (fields.get("cpu family", "?"),
                                        fields.get("model", "?"),
                                        ", ".join(isa) or "no AVX2")


def logical_cpus():
    return os.cpu_count() or 0


def read_json(path):
    with open(path) as f:
        return json.load(f)


def switchyard_model_times(doc, device):
    """{batch: [ms of each timed forward]} and {batch: error} from one file."""
    times, errors = {}, {}
    for b in doc.get("benchmarks", []):
        m = _MODEL_CASE.match(b.get("run_name", b["name"]) + "/")
        if not m or m.group("device") != device:
            continue
        batch = int(m.group("batch"))
        if b.get("error_occurred"):
            errors[batch] = b.get("error_message", "error")
            continue
        if b.get("run_type") != "iteration":
            continue
        times.setdefault(batch, []).append(b["real_time"] * _TO_MS[b["time_unit"]])
    return times, errors


def switchyard_gflop_per_forward(doc, device):
    """{batch: GFLOP of one forward}, from the GFLOP/s counter and the time."""
    gflop = {}
    for b in doc.get("benchmarks", []):
        m = _MODEL_CASE.match(b.get("run_name", b["name"]) + "/")
        if (not m or m.group("device") != device or b.get("run_type") != "iteration"
                or b.get("error_occurred") or "GFLOP/s" not in b):
            continue
        seconds = b["real_time"] * _TO_MS[b["time_unit"]] / 1e3
        gflop[int(m.group("batch"))] = b["GFLOP/s"] * seconds
    return gflop


def switchyard_layers(doc, device):
    """[{node, batch, median_ms, gflops, bytes_per_s}] from the median aggregates."""
    rows = []
    for b in doc.get("benchmarks", []):
        m = _LAYER_CASE.match(b.get("run_name", b["name"]) + "/")
        if not m or m.group("device") != device:
            continue
        if b.get("error_occurred"):
            rows.append({"node": m.group("node"), "batch": int(m.group("batch")),
                         "error": b.get("error_message", "error")})
            continue
        if b.get("run_type") != "aggregate" or b.get("aggregate_name") != "median":
            continue
        rows.append({
            "node": m.group("node"),
            "batch": int(m.group("batch")),
            "median_ms": b["real_time"] * _TO_MS[b["time_unit"]],
            "gflops": b.get("GFLOP/s", 0.0),
            "bytes_per_s": b.get("bytes/s", 0.0),
        })
    return rows


def fmt_ms(ms):
    return "%.1f" % ms if ms >= 10 else "%.2f" % ms if ms >= 0.1 else "%.3f" % ms


def read_runs(run_dir):
    with open(os.path.join(run_dir, "runs.tsv")) as f:
        return list(csv.DictReader(f, delimiter="\t"))


def model_table(run_dir, runs, device):
    sy_pool, pt_pool, sy_rounds, pt_rounds = {}, {}, {}, {}
    errors, gflop = {}, {}
    torch_doc = None
    for run in runs:
        if run["kind"] != "model":
            continue
        doc = read_json(os.path.join(run_dir, run["file"]))
        if run["peer"] == "switchyard":
            times, errs = switchyard_model_times(doc, device)
            errors.update(errs)
            gflop.update(switchyard_gflop_per_forward(doc, device))
            pool, rounds = sy_pool, sy_rounds
        else:
            torch_doc = doc
            times = {r["batch"]: r["times_ms"] for r in doc["results"]}
            pool, rounds = pt_pool, pt_rounds
        for batch, ts in times.items():
            pool.setdefault(batch, []).extend(ts)
            rounds.setdefault(batch, []).append(float(np.median(ts)))

    lines = [
        "| Batch | Switchyard median (ms) | PyTorch median (ms) "
        "| Ratio PyTorch / Switchyard | Switchyard images/s | PyTorch images/s "
        "| Switchyard GFLOP/s | Switchyard per-run medians (ms) "
        "| PyTorch per-run medians (ms) | Timed forwards (each) |",
        "|---:|---:|---:|---:|---:|---:|---:|---|---|---:|",
    ]
    summary = []
    for batch in sorted(set(sy_pool) | set(pt_pool) | set(errors)):
        if batch in errors or batch not in sy_pool or batch not in pt_pool:
            why = errors.get(batch, "missing from one peer's results")
            lines.append("| %d | %s | | | | | | | | |" % (batch, "skipped: " + why))
            continue
        sy, pt = float(np.median(sy_pool[batch])), float(np.median(pt_pool[batch]))
        ratio = pt / sy
        summary.append((batch, sy, pt, ratio))
        lines.append("| %d | %s | %s | **%.2f** | %.2f | %.2f | %s | %s | %s | %d / %d |" % (
            batch, fmt_ms(sy), fmt_ms(pt), ratio, batch / sy * 1e3, batch / pt * 1e3,
            "%.1f" % (gflop[batch] / (sy / 1e3)) if batch in gflop else "",
            ", ".join(fmt_ms(m) for m in sy_rounds[batch]),
            ", ".join(fmt_ms(m) for m in pt_rounds[batch]),
            len(sy_pool[batch]), len(pt_pool[batch])))
    return lines, summary, torch_doc


def layer_table(run_dir, runs, device, top):
    sy_doc = pt_doc = None
    for run in runs:
        if run["kind"] == "layers":
            doc = read_json(os.path.join(run_dir, run["file"]))
            if run["peer"] == "switchyard":
                sy_doc = doc
            else:
                pt_doc = doc
    if sy_doc is None:
        return []
    rows = [r for r in switchyard_layers(sy_doc, device) if "error" not in r]
    errors = [r for r in switchyard_layers(sy_doc, device) if "error" in r]
    torch_ms = {}
    if pt_doc is not None:
        for r in pt_doc.get("layers", []):
            torch_ms[(r["batch"], r["name"])] = r["median_ms"]
    total = sum(r["median_ms"] for r in rows)
    rows.sort(key=lambda r: -r["median_ms"])
    lines = [
        "| Node | Batch | Switchyard median (ms) | Share of layer sum | GFLOP/s "
        "| GB/s (in + weights + out) | PyTorch median (ms) | Ratio PyTorch / Switchyard |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows[:top]:
        layer = r["node"].split("/")[0]  # "features.3/conv2d" -> torch's "features.3"
        pt = torch_ms.get((r["batch"], layer))
        lines.append("| %s | %d | %s | %.1f%% | %.1f | %.2f | %s | %s |" % (
            r["node"], r["batch"], fmt_ms(r["median_ms"]),
            100.0 * r["median_ms"] / total if total else 0.0, r["gflops"],
            r["bytes_per_s"] / 1e9, fmt_ms(pt) if pt is not None else "",
            "%.2f" % (pt / r["median_ms"]) if pt is not None else ""))
    lines.append("")
    lines.append("Sum of all %d Switchyard layer medians: %s ms%s." % (
        len(rows), fmt_ms(total),
        "; PyTorch: %s ms" % fmt_ms(sum(torch_ms.values())) if torch_ms else ""))
    # Where the time goes, per op: sums of the layer medians of each op type.
    by_op = {}
    for r in rows:
        layer, op = r["node"].split("/", 1)
        sy_ms, pt_ms = by_op.get(op, (0.0, 0.0))
        by_op[op] = (sy_ms + r["median_ms"],
                     pt_ms + torch_ms.get((r["batch"], layer), 0.0))
    lines.append("")
    lines.append("| Op (all layers) | Switchyard (ms) | PyTorch (ms) | Ratio PyTorch / Switchyard |")
    lines.append("|---|---:|---:|---:|")
    for op, (sy_ms, pt_ms) in sorted(by_op.items(), key=lambda kv: -kv[1][0]):
        lines.append("| %s | %s | %s | %s |" % (
            op, fmt_ms(sy_ms), fmt_ms(pt_ms) if torch_ms else "",
            "%.2f" % (pt_ms / sy_ms) if torch_ms and sy_ms > 0 else ""))
    for r in errors:
        lines.append("Skipped %s: %s" % (r["node"], r["error"]))
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("run_dir")
    parser.add_argument("--out", required=True, help="Markdown file to write")
    parser.add_argument("--threads", type=int, required=True)
    parser.add_argument("--device", default="cpu:0")
    parser.add_argument("--top-layers", type=int, default=10)
    parser.add_argument("--command", default="", help="how the run was started")
    args = parser.parse_args(argv)

    runs = read_runs(args.run_dir)
    table, summary, torch_doc = model_table(args.run_dir, runs, args.device)
    if torch_doc is None:
        sys.exit("no PyTorch results in %s" % args.run_dir)
    sy_context = {}
    for run in runs:
        if run["peer"] == "switchyard" and run["kind"] == "model":
            sy_context = read_json(os.path.join(args.run_dir, run["file"])).get("context", {})
            break
    build = torch_doc.get("build", {})
    order = [r for r in runs if r["kind"] == "model"]
    rel_dir = os.path.relpath(args.run_dir, os.path.dirname(os.path.abspath(args.out)))

    out = []
    out.append("# VGG-11 inference on the CPU: Switchyard vs PyTorch")
    out.append("")
    out.append("- Date: %s" % (order[0]["start"] if order else datetime.datetime.now().isoformat()))
    out.append("- CPU: %s (%s), %d logical CPUs, %s" % (
        cpu_model(), cpu_details(), logical_cpus(), platform.machine()))
    out.append("- Threads: %d on both sides (Switchyard `--threads=%d` -> "
               "option `cpu.threads`, reports %s; PyTorch `torch.set_num_threads(%d)`, "
               "reports %s, interop %s)" % (
                   args.threads, args.threads, sy_context.get("switchyard_cpu_threads", "?"),
                   args.threads, torch_doc.get("threads"), torch_doc.get("interop_threads")))
    out.append("- Switchyard: `//benchmarks:vgg11_benchmark` built `-c opt` "
               "(`.bazelrc`: `-march=x86-64-v3`), Eigen CPU backend, %s, "
               "`Module::Forward` on a random N x 3 x 224 x 224 input; timed by "
               "Google Benchmark (the system libbenchmark, a %s build: this affects "
               "its own bookkeeping between repetitions, not the timed forwards)" % (
                   sy_context.get("switchyard_model", "vgg11"),
                   sy_context.get("library_build_type", "?")))
    out.append("- PyTorch %s, torchvision %s: `vgg11(weights=None).eval()` under "
               "`torch.inference_mode()`; ATen CPU capability %s, BLAS %s, oneDNN %s "
               "(its ISA is chosen at run time: %s)" % (
                   torch_doc.get("version"), torch_doc.get("torchvision"),
                   build.get("cpu_capability", "?"), build.get("blas_info", "?"),
                   "on" if build.get("mkldnn") else "off",
                   build.get("onednn_isa") or "unknown"))
    out.append("- Instruction sets differ: Switchyard is compiled for x86-64-v3 "
               "(AVX2 + FMA, 256-bit) on purpose, so one binary runs on any modern "
               "x86-64; PyTorch's oneDNN convolutions use whatever the CPU offers "
               "(see above); where that is AVX-512, its convolutions get twice "
               "Switchyard's vector width.")
    out.append("- Method: both peers ran in the same invocation of "
               "`benchmarks/compare_cpu.sh`, one after the other, never at once, in "
               "the order %s (the order alternates between rounds so that drift in "
               "machine load or clock hits both peers alike). Each run compiles / "
               "builds the model, runs %s untimed warm-up forwards, then times "
               "single forwards (Switchyard: one Google Benchmark repetition of one "
               "iteration each, wall clock; PyTorch: `time.perf_counter` around each "
               "call). The medians below are over every timed forward of all runs "
               "of a peer." % (
                   " -> ".join("%s" % r["peer"] for r in order),
                   sy_context.get("switchyard_warmup_forwards", "2")))
    out.append("- Ratio = PyTorch median / Switchyard median: above 1 means Switchyard "
               "is faster. images/s = batch / median. GFLOP/s counts a multiply-add "
               "as 2 FLOPs (sum of `OpDef::Flops` over the graph).")
    if args.command:
        out.append("- Command: `%s`" % args.command)
    out.append("")
    out.extend(table)
    out.append("")
    out.append("Runs, in order. This is a shared %d-CPU machine: each run waited for "
               "other processes to go quiet, and \"Other CPUs\" is how many CPUs other "
               "processes kept busy on average while it ran (machine busy time from "
               "`/proc/stat` minus the run's own CPU time); load average = "
               "1/5/15-minute `/proc/loadavg` before and after." % logical_cpus())
    out.append("")
    out.append("| # | Round | Peer | What | Start | End | Other CPUs | Load before "
               "| Load after | Raw results |")
    out.append("|---:|---:|---|---|---|---|---:|---|---|---|")
    disturbed = []
    for i, r in enumerate(runs, 1):
        others = r.get("other_cpus", "")
        if others and float(others) > 0.1:
            disturbed.append("#%d (%s CPUs)" % (i, others))
        out.append("| %d | %s | %s | %s | %s | %s | %s | %s | %s | `%s` |" % (
            i, r["round"], r["peer"], r["kind"], r["start"], r["end"], others,
            r["load_before"], r["load_after"], os.path.join(rel_dir, r["file"])))
    out.append("")
    if disturbed:
        out.append("**Warning:** other processes competed for the CPUs during run(s) "
                   "%s; those timings are pessimistic. Rerun on a quiet machine." %
                   ", ".join(disturbed))
    else:
        out.append("No run overlapped other work of more than 0.1 CPU on average.")
    layers = layer_table(args.run_dir, runs, args.device, args.top_layers)
    if layers:
        out.append("")
        out.append("## Per layer (top %d by Switchyard time)" % args.top_layers)
        out.append("")
        out.append("Each node of the compiled graph run alone as a one-node plan on an "
                   "input of its real shape (`BM_Vgg11Layer`, median of 5 repetitions "
                   "of >= 0.05 s); PyTorch: each module called alone on the input it "
                   "sees in a forward (median of its `--iterations`). A layer sum "
                   "differs a little from a whole forward (per-call overhead, caches "
                   "warm with that one layer's data).")
        out.append("")
        out.extend(layers)
    text = "\n".join(out) + "\n"
    with open(args.out, "w") as f:
        f.write(text)
    print(text)
    for batch, sy, pt, ratio in summary:
        print("batch %d: Switchyard %.2f ms, PyTorch %.2f ms, PyTorch/Switchyard %.2f" % (
            batch, sy, pt, ratio))
    print("wrote %s" % args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
