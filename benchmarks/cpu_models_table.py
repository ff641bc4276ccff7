#!/usr/bin/python3
"""The Markdown table of benchmarks/compare_cpu_models.sh.

Usage:
    /usr/bin/python3 benchmarks/cpu_models_table.py RUN_DIR --models a,b
        --batches 1,8 --threads 2 --warmup 2 --iterations 9 --command TEXT
        [--backends cpu,dnnl:0] [--peers onnxruntime,pytorch] [--out FILE]

RUN_DIR/<model>/ holds, per run, RUN.json (schema switchyard.bench/1: the
Switchyard backends as switchyard_<type>.json, onnxruntime.json,
pytorch.json) or RUN.failed (one line: why there is no JSON); RUN_DIR/runs.tsv
has the load average around every run.

One row per model and batch: each Switchyard backend's median, the best of
them, ONNX Runtime's and PyTorch's medians, best / ONNX Runtime and whether
that meets the goal (<= 1.0). Every figure is the median of `end_to_end_ms`,
which all three write with the same meaning: host wall time of one
iteration, from copying the input in until the output is in host memory
(forward alone is not comparable: Switchyard's forward is on the device
clock). A missing figure is "failed: reason".
"""

import argparse
import csv
import datetime
import json
import os
import subprocess
import sys

SCHEMA = "switchyard.bench/1"
FIELD = "end_to_end_ms"


def cell_text(text):
    """One line, no column breaks, short enough for a table."""
    text = " ".join(str(text).split()).replace("|", "\\|")
    return text if len(text) <= 160 else text[:157] + "..."


def failed(reason):
    # "refused: why" (compare_int8_models.sh: Switchyard declined the model) as is.
    text = cell_text(reason)
    return text if text.startswith("refused:") else "failed: " + text


def fmt_ms(v):
    return "%.2f" % v if v < 10 else "%.1f" % v


def load_run(folder, run):
    """(doc, None) or (None, reason)."""
    path = os.path.join(folder, run + ".json")
    why = os.path.join(folder, run + ".failed")
    if os.path.exists(why):
        with open(why) as f:
            return None, f.read().strip() or "failed"
    if not os.path.exists(path):
        return None, "not run"
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        return None, "%s: unreadable JSON (%s)" % (os.path.basename(path), e)
    if doc.get("schema") != SCHEMA:
        return None, "%s: schema %r, not %s" % (os.path.basename(path), doc.get("schema"), SCHEMA)
    return doc, None


def canonical(device):
    return device if ":" in device or device == "default" else device + ":0"


def measured_device(backend, doc):
    """The device whose rows a backend's JSON holds: the backend itself, or
    for "default" (`bench --devices=default`, the device `run` takes without
    flags) the one device that JSON measured."""
    if backend != "default" or doc is None:
        return backend
    listed = [d.get("device", "") for d in doc.get("devices", [])]
    return listed[0] if len(listed) == 1 else backend


def median(doc, reason, device, batch, iterations):
    """(milliseconds, None) or (None, reason) for one run, device and batch."""
    if doc is None:
        return None, reason
    device = canonical(device)
    for d in doc.get("devices", []):
        if canonical(d.get("device", "")) == device and not d.get("available", True):
            return None, "%s unavailable: %s" % (device, d.get("reason", ""))
    for r in doc.get("results", []):
        if canonical(r.get("device", "")) != device or r.get("batch") != batch:
            continue
        if r.get("error"):
            return None, r["error"]
        stats = r.get(FIELD) or {}
        if "median" not in stats:
            return None, "no %s.median in the JSON" % FIELD
        n = len(stats.get("samples", [])) or doc.get("iterations")
        if n != iterations:
            return None, "%s timed iterations, not %d" % (n, iterations)
        return stats["median"], None
    return None, "no result for %s batch %d" % (device, batch)


def cpu_description():
    """The CPU's model name with lscpu's family and model (a VM's model name
    can be as vague as "AMD EPYC"); where /proc/cpuinfo has no model name
    (some VMs, ARM), says so and gives lscpu's vendor and family."""
    name = None
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.split(":")[0].strip() == "model name":
                    name = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    fields = {}
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=False).stdout
        for line in out.splitlines():
            key, _, value = line.partition(":")
            fields[key.strip()] = value.strip()
    except OSError:
        pass
    if name:
        got = ", ".join("%s %s" % (k, fields[k]) for k in ("CPU family", "Model") if fields.get(k))
        return "%s (lscpu: %s)" % (name, got) if got else name
    wanted = ("Vendor ID", "CPU family", "Model", "Model name")
    got = ", ".join("%s %s" % (k, fields[k]) for k in wanted if fields.get(k))
    return "no model name in /proc/cpuinfo; lscpu: %s" % (got or "unavailable")


def versions(docs):
    """The peers' versions and Switchyard's build, from the JSONs' context."""
    out = {}
    for doc in docs:
        ctx = doc.get("context", {})
        fw = doc.get("framework")
        if fw == "onnxruntime" and "onnxruntime" in ctx:
            out["ONNX Runtime"] = "onnxruntime-node %s (node %s), graph optimization %s" % (
                ctx["onnxruntime"], ctx.get("node", "?"), ctx.get("graph_optimization", "?"))
        elif fw == "pytorch" and "pytorch" in ctx:
            out["PyTorch"] = "%s, torchvision %s" % (ctx["pytorch"], ctx.get("torchvision", "?"))
        elif fw == "switchyard":
            build = doc.get("build", {})
            keys = [k for k in ("version", "git_commit", "build_mode", "target_cpu") if k in build]
            if keys:
                out.setdefault("Switchyard", ", ".join("%s %s" % (k, build[k]) for k in keys))
            for d in doc.get("devices", []):
                props = d.get("properties") or {}
                if isinstance(props, list):  # [[key, value], ...] or {key: value}
                    props = dict(p for p in props if len(p) == 2)
                if d.get("device", "").startswith("dnnl") and "isa" in props:
                    out.setdefault("oneDNN ISA (dnnl:0)", props["isa"])
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir")
    parser.add_argument("--models", required=True)
    parser.add_argument("--batches", required=True)
    parser.add_argument("--threads", type=int, required=True)
    parser.add_argument("--warmup", type=int, required=True)
    parser.add_argument("--iterations", type=int, required=True)
    parser.add_argument("--command", required=True)
    parser.add_argument("--backends", default="cpu,default")
    parser.add_argument("--rounds", type=int, default=1,
                        help="processes per run whose samples were pooled (merge_rounds.py)")
    parser.add_argument("--peers", default="onnxruntime,pytorch")
    parser.add_argument("--started", help="when the runs began (shown with the date)")
    parser.add_argument("--out", help="default: stdout")
    parser.add_argument("--title",
                        default="Switchyard's CPU backends against ONNX Runtime and PyTorch")
    args = parser.parse_args(argv)
    models = [m for m in args.models.split(",") if m]
    batches = [int(b) for b in args.batches.split(",") if b]
    backends = [canonical(b) for b in args.backends.split(",") if b]
    peers = [p for p in args.peers.split(",") if p]

    header = ["model", "batch"] + ["Switchyard %s (ms)" % b for b in backends]
    header += ["best Switchyard (ms)"]
    labels = {"onnxruntime": "ONNX Runtime", "pytorch": "PyTorch"}
    header += ["%s (ms)" % labels[p] for p in peers]
    header += ["best / ONNX Runtime", "goal <= 1.0 met"]
    rows, docs = [], []
    for m in models:
        folder = os.path.join(args.run_dir, m)
        sy = [load_run(folder, "switchyard_" + b.split(":")[0]) for b in backends]
        pr = {p: load_run(folder, p) for p in peers}
        docs += [d for d, _ in sy + list(pr.values()) if d]
        for batch in batches:
            cells = [m, str(batch)]
            best = None
            for b, (doc, why) in zip(backends, sy):
                device = measured_device(b, doc)
                ms, err = median(doc, why, device, batch, args.iterations)
                cells.append(failed(err) if ms is None else fmt_ms(ms))
                label = b if device == b else "%s: %s" % (b, device)
                if ms is not None and (best is None or ms < best[0]):
                    best = (ms, label)
            cells.append("-" if best is None else "%s (%s)" % (fmt_ms(best[0]), best[1]))
            ort = None
            for p in peers:
                ms, err = median(pr[p][0], pr[p][1], "cpu:0", batch, args.iterations)
                cells.append(failed(err) if ms is None else fmt_ms(ms))
                if p == "onnxruntime":
                    ort = ms
            if best is not None and ort:
                q = best[0] / ort
                cells += ["%.2f" % q, "yes" if q <= 1.0 else "no"]
            else:
                cells += ["-", "-"]
            rows.append(cells)

    ended = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = ["## " + args.title, "",
             "Median `%s` in ms (one iteration's host wall time, from copying the input in "
             "until the output is in host memory; Switchyard, onnxruntime_peer.js and "
             "pytorch_peer.py all write it alike) of %d timed iteration(s)%s after %d warm-up, "
             "%d threads. Ratio: best Switchyard / ONNX Runtime, below 1.0 Switchyard is "
             "faster; the goal is <= 1.0." % (
                 FIELD, args.iterations,
                 "" if args.rounds == 1 else
                 " (%d processes of %d, one round of every model and side after another, "
                 "samples pooled)" % (args.rounds, args.iterations // args.rounds),
                 args.warmup, args.threads)]
    lines += ["", "| " + " | ".join(header) + " |",
              "| --- | ---: |" + " ---: |" * (len(header) - 2)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    lines += ["", "Command:", "", "    " + args.command, "",
              "- CPU: %s" % cpu_description(),
              "- nproc: %d" % len(os.sched_getaffinity(0)),
              "- threads: %d everywhere (Switchyard --threads: cpu.threads and dnnl.threads; "
              "ONNX Runtime intra-op %d, inter-op 1; torch.set_num_threads(%d))" % (
                  args.threads, args.threads, args.threads),
              "- date: %s to %s" % (args.started or "?", ended)]
    for name, text in sorted(versions(docs).items()):
        lines.append("- %s: %s" % (name, text))
    lines += ["", "Runs, one after the other, each after waiting for the machine to go quiet "
              "(benchmarks/quiet.sh); load averages (1, 5, 15 min) around each; the JSON of "
              "each is in `%s/<model>/`:" % os.path.basename(os.path.normpath(args.run_dir)), "",
              "| model | run | start (UTC) | load before | load after | s | status |",
              "| --- | --- | --- | --- | --- | ---: | --- |"]
    tsv = os.path.join(args.run_dir, "runs.tsv")
    if os.path.exists(tsv):
        with open(tsv, newline="") as f:
            for r in csv.DictReader(f, delimiter="\t"):
                lines.append("| %s | %s | %s | %s | %s | %s | %s |" % tuple(
                    cell_text(r.get(k, "")) for k in ("model", "run", "start", "load_before",
                                                       "load_after", "seconds", "status")))
    text = "\n".join(lines) + "\n"
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
        print("wrote %s" % args.out)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
