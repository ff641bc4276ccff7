#!/usr/bin/python3
"""Makes the int8 models of the int8 speed table (issue 37) and checks them in ONNX Runtime.

Usage (the one command; a few minutes on 2 cores):
    /usr/bin/python3 tools/export_int8_models.py [--out=benchmarks/onnx_models/int8]
        [--models=resnet50,mobilenet_v2,transformer_encoder] [--forms=qdq,qoperator]
        [--calibrate=8] [--check=8] [--seed=0] [--threads=2]

Float models:
  resnet50, mobilenet_v2   torchvision's architectures with seeded random weights,
                           tools/export_onnx_models.py --size=full --dynamic-batch
                           (benchmarks/onnx_models/<name>_dynamic/model.onnx, opset 13,
                           symbolic batch; exported here when missing)
  transformer_encoder      a BERT-like encoder written here in torch: 4 post-norm
                           layers, d_model 256, 4 heads, feed-forward 1024 (GELU),
                           sequence 128, then the mean over the sequence and a linear
                           head to 10 classes; input float [batch, 128, 256] (the
                           embeddings), opset 17 (LayerNormalization), symbolic batch;
                           written to OUT/transformer_encoder_fp32.onnx
Quantized with tools/quantize_onnx.py into OUT/<name>_<form>.onnx: the CNNs in
each of --forms (qdq and qoperator by default; dynamic makes ConvInteger
models), calibrated once on --calibrate seeded standard-normal images
(OUT/<name>_ranges.json); the transformer dynamically (MatMul and Gemm
weights, per tensor).

Check: ONNX Runtime (benchmarks/onnxruntime_peer.js) runs the float and every
quantized model on the calibration inputs and on --check fresh ones (seed +
1000); top-1 agreement with the float model and max |logit difference| / max
|float logit| for each. Written to OUT/report.json and OUT/README.md with
each file's size and op types.

OUT is git-ignored (benchmarks/onnx_models/ is). The speed table:
benchmarks/compare_int8_models.sh.
"""

import argparse
import json
import os
import subprocess
import sys

import quantize_onnx as qo  # tools/, first on sys.path; it drops the repo root

import numpy as np  # noqa: E402
import onnx  # noqa: E402

ROOT = qo.ROOT
CNNS = ["resnet50", "mobilenet_v2"]
TRANSFORMER = "transformer_encoder"


def export_transformer(path, seed):
    import torch
    from torch import nn

    class Block(nn.Module):
        def __init__(self, d, heads, ff):
            super().__init__()
            self.heads, self.dh = heads, d // heads
            self.q, self.k, self.v, self.o = (nn.Linear(d, d) for _ in range(4))
            self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
            self.ff1, self.ff2 = nn.Linear(d, ff), nn.Linear(ff, d)
            self.act = nn.GELU()

        def forward(self, x):
            b, s, d = x.shape
            split = lambda t: t.reshape(b, s, self.heads, self.dh).transpose(1, 2)  # noqa: E731
            q, k, v = split(self.q(x)), split(self.k(x)), split(self.v(x))
            p = torch.softmax(q @ k.transpose(-1, -2) / self.dh ** 0.5, dim=-1)
            ctx = (p @ v).transpose(1, 2).reshape(b, s, d)
            x = self.ln1(x + self.o(ctx))
            return self.ln2(x + self.ff2(self.act(self.ff1(x))))

    class Encoder(nn.Module):
        def __init__(self, d=256, heads=4, layers=4, ff=1024, classes=10):
            super().__init__()
            self.blocks = nn.ModuleList(Block(d, heads, ff) for _ in range(layers))
            self.head = nn.Linear(d, classes)

        def forward(self, x):
            for blk in self.blocks:
                x = blk(x)
            return self.head(x.mean(dim=1))

    torch.manual_seed(seed)
    model = Encoder().eval()
    x = torch.randn(1, 128, 256)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with torch.no_grad():
        torch.onnx.export(model, x, path, opset_version=17, input_names=["input"],
                          output_names=["output"], do_constant_folding=True,
                          dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}})
    onnx.checker.check_model(path, full_check=True)


def float_model(name, args):
    if name == TRANSFORMER:
        path = os.path.join(args.out, name + "_fp32.onnx")
        if not os.path.exists(path):
            export_transformer(path, args.seed)
        return path, [128, 256]
    path = os.path.join(ROOT, "benchmarks", "onnx_models", name + "_dynamic", "model.onnx")
    if not os.path.exists(path):
        subprocess.run([sys.executable, os.path.join(ROOT, "tools", "export_onnx_models.py"),
                        "--size=full", "--dynamic-batch", "--models=" + name,
                        "--out=" + os.path.join(ROOT, "benchmarks", "onnx_models")],
                       check=True, cwd="/")
    return path, [3, 224, 224]


def agreement(ref, got):
    """Top-1 agreement with the float model, max |difference| / max |float
    logit|, and how well the input-dependent part of the logits (less their
    mean over the inputs) is kept: its correlation with the float one. With
    random weights that part is small (the float row gives its size), so the
    raw top-1 is mostly the same class for every input."""
    ref = ref.reshape(len(ref), -1).astype(np.float64)
    got = got.reshape(len(got), -1).astype(np.float64)
    rc, gc = ref - ref.mean(0), got - got.mean(0)
    corr = float(np.corrcoef(rc.ravel(), gc.ravel())[0, 1]) if len(ref) > 1 else float("nan")
    return {"top1": float(np.mean(ref.argmax(1) == got.argmax(1))),
            "rel_err": float(np.abs(got - ref).max() / max(np.abs(ref).max(), 1e-30)),
            "varying_corr": corr}


def float_facts(ref):
    """Distinct top-1 classes, and the input-dependent part's std / the logits' std."""
    ref = ref.reshape(len(ref), -1).astype(np.float64)
    return {"top1_classes": int(len(set(ref.argmax(1)))),
            "varying_share": float((ref - ref.mean(0)).std() / max(ref.std(), 1e-30))}


def only(outs):
    return next(iter(outs.values()))


def describe(path):
    m = onnx.load(path, load_external_data=False)
    ops = {}
    for n in m.graph.node:
        key = (n.domain + "." if n.domain else "") + n.op_type
        ops[key] = ops.get(key, 0) + 1
    opset = next(o.version for o in m.opset_import if o.domain in ("", "ai.onnx"))
    return {"file": os.path.basename(path), "bytes": os.path.getsize(path), "opset": opset,
            "nodes": len(m.graph.node), "ops": ops}


def write_readme(out, report, args):
    lines = ["# int8 models (issue 37)", "",
             "Made by `/usr/bin/python3 tools/export_int8_models.py %s` (tools/quantize_onnx.py);"
             % " ".join(args.argv), "checked in ONNX Runtime %s (node) on %d calibration and %d "
             "fresh seeded standard-normal inputs." % (report["onnxruntime"], args.calibrate,
                                                      args.check), "",
             "Top-1: how often the quantized model's top-1 is the float model's. With "
             "seeded random weights the logits hardly depend on the input (float rows: the "
             "distinct top-1 classes and the std of the logits less their mean over the "
             "inputs / the std of the logits), so the last column says how well that "
             "input-dependent part survives: its correlation with the float one (fresh inputs).",
             "",
             "| file | form | MB | opset | nodes | top-1 = float (calibration) | "
             "top-1 = float (fresh) | max abs diff / max abs logit (fresh) | "
             "input-dependent part: float share / correlation (fresh) |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in report["models"]:
        c, f = r["calibration"], r["fresh"]
        if r["form"] == "float":
            cells = ["%d class(es)" % c["top1_classes"], "%d class(es)" % f["top1_classes"], "-",
                     "%.2g" % f["varying_share"]]
        else:
            cells = ["%.0f%%" % (100 * c["top1"]), "%.0f%%" % (100 * f["top1"]),
                     "%.3f" % f["rel_err"], "%.2f" % f["varying_corr"]]
        lines.append("| %s | %s | %.2f | %d | %d | %s |" % (
            r["file"], r["form"], r["bytes"] / 1e6, r["opset"], r["nodes"], " | ".join(cells)))
    lines += ["", "Ops per file:", ""]
    for r in report["models"]:
        lines.append("- %s: %s" % (r["file"], ", ".join(
            "%s x%d" % (k, v) for k, v in sorted(r["ops"].items()))))
    with open(os.path.join(out, "README.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default=os.path.join(ROOT, "benchmarks", "onnx_models", "int8"))
    p.add_argument("--models", default=",".join(CNNS + [TRANSFORMER]))
    p.add_argument("--forms", default="qdq,qoperator", help="the CNNs' forms")
    p.add_argument("--calibrate", type=int, default=8)
    p.add_argument("--check", type=int, default=8)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args(argv)
    args.argv = sys.argv[1:] if argv is None else argv
    names = [m for m in args.models.split(",") if m]
    forms = [f for f in args.forms.split(",") if f]
    bad = [m for m in names if m not in CNNS + [TRANSFORMER]]
    bad += [f for f in forms if f not in ("qdq", "qoperator", "dynamic")]
    if bad or args.calibrate < 1 or args.check < 1:
        p.error("unknown model or form %s, or --calibrate/--check below 1" % bad)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(ROOT, "third_party", "onnxruntime_node", "node_modules",
                           "onnxruntime-node", "package.json")) as f:
        report = {"onnxruntime": json.load(f)["version"], "models": []}
    old = os.path.join(args.out, "report.json")
    if os.path.exists(old):  # keep rows of models not remade this time
        with open(old) as f:
            report["models"] = [r for r in json.load(f).get("models", [])
                                if r["model"] not in names]

    for name in names:
        src, shape = float_model(name, args)
        rng_cal = np.random.default_rng(args.seed)
        x_cal = rng_cal.standard_normal([args.calibrate] + shape).astype(np.float32)
        x_new = np.random.default_rng(args.seed + 1000).standard_normal(
            [args.check] + shape).astype(np.float32)
        ref_cal = only(qo.run_ort(src, x_cal, None, args.threads))
        ref_new = only(qo.run_ort(src, x_new, None, args.threads))
        row = dict(describe(src), model=name, form="float")
        row["file"] = os.path.relpath(src, args.out)
        row["calibration"], row["fresh"] = float_facts(ref_cal), float_facts(ref_new)
        report["models"].append(row)
        model_forms = ["dynamic"] if name == TRANSFORMER else forms
        ranges = None
        if any(f != "dynamic" for f in model_forms):
            ranges_path = os.path.join(args.out, name + "_ranges.json")
            graph = qo.Graph(onnx.load(src))
            ranges = qo.calibrate(graph, x_cal, 8, args.threads)
            with open(ranges_path, "w") as f:
                json.dump(ranges, f, indent=0, sort_keys=True)
        for form in model_forms:
            dst = os.path.join(args.out, "%s_%s.onnx" % (name, form))
            model, info = qo.quantize(onnx.load(src), form, ranges,
                                      per_channel=form != "dynamic")
            onnx.save(model, dst)
            row = dict(describe(dst), model=name, form=form, quantizer=info)
            run = lambda x: only(qo.run_ort(dst, x, None, args.threads))  # noqa: E731
            row["calibration"] = agreement(ref_cal, run(x_cal))
            row["fresh"] = agreement(ref_new, run(x_new))
            print("%-34s %6.2f MB  top-1 = float: %3.0f%% (calibration) %3.0f%% (fresh); "
                  "max |diff| / max |logit| %.3f; input-dependent part's correlation %.2f" % (
                      row["file"], row["bytes"] / 1e6, 100 * row["calibration"]["top1"],
                      100 * row["fresh"]["top1"], row["fresh"]["rel_err"],
                      row["fresh"]["varying_corr"]), flush=True)
            report["models"].append(row)
    order = {m: k for k, m in enumerate(CNNS + [TRANSFORMER])}
    report["models"].sort(key=lambda r: (order.get(r["model"], 99), r["form"] != "float",
                                         r["form"]))
    with open(os.path.join(args.out, "report.json"), "w") as f:
        json.dump(report, f, indent=1, sort_keys=True)
        f.write("\n")
    write_readme(args.out, report, args)
    print("wrote %s" % os.path.join(args.out, "README.md"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
