#!/bin/bash
# `mpirun -np N switchyard ...` on this host (docs/scaling.md, "MPI"):
#   - bench with 2 ranks prints one merged table (a row per rank, the total)
#     and writes one merged JSON;
#   - run over an image folder with 2 and 3 ranks writes the same files,
#     byte for byte, as one process (a detector, each image at its own size),
#     and one merged report and one trace with a process per rank;
#   - a rank on a device that does not exist: every rank exits 1, rank 0 names
#     the rank, its host and device and the error, nothing is published;
#   - a killed rank (SIGKILL): the job ends non-zero naming the rank, nothing
#     published, within the test's timeout;
#   - a rank far slower than the others: named after --rank-timeout;
#   - started by mpirun without MPI in the build: a clear error (checked only
#     where the build has no MPI; here it says how to get it from devices).
# Skipped, with the reason, where mpirun is missing or the build has no MPI.

set -u

CLI_TEST_LIB="${TEST_SRCDIR:-$0.runfiles}/switchyard/tests/cli_test_lib.sh"
[[ -f "$CLI_TEST_LIB" ]] || CLI_TEST_LIB="$(dirname "$0")/cli_test_lib.sh"
source "$CLI_TEST_LIB"
DET="$(need_runfile tests/onnx_models/fasterrcnn_narrow/model.onnx)" || exit 1
CLI_TIMEOUT_S=600

if ! command -v mpirun >/dev/null; then
  echo "SKIP: no mpirun (tools/setup.sh installs openmpi-bin)"
  exit 0
fi
"$BIN" devices >"$TMP/devices.out" 2>&1
if ! grep -q "^MPI: yes" "$TMP/devices.out"; then
  grep "^MPI:" "$TMP/devices.out"
  echo "SKIP: this build has no MPI"
  exit 0
fi

# OpenMPI under a test runner: as root (CI), more ranks than cores, shared
# memory and loopback TCP only, its session files in the test's folder.
export TMPDIR="$TMP"
export OMPI_MCA_btl="self,vader,tcp" OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
MPIRUN=(mpirun --allow-run-as-root --oversubscribe --bind-to none)

# run_mpi NAME MPIRUN-ARGS...: like run_cli, for a whole mpirun command line.
run_mpi() {
  local name="$1"
  shift
  CASES=$((CASES + 1))
  timeout "$CLI_TIMEOUT_S" "${MPIRUN[@]}" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
  RC=$?
  echo "--- mpirun $* -> exit $RC"
  if [[ "$RC" -eq 124 ]]; then fail "$name: hung (killed after $CLI_TIMEOUT_S s)"; fi
}

# --- bench: one merged table and JSON ------------------------------------------
BENCH=(bench --model=vgg11 --input_shape=1x3x32x32 --batch=1,2 --warmup=1 --iterations=3 --threads=1)
run_mpi bench2 -np 2 "$BIN" "${BENCH[@]}" --devices=cpu --json="$TMP/bench2.json"
expect_exit bench2 0
expect_in bench2 out "rank"
grep -qE "^ *0 .*cpu:0" "$TMP/bench2.out" || fail "bench2: no row for rank 0 on cpu:0"
grep -qE "^ *1 .*cpu:0" "$TMP/bench2.out" || fail "bench2: no row for rank 1 on cpu:0"
expect_in bench2 out "total"
[[ $(grep -c "^switchyard bench" "$TMP/bench2.out") -le 1 ]] || fail "bench2: per-rank tables printed"
if ! python3 - "$TMP/bench2.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["schema"] == "switchyard.bench_ranks/1", doc["schema"]
assert [r["rank"] for r in doc["ranks"]] == [0, 1], doc["ranks"]
assert [r["batch"] for r in doc["results"]] == [1, 2], doc["results"]
for result in doc["results"]:
    per_rank = [r["images_per_s"] for r in result["ranks"]]
    assert abs(sum(per_rank) - result["total_images_per_s"]) < 1e-6 * sum(per_rank), result
    assert "straggler" in result
assert len(doc["per_rank"]) == 2
PY
then
  fail "bench2: merged JSON"
fi

# --- run over images: same files as one process ------------------------------
mkdir -p "$TMP/images" "$TMP/out1" "$TMP/out2" "$TMP/out3"
python3 - "$TMP/images" <<'PY'
import struct, sys, zlib
def chunk(kind, data):
    return (struct.pack(">I", len(data)) + kind + data +
            struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
for n, (h, w) in enumerate([(64, 80), (72, 56), (60, 60), (50, 90), (80, 64)]):
    rows = b"".join(b"\x00" + bytes((7 * x + 13 * y + 29 * n + c * 50) % 256
                                    for x in range(w) for c in range(3)) for y in range(h))
    with open(f"{sys.argv[1]}/img{n}.png", "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))
PY
RUN=(run --model="$DET" --images="$TMP/images" --threads=1)
run_cli one "${RUN[@]}" --output="$TMP/out1/"
expect_exit one 0
run_mpi run2 -np 2 "$BIN" "${RUN[@]}" --output="$TMP/out2/" --report="$TMP/run2.json" \
  --profile="$TMP/run2_trace.json"
expect_exit run2 0
expect_in run2 out "== rank 0"
expect_in run2 out "== rank 1"
expect_in run2 out "image 5/5"
run_mpi run3 -np 3 "$BIN" "${RUN[@]}" --output="$TMP/out3/"
expect_exit run3 0
for n in 2 3; do
  if ! diff -r "$TMP/out1" "$TMP/out$n" >/dev/null; then
    fail "run$n: outputs differ from one process's"
    diff -r "$TMP/out1" "$TMP/out$n" | head -5
  fi
done
[[ $(ls "$TMP/out1" | wc -l) -ge 15 ]] || fail "one: expected 3 outputs for each of 5 images"
if ! python3 - "$TMP/run2.json" "$TMP/run2_trace.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
assert report["schema"] == "switchyard.run_ranks/1", report.get("schema")
assert [r["rank"] for r in report["ranks"]] == [0, 1], report["ranks"]
trace = json.load(open(sys.argv[2]))
pids = {e["pid"] for e in trace["traceEvents"]}
assert pids == {0, 1}, pids
names = [e["args"]["name"] for e in trace["traceEvents"]
         if e["ph"] == "M" and e["name"] == "process_name"]
assert any(n.startswith("rank 0") for n in names) and any(n.startswith("rank 1") for n in names), names
PY
then
  fail "run2: merged report or trace"
fi

# Ranks that ended remove their private folders (the ones killed below cannot).
leftover="$(ls -d "$TMP"/switchyard-rank-* 2>/dev/null)"
[[ -z "$leftover" ]] || fail "private rank folders left behind: $leftover"

# --- faults: nothing published ------------------------------------------------
mkdir -p "$TMP/out_bad" "$TMP/out_killed"
run_mpi bad_device -np 1 "$BIN" "${BENCH[@]}" --devices=cpu --json="$TMP/bad.json" \
  : -np 1 "$BIN" "${BENCH[@]}" --devices=cpu:7 --json="$TMP/bad.json"
expect_exit bad_device 1
expect_in bad_device err "rank 1 of 2 (host "
expect_in bad_device err "cpu:7"
expect_in bad_device err "nothing was published"
[[ -e "$TMP/bad.json" ]] && fail "bad_device: $TMP/bad.json was written"

run_mpi killed -np 1 "$BIN" "${RUN[@]}" --output="$TMP/out_killed/" \
  : -np 1 timeout -s KILL 4 "$BIN" bench --model=vgg11 --iterations=1000000 --threads=1
[[ "$RC" -ne 0 ]] || fail "killed: exit 0"
expect_in killed err "rank 1"
[[ -z "$(ls "$TMP/out_killed")" ]] || fail "killed: outputs were published"

run_mpi slow -np 1 "$BIN" "${BENCH[@]}" --rank-timeout=3 \
  : -np 1 "$BIN" bench --model=vgg11 --iterations=1000000 --threads=1 --rank-timeout=3
[[ "$RC" -ne 0 ]] || fail "slow: exit 0"
expect_in slow err "rank(s) 1 did not finish within 3 s"

# --- flags that do not fit an MPI job -----------------------------------------
run_mpi one_file -np 2 "$BIN" "${RUN[@]}" --output="$TMP/one.npy"
expect_exit one_file 1
expect_in one_file err "give --images=DIR and a folder"
run_mpi bad_timeout -np 2 "$BIN" bench --model=vgg11 --rank-timeout=nan
expect_exit bad_timeout 1
expect_in bad_timeout err "--rank-timeout=nan: give seconds"
run_mpi replicas -np 2 "$BIN" bench --model=vgg11 --replicas=cpu
expect_exit replicas 1
expect_in replicas err "--replicas inside an MPI job"

finish
