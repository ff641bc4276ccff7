#!/bin/bash
# End-to-end test of benchmarking and profiling from the command line:
#   switchyard bench          the table, every registered device type listed,
#                             the JSON schema compare.py reads, Markdown
#   switchyard run --profile  a Chrome trace with one event per node per
#                             iteration, layer names, copies; --profile-summary
#   switchyard run --batches  the input pipeline's utilization report
# and the errors a user meets first. Checks structure and messages only;
# times are printed but never compared. Three VGG11 set-ups: ~15 s.

set -u

# The shared helpers (run_cli, expect_exit, expect_in, ...; BIN, TMP):
# tests/cli_test_lib.sh, in the runfiles tree or beside this script.
CLI_TEST_LIB="${TEST_SRCDIR:-$0.runfiles}/switchyard/tests/cli_test_lib.sh"
[[ -f "$CLI_TEST_LIB" ]] || CLI_TEST_LIB="$(dirname "$0")/cli_test_lib.sh"
source "$CLI_TEST_LIB"
PY=/usr/bin/python3
if ! "$PY" -c 'import json' 2>/dev/null; then
  echo "FAIL: $PY is needed to check JSON output"
  exit 1
fi

# check_py NAME SCRIPT ARGS...: runs a Python check; it prints problems and
# exits non-zero.
check_py() {
  local name="$1" script="$2"
  shift 2
  if ! "$PY" -c "$script" "$@"; then fail "$name"; fi
}

# --- bench ------------------------------------------------------------------------
run_cli bench bench --model=vgg11 --batch=1 --warmup=0 --iterations=2 --threads=2 \
    --backend_option=cpu.fusion=off --json="$TMP/bench.json" --markdown="$TMP/bench.md"
expect_exit bench 0
expect_in bench out "switchyard bench: vgg11, batch 1, 0 warm-up + 2 timed iterations"
expect_in bench out "end to end"
expect_in bench out "images/s"
expect_in bench out "cpu:0       1"
expect_in bench out "wrote $TMP/bench.json"
# Every backend type linked into the binary shows up: measured, or
# unavailable with the reason (cuda without a GPU).
run_cli devices devices
for type in $(sed -n 's/^\([a-z0-9_]*\): .*/\1/p' "$TMP/devices.out"); do
  if ! grep -qE "^${type}(:[0-9]+)? " "$TMP/bench.out" &&
     ! grep -qE "^${type}(:[0-9]+)?: unavailable: " "$TMP/bench.out"; then
    fail "bench: device type '$type' is neither measured nor listed as unavailable"
  fi
done
if grep -q "^cuda: no devices" "$TMP/devices.out"; then
  expect_in bench out "cuda: unavailable: device cuda:0 is not available"
fi

check_py bench_json '
import json, sys
r = json.load(open(sys.argv[1]))
problems = []
def want(cond, what):
    if not cond:
        problems.append(what)
want(r.get("schema") == "switchyard.bench/1", "schema")
want(r.get("framework") == "switchyard", "framework")
want(r.get("model") == "vgg11", "model")
want(r.get("warmup") == 0 and r.get("iterations") == 2, "warmup 0, iterations 2")
want(r.get("batches") == [1], "batches [1]")
want(r.get("context", {}).get("cpu_threads") == "2", "context.cpu_threads == 2")
want(r.get("context", {}).get("cpu_fusion") == "off", "context.cpu_fusion == off")
want("--batch=1" in r.get("context", {}).get("command", ""), "context.command")
want("--backend_option=cpu.fusion=off" in r.get("context", {}).get("command", ""),
     "context.command has --backend_option")
devices = {d["device"]: d for d in r.get("devices", [])}
want(devices.get("cpu:0", {}).get("available") is True, "cpu:0 available")
for d in r.get("devices", []):
    want(d["available"] or d.get("reason"), "unavailable %s has a reason" % d["device"])
rows = [x for x in r.get("results", []) if x.get("device") == "cpu:0"]
want(len(rows) == 1, "one cpu:0 row")
for x in rows:
    want(x.get("batch") == 1, "batch 1")
    for key in ("forward_ms", "h2d_ms", "d2h_ms", "end_to_end_ms"):
        s = x.get(key, {})
        for stat in ("median", "p95", "min", "max", "mean"):
            want(isinstance(s.get(stat), (int, float)), key + "." + stat)
        want(len(s.get("samples", [])) == 2, key + ".samples has 2")
        if all(isinstance(s.get(k), (int, float)) for k in ("min", "median", "p95", "max")):
            want(s["min"] <= s["median"] <= s["p95"] <= s["max"], key + " ordered")
    want(x.get("images_per_s", 0) > 0, "images_per_s > 0")
    want(abs(x.get("speedup_vs_cpu", {}).get("end_to_end", 0) - 1) < 1e-9,
         "speedup_vs_cpu.end_to_end == 1 for the CPU")
if problems:
    print("bench JSON problems: " + "; ".join(problems))
    sys.exit(1)
' "$TMP/bench.json"
if [[ -s "$TMP/bench.md" ]]; then
  grep -qF "| device | batch | forward |" "$TMP/bench.md" || fail "bench: Markdown table header"
  grep -qF "| cpu:0 | 1 |" "$TMP/bench.md" || fail "bench: Markdown cpu:0 row"
else
  fail "bench: no Markdown at $TMP/bench.md"
fi

# --- run --profile ------------------------------------------------------------------
run_cli profile run --model=vgg11 --batch=1 --warmup=0 --iterations=2 --threads=2 \
    --profile="$TMP/trace.json" --profile-summary
expect_exit profile 0
expect_in profile out "profile: "
expect_in profile out "by op"
expect_in profile out "by layer"
expect_in profile out "features.0/conv2d"
expect_in profile out "wrote trace $TMP/trace.json"
check_py trace '
import collections, json, sys
doc = json.load(open(sys.argv[1]))
problems = []
def want(cond, what):
    if not cond:
        problems.append(what)
events = doc.get("traceEvents")
want(isinstance(events, list), "traceEvents is a list")
events = events or []
lanes = {e["tid"]: e["args"]["name"] for e in events
         if e.get("ph") == "M" and e.get("name") == "thread_name"}
want("cpu:0 stream" in lanes.values(), "a cpu:0 stream lane")
want("host" in lanes.values(), "a host lane")
x = [e for e in events if e.get("ph") == "X"]
for e in x:
    for key in ("name", "cat", "ts", "dur", "pid", "tid", "args"):
        want(key in e, "%s in an X event" % key)
nodes = [e for e in x if e.get("cat") == "node"]
# VGG11: 30 nodes, run as 20 kernels (cpu.fusion is on by default: the 8
# conv2d->relu and 2 linear->relu pairs are one kernel each); 2 iterations.
want(len(nodes) == 40, "40 node events (20 kernels x 2 iterations), got %d" % len(nodes))
per_name = collections.Counter(e["name"] for e in nodes)
want(all(c == 2 for c in per_name.values()), "each kernel once per iteration")
for name in ("features.0/conv2d+features.1/relu", "features.20/max_pool2d",
             "classifier.0/linear+classifier.1/relu", "classifier.6/linear"):
    want(per_name.get(name) == 2, name + " twice")
conv = next((e for e in nodes if e["name"] == "features.0/conv2d+features.1/relu"), {})
args = conv.get("args", {})
want(args.get("layer") == "features.0" and args.get("op") == "conv2d+relu", "layer and op args")
want(args.get("input_shapes", [None])[0] == [1, 3, 224, 224], "input shape arg")
want(args.get("flops", 0) > 0, "flops arg")
copies = [e for e in x if e.get("cat") == "copy"]
want(len(copies) == 4, "4 copy events (h2d and d2h x 2), got %d" % len(copies))
runs = [e for e in x if e.get("cat") == "run"]
want(len(runs) == 2, "2 run events")
if problems:
    print("trace problems: " + "; ".join(problems))
    sys.exit(1)
' "$TMP/trace.json"

# --- run --batches (input pipeline) --------------------------------------------------
run_cli pipeline run --model=vgg11 --batch=1 --warmup=0 --threads=1 --batches=3 \
    --loader-threads=1 --prefetch=1 --loader-cost-ms=1 --report="$TMP/u.json" \
    --profile="$TMP/pipeline_trace.json"
expect_exit pipeline 0
expect_in pipeline out "streaming 3 batches of [1, 3, 224, 224]: 1 loader thread (busy, 1.0 ms per batch), prefetch 1"
expect_in pipeline out "utilization of cpu:0: 3 batches of 1"
expect_in pipeline out "cpu:0 busy"
expect_in pipeline out "waiting for input"
expect_in pipeline out "diagnosis: "
check_py pipeline_report '
import json, sys
r = json.load(open(sys.argv[1]))
t = json.load(open(sys.argv[2]))
problems = []
def want(cond, what):
    if not cond:
        problems.append(what)
want(r.get("device") == "cpu:0" and r.get("batches") == 3, "device, batches")
for phase in ("load", "wait", "h2d", "forward", "d2h"):
    want(r.get("phases", {}).get(phase, {}).get("count") == 3, phase + " count 3")
want(0 < r.get("busy_share", 0) <= 1, "busy_share in (0, 1]")
want(r.get("verdict") == "too_short", "verdict too_short for 3 batches")
want(bool(r.get("diagnosis")), "diagnosis")
lanes = [e["args"]["name"] for e in t["traceEvents"]
         if e.get("ph") == "M" and e.get("name") == "thread_name"]
want("loader 0" in lanes, "a loader lane in the trace")
nodes = [e for e in t["traceEvents"] if e.get("cat") == "node"]
want(len(nodes) == 60, "60 node events (20 kernels x 3 batches), got %d" % len(nodes))
if problems:
    print("pipeline problems: " + "; ".join(problems))
    sys.exit(1)
' "$TMP/u.json" "$TMP/pipeline_trace.json"

# --- failures ---------------------------------------------------------------------
run_cli zero_batch bench --batch=0
expect_exit zero_batch 1
expect_in zero_batch err "--batch=0 is out of range: it must be between 1 and"

run_cli bad_batch_list bench --batch=1,x
expect_exit bad_batch_list 1
expect_in bad_batch_list err "--batch wants an integer or a comma-separated list"

run_cli list_for_graph graph --batch=1,8
expect_exit list_for_graph 1
expect_in list_for_graph err "this command takes one --batch size, got '1,8'"

run_cli bad_device bench --devices=CUDA
expect_exit bad_device 1
expect_in bad_device err "INVALID_ARGUMENT"

finish
