#!/usr/bin/python3
"""Where the time goes inside Switchyard's oneDNN partitions: oneDNN's own
time for every primitive of one forward, by kind and by problem.

Switchyard's profile (run --profile) times a dnnl partition as one event;
inside it are oneDNN primitives (convolutions, reorders, binaries, ...),
which oneDNN times itself when ONEDNN_VERBOSE=1. This runs the model twice
with that on, once with one timed iteration and once with two: the second
log's extra lines are exactly one forward's primitives, so the last forward
is told apart from set-up (weights reordered once) and warm-up without
guessing. Verbose timing adds a little per primitive; the shares are what
to read.

Usage:
    benchmarks/dnnl_primitive_profile.py --model M.onnx [--batch 1] \\
        [--input image.npy] [--threads 2] [--top 15] [--switchyard PATH] \\
        [--plugin PATH]

Defaults: bazel-bin/tools/cli/switchyard and
bazel-bin/backends/dnnl/libswitchyard_dnnl_plugin.so (bazel build -c opt
//tools/cli:switchyard //backends/dnnl:libswitchyard_dnnl_plugin.so).
"""

import argparse
import collections
import os
import subprocess
import sys


def verbose_lines(args, iterations):
    """The `onednn_verbose,exec,...` lines of one run."""
    command = [args.switchyard, "--plugin=" + args.plugin, "run", "--model=" + args.model,
               "--device=dnnl:0", "--placement=auto", "--threads=%d" % args.threads,
               "--warmup=1", "--iterations=%d" % iterations]
    if args.input:
        command.append("--input=" + args.input)
    else:
        command.append("--batch=%d" % args.batch)
    env = dict(os.environ, ONEDNN_VERBOSE="1")
    try:
        done = subprocess.run(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, timeout=args.timeout)
    except (OSError, subprocess.TimeoutExpired) as e:
        sys.exit("dnnl_primitive_profile.py: could not run %s: %s" % (command[0], e))
    if done.returncode != 0:
        tail = "\n".join(done.stdout.splitlines()[-5:])
        sys.exit("dnnl_primitive_profile.py: switchyard failed (exit %d):\n%s"
                 % (done.returncode, tail))
    return [l for l in done.stdout.splitlines() if l.startswith("onednn_verbose,exec,")]


def parse(line):
    """(kind, implementation, problem, attributes, ms) of an exec line."""
    f = line.split(",")
    # onednn_verbose,exec,cpu,KIND,IMPL,PROP,MEMORY,ATTRS,AUX,PROBLEM,TIME
    return f[3], f[4], f[-2], f[7].strip(), float(f[-1])


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, help=".onnx file")
    parser.add_argument("--batch", type=int, default=1, help="batch without --input (default 1)")
    parser.add_argument("--input", default="", help=".npy input(s), as switchyard run --input")
    parser.add_argument("--threads", type=int, default=2, help="oneDNN threads (default 2)")
    parser.add_argument("--top", type=int, default=15, help="problems listed (default 15)")
    parser.add_argument("--switchyard", default="bazel-bin/tools/cli/switchyard")
    parser.add_argument("--plugin", default="bazel-bin/backends/dnnl/libswitchyard_dnnl_plugin.so")
    parser.add_argument("--timeout", type=int, default=1800, help="seconds per run (default 1800)")
    args = parser.parse_args(argv)
    for path, what in ((args.switchyard, "--switchyard"), (args.plugin, "--plugin"),
                       (args.model, "--model")):
        if not os.path.exists(path):
            sys.exit("dnnl_primitive_profile.py: %s %s does not exist" % (what, path))

    one = verbose_lines(args, 1)
    two = verbose_lines(args, 2)
    per_forward = len(two) - len(one)
    if per_forward <= 0:
        sys.exit("dnnl_primitive_profile.py: no oneDNN primitive ran per forward (%d lines, then "
                 "%d); is anything placed on dnnl:0?" % (len(one), len(two)))
    last = [parse(l) for l in two[-per_forward:]]
    total = sum(p[4] for p in last)

    print("One forward on dnnl:0, %d primitives, %.2f ms by oneDNN's own clock (ONEDNN_VERBOSE)."
          % (len(last), total))
    print()
    by_kind = collections.defaultdict(lambda: [0.0, 0])
    for kind, impl, _, _, ms in last:
        by_kind[(kind, impl)][0] += ms
        by_kind[(kind, impl)][1] += 1
    print("| primitive | implementation | calls | ms | share |")
    print("| --- | --- | ---: | ---: | ---: |")
    for (kind, impl), (ms, calls) in sorted(by_kind.items(), key=lambda kv: -kv[1][0]):
        print("| %s | %s | %d | %.2f | %.1f%% |" % (kind, impl, calls, ms, 100 * ms / total))
    print()
    by_problem = collections.defaultdict(lambda: [0.0, 0])
    for kind, impl, problem, attrs, ms in last:
        post_ops = attrs.replace("attr-scratchpad:user", "").strip()
        by_problem[(kind, impl, problem, post_ops)][0] += ms
        by_problem[(kind, impl, problem, post_ops)][1] += 1
    print("| primitive | problem | post-ops | calls | ms | share |")
    print("| --- | --- | --- | ---: | ---: | ---: |")
    ranked = sorted(by_problem.items(), key=lambda kv: -kv[1][0])[:args.top]
    for (kind, impl, problem, post_ops), (ms, calls) in ranked:
        print("| %s (%s) | %s | %s | %d | %.2f | %.1f%% |"
              % (kind, impl, problem, post_ops or "-", calls, ms, 100 * ms / total))


if __name__ == "__main__":
    main(sys.argv[1:])
