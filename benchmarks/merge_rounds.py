#!/usr/bin/python3
"""Pools the runs of several rounds into one JSON per run.

    /usr/bin/python3 benchmarks/merge_rounds.py RUN_DIR ROUNDS

RUN_DIR/round<r>/<model>/<run>.json (r = 1..ROUNDS, schema switchyard.bench/1
as Switchyard, onnxruntime_peer.js and pytorch_peer.py write it) become
RUN_DIR/<model>/<run>.json: the first round's document, with each result's
timings (forward_ms, h2d_ms, d2h_ms, end_to_end_ms) recomputed over the
samples of every round and `rounds` (each round's median) added, and
`iterations` the pooled count. A run that failed in any round keeps that
round's <run>.failed (and no JSON); .stderr files come from the first round.

Why rounds: one process's median moves by 10-30% from one process to the
next on a shared VM (ONNX Runtime's MobileNetV2 at batch 1: 1.53 and 2.33 ms
ten minutes apart), more than the differences the tables are about.
Running each side several times, interleaved, and pooling the samples makes
a ratio that a single unlucky process does not decide.
"""

import json
import os
import shutil
import statistics
import sys

TIMINGS = ("forward_ms", "h2d_ms", "d2h_ms", "end_to_end_ms")


def percentile(sorted_values, q):
    """Linear interpolation between closest ranks, as numpy's default."""
    if len(sorted_values) == 1:
        return sorted_values[0]
    pos = q * (len(sorted_values) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def stats(samples):
    s = sorted(samples)
    return {"median": statistics.median(s), "p90": percentile(s, 0.9),
            "p95": percentile(s, 0.95), "min": s[0], "max": s[-1],
            "mean": statistics.fmean(s), "samples": samples}


def merge(docs):
    """The first document with every result's timings pooled over `docs`."""
    out = json.loads(json.dumps(docs[0]))
    for row in out.get("results", []):
        key = (row.get("device"), row.get("batch"))
        same = [r for d in docs for r in d.get("results", [])
                if (r.get("device"), r.get("batch")) == key and not r.get("error")]
        if row.get("error") or len(same) != len(docs):
            continue  # an error in any round: the first round's row as it is
        for field in TIMINGS:
            parts = [r.get(field, {}) for r in same]
            if not all(p.get("samples") for p in parts):
                continue
            pooled = stats([x for p in parts for x in p["samples"]])
            pooled["rounds"] = [p["median"] for p in parts]
            row[field] = pooled
        if "images_per_s" in row and row.get("end_to_end_ms", {}).get("median"):
            row["images_per_s"] = row["batch"] * 1000.0 / row["end_to_end_ms"]["median"]
    out["iterations"] = sum(d.get("iterations", 0) for d in docs)
    out["rounds"] = len(docs)
    return out


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    run_dir, rounds = argv[1], int(argv[2])
    first = os.path.join(run_dir, "round1")
    for model in sorted(os.listdir(first)):
        src = os.path.join(first, model)
        if not os.path.isdir(src):
            continue
        dst = os.path.join(run_dir, model)
        os.makedirs(dst, exist_ok=True)
        names = sorted(os.listdir(src))
        runs = sorted({os.path.splitext(n)[0] for n in names
                       if n.endswith(".json") or n.endswith(".failed")})
        for name in names:  # stderr logs and the like, from the first round
            if not (name.endswith(".json") or name.endswith(".failed")):
                shutil.copy(os.path.join(src, name), dst)
        for run in runs:
            folders = [os.path.join(run_dir, "round%d" % r, model) for r in range(1, rounds + 1)]
            bad = [os.path.join(f, run + ".failed") for f in folders
                   if os.path.exists(os.path.join(f, run + ".failed"))]
            missing = [f for f in folders if not os.path.exists(os.path.join(f, run + ".json"))]
            if bad:
                shutil.copy(bad[0], dst)
            elif missing:
                with open(os.path.join(dst, run + ".failed"), "w") as f:
                    f.write("no JSON in %s\n" % missing[0])
            else:
                docs = [json.load(open(os.path.join(f, run + ".json"))) for f in folders]
                with open(os.path.join(dst, run + ".json"), "w") as f:
                    json.dump(merge(docs), f, indent=1)

if __name__ == "__main__":
    main(sys.argv)
