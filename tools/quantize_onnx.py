#!/usr/bin/python3
"""Quantizes a float32 ONNX model to int8, laid out as ONNX Runtime's quantizer writes it.

Usage:
    /usr/bin/python3 tools/quantize_onnx.py MODEL.onnx OUT.onnx --format=qdq|qoperator|dynamic
        [--calibrate=8] [--seed=0] [--calibration-batch=8] [--input-shape=3x224x224]
        [--ranges=FILE.json] [--save-ranges=FILE.json] [--weights=channel|tensor]
        [--opset=N] [--threads=2]

Formats (ONNX Runtime 1.30 runs all three; onnx 1.12 and torch 1.13 here, no
onnxruntime Python package, so this is our own quantizer):

  qdq        QuantizeLinear -> DequantizeLinear pairs on activations (uint8,
             per-tensor, asymmetric, range from calibration, 0 always inside);
             weights as int8 initializers with per-channel symmetric scales
             (axis 0 for Conv, the output axis for MatMul/Gemm) followed by a
             DequantizeLinear; biases as int32 initializers (scale = input scale
             * weight scale, zero point 0) followed by a DequantizeLinear.
             Quantized: Conv, MatMul, Gemm, Add, Mul, Concat, MaxPool,
             AveragePool, GlobalAveragePool (the last five also get their output
             quantized; MaxPool's output shares its input's parameters). Relu and
             Clip right after a quantized node are removed, their range given to
             that node's output (the uint8 range clamps as they did), as ONNX
             Runtime's quantizer does. Softmax, LayerNormalization etc. stay float.
  qoperator  QLinearConv, QLinearMatMul, QGemm, QLinearAdd, QLinearMul,
             QLinearConcat, QLinearGlobalAveragePool, QLinearAveragePool (the
             Q* ops other than QLinearConv/QLinearMatMul in com.microsoft);
             MaxPool, Reshape, Flatten, Transpose run directly on uint8 when their
             input is quantized. QuantizeLinear where a float tensor enters
             (the model's input), DequantizeLinear where a float op or a model
             output needs one.
  dynamic    MatMul (and Gemm with constant B, transA=0) weights int8 (per
             tensor, or per output channel with --weights=channel); activations
             through DynamicQuantizeLinear (one per tensor, shared by its
             consumers) + MatMulInteger + Cast + Mul(x_scale * w_scale) [+ Add
             bias for Gemm]; Conv through ConvInteger with uint8 weights
             (asymmetric, per tensor, as ONNX Runtime's CPU ConvInteger takes).
             Needs no calibration.

Calibration (qdq, qoperator): --calibrate=N seeded standard-normal inputs
(numpy default_rng(seed), the first input's shape with batch N; the repo has no
image set matching these models' random weights) run through ONNX Runtime
(node, benchmarks/onnxruntime_peer.js, graph optimizations off) with every
float intermediate tensor added as a model output, in chunks of
--calibration-batch; min/max per tensor over all of them. --save-ranges writes
them (JSON); --ranges reads them instead of calibrating (one calibration for
both static forms).

--weights: per-channel (default for qdq/qoperator; QLinearMatMul and QGemm get
per-column scales, which ONNX Runtime runs) or per-tensor (default for dynamic).
--opset: keep the model's opset (default; per-channel needs >= 13), or raise
the default domain's import to N (<= 21) when every op in the model has the
same meaning for these types at N; ReduceMean & co. get their axes attribute
turned into the input that opset 18 wants. Anything else is refused.

Rounding: numpy's round (ties to even), saturation to the type's range, as
ONNX Runtime's quantizer does.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

# The repository's onnx/ folder (C++ sources) must never shadow the package.
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.getcwd()) != ROOT]

import numpy as np  # noqa: E402
import onnx  # noqa: E402
from onnx import helper, numpy_helper, TensorProto  # noqa: E402

MS_DOMAIN = "com.microsoft"
PEER = os.path.join(ROOT, "benchmarks", "onnxruntime_peer.js")
FLOAT = TensorProto.FLOAT


class QuantizeError(Exception):
    pass


# ---------------------------------------------------------------------------
# Parameters and values.

def activation_params(rmin, rmax):
    """uint8 asymmetric (scale, zero point) for a float range; 0 is always
    representable (ONNX Runtime's compute_scale_zp)."""
    rmin, rmax = min(float(rmin), 0.0), max(float(rmax), 0.0)
    if rmax == rmin:
        return np.float32(1.0), np.uint8(0)
    scale = np.float32((rmax - rmin) / 255.0)
    zp = np.clip(np.round(-rmin / np.float64(scale)), 0, 255)
    return scale, np.uint8(zp)


def quantize_values(x, scale, zp, qmin, qmax, dtype):
    q = np.round(np.asarray(x, np.float32) / np.asarray(scale, np.float32))
    return np.clip(q + np.asarray(zp, np.float64), qmin, qmax).astype(dtype)


def symmetric_int8(w, axis):
    """int8 weights, zero point 0, scale max|w|/127 per slice along axis
    (axis None: per tensor)."""
    w = np.asarray(w, np.float32)
    if axis is None:
        absmax = np.array(np.abs(w).max() if w.size else 0.0, np.float32)
    else:
        other = tuple(a for a in range(w.ndim) if a != axis)
        absmax = np.abs(w).max(axis=other).astype(np.float32)
    scale = (absmax / np.float32(127.0)).astype(np.float32)
    scale = np.where(scale == 0, np.float32(1.0), scale).astype(np.float32)
    shape = [1] * w.ndim
    if axis is not None:
        shape[axis] = -1
    q = quantize_values(w, scale.reshape(shape) if axis is not None else scale, 0, -127, 127,
                        np.int8)
    return q, scale, np.zeros(scale.shape, np.int8)


def asymmetric_uint8(w):
    """uint8 per-tensor weights (ConvInteger, and constants of Add/Mul/Concat)."""
    w = np.asarray(w, np.float32)
    scale, zp = activation_params(w.min() if w.size else 0.0, w.max() if w.size else 0.0)
    return quantize_values(w, scale, zp, 0, 255, np.uint8), scale, zp


def quantize_bias(b, x_scale, w_scale):
    scale = (np.float32(x_scale) * np.asarray(w_scale, np.float32)).astype(np.float32)
    scale = np.where(scale == 0, np.float32(1.0), scale).astype(np.float32)
    b = np.asarray(b, np.float32).reshape(-1)
    if scale.size not in (1, b.size):
        raise QuantizeError("bias of %d values, weight scales of %d" % (b.size, scale.size))
    scale = np.broadcast_to(scale, b.shape).astype(np.float32).copy()
    q = quantize_values(b, scale, 0, -2**31, 2**31 - 1, np.int32)
    return q, scale, np.zeros(b.shape, np.int32)


# ---------------------------------------------------------------------------
# The model around the nodes.

class Graph:
    """The float model's facts the passes need."""

    def __init__(self, model):
        self.model = model
        g = model.graph
        self.inits = {t.name: t for t in g.initializer}
        self.consts = {}  # name -> np array: initializers and Constant nodes
        for t in g.initializer:
            self.consts[t.name] = numpy_helper.to_array(t)
        for n in g.node:
            if n.op_type == "Constant" and len(n.attribute) == 1 and n.attribute[0].name == "value":
                self.consts[n.output[0]] = numpy_helper.to_array(n.attribute[0].t)
        self.graph_inputs = [i.name for i in g.input if i.name not in self.inits]
        self.graph_outputs = {o.name for o in g.output}
        self.producer = {}
        self.consumers = {}
        for n in g.node:
            for o in n.output:
                self.producer[o] = n
            for i in n.input:
                if i:
                    self.consumers.setdefault(i, []).append(n)
        inferred = onnx.shape_inference.infer_shapes(model)
        self.types = {}
        for vi in list(inferred.graph.value_info) + list(g.input) + list(g.output):
            self.types[vi.name] = vi.type.tensor_type.elem_type

    def is_float(self, name):
        if name in self.consts:
            return self.consts[name].dtype == np.float32
        return self.types.get(name) == FLOAT

    def opset(self):
        for o in self.model.opset_import:
            if o.domain in ("", "ai.onnx"):
                return o.version
        return 0


def attr(node, name, default=None):
    for a in node.attribute:
        if a.name == name:
            return helper.get_attribute_value(a)
    return default


class Emitter:
    """New nodes and initializers, with names made once."""

    def __init__(self):
        self.nodes = []
        self.inits = {}
        self.count = 0

    def init(self, name, array):
        if name not in self.inits:
            self.inits[name] = numpy_helper.from_array(np.asarray(array), name)
        return name

    def node(self, op, inputs, outputs, domain=None, name=None, **attrs):
        self.count += 1
        n = helper.make_node(op, inputs, outputs, name=name or "%s_%d" % (op, self.count), **attrs)
        if domain:
            n.domain = domain
        self.nodes.append(n)
        return n


# ---------------------------------------------------------------------------
# Calibration through ONNX Runtime (node).

def first_input_shape(graph, override):
    g = graph.model.graph
    if len(graph.graph_inputs) != 1:
        raise QuantizeError("calibration feeds one float input; the model has %d: %s" % (
            len(graph.graph_inputs), ", ".join(graph.graph_inputs)))
    vi = next(i for i in g.input if i.name == graph.graph_inputs[0])
    if vi.type.tensor_type.elem_type != FLOAT:
        raise QuantizeError("input %s is not float32" % vi.name)
    if override:
        return [int(d) for d in override.split("x")]
    dims = vi.type.tensor_type.shape.dim
    shape = []
    for k, d in enumerate(dims[1:], 1):
        if not d.HasField("dim_value") or d.dim_value <= 0:
            raise QuantizeError("input %s: dimension %d is symbolic; pass --input-shape" % (
                vi.name, k))
        shape.append(d.dim_value)
    return shape


def calibration_inputs(graph, n, seed, input_shape):
    shape = first_input_shape(graph, input_shape)
    rng = np.random.default_rng(seed)
    return rng.standard_normal([n] + shape).astype(np.float32)


def run_ort(model_path, x, out_path, threads=2, optimization="all"):
    """ONNX Runtime's outputs on x (benchmarks/onnxruntime_peer.js --output):
    {output name: array}."""
    with tempfile.TemporaryDirectory(prefix="zq_ort_") as tmp:
        xin = os.path.join(tmp, "x.npy")
        np.save(xin, x)
        target = out_path or os.path.join(tmp, "out")
        cmd = ["node", PEER, "--model", model_path, "--input", xin, "--output", target,
               "--warmup", "0", "--iterations", "1", "--threads", str(threads),
               "--optimization", optimization]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise QuantizeError("ONNX Runtime failed on %s: %s" % (
                model_path, (r.stderr or r.stdout).strip().splitlines()[-1:]))
        if os.path.isdir(target):
            return {f[:-4]: np.load(os.path.join(target, f)) for f in os.listdir(target)}
        return {"": np.load(target)}


def calibrate(graph, x, batch, threads):
    """{tensor: [min, max]} over x for the float input and every float node
    output."""
    model = onnx.ModelProto()
    model.CopyFrom(graph.model)
    g = model.graph
    names = []
    for n in graph.model.graph.node:
        for o in n.output:
            if o and graph.types.get(o) == FLOAT and o not in graph.consts:
                names.append(o)
    del g.output[:]
    for k, name in enumerate(names):
        out = "zq_calib_%d" % k
        g.node.append(helper.make_node("Identity", [name], [out], name="zq_calib_node_%d" % k))
        g.output.append(helper.make_tensor_value_info(out, FLOAT, None))
    ranges = {graph.graph_inputs[0]: [float(x.min()), float(x.max())]}
    with tempfile.TemporaryDirectory(prefix="zq_calib_") as tmp:
        path = os.path.join(tmp, "calib.onnx")
        onnx.save(model, path)
        for start in range(0, len(x), batch):
            outs = run_ort(path, x[start:start + batch], None, threads, "disabled")
            for k, name in enumerate(names):
                y = outs["zq_calib_%d" % k]
                if not y.size:
                    continue
                lo, hi = float(y.min()), float(y.max())
                if name in ranges:
                    ranges[name] = [min(ranges[name][0], lo), max(ranges[name][1], hi)]
                else:
                    ranges[name] = [lo, hi]
    return ranges


# ---------------------------------------------------------------------------
# Static quantization: which nodes, and Relu/Clip removal.

STATIC_OPS = {"Conv", "MatMul", "Gemm", "Add", "Mul", "Concat", "MaxPool", "AveragePool",
              "GlobalAveragePool"}
# Ops whose output is quantized in both static forms (their consumers see it
# through Q/DQ or directly in uint8).
OUTPUT_QUANTIZED = {"Add", "Mul", "Concat", "AveragePool", "GlobalAveragePool", "MaxPool"}


def static_quantizable(graph, node, ranges):
    """Why node cannot be quantized statically, or None."""
    op = node.op_type
    if op not in STATIC_OPS or node.domain not in ("", "ai.onnx"):
        return "not a quantized op"
    act = lambda t: t in ranges  # noqa: E731
    if op == "Conv":
        w = node.input[1]
        if not act(node.input[0]):
            return "input has no range"
        if w not in graph.consts or graph.consts[w].dtype != np.float32:
            return "weight is not a float constant"
        if len(node.input) > 2 and node.input[2] and node.input[2] not in graph.consts:
            return "bias is not a constant"
        return None
    if op == "Gemm":
        if (attr(node, "transA", 0) or attr(node, "alpha", 1.0) != 1.0
                or attr(node, "beta", 1.0) != 1.0):
            return "transA, alpha or beta not the defaults"
        b = graph.consts.get(node.input[1])
        if not act(node.input[0]) or b is None or b.ndim != 2 or b.dtype != np.float32:
            return "A has no range or B is not a 2-D float constant"
        if len(node.input) > 2 and node.input[2]:
            c = graph.consts.get(node.input[2])
            n_out = b.shape[0] if attr(node, "transB", 0) else b.shape[1]
            if c is None or c.size != n_out:
                return "C is not a constant of N values"
        return None
    if op == "MatMul":
        b = graph.consts.get(node.input[1])
        if not act(node.input[0]):
            return "A has no range"
        if b is not None and (b.ndim != 2 or b.dtype != np.float32):
            return "B is a constant but not a 2-D float matrix"
        if b is None and not act(node.input[1]):
            return "B has no range"
        return None
    if op == "MaxPool" and len([o for o in node.output if o]) != 1:
        return "MaxPool with indices"
    pools = ("MaxPool", "AveragePool", "GlobalAveragePool")
    inputs = [node.input[0]] if op in pools else node.input
    for i in inputs:
        if i in graph.consts:
            if graph.consts[i].dtype != np.float32:
                return "a constant input is not float"
        elif not act(i):
            return "input %s has no range" % i
    if op != "MaxPool" and node.output[0] not in ranges:
        return "output has no range"
    return None


def remove_activations(graph, ranges, fmt):
    """Node list with Relu/Clip folded into the quantized node before them
    (that node now writes the activation's output, whose range clamps as the
    activation did)."""
    nodes = list(graph.model.graph.node)
    removed = set()
    for n in nodes:
        if n.op_type not in ("Relu", "Clip"):
            continue
        a, r = n.input[0], n.output[0]
        p = graph.producer.get(a)
        if (p is None or p.op_type == "MaxPool" or static_quantizable(graph, p, ranges)
                or len(graph.consumers.get(a, [])) != 1 or a in graph.graph_outputs
                or r not in ranges or id(p) in removed):
            continue
        if n.op_type == "Clip":
            lo = graph.consts.get(n.input[1]) if len(n.input) > 1 and n.input[1] else None
            if lo is None or float(lo) < 0:  # the uint8 range always holds 0
                continue
        if fmt == "qdq" and r in graph.graph_outputs:
            continue
        if fmt == "qdq" and not any(static_quantizable(graph, c, ranges) is None
                                    for c in graph.consumers.get(r, [])):
            continue
        for k, o in enumerate(p.output):
            if o == a:
                p.output[k] = r
        removed.add(id(n))
    return [n for n in nodes if id(n) not in removed], len(removed)


# ---------------------------------------------------------------------------
# QDQ.

def quantize_qdq(graph, ranges, per_channel):
    nodes, removed = remove_activations(graph, ranges, "qdq")
    # Producer map after the removal (a quantized node may now write R).
    quantized = [n for n in nodes if static_quantizable(graph, n, ranges) is None]
    qset = {id(n) for n in quantized}
    em = Emitter()
    params = {}  # tensor -> (scale name, zp name)
    renamed = {}  # float tensor -> its DQ output, for consumers

    def act_params_of(t, like=None):
        if t not in params:
            scale, zp = activation_params(*ranges[like or t])
            params[t] = (em.init(t + "_scale", scale), em.init(t + "_zero_point", zp), scale)
        return params[t]

    # Tensors that get Q -> DQ after their producer (or at the start).
    to_qdq = {}  # tensor -> tensor whose range it uses
    for n in quantized:
        op = n.op_type
        ins = n.input[:1] if op in ("Conv", "Gemm", "MaxPool", "AveragePool",
                                     "GlobalAveragePool") else [i for i in n.input if i]
        for i in ins:
            if i not in graph.consts and not (op == "MatMul" and i == n.input[1]
                                              and i in graph.consts):
                to_qdq.setdefault(i, i)
        if op in OUTPUT_QUANTIZED:
            o = n.output[0]
            if o not in graph.graph_outputs:
                to_qdq[o] = n.input[0] if op == "MaxPool" else o
    # MaxPool shares its input's parameters: the input's must exist first.
    pre = []  # weight/bias/constant DQs, emitted first

    def dq_const(name, q, scale, zp, axis, suffix="_quantized"):
        qn = em.init(name + suffix, q)
        sn = em.init(name + "_scale", scale)
        zn = em.init(name + "_zero_point", zp)
        out = name + "_DequantizeLinear_Output"
        kw = {"axis": axis} if axis is not None and np.ndim(scale) == 1 else {}
        pre.append(helper.make_node("DequantizeLinear", [qn, sn, zn], [out],
                                    name=name + "_DequantizeLinear", **kw))
        return out

    body = []
    const_dq = {}

    def emit_qdq(t):
        like = to_qdq[t]
        s, z, _ = act_params_of(like)
        q_out = t + "_QuantizeLinear_Output"
        d_out = t + "_DequantizeLinear_Output"
        body.append(helper.make_node("QuantizeLinear", [t, s, z], [q_out],
                                     name=t + "_QuantizeLinear"))
        body.append(helper.make_node("DequantizeLinear", [q_out, s, z], [d_out],
                                     name=t + "_DequantizeLinear"))
        renamed[t] = d_out

    for t in graph.graph_inputs:
        if t in to_qdq:
            emit_qdq(t)
    for n in nodes:
        new = onnx.NodeProto()
        new.CopyFrom(n)
        for k, i in enumerate(new.input):
            if i in renamed:
                new.input[k] = renamed[i]
        if id(n) in qset:
            op = n.op_type
            if op in ("Conv", "Gemm", "MatMul") and n.input[1] in graph.consts:
                w = graph.consts[n.input[1]]
                if op == "Conv":
                    axis = 0
                elif op == "Gemm":
                    axis = 0 if attr(n, "transB", 0) else 1
                else:
                    axis = 1
                q, ws, wz = symmetric_int8(w, axis if per_channel else None)
                new.input[1] = dq_const(n.input[1], q, ws, wz, axis)
                if len(n.input) > 2 and n.input[2] and op != "MatMul":
                    x_scale = act_params_of(to_qdq.get(n.input[0], n.input[0]))[2]
                    bq, bs, bz = quantize_bias(graph.consts[n.input[2]], x_scale, ws)
                    new.input[2] = dq_const(n.input[2], bq, bs, bz, 0)
            elif op in ("Add", "Mul", "Concat"):
                for k, i in enumerate(n.input):
                    if i in graph.consts:
                        if i not in const_dq:
                            q, s, z = asymmetric_uint8(graph.consts[i])
                            const_dq[i] = dq_const(i, q, s, z, None)
                        new.input[k] = const_dq[i]
        body.append(new)
        for o in n.output:
            if o in to_qdq:
                emit_qdq(o)
    return pre + body, em.inits, {"relu_clip_removed": removed, "quantized_nodes": len(quantized)}


# ---------------------------------------------------------------------------
# QOperator.

PASS_THROUGH = {"MaxPool", "Reshape", "Flatten", "Transpose"}


def quantize_qoperator(graph, ranges, per_channel):
    nodes, removed = remove_activations(graph, ranges, "qoperator")
    em = Emitter()
    qform = {}  # tensor -> (uint8 name, scale name, zp name, scale value)
    fform = {t: t for t in graph.graph_inputs}
    fform.update({t: t for t in graph.consts})
    counts = {}

    def params_of(t, like=None):
        scale, zp = activation_params(*ranges[like or t])
        return em.init(t + "_scale", scale), em.init(t + "_zero_point", zp), scale

    def get_q(t):
        if t in qform:
            return qform[t]
        if t in graph.consts:  # a constant operand of Add/Mul/Concat
            q, s, z = asymmetric_uint8(graph.consts[t])
            qform[t] = (em.init(t + "_quantized", q), em.init(t + "_scale", s),
                        em.init(t + "_zero_point", z), s)
            return qform[t]
        s, z, sv = params_of(t)
        out = t + "_quantized"
        em.node("QuantizeLinear", [fform[t], s, z], [out], name=t + "_QuantizeLinear")
        qform[t] = (out, s, z, sv)
        return qform[t]

    def get_f(t):
        if t not in fform:
            q, s, z, _ = qform[t]
            em.node("DequantizeLinear", [q, s, z], [t], name=t + "_DequantizeLinear")
            fform[t] = t
        return fform[t]

    def out_q(t):
        s, z, sv = params_of(t)
        qform[t] = (t + "_quantized", s, z, sv)
        return qform[t]

    for n in nodes:
        op = n.op_type
        why = static_quantizable(graph, n, ranges)
        single = len([o for o in n.output if o]) == 1  # MaxPool without indices
        if (op in PASS_THROUGH and single and n.domain in ("", "ai.onnx")
                and (n.input[0] in qform or op == "MaxPool" and why is None)):
            x = get_q(n.input[0])
            ins = [x[0]] + [get_f(i) if i else "" for i in n.input[1:]]
            new = em.node(op, ins, [n.output[0] + "_quantized"], name=n.name)
            new.attribute.extend(n.attribute)
            qform[n.output[0]] = (n.output[0] + "_quantized",) + x[1:]
        elif why is None:
            y = out_q(n.output[0])
            name = n.name or None
            if op == "Conv":
                x = get_q(n.input[0])
                wq, ws, wz = symmetric_int8(graph.consts[n.input[1]], 0 if per_channel else None)
                w = n.input[1]
                ins = list(x[:3]) + [em.init(w + "_quantized", wq), em.init(w + "_scale", ws),
                                     em.init(w + "_zero_point", wz), y[1], y[2]]
                if len(n.input) > 2 and n.input[2]:
                    bq, _, _ = quantize_bias(graph.consts[n.input[2]], x[3], ws)
                    ins.append(em.init(n.input[2] + "_quantized", bq))
                new = em.node("QLinearConv", ins, [y[0]], name=name)
                new.attribute.extend(n.attribute)
            elif op == "Gemm":
                x = get_q(n.input[0])
                trans_b = attr(n, "transB", 0)
                wq, ws, wz = symmetric_int8(graph.consts[n.input[1]],
                                            (0 if trans_b else 1) if per_channel else None)
                w = n.input[1]
                ins = list(x[:3]) + [em.init(w + "_quantized", wq), em.init(w + "_scale", ws),
                                     em.init(w + "_zero_point", wz)]
                if len(n.input) > 2 and n.input[2]:
                    bq, _, _ = quantize_bias(graph.consts[n.input[2]], x[3], ws)
                    ins.append(em.init(n.input[2] + "_quantized", bq))
                else:
                    ins.append("")
                ins += [y[1], y[2]]
                em.node("QGemm", ins, [y[0]], domain=MS_DOMAIN, name=name, transB=trans_b)
            elif op == "MatMul":
                a = get_q(n.input[0])
                if n.input[1] in graph.consts:
                    w = n.input[1]
                    wq, ws, wz = symmetric_int8(graph.consts[w], 1 if per_channel else None)
                    b = (em.init(w + "_quantized", wq), em.init(w + "_scale", ws),
                         em.init(w + "_zero_point", wz))
                else:
                    b = get_q(n.input[1])[:3]
                em.node("QLinearMatMul", list(a[:3]) + list(b) + [y[1], y[2]], [y[0]], name=name)
            elif op in ("Add", "Mul"):
                a, b = get_q(n.input[0]), get_q(n.input[1])
                em.node("QLinear" + op, list(a[:3]) + list(b[:3]) + [y[1], y[2]], [y[0]],
                        domain=MS_DOMAIN, name=name)
            elif op == "Concat":
                ins = [y[1], y[2]]
                for i in n.input:
                    ins += list(get_q(i)[:3])
                em.node("QLinearConcat", ins, [y[0]], domain=MS_DOMAIN, name=name,
                        axis=attr(n, "axis"))
            elif op in ("GlobalAveragePool", "AveragePool"):
                x = get_q(n.input[0])
                new = em.node("QLinear" + op, list(x[:3]) + [y[1], y[2]], [y[0]],
                              domain=MS_DOMAIN, name=name, channels_last=0)
                if op == "AveragePool":
                    new.attribute.extend(n.attribute)
            counts[op] = counts.get(op, 0) + 1
        else:
            if op == "Constant":
                em.nodes.append(n)
                fform[n.output[0]] = n.output[0]
                continue
            new = onnx.NodeProto()
            new.CopyFrom(n)
            for k, i in enumerate(n.input):
                if i:
                    new.input[k] = get_f(i)
            em.nodes.append(new)
            for o in n.output:
                fform[o] = o
    for o in graph.model.graph.output:
        get_f(o.name)
    return em.nodes, em.inits, {"relu_clip_removed": removed, "quantized_nodes": counts}


# ---------------------------------------------------------------------------
# Dynamic.

def quantize_dynamic(graph, per_channel):
    em = Emitter()
    dyn = {}  # activation -> (uint8, scale, zp)
    counts = {}

    def dynamic_q(t):
        if t not in dyn:
            outs = [t + "_quantized", t + "_scale", t + "_zero_point"]
            em.node("DynamicQuantizeLinear", [t], outs, name=t + "_DynamicQuantizeLinear")
            dyn[t] = outs
        return dyn[t]

    for n in graph.model.graph.node:
        op = n.op_type
        w = graph.consts.get(n.input[1]) if len(n.input) > 1 else None
        base = n.name or n.output[0]
        ok = w is not None and w.dtype == np.float32 and n.input[0] not in graph.consts
        if op == "Gemm":
            c = graph.consts.get(n.input[2]) if len(n.input) > 2 and n.input[2] else None
            ok = (ok and w.ndim == 2 and not attr(n, "transA", 0)
                  and (len(n.input) < 3 or not n.input[2] or c is not None))
        elif op == "MatMul":
            ok = ok and w.ndim == 2
        elif op == "Conv":
            ok = ok and (len(n.input) < 3 or not n.input[2] or n.input[2] in graph.consts)
        else:
            ok = False
        if not ok:
            em.nodes.append(n)
            continue
        x = dynamic_q(n.input[0])
        wname = n.input[1]
        if op == "Conv":
            wq, ws, wz = asymmetric_uint8(w)
            integer = em.node("ConvInteger", [x[0], em.init(wname + "_quantized", wq), x[2],
                                              em.init(wname + "_zero_point", wz)],
                              [base + "_output_quantized"], name=base + "_quant")
            integer.attribute.extend(n.attribute)
        else:
            if op == "Gemm" and attr(n, "transB", 0):
                w = w.T
            wq, ws, wz = symmetric_int8(np.ascontiguousarray(w), 1 if per_channel else None)
            if op == "Gemm":
                ws = (ws * np.float32(attr(n, "alpha", 1.0))).astype(np.float32)
                wname = wname + "_gemm"
            em.node("MatMulInteger", [x[0], em.init(wname + "_quantized", wq), x[2],
                                      em.init(wname + "_zero_point", wz)],
                    [base + "_output_quantized"], name=base + "_quant")
        em.node("Cast", [base + "_output_quantized"], [base + "_output_quantized_cast"],
                name=base + "_cast", to=FLOAT)
        em.node("Mul", [x[1], em.init(wname + "_scale", ws)], [base + "_scales_mul"],
                name=base + "_scales_mul")
        has_bias = len(n.input) > 2 and n.input[2]
        mul_out = base + "_output_scaled" if has_bias else n.output[0]
        em.node("Mul", [base + "_output_quantized_cast", base + "_scales_mul"], [mul_out],
                name=base + "_output_scale_mul")
        if has_bias:
            b = graph.consts[n.input[2]].astype(np.float32)
            if op == "Conv":
                b = b.reshape([-1] + [1] * (w.ndim - 2))
            else:
                b = b * np.float32(attr(n, "beta", 1.0))
            em.node("Add", [mul_out, em.init(n.input[2] + "_bias", b)], [n.output[0]],
                    name=base + "_bias_add")
        counts[op] = counts.get(op, 0) + 1
    return em.nodes, em.inits, {"quantized_nodes": counts}


# ---------------------------------------------------------------------------
# Opset.

# Ops whose meaning for float/uint8/int8/int32/int64 is the same from 13 to 21
# (later versions only add types or attributes whose defaults keep it).
SAME_TO_21 = {
    "Abs", "Add", "AveragePool", "BatchNormalization", "Cast", "Clip", "Concat", "Constant",
    "ConstantOfShape", "Conv", "ConvInteger", "DequantizeLinear", "Div", "DynamicQuantizeLinear",
    "Equal", "Erf", "Exp", "Expand", "Flatten", "Gather", "Gemm", "GlobalAveragePool",
    "Identity", "LayerNormalization", "MatMul", "MatMulInteger", "MaxPool", "Mul", "Neg", "Pad",
    "Pow", "QLinearConv", "QLinearMatMul", "QuantizeLinear", "Relu", "Reshape", "Shape",
    "Sigmoid", "Slice", "Softmax", "Split", "Sqrt", "Squeeze", "Sub", "Tanh", "Transpose",
    "Unsqueeze", "Where", "ReduceSum",
}
AXES_TO_INPUT_18 = {"ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1",
                    "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"}


def raise_opset(model, target):
    current = next(o for o in model.opset_import if o.domain in ("", "ai.onnx"))
    if target < current.version:
        raise QuantizeError("--opset=%d is below the model's %d" % (target, current.version))
    if target == current.version:
        return
    if current.version < 13 or target > 21:
        raise QuantizeError("--opset raises 13..21 only (model %d, asked %d)" % (
            current.version, target))
    for n in model.graph.node:
        if n.domain not in ("", "ai.onnx"):
            continue
        if n.op_type in AXES_TO_INPUT_18 and target >= 18:
            axes = attr(n, "axes")
            keep = [a for a in n.attribute if a.name != "axes"]
            del n.attribute[:]
            n.attribute.extend(keep)
            if axes is not None:
                name = (n.name or n.output[0]) + "_axes"
                model.graph.initializer.append(numpy_helper.from_array(
                    np.array(axes, np.int64), name))
                n.input.append(name)
        elif n.op_type not in SAME_TO_21 and n.op_type not in AXES_TO_INPUT_18:
            raise QuantizeError("--opset=%d: op %s (node %s) is not known to keep its meaning "
                                "from opset %d; keep the model's opset" % (
                                    target, n.op_type, n.name, current.version))
    current.version = target
    model.ir_version = max(model.ir_version, 10 if target >= 21 else 9 if target >= 19 else 8)


# ---------------------------------------------------------------------------

def build(graph, nodes, inits, fmt):
    src = graph.model
    g = src.graph
    used = {i for n in nodes for i in n.input} | {o.name for o in g.output}
    # Constant nodes left without a consumer (a removed Clip's bounds).
    nodes = [n for n in nodes if n.op_type != "Constant" or n.output[0] in used]
    keep = [t for t in g.initializer if t.name in used and t.name not in inits]
    new_inits = keep + [t for name, t in inits.items() if name in used]
    graph_proto = helper.make_graph(nodes, g.name, list(g.input), list(g.output),
                                    initializer=new_inits)
    # Inputs listed as initializers (IR < 4 style) must not dangle.
    names = {t.name for t in new_inits}
    del graph_proto.input[:]
    graph_proto.input.extend([i for i in g.input if i.name not in graph.inits or i.name in names])
    model = helper.make_model(graph_proto, opset_imports=list(src.opset_import),
                              producer_name="switchyard tools/quantize_onnx.py",
                              producer_version=fmt)
    model.ir_version = src.ir_version
    if fmt == "qoperator" and not any(o.domain == MS_DOMAIN for o in model.opset_import):
        model.opset_import.append(helper.make_opsetid(MS_DOMAIN, 1))
    return model


def quantize(model, fmt, ranges=None, per_channel=True, opset=None):
    graph = Graph(model)
    if fmt != "dynamic" and per_channel and graph.opset() < 13:
        raise QuantizeError("per-channel weights need opset >= 13 (the model has %d): "
                            "--weights=tensor or --opset=13" % graph.opset())
    if fmt == "dynamic" and graph.opset() < 11:
        raise QuantizeError("DynamicQuantizeLinear needs opset >= 11")
    if fmt == "qdq":
        nodes, inits, info = quantize_qdq(graph, ranges, per_channel)
    elif fmt == "qoperator":
        nodes, inits, info = quantize_qoperator(graph, ranges, per_channel)
    else:
        nodes, inits, info = quantize_dynamic(graph, per_channel)
    out = build(graph, nodes, inits, fmt)
    if opset:
        raise_opset(out, opset)
    return out, info


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="\n".join(__doc__.splitlines()[1:]))
    p.add_argument("model")
    p.add_argument("out")
    p.add_argument("--format", choices=["qdq", "qoperator", "dynamic"], required=True)
    p.add_argument("--calibrate", type=int, default=8)
    p.add_argument("--calibration-batch", type=int, default=8)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--input-shape", default="", help="the first input's shape without batch")
    p.add_argument("--ranges", help="read calibrated ranges (JSON) instead of calibrating")
    p.add_argument("--save-ranges", help="write the calibrated ranges (JSON)")
    p.add_argument("--weights", choices=["channel", "tensor"])
    p.add_argument("--opset", type=int)
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args(argv)
    if args.calibrate < 1 or args.calibration_batch < 1:
        p.error("--calibrate and --calibration-batch must be >= 1")
    weights = args.weights or ("tensor" if args.format == "dynamic" else "channel")
    per_channel = weights == "channel"
    try:
        model = onnx.load(args.model)
        ranges = None
        if args.format != "dynamic":
            if args.ranges:
                with open(args.ranges) as f:
                    ranges = json.load(f)
            else:
                graph = Graph(model)
                x = calibration_inputs(graph, args.calibrate, args.seed, args.input_shape)
                ranges = calibrate(graph, x, args.calibration_batch, args.threads)
            if args.save_ranges:
                with open(args.save_ranges, "w") as f:
                    json.dump(ranges, f, indent=0, sort_keys=True)
        out, info = quantize(model, args.format, ranges, per_channel, args.opset)
    except (QuantizeError, OSError, ValueError) as e:
        print("quantize_onnx.py: %s" % e, file=sys.stderr)
        return 1
    onnx.save(out, args.out)
    ops = sorted({(n.domain + "." if n.domain else "") + n.op_type for n in out.graph.node})
    print("wrote %s (%.2f MB, %s): %s; ops %s" % (
        args.out, os.path.getsize(args.out) / 1e6, args.format,
        json.dumps(info, sort_keys=True), ", ".join(ops)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
