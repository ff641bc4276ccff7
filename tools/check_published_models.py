#!/usr/bin/python3
"""Runs published ONNX models through Switchyard and ONNX Runtime on the same seeded inputs.

Usage:
    /usr/bin/python3 tools/check_published_models.py MODEL.onnx [MODEL.onnx ...]
        [--shape [STEM/]INPUT=DIMS] [--value [STEM/]INPUT=NUMBER]
        [--input [STEM/]INPUT=FILE.npy] [--noise] [--no-spread]
        [--switchyard=BIN] [--device=cpu] [--iterations=1] [--seed=0]
        [--optimization=disabled] [--keep=DIR] [--json=FILE]

For each model it makes one seeded input per model input and writes it as
.npy: an image-shaped float input ([N, C, H, W] or [N, H, W, C] with C of 1,
3 or 4) gets a synthetic picture (gradient, boxes, dark strokes; --noise for
standard normal noise instead), any other float input standard normal noise,
an integer or bool input zeros unless --value sets it. Then it runs

    switchyard run --model=M.onnx --input=NAME=FILE,... --output=O0.npy,O1.npy,...
        --device=cpu --warmup=1 --iterations=N

and ONNX Runtime 1.30 (onnxruntime-node from tools/setup.sh --with-peers, CPU
provider, one intra-op thread, graph optimizations --optimization, default
disabled) on the same files, and prints one line per model: file, opset,
status, the worst output's max |Switchyard - ONNX Runtime| / max |ONNX
Runtime| (integer and bool outputs must be equal), ONNX Runtime's own spread
(the same measure between its --optimization run and a run at the other end
of its levels; --no-spread skips it), and the median forward time of each.

Status: "ok" within 1e-4 (--rtol; 5e-3 for a float16 model: one with
float16 inputs, outputs, initializers or a Cast to float16); "ok~" beyond
that but within twice ONNX Runtime's own spread (models that compare floats
for equality, as MLSD's Equal(x, MaxPool(x)), or whose outputs are all near
zero: two correct float32 runs differ there by more than 1e-4); "FAIL";
"ERROR" when Switchyard refuses or crashes; "ORT-ERROR" when ONNX Runtime
does (not counted against Switchyard). Exit status 0 iff no FAIL or ERROR.

Dynamic dimensions: --shape INPUT=1x3x640x640 sets an input's whole shape
(STEM/INPUT for one model only, STEM being the file name without .onnx);
--value sr=16000 fills an input (any dtype) with one number (a scalar input
unless --shape says otherwise). The published models this was written for
(PaddleOCR, Silero VAD) have theirs in DEFAULTS below, also used for a
float16 copy named STEM_f16.onnx; another model with a symbolic dimension and
no --shape gets 1 there, with a note.

BIN defaults to bazel-bin/tools/cli/switchyard (bazel build
//tools/cli:switchyard first).
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Inputs of the published models tried: shapes for their symbolic dimensions and the values their integer inputs need
# (Silero VAD refuses any sample rate but 8000 and 16000).
DEFAULTS = {
    "ch_PP-OCRv4_det_infer": {"shape": {"x": (1, 3, 320, 320)}},
    "ch_PP-OCRv4_rec_infer": {"shape": {"x": (1, 3, 48, 320)}},
    "ch_ppocr_mobile_v2.0_cls_infer": {"shape": {"x": (1, 3, 48, 192)}},
    "silero_vad": {"shape": {"input": (1, 512), "h": (2, 1, 64), "c": (2, 1, 64)},
                   "value": {"sr": 16000}},
    "silero_vad_legacy": {"shape": {"input": (1, 512), "h": (2, 1, 64), "c": (2, 1, 64)},
                          "value": {"sr": 16000}},
    "silero_vad_v5": {"shape": {"input": (1, 512), "state": (2, 1, 128)},
                      "value": {"sr": 16000}},
    "silero_vad_v6": {"shape": {"input": (1, 512), "state": (2, 1, 128)},
                      "value": {"sr": 16000}},
}

NP_TYPES = {
    onnx.TensorProto.FLOAT: np.float32, onnx.TensorProto.DOUBLE: np.float64,
    onnx.TensorProto.FLOAT16: np.float16, onnx.TensorProto.INT64: np.int64,
    onnx.TensorProto.INT32: np.int32, onnx.TensorProto.INT16: np.int16,
    onnx.TensorProto.INT8: np.int8, onnx.TensorProto.UINT8: np.uint8,
    onnx.TensorProto.UINT16: np.uint16, onnx.TensorProto.UINT32: np.uint32,
    onnx.TensorProto.UINT64: np.uint64, onnx.TensorProto.BOOL: np.bool_,
}

# ONNX Runtime's side: feeds from .npy files by name, every output back as
# .npy, the median of the timed session.run calls.
ORT_RUNNER = r"""
'use strict';
const fs = require('fs');
const path = require('path');
const spec = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const ort = require(path.join(spec.ort_dir, 'node_modules', 'onnxruntime-node'));
const NPY = {'<f4': ['float32', Float32Array], '<f8': ['float64', Float64Array],
  '<f2': ['float16', Uint16Array], '<i8': ['int64', BigInt64Array], '<i4': ['int32', Int32Array],
  '<i2': ['int16', Int16Array], '|i1': ['int8', Int8Array], '|u1': ['uint8', Uint8Array],
  '|b1': ['bool', Uint8Array], '<u2': ['uint16', Uint16Array], '<u4': ['uint32', Uint32Array],
  '<u8': ['uint64', BigUint64Array]};
const DESCR = {};
for (const [k, v] of Object.entries(NPY)) if (!DESCR[v[0]]) DESCR[v[0]] = k;
function readNpy(file) {
  const buf = fs.readFileSync(file);
  const v1 = buf[6] === 1;  // major version: 1 has a 2-byte header length, 2 and 3 4 bytes
  const hlen = v1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = (v1 ? 10 : 12) + hlen;
  const header = buf.toString('latin1', v1 ? 10 : 12, start);
  const descr = /'descr':\s*'([^']+)'/.exec(header)[1];
  const dims = /'shape':\s*\(([^)]*)\)/.exec(header)[1].split(',')
      .map((s) => s.trim()).filter((s) => s).map(Number);
  const [type, Arr] = NPY[descr];
  const bytes = buf.subarray(start);
  const data = new Arr(bytes.length / Arr.BYTES_PER_ELEMENT);
  Buffer.from(data.buffer).set(bytes);
  return new ort.Tensor(type, data, dims);
}
function writeNpy(file, t) {
  const data = t.data;
  let header = "{'descr': '" + DESCR[t.type] + "', 'fortran_order': False, 'shape': (" +
      t.dims.map(String).join(', ') + (t.dims.length === 1 ? ',' : '') + '), }';
  const pad = 64 - ((10 + header.length + 1) % 64);
  header += ' '.repeat(pad % 64) + '\n';
  const head = Buffer.alloc(10);
  head.write('\x93NUMPY', 0, 'latin1'); head[6] = 1; head[7] = 0;
  head.writeUInt16LE(header.length, 8);
  fs.writeFileSync(file, Buffer.concat([head, Buffer.from(header, 'latin1'),
      Buffer.from(data.buffer, data.byteOffset, data.byteLength)]));
}
(async () => {
  const result = {};
  for (const level of spec.levels) {
    const session = await ort.InferenceSession.create(spec.model, {
      graphOptimizationLevel: level, intraOpNumThreads: 1, interOpNumThreads: 1});
    const feeds = {};
    for (const [name, file] of Object.entries(spec.inputs)) feeds[name] = readNpy(file);
    let out = null;
    const times = [];
    for (let i = 0; i < 1 + spec.iterations; i++) {
      const t0 = process.hrtime.bigint();
      out = await session.run(feeds);
      const t1 = process.hrtime.bigint();
      if (i > 0) times.push(Number(t1 - t0) / 1e6);
    }
    times.sort((a, b) => a - b);
    session.outputNames.forEach((name, i) => writeNpy(spec.outputs[level][i], out[name]));
    result.outputs = session.outputNames;
    result[level] = times[Math.floor(times.length / 2)];
    await session.release();
  }
  fs.writeFileSync(spec.result, JSON.stringify(result));
})().catch((e) => { process.stderr.write(String(e.message || e) + '\n'); process.exit(1); });
"""


def parse_assignments(items, what, convert):
    """[STEM/]NAME=X flags: {stem or None: {name: convert(X)}}."""
    out = {}
    for item in items:
        key, sep, text = item.partition("=")
        stem, _, name = key.rpartition("/")
        try:
            if not sep or not name:
                raise ValueError(item)
            out.setdefault(stem or None, {})[name] = convert(text)
        except ValueError:
            sys.exit("%s %s: want [STEM/]INPUT=VALUE (see --help)" % (what, item))
    return out


def parse_dims(text):
    dims = tuple(int(d) for d in text.split("x")) if text else ()
    if any(d < 0 for d in dims):
        raise ValueError(text)
    return dims


def is_float16_model(model):
    f16 = onnx.TensorProto.FLOAT16
    for value in list(model.graph.input) + list(model.graph.output):
        if value.type.tensor_type.elem_type == f16:
            return True
    if any(t.data_type == f16 for t in model.graph.initializer):
        return True
    for node in model.graph.node:
        if node.op_type == "Cast" and any(a.name == "to" and a.i == f16 for a in node.attribute):
            return True
    return False


def opset_of(model):
    for entry in model.opset_import:
        if entry.domain in ("", "ai.onnx"):
            return entry.version
    return 0


def make_inputs(model, stem, shapes, values, files, seed, noise, folder, notes):
    """Seeded .npy inputs (or the given files): [(name, path)] in the model's input order."""
    initializers = {t.name for t in model.graph.initializer}
    rng = np.random.default_rng(seed)
    made = []
    for value in model.graph.input:
        if value.name in initializers:
            continue
        if value.name in files:
            made.append((value.name, files[value.name]))
            continue
        tensor_type = value.type.tensor_type
        dtype = NP_TYPES.get(tensor_type.elem_type)
        if dtype is None:
            raise ValueError("input %s: dtype %s is not supported here" % (
                value.name, onnx.TensorProto.DataType.Name(tensor_type.elem_type)))
        if value.name in shapes:
            dims = shapes[value.name]
        else:
            dims = []
            for k, d in enumerate(tensor_type.shape.dim):
                if d.HasField("dim_value") and d.dim_value > 0:
                    dims.append(d.dim_value)
                elif value.name in values:
                    dims = None
                    break
                else:
                    notes.append("%s dim %d (%s) = 1" % (value.name, k, d.dim_param or "?"))
                    dims.append(1)
            dims = () if dims is None else tuple(dims)
        if value.name in values:
            array = np.full(dims, values[value.name], dtype=dtype)
        elif np.issubdtype(dtype, np.floating):
            layout = None if noise else image_layout(dims)
            if layout is not None:
                array = synthetic_image(dims, layout, rng).astype(dtype)
                notes.append("%s: synthetic image" % value.name)
            else:
                array = rng.standard_normal(dims).astype(dtype)
        else:
            array = np.zeros(dims, dtype=dtype)
        path = os.path.join(folder, "input_%d.npy" % len(made))
        np.save(path, array)
        made.append((value.name, path))
    return made


def image_layout(dims):
    """(channel axis, (height axis, width axis)) of an NCHW or NHWC image shape, or None."""
    if len(dims) != 4 or min(dims[1:]) < 1:
        return None
    if dims[1] in (1, 3, 4) and min(dims[2], dims[3]) >= 8:
        return 1, (2, 3)
    if dims[3] in (1, 3, 4) and min(dims[1], dims[2]) >= 8:
        return 3, (1, 2)
    return None


def synthetic_image(dims, layout, rng):
    """A seeded picture: a colour gradient with boxes and dark strokes (text-like),
    normalized as ImageNet-style models expect (about [-2, 2.2]).

    White noise drives detectors and segmenters to outputs that are all near
    zero, where the comparison's scale is ONNX Runtime's own rounding; a
    picture with edges and strokes gives them something to find."""
    channel, (h_axis, w_axis) = layout
    n, c, h, w = dims[0], dims[channel], dims[h_axis], dims[w_axis]
    yy, xx = np.meshgrid(np.linspace(0, 1, h), np.linspace(0, 1, w), indexing="ij")
    images = np.empty((n, h, w, c), np.float32)
    for b in range(n):
        base = rng.uniform(0.3, 0.9, c)
        slope = rng.uniform(-0.3, 0.3, (2, c))
        img = base + yy[..., None] * slope[0] + xx[..., None] * slope[1]
        for _ in range(12):  # boxes
            y0, x0 = rng.integers(0, h), rng.integers(0, w)
            y1 = min(h, y0 + rng.integers(h // 16 + 1, h // 3 + 2))
            x1 = min(w, x0 + rng.integers(w // 16 + 1, w // 3 + 2))
            img[y0:y1, x0:x1] = rng.uniform(0, 1, c)
        for _ in range(8):  # lines of dark strokes
            y0 = rng.integers(0, max(1, h - h // 12))
            x = rng.integers(0, max(1, w // 4))
            height = max(1, h // 20)
            while x < w * 0.9:
                stroke = max(1, int(rng.integers(w // 80 + 1, w // 30 + 2)))
                img[y0:y0 + height, x:x + stroke] = 0.05
                x += stroke + max(1, int(rng.integers(w // 100 + 1, w // 40 + 2)))
        images[b] = np.clip(img, 0, 1)
    images = (images - 0.45) / 0.25
    order = [0, h_axis, w_axis, channel]
    return np.transpose(images, np.argsort(order)).astype(np.float32)


def compare(ref, got):
    """max |got - ref| / max |ref| (0 or inf for exact dtypes)."""
    if ref.shape != got.shape:
        raise ValueError("shape %s, ONNX Runtime's %s" % (got.shape, ref.shape))
    if ref.dtype != got.dtype:
        raise ValueError("dtype %s, ONNX Runtime's %s" % (got.dtype, ref.dtype))
    if not np.issubdtype(ref.dtype, np.floating):
        return 0.0 if np.array_equal(ref, got) else float("inf")
    r = ref.astype(np.float64)
    g = got.astype(np.float64)
    if r.size == 0:
        return 0.0
    if not np.array_equal(np.isfinite(r), np.isfinite(g)):
        return float("inf")
    finite = np.isfinite(r)
    if not np.array_equal(r[~finite], g[~finite]):
        return float("inf")
    if not finite.any():
        return 0.0
    scale = max(np.abs(r[finite]).max(), 1e-30)
    return float(np.abs(g[finite] - r[finite]).max() / scale)


def last_line(text, fallback):
    lines = [l for l in text.strip().splitlines() if l.strip()]
    return lines[-1].strip() if lines else fallback


def check(path, args, shapes, values, files, ort_dir, tmp):
    stem = os.path.basename(path)[:-5] if path.endswith(".onnx") else os.path.basename(path)
    row = {"model": stem, "opset": "?", "status": "ERROR", "error": None, "sy_ms": None,
           "ort_ms": None, "notes": []}
    try:
        model = onnx.load(path, load_external_data=False)
    except Exception as e:  # A model onnx 1.12 cannot parse is still tried below.
        row["error"] = "onnx.load: %s" % e
        return row
    row["opset"] = opset_of(model)
    row["float16"] = is_float16_model(model)
    tolerance = 5e-3 if row["float16"] else args.rtol
    # A float16 copy (tools/onnx_to_float16.py) takes its original's inputs.
    defaults = DEFAULTS.get(re.sub(r"_(f|fp|float)16$", "", stem), {})
    model_shapes = dict(defaults.get("shape", {}))
    model_shapes.update(shapes.get(None, {}))
    model_shapes.update(shapes.get(stem, {}))
    model_values = dict(defaults.get("value", {}))
    model_values.update(values.get(None, {}))
    model_values.update(values.get(stem, {}))
    folder = os.path.join(tmp, stem)
    os.makedirs(folder, exist_ok=True)
    try:
        model_files = dict(files.get(None, {}))
        model_files.update(files.get(stem, {}))
        inputs = make_inputs(model, stem, model_shapes, model_values, model_files, args.seed,
                             args.noise, folder, row["notes"])
    except ValueError as e:
        row["error"] = str(e)
        return row
    outputs = [o.name for o in model.graph.output]
    del model

    # ONNX Runtime first: it is the reference. A second run at the other
    # end of its optimization levels measures how far ONNX Runtime moves
    # from itself: a model that compares floats for equality (MLSD's
    # Equal(x, MaxPool(x))) or whose outputs are all near zero differs by
    # more than 1e-4 between two correct float32 runs.
    levels = [args.optimization]
    if args.spread:
        levels.append("all" if args.optimization != "all" else "disabled")
    ort_files = {level: [os.path.join(folder, "ort_%s_%d.npy" % (level, i))
                         for i in range(len(outputs))] for level in levels}
    spec = {"ort_dir": ort_dir, "model": os.path.abspath(path), "inputs": dict(inputs),
            "outputs": ort_files, "iterations": args.iterations, "levels": levels,
            "result": os.path.join(folder, "ort.json")}
    with open(os.path.join(folder, "ort_spec.json"), "w") as f:
        json.dump(spec, f)
    proc = subprocess.run(["node", os.path.join(tmp, "ort_runner.js"),
                           os.path.join(folder, "ort_spec.json")],
                          capture_output=True, text=True, timeout=args.timeout)
    if proc.returncode != 0:
        row["status"] = "ORT-ERROR"
        row["error"] = last_line(proc.stderr, "exit %d" % proc.returncode)
        return row
    with open(spec["result"]) as f:
        ort_result = json.load(f)
    row["ort_ms"] = ort_result[args.optimization]
    reference = ort_files[args.optimization]
    if args.spread:
        row["spread"] = max(compare(np.load(a), np.load(b))
                            for a, b in zip(reference, ort_files[levels[1]]))

    sy_files = [os.path.join(folder, "sy_%d.npy" % i) for i in range(len(outputs))]
    cmd = [args.switchyard, "run", "--model=" + path,
           "--input=" + ",".join("%s=%s" % (n, p) for n, p in inputs),
           "--output=" + ",".join(sy_files), "--device=" + args.device,
           "--warmup=1", "--iterations=%d" % args.iterations]
    row["command"] = " ".join(cmd)
    start = time.time()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        row["error"] = "switchyard timed out after %.0f s" % args.timeout
        return row
    row["sy_wall_s"] = time.time() - start
    if proc.returncode != 0 or not all(os.path.exists(f) for f in sy_files):
        row["error"] = last_line(proc.stderr + proc.stdout, "exit %d" % proc.returncode)
        return row
    match = re.search(r"forward: median ([0-9.]+) ms", proc.stdout)
    row["sy_ms"] = float(match.group(1)) if match else None

    worst, worst_name = 0.0, ""
    for name, ours, theirs in zip(ort_result["outputs"], sy_files, reference):
        try:
            err = compare(np.load(theirs), np.load(ours))
        except ValueError as e:
            row["status"] = "FAIL"
            row["error"] = "output %s: %s" % (name, e)
            return row
        if err >= worst:
            worst, worst_name = err, name
    row["err"], row["err_output"] = worst, worst_name
    if worst <= tolerance:
        row["status"] = "ok"
    elif args.spread and worst <= 2 * row["spread"]:
        row["status"] = "ok~"  # within twice ONNX Runtime's own spread
    else:
        row["status"] = "FAIL"
    row["tolerance"] = tolerance
    if args.keep:
        subprocess.run(["cp", "-r", folder, args.keep], check=False)
    return row


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="+", help=".onnx files")
    parser.add_argument("--shape", action="append", default=[],
                        help="[STEM/]INPUT=DIMS, e.g. x=1x3x640x640 (repeatable)")
    parser.add_argument("--value", action="append", default=[],
                        help="[STEM/]INPUT=NUMBER fills that input, e.g. sr=16000 (repeatable)")
    parser.add_argument("--input", action="append", default=[],
                        help="[STEM/]INPUT=FILE.npy: that input from a file instead (repeatable)")
    parser.add_argument("--noise", action="store_true",
                        help="standard normal noise for image-shaped inputs too")
    parser.add_argument("--no-spread", dest="spread", action="store_false",
                        help="skip the second ONNX Runtime run (other optimization level)")
    parser.add_argument("--switchyard",
                        default=os.path.join(ROOT, "bazel-bin", "tools", "cli", "switchyard"))
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--iterations", type=int, default=1, help="timed runs of each")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rtol", type=float, default=1e-4, help="float32 tolerance")
    parser.add_argument("--optimization", default="disabled",
                        choices=["disabled", "basic", "extended", "all"],
                        help="ONNX Runtime's graph optimization level")
    parser.add_argument("--timeout", type=float, default=900, help="seconds per run")
    parser.add_argument("--keep", default="", help="copy each model's inputs and outputs here")
    parser.add_argument("--json", default="", help="write the rows as JSON here")
    args = parser.parse_args(argv)
    if args.iterations < 1:
        sys.exit("--iterations must be >= 1")
    if not os.access(args.switchyard, os.X_OK):
        sys.exit("%s: not an executable; bazel build //tools/cli:switchyard, or pass "
                 "--switchyard" % args.switchyard)
    ort_dir = os.environ.get("ORT_NODE_DIR", os.path.join(ROOT, "third_party", "onnxruntime_node"))
    if not os.path.exists(os.path.join(ort_dir, "node_modules", "onnxruntime-node")):
        sys.exit("no onnxruntime-node in %s: run tools/setup.sh --with-peers" % ort_dir)
    shapes = parse_assignments(args.shape, "--shape", parse_dims)
    values = parse_assignments(args.value, "--value", float)
    files = parse_assignments(args.input, "--input", os.path.abspath)
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)

    rows = []
    print("%-34s %5s %-9s %13s %13s %11s %11s  %s" % (
        "model", "opset", "status", "max err/scale", "ORT vs ORT", "switchyard", "onnxruntime",
        "note"))
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "ort_runner.js"), "w") as f:
            f.write(ORT_RUNNER)
        for path in args.models:
            try:
                row = check(path, args, shapes, values, files, ort_dir, tmp)
            except subprocess.TimeoutExpired:
                row = {"model": os.path.basename(path), "opset": "?", "status": "ERROR",
                       "error": "ONNX Runtime timed out", "notes": []}
            rows.append(row)
            note = row.get("error") or ""
            if row.get("float16"):
                note = ("float16 " + note).strip()
            if row["notes"]:
                note = (note + " [" + "; ".join(row["notes"]) + "]").strip()
            number = lambda key, form: "-" if row.get(key) is None else form % row[key]
            print("%-34s %5s %-9s %13s %13s %11s %11s  %s" % (
                row["model"][:34], row["opset"], row["status"], number("err", "%.2e"),
                number("spread", "%.2e"), number("sy_ms", "%.2f ms"),
                number("ort_ms", "%.2f ms"), note), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    passed = sum(r["status"] in ("ok", "ok~") for r in rows)
    skipped = sum(r["status"] == "ORT-ERROR" for r in rows)
    failed = len(rows) - passed - skipped
    print("%d passed, %d failed%s" % (passed, failed,
                                      ", %d skipped" % skipped if skipped else ""))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
