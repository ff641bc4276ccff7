#!/usr/bin/python3
"""Merges `switchyard bench --json`, `pytorch_peer.py --json` and `onnxruntime_peer.js --json` runs.

Usage:
    /usr/bin/python3 benchmarks/compare.py RUN.json [RUN.json ...]
        [--out report.md] [--png chart.png] [--title TEXT]

Every input has the schema "switchyard.bench/1" (framework "switchyard",
"pytorch" or "onnxruntime"). Runs are labelled by framework (and file name
when two share one). The first Switchyard run (else the first run) is the
reference; the first ONNX Runtime run, when there is one, is the bar:

- Markdown (stdout, or --out): one row per device and batch size with each
  run's median forward and end-to-end time and images/s; for every run other
  than the reference and ONNX Runtime the ratios run / reference of the
  forward and end-to-end medians (above 1: the reference is faster); with an
  ONNX Runtime run, for every other run the ratios run / onnxruntime (below
  1: faster than ONNX Runtime); then the devices a run could not measure,
  with the reason.
- --png: a bar chart (matplotlib, Debian's python3-matplotlib) of the median
  forward and end-to-end time: one panel per metric and batch size, devices
  along x, one bar per run, a linear scale, a whisker up to the p95; with an
  ONNX Runtime run, each other bar also says its ratio to ONNX Runtime's.
"""

import argparse
import collections
import json
import os
import sys

SCHEMA = "switchyard.bench/1"


def load(paths):
    runs = []
    for path in paths:
        with open(path) as f:
            doc = json.load(f)
        if doc.get("schema") != SCHEMA:
            sys.exit("%s: not a %s file (schema %r)" % (path, SCHEMA, doc.get("schema")))
        runs.append({"path": path, "doc": doc, "label": doc.get("framework", "?")})
    counts = collections.Counter(r["label"] for r in runs)
    for r in runs:
        if counts[r["label"]] > 1:
            r["label"] = "%s (%s)" % (r["label"], os.path.splitext(os.path.basename(r["path"]))[0])
    return runs


def model_label(name):
    """'vgg11' for a run of vgg11 and for .../vgg11_dynamic/model.onnx (the
    layout of tools/export_onnx_models.py), so runs of one model share a title."""
    name = str(name)
    if not name.endswith(".onnx"):
        return name
    stem = os.path.splitext(os.path.basename(name))[0]
    if stem == "model":
        stem = os.path.basename(os.path.dirname(name)) or stem
    return stem[:-len("_dynamic")] if stem.endswith("_dynamic") else stem


def rows_by_key(run):
    return {(r["device"], r["batch"]): r for r in run["doc"]["results"] if "error" not in r}


def device_order(runs):
    keys = []
    for run in runs:
        for r in run["doc"]["results"]:
            key = (r["device"], r["batch"])
            if key not in keys and "error" not in r:
                keys.append(key)
    # CPU first, then other devices by name; batches ascending.
    return sorted(keys, key=lambda k: (not k[0].startswith("cpu"), k[0], k[1]))


def fmt_ms(v):
    return "%.3f" % v if v < 10 else "%.1f" % v


def reference(runs):
    return next((r for r in runs if r["doc"].get("framework") == "switchyard"), runs[0])


def ort_run(runs):
    """The first ONNX Runtime run: every other run's ratio to it is shown."""
    return next((r for r in runs if r["doc"].get("framework") == "onnxruntime"), None)


def ratio(row, base, metric):
    if row is None or base is None:
        return None
    return row[metric]["median"] / base[metric]["median"]


def markdown(runs, title):
    ref = reference(runs)
    ort = ort_run(runs)
    if ort is ref:
        ort = None
    # ONNX Runtime's ratio to the reference is the inverse of the reference's
    # ratio to ONNX Runtime: show it once, as run / onnxruntime.
    others = [r for r in runs if r is not ref and r is not ort]
    vs_ort = [r for r in runs if r is not ort] if ort else []
    lines = ["## %s" % title, ""]
    for r in runs:
        ctx = r["doc"].get("context", {})
        lines.append("- **%s** (`%s`): %s warm-up + %s timed iterations; %s" % (
            r["label"], os.path.basename(r["path"]), r["doc"].get("warmup"),
            r["doc"].get("iterations"),
            ", ".join("%s %s" % (k, v) for k, v in ctx.items()
                      if k in ("cpu_threads", "pytorch", "onnxruntime",
                               "graph_optimization", "date"))))
        if ctx.get("command"):
            lines.append("  command: `%s`" % ctx["command"])
    lines += ["", "Median times in ms; ratios are run / %s (above 1: %s is faster)." % (
        ref["label"], ref["label"])]
    if ort:
        lines[-1] += " Ratios run / %s: below 1, the run is faster than %s." % (
            ort["label"], ort["label"])
    lines.append("")
    header = ["device", "batch"]
    for r in runs:
        header += ["%s forward" % r["label"], "%s end to end" % r["label"],
                   "%s images/s" % r["label"]]
    for base, group in ((ref, others), (ort, vs_ort)):
        for r in group:
            header += ["%s / %s forward" % (r["label"], base["label"]),
                       "%s / %s end to end" % (r["label"], base["label"])]
    lines.append("| " + " | ".join(header) + " |")
    lines.append("| --- | ---: |" + " ---: |" * (len(header) - 2))
    by_run = {id(r): rows_by_key(r) for r in runs}
    for key in device_order(runs):
        cells = [key[0], str(key[1])]
        for r in runs:
            row = by_run[id(r)].get(key)
            if row is None:
                cells += ["-", "-", "-"]
            else:
                cells += [fmt_ms(row["forward_ms"]["median"]),
                          fmt_ms(row["end_to_end_ms"]["median"]),
                          "%.2f" % row["images_per_s"]]
        for base_run, group in ((ref, others), (ort, vs_ort)):
            base = by_run[id(base_run)].get(key) if base_run else None
            for r in group:
                row = by_run[id(r)].get(key)
                for metric in ("forward_ms", "end_to_end_ms"):
                    q = ratio(row, base, metric)
                    cells.append("-" if q is None else "%.2f" % q)
        lines.append("| " + " | ".join(cells) + " |")
    missing = [(r["label"], d) for r in runs for d in r["doc"].get("devices", [])
               if not d.get("available")]
    failed = [(r["label"], x) for r in runs for x in r["doc"]["results"] if "error" in x]
    if missing or failed:
        lines += ["", "Not measured:", ""]
        for label, d in missing:
            lines.append("- %s, %s: %s" % (label, d["device"], d.get("reason", "")))
        for label, x in failed:
            lines.append("- %s, %s batch %s: %s" % (label, x["device"], x["batch"], x["error"]))
    return "\n".join(lines) + "\n"


def chart(runs, path, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    keys = device_order(runs)
    batches = sorted({b for _, b in keys})
    devices = []
    for d, _ in keys:
        if d not in devices:
            devices.append(d)
    by_run = [rows_by_key(r) for r in runs]
    ort = ort_run(runs)
    ort_rows = rows_by_key(ort) if ort else {}
    metrics = (("forward_ms", "forward"), ("end_to_end_ms", "end to end"))
    # One panel per metric (rows) and batch size (columns), linear scale so
    # bar lengths compare honestly; devices along x, one bar per run.
    fig, axes = plt.subplots(len(metrics), len(batches), squeeze=False,
                             figsize=(max(4.5, 1.2 * len(devices) * len(runs) + 2) *
                                      len(batches), 3.6 * len(metrics)))
    width = 0.8 / max(1, len(runs))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    legend = {}
    for row, (metric, name) in enumerate(metrics):
        for col, batch in enumerate(batches):
            ax = axes[row][col]
            top = 0.0
            for i, (run, rows) in enumerate(zip(runs, by_run)):
                for k, device in enumerate(devices):
                    r = rows.get((device, batch))
                    if r is None:
                        continue
                    x = k - 0.4 + width * (i + 0.5)
                    med, p95 = r[metric]["median"], r[metric]["p95"]
                    bar = ax.bar(x, med, width, color=colors[i % len(colors)],
                                 yerr=[[0], [max(0.0, p95 - med)]], capsize=3)
                    legend.setdefault(run["label"], bar)
                    text = fmt_ms(med)
                    q = ratio(r, ort_rows.get((device, batch)), metric)
                    if ort is not None and run is not ort and q is not None:
                        text += "\n%.2fx ORT" % q
                    ax.annotate(text, (x, max(med, p95)), ha="center",
                                va="bottom", fontsize=8, xytext=(0, 3),
                                textcoords="offset points")
                    top = max(top, med, p95)
            ax.set_ylim(0, top * (1.3 if ort else 1.18) if top > 0 else 1)
            ax.set_xticks(range(len(devices)))
            ax.set_xticklabels(devices)
            ax.set_title("%s, batch %d" % (name, batch), fontsize=10)
            ax.set_ylabel("median ms (whisker: p95)")
            ax.grid(axis="y", alpha=0.3)
    fig.suptitle(title)
    fig.legend(list(legend.values()), list(legend.keys()), loc="upper center",
               ncol=len(legend), fontsize=9, bbox_to_anchor=(0.5, 0.955), frameon=False)
    missing = ["%s %s" % (r["label"], d["device"]) for r in runs
               for d in r["doc"].get("devices", []) if not d.get("available")]
    bottom = 0.0
    if missing:
        fig.text(0.5, 0.01, "not measured (unavailable): %s; the Markdown says why" %
                 ", ".join(missing), ha="center", fontsize=8, color="dimgray")
        bottom = 0.04
    fig.tight_layout(rect=(0, bottom, 1, 0.92))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", help="JSON files (switchyard.bench/1): "
                        "switchyard bench --json, pytorch_peer.py --json, "
                        "onnxruntime_peer.js --json")
    parser.add_argument("--out", help="write the Markdown here (default: stdout)")
    parser.add_argument("--png", help="write a bar chart here")
    parser.add_argument("--title", default=None)
    args = parser.parse_args(argv)
    runs = load(args.runs)
    models = sorted({model_label(r["doc"].get("model", "?")) for r in runs})
    title = args.title or "%s: %s" % ("/".join(models), " vs ".join(r["label"] for r in runs))
    text = markdown(runs, title)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
        print("wrote %s" % args.out)
    else:
        sys.stdout.write(text)
    if args.png:
        try:
            chart(runs, args.png, title)
        except ImportError as e:
            sys.exit("--png needs matplotlib (%s): apt-get install python3-matplotlib, "
                     "or tools/setup.sh --with-pytorch" % e)
        print("wrote %s" % args.png)
    return 0


if __name__ == "__main__":
    sys.exit(main())
