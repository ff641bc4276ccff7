#!/usr/bin/env python3
"""Writes the GPU check's results file (Markdown) and its raw JSON.

Usage (run_on_gpu.sh calls it; it can be rerun on a copy of $OUT):
    python3 report.py OUT_DIR [--out-md FILE.md] [--out-json FILE.json]

Default outputs: OUT_DIR/gpu_<date>.md and .json, the date from env.json.
The Markdown is meant to be committed as benchmarks/results/gpu_<date>.md.

OUT_DIR holds what run_on_gpu.sh collected (every part optional; a missing
part is reported as not measured, with the step's reason):
    env.json                  machine, GPU, driver, versions, command
    steps.tsv                 step <TAB> PASS|FAIL|SKIP <TAB> detail [<TAB> seconds]
    tests/<name>.json         gtest's --gtest_output=json per test binary
    logits.txt                compare_logits.py (cuda:0 against cpu:0)
    bench/{switchyard,pytorch}_{fp32,tf32}.json   switchyard.bench/1 files
    bench/compare.md          benchmarks/compare.py over them
    bench/switchyard_r<R>_b<B>.json, pytorch_r<R>_b<B>.json  (ROUNDS > 0)
    profile/summary.txt       `run --profile-summary` output
    util/report_<kind>.json   `run --batches --report`, kind starved / fed
    util/nvml_<kind>.csv      nvidia-smi timestamp, utilization.gpu, memory.used
    util/times_<kind>.json    host epoch seconds around the run
    nms/nms_benchmark.json    Google Benchmark JSON (BM_Nms/<device>/boxes:N)
    nms/torchvision_nms.json  torchvision_nms_cuda.py --json
    onnx/node_summary.json    onnx_node_test --summary_json (suite, case, device, outcome, reason)
    tests/onnx_models_test.json  gtest's JSON; each case records its diff to
                              output_pytorch.npy and output_onnxruntime.npy
    resnet50/info.json, bench.json, logits.json  the exported file's facts,
                              `switchyard bench` on it, onnx_logits.py --json
    verdicts/report_<run>.json, times_<run>.json, nvml_<run>.csv, run_<run>.txt
                              issue 12's verdict runs (images_1, images_<N>,
                              one_op, copies)
Only the standard library is used.
"""

import argparse
import datetime
import glob
import json
import os
import re
import statistics
import sys


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


def fmt(ms):
    if ms is None:
        return "n/a"
    if ms < 1:
        return "%.4f" % ms
    return "%.3f" % ms if ms < 10 else "%.2f" % ms


def pct(x):
    if x is None:
        return "n/a"
    return "%.1f%%" % (100 * x if x <= 1.0 else x)


def ratio(a, b):
    return "%.2f" % (a / b) if a and b else "n/a"


def cell(text):
    return str(text).replace("|", "/").replace("\n", " ")


# --- parts ---------------------------------------------------------------------------

def read_steps(out):
    steps = []
    for line in read(os.path.join(out, "steps.tsv")).splitlines():
        parts = line.split("\t")
        if len(parts) >= 2:
            steps.append({"step": parts[0], "result": parts[1],
                          "detail": parts[2] if len(parts) > 2 else "",
                          "seconds": parts[3] if len(parts) > 3 else ""})
    return steps


def step_reason(steps, prefix):
    for s in steps:
        if s["step"].startswith(prefix):
            return "%s: %s" % (s["result"], s["detail"])
    return "not run"


def read_tests(out):
    tests = []
    for path in sorted(glob.glob(os.path.join(out, "tests", "*.json"))):
        doc = load(path)
        if not doc:
            continue
        skipped, failed, cuda_ran = 0, [], 0
        for suite in doc.get("testsuites", []):
            for t in suite.get("testsuite", []):
                name = "%s.%s" % (suite.get("name"), t.get("name"))
                if t.get("result") == "SKIPPED" or t.get("status") == "NOTRUN":
                    skipped += 1
                elif t.get("failures"):
                    failed.append(name)
                elif "cuda" in name.lower():
                    cuda_ran += 1
        tests.append({"binary": os.path.splitext(os.path.basename(path))[0],
                      "tests": doc.get("tests"), "failures": doc.get("failures"),
                      "skipped": skipped, "failed": failed, "cuda_named_ran": cuda_ran,
                      "time": doc.get("time")})
    return tests


def bench_runs(out):
    runs = {}
    for key in ("switchyard_fp32", "pytorch_fp32", "switchyard_tf32", "pytorch_tf32"):
        doc = load(os.path.join(out, "bench", key + ".json"))
        if doc:
            runs[key] = doc
    return runs


def bench_rows(runs):
    """[(device, batch)] -> {run: row} for every measured row."""
    table = {}
    for key, doc in runs.items():
        for r in doc.get("results", []):
            if "error" in r:
                continue
            table.setdefault((r["device"], r["batch"]), {})[key] = r
    return sorted(table.items(), key=lambda kv: (not kv[0][0].startswith("cpu"), kv[0]))


def median_of(row, metric):
    if not row:
        return None
    return (row.get(metric) or {}).get("median")


def rounds(out):
    sy, pt = {}, {}
    for path in glob.glob(os.path.join(out, "bench", "switchyard_r*_b*.json")):
        m = re.search(r"switchyard_r(\d+)_b(\d+)\.json$", path)
        doc = load(path) or {}
        med = (doc.get("forward_ms") or {}).get("median")
        if med is not None:
            sy.setdefault(int(m.group(2)), []).append(med)
    for path in glob.glob(os.path.join(out, "bench", "pytorch_r*_b*.json")):
        for row in (load(path) or {}).get("results", []):
            pt.setdefault(int(row["batch"]), []).append(row["median_ms"])
    return sy, pt


NVML_TIME = "%Y/%m/%d %H:%M:%S.%f"


def nvml_samples(path):
    """[(epoch seconds or None, utilization %, memory MiB)] from nvidia-smi CSV."""
    samples = []
    for line in read(path).splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) < 3 or not parts[1][:1].isdigit():
            continue
        try:
            t = datetime.datetime.strptime(parts[0], NVML_TIME).replace(
                tzinfo=datetime.timezone.utc).timestamp()
        except ValueError:
            t = None
        try:
            util = float(parts[1].split()[0])
            mem = float(parts[2].split()[0])
        except (ValueError, IndexError):
            continue
        samples.append((t, util, mem))
    return samples


def nvml_row(row, rep, times, samples):
    """Adds NVML's means over the process and over the stream to `row`."""
    row["nvml_samples"] = len(samples)
    if samples:
        row["nvml_mean_process"] = statistics.mean(s[1] for s in samples)
        row["nvml_max_memory_mib"] = max(s[2] for s in samples)
    # The stream: the last run_ms of the process (set-up, compile and
    # warm-up come first; the report is written right after the stream).
    if rep and times.get("end_epoch_s") and samples and samples[0][0] is not None:
        end = float(times["end_epoch_s"])
        start = end - float(rep.get("run_ms", 0)) / 1e3
        window = [s for s in samples if start <= s[0] <= end]
        row["stream_window_s"] = [start, end]
        row["nvml_stream_samples"] = len(window)
        if window:
            row["nvml_mean_stream"] = statistics.mean(s[1] for s in window)
    return row


def util_runs(out):
    runs = []
    for kind in ("starved", "fed"):
        rep = load(os.path.join(out, "util", "report_%s.json" % kind))
        times = load(os.path.join(out, "util", "times_%s.json" % kind)) or {}
        samples = nvml_samples(os.path.join(out, "util", "nvml_%s.csv" % kind))
        runs.append(nvml_row({"kind": kind, "report": rep, "times": times}, rep, times, samples))
    return runs


def verdict_runs(out):
    """Issue 12's verdict runs, in the order run_on_gpu.sh makes them."""
    names = [os.path.basename(p)[len("times_"):-len(".json")]
             for p in glob.glob(os.path.join(out, "verdicts", "times_*.json"))]
    order = {"one_op": 2, "copies": 3}
    runs = []
    for name in sorted(names, key=lambda n: (order.get(n, 0), len(n), n)):
        rep = load(os.path.join(out, "verdicts", "report_%s.json" % name))
        times = load(os.path.join(out, "verdicts", "times_%s.json" % name)) or {}
        samples = nvml_samples(os.path.join(out, "verdicts", "nvml_%s.csv" % name))
        runs.append(nvml_row({"run": name, "report": rep, "times": times,
                              "expected": times.get("expected", "")}, rep, times, samples))
    return runs


def onnx_node(out):
    """(counts {device: {outcome: n}}, failed rows, skip reasons {device: {reason: n}})."""
    rows = load(os.path.join(out, "onnx", "node_summary.json")) or []
    counts, failed, skips = {}, [], {}
    for r in rows:
        d = counts.setdefault(r.get("device"), {"passed": 0, "failed": 0, "skipped": 0})
        d[r.get("outcome")] = d.get(r.get("outcome"), 0) + 1
        if r.get("outcome") == "failed":
            failed.append(r)
        elif r.get("outcome") == "skipped":
            # The reason without the case's own path, so that like ones group.
            reason = re.sub(r"^\S*/model\.onnx: ", "", r.get("reason", ""))
            reason = re.sub(r"^test_data_set_\d+: ", "", reason)[:100]
            skips.setdefault(r.get("device"), {}).setdefault(reason, 0)
            skips[r.get("device")][reason] += 1
    return counts, failed, skips


def onnx_models(out):
    """{model: {device: {"result", "pytorch", "onnxruntime", "message"}}}."""
    doc = load(os.path.join(out, "tests", "onnx_models_test.json")) or {}
    models = {}
    for suite in doc.get("testsuites", []):
        for t in suite.get("testsuite", []):
            m = re.search(r"/([A-Za-z0-9_]+?)_((?:cpu|cuda|ref)_\d+)$", t.get("name", ""))
            if not m:
                continue
            if t.get("result") == "SKIPPED" or t.get("status") == "NOTRUN":
                result = "skipped"
            elif t.get("failures"):
                result = "FAILED"
            else:
                result = "passed"
            message = " ".join(f.get("failure", "") for f in t.get("failures", []))
            models.setdefault(m.group(1), {})[m.group(2).replace("_", ":")] = {
                "result": result, "pytorch": t.get("output_pytorch.npy"),
                "onnxruntime": t.get("output_onnxruntime.npy"),
                "message": " ".join(message.split())[:300]}
    return models


def nms_rows(out):
    gb = load(os.path.join(out, "nms", "nms_benchmark.json")) or {}
    sy = {}
    for b in gb.get("benchmarks", []):
        m = re.match(r"BM_Nms/([^/]+)/boxes:(\d+)", b.get("run_name") or b.get("name", ""))
        if not m:
            continue
        key = (m.group(1), int(m.group(2)))
        if b.get("error_occurred"):
            sy[key] = {"error": b.get("error_message")}
        elif b.get("aggregate_name") in ("median", None) and "median" not in sy.get(key, {}):
            scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}.get(b.get("time_unit"), 1.0)
            sy[key] = {"median": b["real_time"] * scale, "kept": b.get("kept")}
    tv = {}
    tv_doc = load(os.path.join(out, "nms", "torchvision_nms.json")) or {}
    for r in tv_doc.get("results", []):
        tv[(r["device"], r["boxes"])] = r
    return sy, tv, tv_doc


def sci(text):
    """A recorded number ("7.80721e-08") as 7.8e-08; anything else as it is."""
    try:
        return "%.1e" % float(text)
    except (TypeError, ValueError):
        return "?" if text is None else str(text)


def skips_items(skips):
    return [(d, r) for d, r in skips.items() if not d.startswith("cpu")]


# --- the report --------------------------------------------------------------------

def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--out-md")
    parser.add_argument("--out-json")
    args = parser.parse_args(argv)
    out = args.out
    env = load(os.path.join(out, "env.json")) or {}
    date = (env.get("date") or datetime.datetime.now(datetime.timezone.utc).isoformat())[:10]
    out_md = args.out_md or os.path.join(out, "gpu_%s.md" % date)
    out_json = args.out_json or os.path.join(out, "gpu_%s.json" % date)

    steps = read_steps(out)
    tests = read_tests(out)
    logits = read(os.path.join(out, "logits.txt")).strip()
    runs = bench_runs(out)
    rows = bench_rows(runs)
    compare_md = read(os.path.join(out, "bench", "compare.md")).strip()
    profile = read(os.path.join(out, "profile", "summary.txt"))
    util = util_runs(out)
    verdicts = verdict_runs(out)
    node_counts, node_failed, node_skips = onnx_node(out)
    models = onnx_models(out)
    r50_info = load(os.path.join(out, "resnet50", "info.json")) or {}
    r50_bench = load(os.path.join(out, "resnet50", "bench.json")) or {}
    r50_logits = load(os.path.join(out, "resnet50", "logits.json")) or {}
    nms_sy, nms_tv, nms_tv_doc = nms_rows(out)
    r_sy, r_pt = rounds(out)
    gpu = env.get("gpu") or "none"
    have_gpu = env.get("have_gpu") == "1"

    md = []
    md.append("# GPU check: Switchyard on %s" % (gpu if have_gpu else "no GPU (dry run)"))
    md.append("")
    md.append("- Date: %s; host %s" % (env.get("date", "?"), env.get("host", "?")))
    md.append("- GPU: %s (driver %s); CPU: %s, %s CPUs" % (
        gpu, env.get("driver", "?"), env.get("cpu", "?"), env.get("cpus", "?")))
    if not have_gpu:
        md.append("- **No GPU**: %s. Every GPU step skipped; the tests ran and skipped "
                  "their GPU cases." % env.get("no_gpu_reason", "?"))
    md.append("- Switchyard: bundle built by `tools/gpu_check.sh` %s; device code sm_%s + "
              "PTX; at run time cuBLASLt %s and cuDNN %s (found by the script)" % (
                  env.get("switchyard_build", "?"), env.get("cuda_archs", "?"),
                  env.get("cublaslt", "?"), env.get("cudnn", "?")))
    md.append("- PyTorch: %s" % env.get("pytorch", "?"))
    md.append("- Command: `%s` (budget %s s)" % (env.get("command", "?"), env.get("budget_s", "?")))
    counts = {k: sum(1 for s in steps if s["result"] == k) for k in ("PASS", "FAIL", "SKIP")}
    md.append("- Steps: %d passed, %d failed, %d skipped" % (
        counts["PASS"], counts["FAIL"], counts["SKIP"]))
    md.append("")

    # Tests
    md.append("## Tests on cuda:0")
    md.append("")
    if tests:
        md.append("| Binary | Tests | Failed | Skipped | Seconds | Failures |")
        md.append("|---|---:|---:|---:|---:|---|")
        for t in tests:
            md.append("| %s | %s | %s | %d | %s | %s |" % (
                t["binary"], t["tests"], t["failures"], t["skipped"], t["time"] or "",
                cell(", ".join(t["failed"][:5]) or "")))
    else:
        md.append("Not run: %s" % step_reason(steps, "test "))
    md.append("")
    if logits:
        md.append("VGG-11 logits, cuda:0 against cpu:0 (batch 2, seed 0):")
        md.append("")
        md.append("```")
        md.append(logits)
        md.append("```")
    else:
        md.append("VGG-11 logits, cuda:0 against cpu:0: %s" % step_reason(steps, "vgg11 logits"))
    md.append("")

    # ONNX importer
    md.append("## The ONNX importer on cuda:0 (and cpu:0 beside it)")
    md.append("")
    if node_counts:
        md.append("ONNX's node tests (the cases that pass on cpu:0 where the bundle was packed; "
                  "rtol 1e-3, atol 1e-5 for float32, integers exact):")
        md.append("")
        md.append("| Device | Passed | Failed | Skipped |")
        md.append("|---|---:|---:|---:|")
        for device in sorted(node_counts, key=lambda d: (not d.startswith("cpu"), d)):
            c = node_counts[device]
            md.append("| %s | %d | %d | %d |" % (device, c.get("passed", 0), c.get("failed", 0),
                                                 c.get("skipped", 0)))
        md.append("")
        if node_failed:
            md.append("Failing cases (%d):" % len(node_failed))
            md.append("")
            md.append("| Case | Device | ONNX ops | Why |")
            md.append("|---|---|---|---|")
            for r in node_failed:
                case = "/".join(x for x in (r.get("suite"), r.get("case")) if x)
                md.append("| %s | %s | %s | %s |" % (case, r.get("device"),
                                                     ", ".join(r.get("op_types", [])),
                                                     cell(r.get("reason", ""))[:300]))
            md.append("")
        for device, reasons in sorted(skips_items(node_skips)):
            md.append("Skipped on %s, by reason (most common first):" % device)
            md.append("")
            for reason, n in sorted(reasons.items(), key=lambda kv: -kv[1])[:10]:
                md.append("- %d: %s" % (n, cell(reason)))
            md.append("")
    else:
        md.append("Node tests not run: %s" % step_reason(steps, "onnx node tests"))
        md.append("")
    if models:
        devices = sorted({d for by in models.values() for d in by},
                         key=lambda d: (not d.startswith("cpu"), d))
        md.append("The torchvision families (`tests/onnx_models`, small variants, seeded "
                  "weights): max |Switchyard - reference| / max |reference logit|, PyTorch / "
                  "ONNX Runtime; the limit is 1e-4.")
        md.append("")
        md.append("| Model | " + " | ".join(devices) + " |")
        md.append("|---|" + "---|" * len(devices))
        for name in sorted(models):
            cells = []
            for d in devices:
                r = models[name].get(d)
                if not r:
                    cells.append("")
                elif r["result"] == "skipped":
                    cells.append("skipped")
                else:
                    diffs = "%s / %s" % (sci(r["pytorch"]), sci(r["onnxruntime"]))
                    cells.append(diffs if r["result"] == "passed" else
                                 "**FAILED** %s" % (diffs if r["pytorch"] else ""))
            md.append("| %s | %s |" % (name, " | ".join(cells)))
        md.append("")
        failures = [(n, d, r) for n, by in sorted(models.items()) for d, r in by.items()
                    if r["result"] == "FAILED"]
        for n, d, r in failures:
            md.append("- %s on %s: %s" % (n, d, cell(r["message"])))
        if failures:
            md.append("")
    else:
        md.append("Families test not run: %s" % step_reason(steps, "onnx models test"))
        md.append("")

    # Bench
    md.append("## VGG-11: `switchyard bench` beside PyTorch (FP32 and TF32)")
    md.append("")
    if rows:
        md.append("Median ms, forward / end to end (h2d + forward + d2h). Ratios: PyTorch / "
                  "Switchyard in the same math (above 1: Switchyard is faster). FP32: TF32 "
                  "off on both sides; TF32: Switchyard `--backend_option=cuda.allow_tf32=true`, "
                  "PyTorch fp32_precision \"tf32\" for matmul and cuDNN conv. PyTorch with "
                  "`cudnn.benchmark = True`, as Switchyard's conv2d benchmarks cuDNN's "
                  "algorithms.")
        md.append("")
        md.append("| Device | Batch | Switchyard FP32 | PyTorch FP32 | Ratio fwd / e2e | "
                  "Switchyard TF32 | PyTorch TF32 | Ratio fwd / e2e | Switchyard FP32 images/s |")
        md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for (device, batch), by in rows:
            def both(key):
                r = by.get(key)
                return "%s / %s" % (fmt(median_of(r, "forward_ms")), fmt(median_of(r, "end_to_end_ms"))) if r else "n/a"

            def ratios(a, b):
                ra, rb = by.get(a), by.get(b)
                if not ra or not rb:
                    return "n/a"
                return "%s / %s" % (ratio(median_of(rb, "forward_ms"), median_of(ra, "forward_ms")),
                                    ratio(median_of(rb, "end_to_end_ms"), median_of(ra, "end_to_end_ms")))
            ips = (by.get("switchyard_fp32") or {}).get("images_per_s")
            md.append("| %s | %d | %s | %s | %s | %s | %s | %s | %s |" % (
                device, batch, both("switchyard_fp32"), both("pytorch_fp32"),
                ratios("switchyard_fp32", "pytorch_fp32"), both("switchyard_tf32"),
                both("pytorch_tf32"), ratios("switchyard_tf32", "pytorch_tf32"),
                "%.1f" % ips if ips else "n/a"))
        md.append("")
        for key, doc in runs.items():
            unavailable = [d for d in doc.get("devices", []) if not d.get("available", True)]
            for d in unavailable:
                md.append("- %s: %s unavailable: %s" % (key, d.get("device"), cell(d.get("reason"))))
            errors = [r for r in doc.get("results", []) if "error" in r]
            for r in errors:
                md.append("- %s: %s batch %s failed: %s" % (key, r.get("device"), r.get("batch"),
                                                            cell(r.get("error"))))
        md.append("")
    else:
        md.append("Not measured: %s" % step_reason(steps, "bench switchyard fp32"))
        md.append("")
    if compare_md:
        md.append("### benchmarks/compare.py")
        md.append("")
        md.append(re.sub(r"^## ", "#### ", compare_md, flags=re.M))
        md.append("")
    if r_sy or r_pt:
        md.append("### Alternating rounds (`switchyard run` vs pytorch_vgg11_cuda.py, forward medians)")
        md.append("")
        md.append("| Batch | Switchyard runs (ms) | PyTorch runs (ms) | Ratio of medians |")
        md.append("|---:|---|---|---:|")
        for b in sorted(set(r_sy) | set(r_pt)):
            s, p = r_sy.get(b, []), r_pt.get(b, [])
            md.append("| %d | %s | %s | %s |" % (
                b, ", ".join(fmt(x) for x in s), ", ".join(fmt(x) for x in p),
                ratio(statistics.median(p) if p else None, statistics.median(s) if s else None)))
        md.append("")

    # ResNet-50 from ONNX
    md.append("## ResNet-50 from ONNX on cuda:0")
    md.append("")
    if r50_info:
        md.append("torchvision's ResNet-50 with seeded random weights, exported on this machine "
                  "by `tools/export_onnx_models.py --size=full --models=resnet50 --dynamic-batch "
                  "--batch=2` (opset %s, %d nodes, %.1f MB, %s parameters)." % (
                      r50_info.get("opset", "?"), r50_info.get("nodes", 0),
                      r50_info.get("onnx_bytes", 0) / 1e6, r50_info.get("parameters", "?")))
        md.append("")
    results = [r for r in r50_bench.get("results", []) if "error" not in r]
    if results:
        md.append("`switchyard bench --model=resnet50.onnx` (median ms):")
        md.append("")
        md.append("| Device | Batch | Forward | End to end | images/s |")
        md.append("|---|---:|---:|---:|---:|")
        for r in sorted(results, key=lambda r: (not r["device"].startswith("cpu"), r["device"],
                                                r["batch"])):
            md.append("| %s | %d | %s | %s | %s |" % (
                r["device"], r["batch"], fmt(median_of(r, "forward_ms")),
                fmt(median_of(r, "end_to_end_ms")),
                "%.1f" % r["images_per_s"] if r.get("images_per_s") else "n/a"))
        md.append("")
    else:
        md.append("Bench not measured: %s" % step_reason(steps, "resnet50 bench"))
        md.append("")
    for r in r50_bench.get("results", []):
        if "error" in r:
            md.append("- %s batch %s failed: %s" % (r.get("device"), r.get("batch"), cell(r["error"])))
    for d in r50_bench.get("devices", []):
        if not d.get("available", True):
            md.append("- %s unavailable: %s" % (d.get("device"), cell(d.get("reason"))))
    if r50_logits.get("comparisons"):
        md.append("Logits on the same file and input (%s): max |a - b| / max |b| <= %.0e and "
                  "the same top-1:" % ("x".join(map(str, r50_logits.get("input_shape", []))),
                                      r50_logits.get("rtol", 1e-4)))
        md.append("")
        md.append("| a | b | Result | Ratio | top-1 a / b |")
        md.append("|---|---|---|---:|---|")
        for c in r50_logits["comparisons"]:
            if c["result"] == "SKIP":
                md.append("| %s | %s | SKIP | | %s |" % (c["a"], c["b"], cell(c.get("reason", ""))))
            else:
                md.append("| %s | %s | %s | %s | %s / %s |" % (
                    c["a"], c["b"], c["result"],
                    "%.2e" % c["rel_diff"] if c.get("rel_diff") is not None else "n/a",
                    c.get("top1_a"), c.get("top1_b")))
        md.append("")
    else:
        md.append("Logits not compared: %s" % step_reason(steps, "resnet50 logits"))
        md.append("")

    # Profile
    md.append("## Profile: VGG-11 batch 8 on cuda:0 (`--profile --profile-summary`)")
    md.append("")
    if profile.strip():
        lines = profile.rstrip().splitlines()
        md.append("Trace: `profile/trace.json` (open in https://ui.perfetto.dev).")
        md.append("")
        md.append("```")
        md.extend(lines[:80])
        if len(lines) > 80:
            md.append("... (%d more lines in profile/summary.txt)" % (len(lines) - 80))
        md.append("```")
    else:
        md.append("Not run: %s" % step_reason(steps, "profile"))
    md.append("")

    # Utilisation
    md.append("## Utilisation on cuda:0: Switchyard's report beside NVML")
    md.append("")
    measured = [u for u in util if u["report"]]
    if measured:
        md.append("NVML: `nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used "
                  "--format=csv -lms 100` in the background; utilization.gpu is the share of "
                  "the driver's sample period in which a kernel ran. Stream window: the last "
                  "run_ms of the process (after set-up and warm-up). Switchyard busy: the union "
                  "of node and copy spans on cuda:0's clock over the stream.")
        md.append("")
        md.append("| Run | Loaders / prefetch / cost | Batches | images/s | Switchyard busy | "
                  "Waiting for input | NVML mean (stream) | NVML mean (process) | NVML samples "
                  "(stream / all) | Max memory used | Diagnosis |")
        md.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
        for u in measured:
            r = u["report"]
            md.append("| %s | %s / %s / %s ms %s | %s x %s | %.1f | %s | %s | %s | %s | %s / %s | %s | %s |" % (
                u["kind"], r.get("loader_threads"), r.get("prefetch"), r.get("loader_cost_ms"),
                r.get("loader_work", ""), r.get("batches"), r.get("batch"),
                r.get("images_per_s") or 0, pct(r.get("busy_share")), pct(r.get("input_wait_share")),
                "%.1f%%" % u["nvml_mean_stream"] if "nvml_mean_stream" in u else "n/a",
                "%.1f%%" % u["nvml_mean_process"] if "nvml_mean_process" in u else "n/a",
                u.get("nvml_stream_samples", "n/a"), u["nvml_samples"],
                "%.0f MiB" % u["nvml_max_memory_mib"] if "nvml_max_memory_mib" in u else "n/a",
                cell(r.get("diagnosis", ""))))
        md.append("")
        for u in measured:
            busy = u["report"].get("busy_share")
            busy_pct = (100 * busy if busy is not None and busy <= 1.0 else busy)
            if busy_pct is not None and "nvml_mean_stream" in u:
                md.append("- %s: Switchyard says cuda:0 was busy %.1f%% of the stream; NVML's "
                          "mean utilisation over the same window is %.1f%% (%+.1f points, "
                          "%d samples)." % (u["kind"], busy_pct, u["nvml_mean_stream"],
                                            u["nvml_mean_stream"] - busy_pct,
                                            u["nvml_stream_samples"]))
            elif busy_pct is not None:
                md.append("- %s: Switchyard says cuda:0 was busy %.1f%% of the stream; no NVML "
                          "samples in the window (%s)." % (
                              u["kind"], busy_pct,
                              "nvidia-smi not run" if not u["nvml_samples"] else "timestamps not aligned"))
        md.append("")
    else:
        md.append("Not run: %s" % step_reason(steps, "util"))
        md.append("")

    # Issue 12 verdicts
    md.append("## Issue 12: the diagnosis on a real GPU")
    md.append("")
    measured = [v for v in verdicts if v["report"]]
    if measured:
        md.append("Each run: `switchyard run ... --profile-summary --report`, with nvidia-smi "
                  "sampling utilization.gpu every 100 ms (stream window as above). images_N: "
                  "VGG-11 fed by `--images` (the slow-decoding JPEG set) with N loader threads; "
                  "one_op: `benchmarks/models/detection_postprocess.onnx`; copies: "
                  "`benchmarks/models/copy_bound.onnx` with sleeping zero-cost loaders.")
        md.append("")
        md.append("| Run | Batches x batch | images/s | Device busy | Waiting for input | "
                  "Copies | Largest op | Verdict | Expected | NVML mean (stream) | "
                  "NVML mean (process) | Diagnosis |")
        md.append("|---|---:|---:|---:|---:|---:|---|---|---|---:|---:|---|")
        for v in measured:
            r = v["report"]
            top = r.get("top_node") or ""
            md.append("| %s | %s x %s | %.1f | %s | %s | %s | %s %s | %s | %s | %s | %s | %s |" % (
                v["run"], r.get("batches"), r.get("batch"), r.get("images_per_s") or 0,
                pct(r.get("busy_share")), pct(r.get("input_wait_share")), pct(r.get("copy_share")),
                cell(top), pct(r.get("top_node_share")) if top else "", r.get("verdict", "?"),
                v["expected"] or "-" if not v["expected"] or v["expected"] == r.get("verdict")
                else "**%s**" % v["expected"],
                "%.1f%%" % v["nvml_mean_stream"] if "nvml_mean_stream" in v else "n/a",
                "%.1f%%" % v["nvml_mean_process"] if "nvml_mean_process" in v else "n/a",
                cell(r.get("diagnosis", ""))))
        md.append("")
        for v in measured:
            cmd = v["times"].get("command")
            if cmd:
                md.append("- %s: `%s`" % (v["run"], cmd))
        md.append("")
    else:
        md.append("Not run: %s" % step_reason(steps, "verdict"))
        md.append("")

    # NMS
    md.append("## NMS on RPN-like boxes (IoU 0.7): Switchyard beside torchvision")
    md.append("")
    sizes = sorted({k[1] for k in nms_sy} | {k[1] for k in nms_tv})
    if sizes:
        devices = sorted({k[0] for k in nms_sy} | {k[0] for k in nms_tv},
                         key=lambda d: (not d.startswith("cpu"), d))
        md.append("Median ms per call (boxes already on the device; Switchyard: one "
                  "`ExecutablePlan::Run`, Google Benchmark, 5 repetitions; torchvision: "
                  "`torchvision.ops.nms` then `torch.cuda.synchronize()`, median of 10 x 5). "
                  "kept must agree.")
        md.append("")
        md.append("| Boxes | Device | Switchyard ms | kept | torchvision ms | kept | "
                  "torchvision / Switchyard |")
        md.append("|---:|---|---:|---:|---:|---:|---:|")
        for n in sizes:
            for d in devices:
                s = nms_sy.get((d, n))
                t = nms_tv.get((d, n))
                if not s and not t:
                    continue
                s_ms = s.get("median") if s else None
                md.append("| %d | %s | %s | %s | %s | %s | %s |" % (
                    n, d, cell(s["error"][:80]) if s and "error" in s else fmt(s_ms),
                    "%d" % s["kept"] if s and s.get("kept") is not None else "",
                    fmt(t["median_ms"]) if t else "n/a", t["kept"] if t else "",
                    ratio(t["median_ms"] if t else None, s_ms)))
        if nms_tv_doc.get("reason"):
            md.append("")
            md.append("torchvision on CUDA: %s" % nms_tv_doc["reason"])
    else:
        md.append("Not run: %s; %s" % (step_reason(steps, "nms switchyard"),
                                      step_reason(steps, "nms torchvision")))
    md.append("")

    # Steps
    md.append("## Steps")
    md.append("")
    md.append("| Step | Result | Seconds | Detail |")
    md.append("|---|---|---:|---|")
    for s in steps:
        md.append("| %s | %s | %s | %s |" % (s["step"], s["result"], s["seconds"], cell(s["detail"])))
    md.append("")

    doc = {"env": env, "steps": steps, "tests": tests, "logits_check": logits,
           "bench": {k: v for k, v in runs.items()},
           "utilisation": [{k: v for k, v in u.items()} for u in util],
           "onnx": {"node_counts": node_counts, "node_failed": node_failed,
                    "node_skip_reasons": node_skips, "models": models},
           "resnet50": {"info": r50_info, "bench": r50_bench, "logits": r50_logits},
           "verdicts": verdicts,
           "nms": {"switchyard": {"%s/%d" % k: v for k, v in nms_sy.items()},
                   "torchvision": nms_tv_doc},
           "rounds": {"switchyard": r_sy, "pytorch": r_pt}}
    with open(out_json, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    with open(out_md, "w") as f:
        f.write("\n".join(md))
    print("wrote %s and %s" % (out_md, out_json))
    return 0


if __name__ == "__main__":
    sys.exit(main())
