#!/usr/bin/env bash
# Faster R-CNN (torchvision's fasterrcnn_resnet50_fpn, full size, seeded
# random weights) over a folder of photos of different sizes, whole command
# against whole script (issue 38, item 4): Switchyard's default path
# (`switchyard run --images=DIR`, no device flag: decoding, compiling for
# each new size and the model, in one process) against ONNX Runtime's
# (benchmarks/images_to_npy.py decodes the folder as torchvision's ToTensor
# does, then benchmarks/onnxruntime_images.js creates one session and runs
# each image once). Wall time of whole processes, interleaved per round,
# each after waiting for the machine to go quiet.
#
# Usage: benchmarks/compare_detector_folder.sh [THREADS]   (default 2)
# Environment:
#   MODEL=benchmarks/onnx_models/fasterrcnn_800/fasterrcnn.onnx   the export
#                   (benchmarks/export_fasterrcnn_full.py runs in its folder
#                   when a file named fasterrcnn.onnx is missing; git-ignored)
#   IMAGES=DIR      the photos (default: 8 synthetic JPEGs of 8 sizes, made
#                   in a temporary folder)
#   ROUNDS=3        rounds; each runs both runtimes (ROUNDS=1: a smoke test)
#   SWITCHYARD=path a prebuilt binary with its libswitchyard_*_plugin.so
#                   beside it (default: bazel build -c opt, then private
#                   copies of the binary and its plugins)
#   QUIET_WAIT=300 OUT_DIR=benchmarks/results
# Writes OUT_DIR/detector_folder_<date>.md (the images, whole times per
# runtime with median, min and their ratio, Switchyard's compile and model
# totals from its --report, and how far the two runtimes' sorted scores are
# apart per image) and the raw logs, reports and outputs in
# OUT_DIR/detector_folder_<date>/.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
ROOT="$(pwd)"
DEFAULT_MODEL="${ROOT}/benchmarks/onnx_models/fasterrcnn_800/fasterrcnn.onnx"
THREADS="${1:-2}"
ROUNDS="${ROUNDS:-3}"
MODEL="$(realpath -m "${MODEL:-${DEFAULT_MODEL}}")"
OUT_DIR="${OUT_DIR:-benchmarks/results}"
PYTHON=/usr/bin/python3
TIME=/usr/bin/time
die() { echo "compare_detector_folder.sh: $*" >&2; exit 2; }
(($# <= 1)) || die "usage: benchmarks/compare_detector_folder.sh [THREADS]"
[[ "${THREADS}" =~ ^[1-9][0-9]*$ ]] || die "bad THREADS '${THREADS}'"
[[ "${ROUNDS}" =~ ^[1-9][0-9]*$ ]] || die "ROUNDS must be a whole number >= 1, not '${ROUNDS}'"
[[ -x "${TIME}" ]] || die "needs ${TIME} (Debian: apt-get install time)"
command -v node > /dev/null || die "needs node for ONNX Runtime (tools/setup.sh --with-peers)"
source benchmarks/quiet.sh

if [[ ! -f "${MODEL}" ]]; then
  [[ "$(basename "${MODEL}")" == fasterrcnn.onnx ]] ||
    die "no MODEL ${MODEL} (only fasterrcnn.onnx is exported when missing)"
  model_dir="$(dirname "${MODEL}")"
  echo "== exporting fasterrcnn_resnet50_fpn into ${model_dir}"
  if ! mkdir -p "${model_dir}" ||
     ! (cd "${model_dir}" && "${PYTHON}" "${ROOT}/benchmarks/export_fasterrcnn_full.py"); then
    die "export failed"
  fi
  [[ -f "${MODEL}" ]] || die "the export wrote no ${MODEL}"
fi

TMP_DIR="$(mktemp -d)"
trap 'rm -rf "${TMP_DIR}"' EXIT

if [[ -z "${IMAGES:-}" ]]; then
  IMAGES="${TMP_DIR}/photos"
  IMAGES_GIVEN=0
  mkdir -p "${IMAGES}" || exit 2
  # 8 sizes of cameras and phones, landscape and portrait; smooth seeded
  # content (coarse random colours, bicubically upsampled), JPEG quality 90.
  "${PYTHON}" - "${IMAGES}" <<'EOF' || die "making the synthetic photos failed"
import sys
import numpy as np
from PIL import Image
sizes = [(640, 480), (480, 640), (500, 375), (1024, 768), (1280, 720), (612, 612), (427, 640), (800, 533)]
for i, (w, h) in enumerate(sizes):
    rng = np.random.RandomState(i)
    coarse = Image.fromarray(rng.randint(0, 256, size=(6, 8, 3), dtype=np.uint8)).resize((w, h), Image.BICUBIC)
    detail = Image.fromarray(rng.randint(0, 256, size=(48, 64, 3), dtype=np.uint8)).resize((w, h), Image.BICUBIC)
    mixed = 0.8 * np.asarray(coarse, np.float32) + 0.2 * np.asarray(detail, np.float32)
    Image.fromarray(mixed.round().astype(np.uint8)).save("%s/photo_%d_%dx%d.jpg" % (sys.argv[1], i, w, h), quality=90)
EOF
else
  IMAGES_GIVEN=1
  IMAGES="$(realpath -m "${IMAGES}")"
  [[ -d "${IMAGES}" ]] || die "IMAGES=${IMAGES} is not a folder"
fi

BIN="${SWITCHYARD:-}"
if [[ -z "${BIN}" ]]; then
  flags=(--disk_cache="${HOME}/.cache/switchyard-bazel" -c opt)
  bazel build "${flags[@]}" //tools/cli:switchyard || die "bazel build failed"
  bin_dir="$(bazel info "${flags[@]}" bazel-bin)/tools/cli" || die "bazel info failed"
  # Private copies (another build may replace bazel-bin during the runs),
  # the plugins beside the binary so that the default device policy finds them.
  mkdir -p "${TMP_DIR}/bin" || exit 2
  cp "${bin_dir}/switchyard" "${TMP_DIR}/bin/" || die "no ${bin_dir}/switchyard"
  plugins=("${bin_dir}"/libswitchyard_*_plugin.so)
  [[ -f "${plugins[0]}" ]] || die "no libswitchyard_*_plugin.so beside ${bin_dir}/switchyard"
  cp "${plugins[@]}" "${TMP_DIR}/bin/" || die "copying the plugins failed"
  BIN="${TMP_DIR}/bin/switchyard"
else
  BIN="$(realpath -m "${BIN}")"
  [[ -x "${BIN}" ]] || die "SWITCHYARD=${BIN} is not an executable"
  found=("$(dirname "${BIN}")"/libswitchyard_*_plugin.so "$(dirname "${BIN}")"/../lib/switchyard/libswitchyard_*_plugin.so)
  [[ -f "${found[0]}" || -f "${found[1]}" ]] ||
    echo "   (no libswitchyard_*_plugin.so beside ${BIN}: the default device policy may fall back to cpu:0)"
fi

DATE="$(date +%F)"
mkdir -p "${OUT_DIR}" || exit 2
OUT_DIR="$(realpath "${OUT_DIR}")"
RUN_DIR="${OUT_DIR}/detector_folder_${DATE}"
REPORT="${OUT_DIR}/detector_folder_${DATE}.md"
rm -rf "${RUN_DIR}" && mkdir -p "${RUN_DIR}" || exit 2
"${BIN}" --version > "${RUN_DIR}/switchyard_version.txt" 2>&1 || die "${BIN} --version failed"
LOADS="${RUN_DIR}/loads.tsv"
printf 'run\tload_before\tload_after\texit\n' > "${LOADS}"

# measure NAME COMMAND...: waits for quiet, runs, notes the load around it.
measure() {
  local name="$1" before rc
  shift
  wait_for_quiet
  before="$(cut -d' ' -f1-3 /proc/loadavg)"
  echo "== ${name}, load ${before}"
  "$@" > "${RUN_DIR}/${name}.log" 2>&1
  rc=$?
  ((rc == 0)) || echo "   ${name} failed: $(tail -n 1 "${RUN_DIR}/${name}.log")"
  printf '%s\t%s\t%s\t%s\n' "${name}" "${before}" "$(cut -d' ' -f1-3 /proc/loadavg)" "${rc}" >> "${LOADS}"
}

# The whole command: read, decode, import, compile each new size, run, write.
switchyard_command() {
  local r="$1"
  "${TIME}" -f %e -o "${RUN_DIR}/switchyard_r${r}.seconds" "${BIN}" run --model="${MODEL}" \
    --images="${IMAGES}" --threads="${THREADS}" --output="${RUN_DIR}/switchyard_r${r}/" \
    --report="${RUN_DIR}/switchyard_r${r}.json"
}

# The whole script: decode the folder to .npy, then one session and the runs.
# The .npy files (tens of MB) are removed after the timed part.
onnxruntime_script() {
  local r="$1" npy="${TMP_DIR}/npy_r$1" rc
  "${TIME}" -f %e -o "${RUN_DIR}/onnxruntime_r${r}.decode_seconds" \
    "${PYTHON}" benchmarks/images_to_npy.py "${IMAGES}" "${npy}" &&
    "${TIME}" -f %e -o "${RUN_DIR}/onnxruntime_r${r}.seconds" node benchmarks/onnxruntime_images.js \
      --model "${MODEL}" --inputs "${npy}" --threads "${THREADS}" \
      --json "${RUN_DIR}/onnxruntime_r${r}.json" --output "${RUN_DIR}/onnxruntime_r${r}/"
  rc=$?
  rm -rf "${npy}"
  return "${rc}"
}

# The model, the binary and the photos in the page cache before round 1, for both.
cat "${MODEL}" "${BIN}" "${IMAGES}"/* > /dev/null 2>&1
for ((r = 1; r <= ROUNDS; r++)); do
  # Interleaved, the first runtime alternating from round to round.
  if ((r % 2 == 1)); then
    measure "switchyard_r${r}" switchyard_command "${r}"
    measure "onnxruntime_r${r}" onnxruntime_script "${r}"
  else
    measure "onnxruntime_r${r}" onnxruntime_script "${r}"
    measure "switchyard_r${r}" switchyard_command "${r}"
  fi
done

command="ROUNDS=${ROUNDS}"
((IMAGES_GIVEN)) && command+=" IMAGES=${IMAGES}"
[[ "${MODEL}" != "$(realpath -m "${DEFAULT_MODEL}")" ]] && command+=" MODEL=${MODEL}"
[[ -n "${SWITCHYARD:-}" ]] && command+=" SWITCHYARD=${BIN}"
command+=" benchmarks/compare_detector_folder.sh ${THREADS}"
switchyard_line="switchyard run --model=MODEL --images=IMAGES --threads=${THREADS} --output=DIR/ --report=R.json"
onnxruntime_line="images_to_npy.py IMAGES NPY && node benchmarks/onnxruntime_images.js --model MODEL --inputs NPY --threads ${THREADS} --json R.json --output DIR/"
"${PYTHON}" - "${RUN_DIR}" "${REPORT}" "${command}" "${THREADS}" \
  "$(lscpu | sed -n 's/^Model name: *//p' | head -n 1)" "${ROUNDS}" "${IMAGES}" "${IMAGES_GIVEN}" \
  "${switchyard_line}" "${onnxruntime_line}" <<'EOF' || exit 1
import json, os, statistics, sys
import numpy as np
from PIL import Image

(run_dir, report, command, threads, cpu, rounds, images, images_given,
 switchyard_line, onnxruntime_line) = sys.argv[1:11]
rounds = int(rounds)
date = os.path.basename(run_dir)[len("detector_folder_"):]

def seconds(path):
    """The %e of /usr/bin/time -o (its last line), or None."""
    try:
        return float(open(path).read().split()[-1])
    except (OSError, ValueError, IndexError):
        return None

def load_json(path):
    try:
        return json.load(open(path))
    except (OSError, ValueError):
        return None

loads = {}
for line in open(os.path.join(run_dir, "loads.tsv")).read().splitlines()[1:]:
    name, before, after, rc = line.split("\t")
    loads[name] = (before, after, int(rc))

def ok(name):
    return name in loads and loads[name][2] == 0

rows = []  # per round: the numbers of both runtimes
for r in range(1, rounds + 1):
    sy, ort = "switchyard_r%d" % r, "onnxruntime_r%d" % r
    row = {"round": r}
    if ok(sy):
        row["sy"] = seconds(os.path.join(run_dir, sy + ".seconds"))
        j = load_json(os.path.join(run_dir, sy + ".json")) or {}
        ims = j.get("images", [])
        row["sy_device"] = j.get("device", "?")
        row["sy_decode"] = sum(i["ms"]["read_decode"] + i["ms"]["to_tensor"] for i in ims) / 1e3
        row["sy_compile"] = j.get("compile_ms", float("nan")) / 1e3
        row["sy_model"] = sum(i["ms"]["model"] for i in ims) / 1e3
        # The rest of the whole time: start-up, import, writing outputs, and
        # with a binary that times each new size twice (own_size_images.cc
        # until the compile time came from the runner's clock), that second run.
        if row["sy"] is not None and ims:
            row["sy_rest"] = row["sy"] - row["sy_decode"] - row["sy_compile"] - row["sy_model"]
    if ok(ort):
        d, n = (seconds(os.path.join(run_dir, ort + s)) for s in (".decode_seconds", ".seconds"))
        j = load_json(os.path.join(run_dir, ort + ".json")) or {}
        if d is not None and n is not None:
            row.update(ort=d + n, ort_decode=d, ort_node=n,
                       ort_session=j.get("session_ms", float("nan")) / 1e3,
                       ort_runs=j.get("total_run_ms", float("nan")) / 1e3, ort_version=j.get("onnxruntime"))
    rows.append(row)

def summary(key):
    v = [row[key] for row in rows if row.get(key) is not None]
    return (statistics.median(v), min(v), len(v)) if v else None

def cell(row, key, fmt="%.1f"):
    return fmt % row[key] if row.get(key) is not None else "failed"

names = sorted(f for f in os.listdir(images) if f.lower().endswith((".jpg", ".jpeg", ".png")))
sizes = []
for f in names:
    try:
        with Image.open(os.path.join(images, f)) as im:
            sizes.append("%dx%d" % im.size)
    except OSError:
        sizes.append("unreadable")
device = next((row["sy_device"] for row in rows if "sy_device" in row), "?")
version = next((row["ort_version"] for row in rows if row.get("ort_version")), "?")
sy_version = open(os.path.join(run_dir, "switchyard_version.txt")).read().splitlines()
sy_version = ", ".join(l for l in sy_version if l.startswith(("switchyard ", "git commit", "build mode")))

out = ["# Faster R-CNN over a folder of %d photos of different sizes, whole command against whole script (%s)"
       % (len(names), date), "",
       "CPU: %s, %s threads for both. torchvision's fasterrcnn_resnet50_fpn at full size with seeded "
       "random weights (benchmarks/export_fasterrcnn_full.py), each photo at its own size. Made by:"
       % (cpu or "(lscpu names no model)", threads), "", "    " + command, "",
       "- Switchyard (%s; default device policy, which chose %s): wall time of `%s`: reading, decoding, "
       "import, compiling each new size, the runs, writing outputs and report." % (sy_version, device, switchyard_line),
       "- ONNX Runtime (onnxruntime-node %s, intra-op %s, inter-op 1, sequential, all optimizations): wall time of "
       "`%s`: decoding with PIL as ToTensor does, then node, session creation and one run per image." % (version, threads, onnxruntime_line),
       "", "Images (%s): %s" % (images if images_given == "1" else "8 synthetic JPEGs, quality 90, smooth seeded content",
                                ", ".join("%s %s" % (n, s) for n, s in zip(names, sizes))), ""]

sy_sum, ort_sum = summary("sy"), summary("ort")
out += ["| runtime | whole time median, s | min, s | rounds | against ONNX Runtime (medians) |",
        "| --- | ---: | ---: | ---: | ---: |"]
for label, s in (("Switchyard `run --images`", sy_sum), ("ONNX Runtime (images_to_npy.py + node)", ort_sum)):
    if s is None:
        out.append("| %s | failed | | 0 | |" % label)
        continue
    ratio = "%.2f" % (s[0] / ort_sum[0]) if ort_sum and label.startswith("Switchyard") else ("1.00" if ort_sum else "-")
    out.append("| %s | %.1f | %.1f | %d | %s |" % (label, s[0], s[1], s[2], ratio))

out += ["", "Per round, s (Switchyard's parts from its --report: reading, decoding and to-tensor, compiling for "
        "new sizes, the model, and the rest of its whole time: start-up, import, writing, and with a binary that "
        "runs each new size twice to time its compile apart, that second run; ONNX Runtime's from its "
        "script's --json):", "",
        "| round | Switchyard whole | decode | compile | model | rest | ORT whole | decode (python) "
        "| node | session creation | runs | load before (Switchyard, ORT) |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
for row in rows:
    r = row["round"]
    lb = lambda n: loads.get(n, ("-",))[0]
    out.append("| %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s; %s |" % (
        r, cell(row, "sy"), cell(row, "sy_decode", "%.2f"), cell(row, "sy_compile"), cell(row, "sy_model"),
        cell(row, "sy_rest"), cell(row, "ort"), cell(row, "ort_decode", "%.2f"), cell(row, "ort_node"),
        cell(row, "ort_session"), cell(row, "ort_runs"), lb("switchyard_r%d" % r), lb("onnxruntime_r%d" % r)))

# Agreement: the first round both runtimes finished.
both = next((row["round"] for row in rows if row.get("sy") is not None and row.get("ort") is not None), None)
out += [""]
if both is None:
    out.append("Agreement: no round where both runtimes finished.")
else:
    out += ["Agreement (round %d): per image, max |sorted scores Switchyard - sorted scores ONNX Runtime| over "
            "the first min(n) scores:" % both, "",
            "| image | detections (Switchyard, ORT) | max abs diff |", "| --- | ---: | ---: |"]
    for n in names:
        stem = os.path.splitext(n)[0]
        files = [os.path.join(run_dir, "%s_r%d" % (k, both), stem + ".scores.npy") for k in ("switchyard", "onnxruntime")]
        if not all(os.path.exists(f) for f in files):
            out.append("| %s | no scores written | |" % n)
            continue
        a, b = (np.sort(np.load(f).ravel())[::-1] for f in files)
        k = min(a.size, b.size)
        gap = "%.1e" % float(np.max(np.abs(a[:k] - b[:k]))) if k else "-"
        counts = "%d, %d" % (a.size, b.size) + ("" if a.size == b.size else " (differ)")
        out.append("| %s | %s | %s |" % (n, counts, gap))
out += ["", "Raw logs, reports and outputs: %s/." % os.path.basename(run_dir)]
open(report, "w").write("\n".join(out) + "\n")
print("\n".join(out))
EOF
echo "== wrote ${REPORT}"
