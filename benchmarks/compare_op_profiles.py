#!/usr/bin/python3
"""Where one model's time goes in Switchyard and in ONNX Runtime, op type by
op type, side by side: the per-op view issue 22 asks for, from each
runtime's own profile of the same .onnx file.

Usage:
    switchyard run --model=M.onnx --device=cpu --threads=2 --iterations=9 \\
        --profile=switchyard_trace.json
    node benchmarks/onnxruntime_peer.js --model M.onnx --batch 1 --threads 2 \\
        --warmup 2 --iterations 9 --profile ort_profile.json
    benchmarks/compare_op_profiles.py switchyard_trace.json ort_profile.json \\
        --onnxruntime-warmup 2 [--top 15]

Switchyard's trace (Chrome format) has one event per node or partition per
timed iteration (category "node", args.op; a oneDNN partition is one event
named after its nodes); ONNX Runtime's session profile has one "Node" event
per kernel per run (args.op_name; its fused kernels keep names such as
FusedConv), warm-up runs included unless --onnxruntime-warmup leaves them
out. Each side is averaged over its own runs
(Switchyard: iterations; ONNX Runtime: model_run events), so both columns
are milliseconds per forward. The op names differ between the runtimes
(conv2d against Conv and FusedConv): the table ranks each side on its own
rather than pretending they map one to one.
"""

import argparse
import bisect
import collections
import json
import sys


def switchyard_ops(path):
    """{op: ms per iteration}, and the number of iterations."""
    with open(path) as f:
        trace = json.load(f)
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    totals = collections.Counter()
    iterations = set()
    for e in events:
        if e.get("ph") != "X" or e.get("cat") not in ("node", "copy"):
            continue
        args = e.get("args", {})
        op = args.get("op") or e.get("name", "?")
        if e.get("cat") == "copy":
            op = "copy (" + op + ")"
        totals[op] += e.get("dur", 0) / 1e3
        iterations.add(args.get("iteration", 0))
    runs = max(1, len(iterations))
    return {op: ms / runs for op, ms in totals.items()}, runs


def onnxruntime_ops(path, skip_runs=0):
    """{op_name: ms per run} over the model_runs after the first `skip_runs`
    (warm-up), and the number of runs counted. A kernel belongs to the run
    whose span holds its start."""
    with open(path) as f:
        events = json.load(f)
    runs = sorted((e.get("ts", 0), e.get("ts", 0) + e.get("dur", 0)) for e in events
                  if e.get("cat") == "Session" and e.get("name") == "model_run")
    if skip_runs >= len(runs):
        raise ValueError("the profile has %d model runs; --onnxruntime-warmup=%d leaves none"
                         % (len(runs), skip_runs))
    kept = runs[skip_runs:]
    starts = [start for start, _ in kept]
    totals = collections.Counter()
    for e in events:
        if e.get("cat") != "Node" or not e.get("name", "").endswith("_kernel_time"):
            continue
        ts = e.get("ts", 0)
        i = bisect.bisect_right(starts, ts) - 1
        if i >= 0 and ts <= kept[i][1]:
            totals[e.get("args", {}).get("op_name", "?")] += e.get("dur", 0) / 1e3
    return {op: ms / len(kept) for op, ms in totals.items()}, len(kept)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("switchyard_trace")
    parser.add_argument("onnxruntime_profile")
    parser.add_argument("--top", type=int, default=15, help="rows per side (default 15)")
    parser.add_argument("--onnxruntime-warmup", type=int, default=0, metavar="N",
                        help="leave out ONNX Runtime's first N model runs (its --warmup: "
                             "onnxruntime_peer.js profiles them too; Switchyard's trace has "
                             "timed iterations only)")
    args = parser.parse_args(argv)
    try:
        ours, our_runs = switchyard_ops(args.switchyard_trace)
        theirs, their_runs = onnxruntime_ops(args.onnxruntime_profile, args.onnxruntime_warmup)
    except (OSError, ValueError, KeyError, TypeError) as e:
        sys.exit("compare_op_profiles.py: cannot read a profile: %s" % e)
    if not ours or not theirs:
        sys.exit("compare_op_profiles.py: a profile has no node events (Switchyard: %d ops, "
                 "ONNX Runtime: %d ops); was it written with --profile?" % (len(ours), len(theirs)))
    our_total, their_total = sum(ours.values()), sum(theirs.values())
    left = sorted(ours.items(), key=lambda kv: -kv[1])[:args.top]
    right = sorted(theirs.items(), key=lambda kv: -kv[1])[:args.top]
    print("Per forward: Switchyard %.2f ms in ops over %d iterations; ONNX Runtime %.2f ms in "
          "kernels over %d runs (ratio %.2f)." % (our_total, our_runs, their_total, their_runs,
                                                  our_total / their_total))
    print()
    print("| rank | Switchyard op | ms | share | ONNX Runtime op | ms | share |")
    print("| ---: | --- | ---: | ---: | --- | ---: | ---: |")
    for i in range(max(len(left), len(right))):
        cells = [str(i + 1)]
        for rows, total in ((left, our_total), (right, their_total)):
            if i < len(rows):
                name = rows[i][0] if len(rows[i][0]) <= 60 else rows[i][0][:57] + "..."
                cells += [name.replace("|", "/"), "%.2f" % rows[i][1], "%.1f%%" % (100 * rows[i][1] / total)]
            else:
                cells += ["", "", ""]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
