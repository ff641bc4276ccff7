"""Quantized models (issue 37), suite `quant`: QuantizeLinear and
DequantizeLinear at every opset ONNX Runtime runs them (per-tensor, per-axis,
blocked; 8-bit, 16-bit, 4-bit and float8 types), DynamicQuantizeLinear,
MatMulInteger, ConvInteger, QLinearConv, QLinearMatMul, the com.microsoft
QLinear* ops ONNX Runtime's quantizer writes, QDQ patterns as that quantizer
writes them, the data-movement ops QOperator models apply to uint8/int8
tensors directly, and hostile quantization parameters that must be refused.

Every case name starts with `quant_`, so
    /usr/bin/python3 tools/onnx_cases/make_cases.py --filter=quant_
regenerates this suite alone. Each case draws its values from its own
generator, seeded by its name, so filtering does not change them.

Forms Switchyard refuses for now are written as known gaps
(KNOWN_GAP_CASES); cases ending `_nan` feed NaN and infinities.
"""

import zlib

import numpy as np
from onnx import TensorProto, helper, shape_inference

from case_registry import case, known_gap, model, refusal

SUITE = "quant"
OPSET_MS = {"com.microsoft": 1}
F32, F16 = TensorProto.FLOAT, TensorProto.FLOAT16
U8, I8 = TensorProto.UINT8, TensorProto.INT8
U16, I16, I32 = TensorProto.UINT16, TensorProto.INT16, TensorProto.INT32
# Types onnx 1.12 has no names for (ONNX 1.14+ numbering).
FLOAT8 = {"float8e4m3fn": 17, "float8e4m3fnuz": 18, "float8e5m2": 19,
          "float8e5m2fnuz": 20}
UINT4, INT4 = 21, 22
# ONNX's release table: the IR version each opset came with.
IR = {10: 5, 11: 6, 13: 7, 19: 9, 21: 10, 23: 11, 24: 12, 25: 13}
NAN, INF = np.float32("nan"), np.float32("inf")


def _rng(name):
    return np.random.default_rng(zlib.crc32(name.encode()))


# What ONNX Runtime runs and Switchyard refuses for now, with the text of
# its refusal: by a type named in the case's name, or by the whole name.
KNOWN_GAP_TYPES = {}
KNOWN_GAP_CASES = {}


def _known_gap(name):
    for token in name.split("_"):
        if token in KNOWN_GAP_TYPES:
            return KNOWN_GAP_TYPES[token]
    return KNOWN_GAP_CASES.get(name)


def qcase(name):
    """A match case `quant_<name>` (a known gap if KNOWN_GAP_TYPES or
    KNOWN_GAP_CASES names it); the
    builder gets its own seeded rng."""
    def register(fn):
        gap = _known_gap(name)
        kind = known_gap(SUITE, "quant_" + name, gap) if gap else case(SUITE, "quant_" + name)
        kind(lambda: fn(_rng(name)))
        return fn
    return register


def qrefusal(name, expected_error):
    def register(fn):
        refusal(SUITE, "quant_" + name, expected_error)(lambda: fn(_rng(name)))
        return fn
    return register


def _qmodel(nodes, inputs, outputs, opset, inits=None, out_types=None, raw_inits=None,
            ms=False):
    m, feeds = model(nodes, inputs, outputs, opset, initializers=inits, out_types=out_types,
                     ir_version=IR.get(opset, 8), extra_opsets=OPSET_MS if ms else None)
    for t in raw_inits or []:
        m.graph.initializer.append(t)
    if opset < 11:
        # Switchyard converts opset-10 models to 11 with ONNX's version
        # converter, whose checker wants graph outputs with shapes.
        inferred = shape_inference.infer_shapes(m)
        for out, known in zip(m.graph.output, inferred.graph.output):
            if known.type.tensor_type.HasField("shape"):
                out.type.CopyFrom(known.type)
    return m, feeds


def _raw(name, elem_type, dims, data):
    """An initializer of a type onnx 1.12 cannot make from numpy (float8,
    int4): raw little-endian bytes."""
    t = TensorProto()
    t.name, t.data_type = name, elem_type
    t.dims.extend(dims)
    t.raw_data = bytes(data)
    return t


def _pack4(values):
    """4-bit values (ints) packed two a byte, the first in the low nibble."""
    v = [int(x) & 0xF for x in values] + ([0] if len(values) % 2 else [])
    return bytes(v[i] | (v[i + 1] << 4) for i in range(0, len(v), 2))


def _unif(rng, *shape, lo=-4.0, hi=4.0, dtype=np.float32):
    return rng.uniform(lo, hi, size=shape).astype(dtype)


def _qvals(rng, shape, dtype):
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=shape, endpoint=True).astype(dtype)


def _scales(rng, n, lo=0.01, hi=0.1, dtype=np.float32):
    return rng.uniform(lo, hi, size=n).astype(dtype)


def _zps(rng, shape, dtype, spread=20):
    mid = 128 if dtype == np.uint8 else 32768 if dtype == np.uint16 else 0
    return (mid + rng.integers(-spread, spread, size=shape, endpoint=True)).astype(dtype)


def _elem(dtype):
    return {np.uint8: U8, np.int8: I8, np.uint16: U16, np.int16: I16,
            np.int32: I32}[np.dtype(dtype).type]


# --- QuantizeLinear ----------------------------------------------------------

def _q_input(rng, scale, lo, hi):
    """Random values, exact ties (x / scale = k + .5), values just past the
    output range, and large values, at a power-of-two scale exact ties stay
    ties."""
    ties = np.array([0.5, 1.5, 2.5, 3.5, -0.5, -1.5, -2.5, -3.5, 4.5, -4.5], np.float32)
    edges = np.array([hi - 0.5, hi + 0.5, hi + 1, lo - 0.5, lo + 0.5, lo - 1], np.float32)
    big = np.array([1e4, -1e4, 1e30, -1e30, 3e38, -3e38], np.float32) * scale
    random = _unif(rng, 26, lo=lo * scale * 1.2, hi=hi * scale * 1.2)
    return np.concatenate([random, ties * scale, edges * scale, big]).astype(np.float32)


def _quantize(x, scale, zp, opset, attrs=None, out=None, scale_input=False):
    """QuantizeLinear(x, scale[, zp]); scale and zp are initializers unless
    scale_input (then both graph inputs)."""
    names = ["x", "s"] + (["z"] if zp is not None else [])
    params = {"s": scale}
    if zp is not None:
        params["z"] = zp
    out = out if out is not None else (_elem(zp.dtype) if zp is not None else U8)
    node = helper.make_node("QuantizeLinear", names, ["y"], **(attrs or {}))
    inputs = {"x": x, **params} if scale_input else {"x": x}
    return _qmodel([node], inputs, ["y"], opset, inits=None if scale_input else params,
                   out_types={"y": out})


def _register_q_per_tensor():
    for opset in (10, 13, 19, 21, 23, 24, 25):
        # Scale 0.037 (not a power of two): the division, not a multiply by
        # the reciprocal, decides values near the ties.
        @qcase(f"q{opset}_per_tensor_u8")
        def _(rng, opset=opset):
            s = np.float32(0.037)
            return _quantize(_q_input(rng, s, -128, 127), np.array(s), np.array(128, np.uint8),
                             opset)

        @qcase(f"q{opset}_per_tensor_i8")
        def _(rng, opset=opset):
            s = np.float32(0.25)
            return _quantize(_q_input(rng, s, -128, 127), np.array(s), np.array(-3, np.int8),
                             opset)

        @qcase(f"q{opset}_no_zero_point")
        def _(rng, opset=opset):
            # No y_zero_point: uint8, zero point 0.
            s = np.float32(0.125)
            return _quantize(_q_input(rng, s, 0, 255), np.array(s), None, opset)


_register_q_per_tensor()


@qcase("q13_ties_u8")
def _(rng):
    # x / scale = k + 0.5 exactly: round half to even, then add the zero point.
    k = np.array([0.5, 1.5, 2.5, 3.5, -0.5, -1.5, -2.5, -3.5, 126.5, -126.5, 127.5, -128.5],
                 np.float32)
    return _quantize(k * 0.5, np.array(0.5, np.float32), np.array(128, np.uint8), 13)


@qcase("q13_ties_i8")
def _(rng):
    k = np.array([0.5, 1.5, 2.5, 3.5, -0.5, -1.5, -2.5, -3.5, 126.5, -127.5, 127.5, -128.5],
                 np.float32)
    return _quantize(k * 0.25, np.array(0.25, np.float32), np.array(0, np.int8), 13)


@qcase("q13_saturate_large")
def _(rng):
    # Far outside the range and outside int32's: must clamp, not wrap.
    x = np.array([3.4e38, -3.4e38, 1e10, -1e10, 2.2e9, -2.2e9, 4.3e9, 1e6, -1e6, 256, -129,
                  255.4, -128.4], np.float32)
    return _quantize(x, np.array(1.0, np.float32), np.array(0, np.int8), 13)


@qcase("q13_rank1_per_axis")
def _(rng):
    # A rank-1 x with a 1-D scale of its length: ONNX Runtime quantizes per
    # element along axis 0 (the spec text says rank 1 is per-tensor).
    return _quantize(np.array([0, 1, 100, 255, -7], np.float32),
                     np.array([0.1, 1, 2, 3, 0.5], np.float32),
                     np.array([3, 4, 5, 6, 7], np.uint8), 13, {"axis": 0})


@qcase("q13_scale_as_input")
def _(rng):
    # Scale and zero point fed at run time, not initializers.
    return _quantize(_unif(rng, 3, 4), np.array(0.05, np.float32), np.array(120, np.uint8), 13,
                     scale_input=True)


def _register_q_per_axis():
    # axis: (x shape, axis attribute or None for the default 1)
    forms = {"axis0": 0, "axis1_default": None, "axis_last": -1, "axis_neg2": -2, "axis2": 2}
    for opset in (13, 19, 21, 23, 25):
        for form, axis in forms.items():
            if opset != 13 and form not in ("axis0", "axis_last"):
                continue
            for dt in (np.uint8, np.int8):
                tag = "u8" if dt == np.uint8 else "i8"

                @qcase(f"q{opset}_per_{form}_{tag}")
                def _(rng, opset=opset, axis=axis, dt=dt):
                    x = _unif(rng, 2, 3, 4)
                    dim = x.shape[1 if axis is None else axis]
                    attrs = {} if axis is None else {"axis": axis}
                    return _quantize(x, _scales(rng, dim), _zps(rng, dim, dt), opset, attrs)


_register_q_per_axis()


def _register_q_blocked():
    for opset in (21, 23, 24, 25):
        @qcase(f"q{opset}_blocked_axis1_u8")
        def _(rng, opset=opset):
            # dim 10, block 4: blocks of 4, 4 and a last partial block of 2.
            x = _unif(rng, 3, 10)
            return _quantize(x, _scales(rng, (3, 3)), _zps(rng, (3, 3), np.uint8), opset,
                             {"axis": 1, "block_size": 4})

        @qcase(f"q{opset}_blocked_axis0_i8")
        def _(rng, opset=opset):
            x = _unif(rng, 5, 4)
            return _quantize(x, _scales(rng, (3, 4)), _zps(rng, (3, 4), np.int8), opset,
                             {"axis": 0, "block_size": 2})

    @qcase("q21_blocked_axis_neg1_3d_i8")
    def _(rng):
        x = _unif(rng, 2, 3, 7)
        return _quantize(x, _scales(rng, (2, 3, 3)), _zps(rng, (2, 3, 3), np.int8), 21,
                         {"axis": -1, "block_size": 3})

    @qcase("q21_blocked_axis1_3d_no_zero_point")
    def _(rng):
        x = _unif(rng, 2, 6, 3, lo=0, hi=4)
        return _quantize(x, _scales(rng, (2, 2, 3)), None, 21, {"axis": 1, "block_size": 4})

    @qcase("q21_blocked_block_not_minimal")
    def _(rng):
        # dim 10 with 2 scales: any block size in [5, 9] is valid; 7 makes
        # blocks of 7 and 3.
        x = _unif(rng, 2, 10)
        return _quantize(x, _scales(rng, (2, 2)), _zps(rng, (2, 2), np.uint8), 21,
                         {"axis": 1, "block_size": 7})

    @qcase("q21_blocked_block_over_dim")
    def _(rng):
        # One block longer than the axis: one scale covers it all.
        x = _unif(rng, 3, 5)
        return _quantize(x, _scales(rng, (3, 1)), _zps(rng, (3, 1), np.int8), 21,
                         {"axis": 1, "block_size": 16})

    @qcase("q21_blocked_huge_block_size")
    def _(rng):
        # 2^62: ceil(dim / block) must not be computed as (dim + block - 1) / block.
        x = _unif(rng, 2, 5)
        return _quantize(x, _scales(rng, (2, 1)), _zps(rng, (2, 1), np.int8), 21,
                         {"axis": 1, "block_size": 2 ** 62})


_register_q_blocked()


# float16 x and scale (opset 19+).
@qcase("q19_float16_per_tensor")
def _(rng):
    s = np.float16(0.25)
    # The random values, ties and edges of _q_input, and large halves.
    x = np.concatenate([_q_input(rng, np.float32(s), -128, 127)[:-6],
                        np.array([60000, -60000, 1000, -1000], np.float32)]).astype(np.float16)
    return _quantize(x, np.array(s), np.array(5, np.int8), 19)


@qcase("q21_float16_per_axis")
def _(rng):
    x = _unif(rng, 2, 3, 4, dtype=np.float16)
    return _quantize(x, _scales(rng, 3, dtype=np.float16), _zps(rng, 3, np.uint8), 21)


@qcase("q21_float16_blocked")
def _(rng):
    x = _unif(rng, 2, 10, dtype=np.float16)
    return _quantize(x, _scales(rng, (2, 3), dtype=np.float16), _zps(rng, (2, 3), np.int8), 21,
                     {"axis": 1, "block_size": 4})


@qcase("q21_output_dtype_int8")
def _(rng):
    # No zero point; output_dtype picks int8.
    s = np.float32(0.25)
    return _quantize(_q_input(rng, s, -128, 127), np.array(s), None, 21,
                     {"output_dtype": TensorProto.INT8}, out=I8)


@qcase("q21_output_dtype_matches_zero_point")
def _(rng):
    return _quantize(_unif(rng, 12), np.array(0.05, np.float32), np.array(3, np.int8), 21,
                     {"output_dtype": TensorProto.INT8})


# 16-bit outputs (opset 21+).
for _opset in (21, 23):
    for _dt, _tag in ((np.int16, "int16"), (np.uint16, "uint16")):
        @qcase(f"q{_opset}_per_tensor_{_tag}")
        def _(rng, opset=_opset, dt=_dt):
            s = np.float32(0.0009765625)  # 2^-10: ties stay ties
            info = np.iinfo(dt)
            x = _q_input(rng, s, info.min - (32768 if dt == np.uint16 else 0),
                         info.max - (32768 if dt == np.uint16 else 0))
            return _quantize(x, np.array(s), _zps(rng, (), dt), opset)

        @qcase(f"q{_opset}_per_axis_{_tag}")
        def _(rng, opset=_opset, dt=_dt):
            x = _unif(rng, 2, 3, 4, lo=-40, hi=40)
            return _quantize(x, _scales(rng, 4, 1e-3, 2e-3), _zps(rng, 4, dt, 1000), opset,
                             {"axis": -1})

    @qcase(f"q{_opset}_blocked_int16")
    def _(rng, opset=_opset):
        x = _unif(rng, 3, 10)
        return _quantize(x, _scales(rng, (3, 3), 1e-4, 2e-4), _zps(rng, (3, 3), np.int16, 500),
                         opset, {"axis": 1, "block_size": 4})


# 4-bit and float8 outputs, read back through DequantizeLinear (float out).
def _roundtrip(x, scale, zp_tensor, opset, attrs=None):
    inits = {"s": scale}
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"], **(attrs or {})),
             helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"], **(attrs or {}))]
    return _qmodel(nodes, {"x": x}, ["y"], opset, inits=inits, raw_inits=[zp_tensor],
                   out_types={"y": F16 if x.dtype == np.float16 else F32})


for _opset in (21, 23):
    @qcase(f"q{_opset}_roundtrip_int4")
    def _(rng, opset=_opset):
        s = np.float32(0.5)
        x = np.concatenate([_unif(rng, 20, lo=-5, hi=5),
                            np.array([0.25, 0.75, -0.25, -0.75, 1.25, 3.75, -4.25, 100, -100],
                                     np.float32)])
        return _roundtrip(x, np.array(s), _raw("z", INT4, [], _pack4([1])), opset)

    @qcase(f"q{_opset}_roundtrip_uint4")
    def _(rng, opset=_opset):
        x = np.concatenate([_unif(rng, 20, lo=-1, hi=9),
                            np.array([0.25, 0.75, -0.75, 3.25, 7.75, 100, -100], np.float32)])
        return _roundtrip(x, np.array(0.5, np.float32), _raw("z", UINT4, [], _pack4([2])), opset)

    @qcase(f"q{_opset}_roundtrip_blocked_int4")
    def _(rng, opset=_opset):
        # The usual 4-bit weight form: blocks along the last axis.
        x = _unif(rng, 4, 10)
        scale = _scales(rng, (4, 3), 0.2, 0.5)
        zp = _raw("z", INT4, [4, 3], _pack4(rng.integers(-2, 2, size=12, endpoint=True)))
        return _roundtrip(x, scale, zp, opset, {"axis": 1, "block_size": 4})


def _register_float8():
    for opset in (19, 21):
        for fname, code in FLOAT8.items():
            @qcase(f"q{opset}_roundtrip_{fname}")
            def _(rng, opset=opset, code=code):
                x = np.concatenate([_unif(rng, 24, lo=-3, hi=3),
                                    np.array([0, 1e-5, -1e-5, 100, -100, 1e6, -1e6, 448, 57344,
                                              0.3125, 0.34375], np.float32)])
                return _roundtrip(x, np.array(0.5, np.float32), _raw("z", code, [], b"\0"), opset)

    for fname in ("float8e4m3fn", "float8e5m2"):
        @qcase(f"q19_roundtrip_saturate0_{fname}")
        def _(rng, code=FLOAT8[fname]):
            # saturate=0: out of range becomes inf (e5m2) or NaN (e4m3fn).
            x = np.array([1, -1, 500, -500, 1e5, -1e5, 3e38, 0.1], np.float32)
            nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"], saturate=0),
                     helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"])]
            return _qmodel(nodes, {"x": x}, ["y"], 19, inits={"s": np.array(1, np.float32)},
                           raw_inits=[_raw("z", code, [], b"\0")])


_register_float8()


# NaN and infinities (what ONNX Runtime gives is the expected output).
def _nan_input():
    return np.array([NAN, INF, -INF, -NAN, 1.0, -1.0, 0.0, 200.0], np.float32)


@qcase("q13_u8_nan")
def _(rng):
    return _quantize(_nan_input(), np.array(0.5, np.float32), np.array(100, np.uint8), 13)


@qcase("q13_i8_nan")
def _(rng):
    return _quantize(_nan_input(), np.array(0.5, np.float32), np.array(-5, np.int8), 13)


@qcase("q21_per_axis_i8_nan")
def _(rng):
    x = _nan_input().reshape(2, 4)
    return _quantize(x, _scales(rng, 4), _zps(rng, 4, np.int8), 21, {"axis": 1})


@qcase("q21_int16_nan")
def _(rng):
    return _quantize(_nan_input(), np.array(0.5, np.float32), np.array(7, np.int16), 21)


@qcase("q19_float16_nan")
def _(rng):
    # Without +inf: ONNX Runtime 1.30 quantizes a float16 +inf to 0 where the
    # specification saturates it to 255, as Switchyard does (docs/onnx.md).
    x = np.array([NAN, -INF, -NAN, 1.0, -1.0, 0.0, 200.0, 65504.0], np.float16)
    return _quantize(x, np.array(0.5, np.float16),
                     np.array(10, np.uint8), 19)


@qcase("q19_float8e4m3fn_nan")
def _(rng):
    return _roundtrip(_nan_input(), np.array(0.5, np.float32),
                      _raw("z", FLOAT8["float8e4m3fn"], [], b"\0"), 19)


# --- DequantizeLinear --------------------------------------------------------

def _dequantize(x, scale, zp, opset, attrs=None, raw_x=None, raw_zp=None, out=None):
    """DequantizeLinear(x, scale[, zp]); x a graph input unless raw_x (an
    initializer of a type ONNX Runtime's node API cannot feed)."""
    names = ["x", "s"] + (["z"] if zp is not None or raw_zp is not None else [])
    inits = {"s": scale}
    if zp is not None:
        inits["z"] = zp
    raws = [t for t in (raw_x, raw_zp) if t is not None]
    node = helper.make_node("DequantizeLinear", names, ["y"], **(attrs or {}))
    inputs = {} if raw_x is not None else {"x": x}
    if raw_x is not None:
        # A graph needs an input for ORT's node API: add x + 0 on a dummy.
        inputs = {"dummy": np.zeros(1, scale.dtype)}
        node.output[0] = "d"
        nodes = [node, helper.make_node("Add", ["d", "dummy"], ["y"])]
    else:
        nodes = [node]
    out = out if out is not None else (F16 if scale.dtype == np.float16 else F32)
    return _qmodel(nodes, inputs, ["y"], opset, inits=inits, raw_inits=raws,
                   out_types={"y": out})


def _register_dq_per_tensor():
    for opset in (10, 13, 19, 21, 23, 24, 25):
        for dt, tag in ((np.uint8, "u8"), (np.int8, "i8")):
            @qcase(f"dq{opset}_per_tensor_{tag}")
            def _(rng, opset=opset, dt=dt):
                return _dequantize(_qvals(rng, (4, 6), dt), np.array(0.037, np.float32),
                                   _zps(rng, (), dt), opset)

        @qcase(f"dq{opset}_u8_no_zero_point")
        def _(rng, opset=opset):
            return _dequantize(_qvals(rng, (3, 5), np.uint8), np.array(0.1, np.float32), None,
                               opset)

        @qcase(f"dq{opset}_int32_no_zero_point")
        def _(rng, opset=opset):
            x = np.concatenate([rng.integers(-100000, 100000, size=12),
                                [2 ** 31 - 1, -2 ** 31, 16777217, -16777217]]).astype(np.int32)
            return _dequantize(x, np.array(0.0003, np.float32), None, opset)


_register_dq_per_tensor()


@qcase("dq21_int32_zero_point")
def _(rng):
    # int32 with a nonzero zero point: ONNX Runtime subtracts it like any other.
    return _dequantize(np.array([0, 1, 100, 255, -2 ** 31, 2 ** 31 - 1], np.int32),
                       np.array(0.1, np.float32), np.array(3, np.int32), 21)


def _register_dq_per_axis():
    forms = {"axis0": 0, "axis1_default": None, "axis_last": -1, "axis_neg2": -2}
    for opset in (13, 19, 21, 23, 25):
        for form, axis in forms.items():
            if opset != 13 and form != "axis_last":
                continue
            for dt, tag in ((np.uint8, "u8"), (np.int8, "i8")):
                @qcase(f"dq{opset}_per_{form}_{tag}")
                def _(rng, opset=opset, axis=axis, dt=dt):
                    x = _qvals(rng, (2, 3, 4), dt)
                    dim = x.shape[1 if axis is None else axis]
                    attrs = {} if axis is None else {"axis": axis}
                    return _dequantize(x, _scales(rng, dim), _zps(rng, dim, dt), opset, attrs)

    @qcase("dq13_int32_per_axis_bias")
    def _(rng):
        # A conv bias as ORT's quantizer writes it: int32, scale per channel.
        x = rng.integers(-50000, 50000, size=6).astype(np.int32)
        return _dequantize(x, _scales(rng, 6, 1e-5, 1e-4), None, 13, {"axis": 0})


_register_dq_per_axis()


def _register_dq_blocked():
    for opset in (21, 23, 24, 25):
        @qcase(f"dq{opset}_blocked_axis1_i8")
        def _(rng, opset=opset):
            x = _qvals(rng, (3, 10), np.int8)
            return _dequantize(x, _scales(rng, (3, 3)), _zps(rng, (3, 3), np.int8), opset,
                               {"axis": 1, "block_size": 4})

    @qcase("dq21_blocked_axis0_u8")
    def _(rng):
        x = _qvals(rng, (5, 4), np.uint8)
        return _dequantize(x, _scales(rng, (2, 4)), _zps(rng, (2, 4), np.uint8), 21,
                           {"axis": 0, "block_size": 3})

    @qcase("dq21_blocked_axis_neg1_3d_no_zero_point")
    def _(rng):
        x = _qvals(rng, (2, 3, 7), np.uint8)
        return _dequantize(x, _scales(rng, (2, 3, 2)), None, 21, {"axis": -1, "block_size": 4})

    @qcase("dq21_blocked_int32")
    def _(rng):
        x = rng.integers(-100000, 100000, size=(2, 8)).astype(np.int32)
        return _dequantize(x, _scales(rng, (2, 2), 1e-5, 1e-4), None, 21,
                           {"axis": 1, "block_size": 4})


_register_dq_blocked()


@qcase("dq19_float16_scale")
def _(rng):
    return _dequantize(_qvals(rng, (3, 5), np.int8), np.array(0.0374, np.float16),
                       np.array(-4, np.int8), 19)


@qcase("dq21_float16_per_axis")
def _(rng):
    return _dequantize(_qvals(rng, (2, 3, 4), np.uint8), _scales(rng, 3, dtype=np.float16),
                       _zps(rng, 3, np.uint8), 21)


@qcase("dq21_float16_blocked")
def _(rng):
    return _dequantize(_qvals(rng, (2, 10), np.int8), _scales(rng, (2, 3), dtype=np.float16),
                       _zps(rng, (2, 3), np.int8), 21, {"axis": 1, "block_size": 4})


@qcase("dq23_output_dtype_float")
def _(rng):
    # output_dtype, when given, must be x_scale's type.
    return _dequantize(_qvals(rng, (3, 4), np.uint8), np.array(0.02, np.float32),
                       np.array(100, np.uint8), 23, {"output_dtype": TensorProto.FLOAT})


@qcase("dq25_output_dtype_float16")
def _(rng):
    return _dequantize(_qvals(rng, (3, 4), np.int8), np.array(0.02, np.float16),
                       np.array(1, np.int8), 25, {"output_dtype": TensorProto.FLOAT16})


for _opset in (21, 23):
    for _dt, _tag in ((np.int16, "int16"), (np.uint16, "uint16")):
        @qcase(f"dq{_opset}_per_tensor_{_tag}")
        def _(rng, opset=_opset, dt=_dt):
            return _dequantize(_qvals(rng, (3, 6), dt), np.array(0.001, np.float32),
                               _zps(rng, (), dt, 1000), opset)

        @qcase(f"dq{_opset}_per_axis_{_tag}")
        def _(rng, opset=_opset, dt=_dt):
            return _dequantize(_qvals(rng, (2, 3, 4), dt), _scales(rng, 3, 1e-4, 1e-3),
                               _zps(rng, 3, dt, 1000), opset)

    @qcase(f"dq{_opset}_blocked_int4")
    def _(rng, opset=_opset):
        vals = rng.integers(-8, 7, size=(4, 10), endpoint=True)
        x = _raw("x", INT4, [4, 10], _pack4(vals.reshape(-1)))
        zp = _raw("z", INT4, [4, 3], _pack4(rng.integers(-2, 2, size=12, endpoint=True)))
        return _dequantize(None, _scales(rng, (4, 3)), None, opset, {"axis": 1, "block_size": 4},
                           raw_x=x, raw_zp=zp)

    @qcase(f"dq{_opset}_per_tensor_uint4")
    def _(rng, opset=_opset):
        vals = rng.integers(0, 15, size=9, endpoint=True)
        x = _raw("x", UINT4, [9], _pack4(vals))
        return _dequantize(None, np.array(0.3, np.float32), None, opset,
                           raw_x=x, raw_zp=_raw("z", UINT4, [], _pack4([8])))

for _fname, _code in FLOAT8.items():
    @qcase(f"dq19_per_tensor_{_fname}")
    def _(rng, code=_code):
        # Every byte: all the values (NaNs, infinities where the type has them).
        x = _raw("x", code, [256], bytes(range(256)))
        return _dequantize(None, np.array(0.5, np.float32), None, 19,
                           raw_x=x, raw_zp=_raw("z", code, [], b"\0"))


# --- DynamicQuantizeLinear ---------------------------------------------------

def _dql(x):
    node = helper.make_node("DynamicQuantizeLinear", ["x"], ["y", "y_scale", "y_zero_point"])
    return _qmodel([node], {"x": x}, ["y", "y_scale", "y_zero_point"], 11,
                   out_types={"y": U8, "y_zero_point": U8})


DQL_INPUTS = {
    "random": lambda rng: _unif(rng, 3, 4, 5),
    "all_positive": lambda rng: _unif(rng, 4, 6, lo=0.5, hi=3),
    "all_negative": lambda rng: _unif(rng, 4, 6, lo=-3, hi=-0.5),
    "all_zero": lambda rng: np.zeros((3, 4), np.float32),
    "constant_positive": lambda rng: np.full((2, 5), 2.5, np.float32),
    "constant_negative": lambda rng: np.full((2, 5), -1.75, np.float32),
    "large_range": lambda rng: np.concatenate([_unif(rng, 20, lo=-1, hi=1),
                                               np.array([1e6, -3e5], np.float32)]),
    # min -1, max 1: -min / scale = 127.5 exactly; zero point rounds to even.
    "zero_point_tie": lambda rng: np.array([-1, 1, 0.5, -0.5, 0.25, 1 / 255, -1 / 255, 0],
                                           np.float32),
    "one_element": lambda rng: np.array([0.7], np.float32),
    "scalar": lambda rng: np.array(-3.0, np.float32),
    "rank4": lambda rng: _unif(rng, 1, 3, 4, 4, lo=-1, hi=6),
}
for _form, _make in DQL_INPUTS.items():
    @qcase(f"dql_{_form}")
    def _(rng, make=_make):
        return _dql(make(rng))


@qcase("dql_nan")
def _(rng):
    return _dql(np.array([1.0, NAN, -2.0, 0.5, 3.0, -0.25], np.float32))


@qcase("dql_inf_nan")
def _(rng):
    return _dql(np.array([1.0, INF, -2.0, 0.5], np.float32))


@qcase("dql_neg_inf_nan")
def _(rng):
    return _dql(np.array([1.0, -INF, -2.0, 0.5], np.float32))


# --- MatMulInteger -----------------------------------------------------------

def _mmi(a, b, a_zp=None, b_zp=None, b_const=True):
    names = ["a", "b", "a_zp" if a_zp is not None else "", "b_zp" if b_zp is not None else ""]
    while names[-1] == "":
        names.pop()
    inits = {}
    if a_zp is not None:
        inits["a_zp"] = a_zp
    if b_zp is not None:
        inits["b_zp"] = b_zp
    inputs = {"a": a}
    if b_const:
        inits["b"] = b
    else:
        inputs["b"] = b
    node = helper.make_node("MatMulInteger", names, ["y"])
    return _qmodel([node], inputs, ["y"], 10, inits=inits, out_types={"y": I32})


_MMI_TYPES = {"u8_u8": (np.uint8, np.uint8), "u8_i8": (np.uint8, np.int8),
              "i8_i8": (np.int8, np.int8), "i8_u8": (np.int8, np.uint8)}
for _tag, (_ta, _tb) in _MMI_TYPES.items():
    @qcase(f"mmi_2d_{_tag}")
    def _(rng, ta=_ta, tb=_tb):
        return _mmi(_qvals(rng, (3, 7), ta), _qvals(rng, (7, 5), tb), _zps(rng, (), ta),
                    _zps(rng, (), tb))

    @qcase(f"mmi_extremes_{_tag}")
    def _(rng, ta=_ta, tb=_tb):
        # Every product at its extreme, K = 64: int16 pair sums would
        # saturate (255 * 127 * 2 > 32767); the int32 result must not.
        ia, ib = np.iinfo(ta), np.iinfo(tb)
        a = np.array([[ia.max] * 64, [ia.min] * 64, [ia.max, ia.min] * 32], ta)
        b = np.stack([np.full(64, ib.max), np.full(64, ib.min), np.tile([ib.max, ib.min], 32)],
                     axis=1).astype(tb)
        return _mmi(a, b, b_const=False)

for _tag, _shapes in {"batched_3d": ((2, 3, 4), (2, 4, 5)), "broadcast_b_2d": ((2, 3, 4), (4, 5)),
                      "broadcast_batch": ((2, 1, 3, 4), (3, 4, 5)),
                      "a_1d": ((4,), (4, 5)), "b_1d": ((2, 3, 4), (4,))}.items():
    @qcase(f"mmi_{_tag}")
    def _(rng, shapes=_shapes):
        return _mmi(_qvals(rng, shapes[0], np.uint8), _qvals(rng, shapes[1], np.int8),
                    np.array(131, np.uint8), np.array(-2, np.int8))


@qcase("mmi_no_zero_points")
def _(rng):
    return _mmi(_qvals(rng, (4, 6), np.uint8), _qvals(rng, (6, 3), np.uint8), b_const=False)


@qcase("mmi_a_zero_point_only")
def _(rng):
    return _mmi(_qvals(rng, (4, 6), np.uint8), _qvals(rng, (6, 3), np.int8), np.array(7, np.uint8))


@qcase("mmi_zero_points_1d_one_element")
def _(rng):
    return _mmi(_qvals(rng, (4, 6), np.uint8), _qvals(rng, (6, 3), np.int8),
                np.array([7], np.uint8), np.array([-3], np.int8))


@qcase("mmi_b_zero_point_per_column")
def _(rng):
    return _mmi(_qvals(rng, (4, 6), np.uint8), _qvals(rng, (6, 3), np.int8),
                np.array(100, np.uint8), _zps(rng, 3, np.int8))


@qcase("mmi_b_zero_point_per_column_batched")
def _(rng):
    return _mmi(_qvals(rng, (2, 4, 6), np.uint8), _qvals(rng, (2, 6, 3), np.uint8),
                np.array(100, np.uint8), _zps(rng, (2, 1, 3), np.uint8))


@qcase("mmi_b_zero_point_per_batch_and_column_i8")
def _(rng):
    # B's zero point per batch entry and column in a 4-D batch (ONNX Runtime
    # takes A's as a scalar).
    return _mmi(_qvals(rng, (2, 3, 2, 5), np.int8), _qvals(rng, (2, 3, 5, 4), np.int8),
                np.array(-3, np.int8), _zps(rng, (2, 3, 1, 4), np.int8))


@qrefusal("mmi_batched_zero_point_wider_than_data", "batch dimensions must fit")
def _(rng):
    return _mmi(_qvals(rng, (4, 6), np.uint8), _qvals(rng, (6, 3), np.uint8),
                None, _zps(rng, (2, 1, 3), np.uint8))


# --- ConvInteger -------------------------------------------------------------

def _convint(x, w, attrs, x_zp=None, w_zp=None):
    names = ["x", "w", "x_zp" if x_zp is not None else "", "w_zp" if w_zp is not None else ""]
    while names[-1] == "":
        names.pop()
    inits = {"w": w}
    if x_zp is not None:
        inits["x_zp"] = x_zp
    if w_zp is not None:
        inits["w_zp"] = w_zp
    node = helper.make_node("ConvInteger", names, ["y"], **attrs)
    return _qmodel([node], {"x": x}, ["y"], 10, inits=inits, out_types={"y": I32})


_CONV_FORMS = {
    "basic": ((1, 2, 5, 5), (3, 2, 3, 3), {}),
    "pads": ((1, 2, 5, 5), (3, 2, 3, 3), {"pads": [1, 2, 1, 0]}),
    "strides": ((2, 2, 7, 6), (3, 2, 3, 3), {"strides": [2, 2], "pads": [1, 1, 1, 1]}),
    "dilations": ((1, 2, 7, 7), (2, 2, 3, 3), {"dilations": [2, 2]}),
    "group": ((1, 4, 5, 5), (4, 2, 3, 3), {"group": 2, "pads": [1, 1, 1, 1]}),
    "depthwise": ((1, 3, 5, 5), (3, 1, 3, 3), {"group": 3, "pads": [1, 1, 1, 1]}),
    "same_upper": ((1, 2, 6, 5), (3, 2, 2, 3), {"auto_pad": "SAME_UPPER", "strides": [2, 2]}),
    "same_lower": ((1, 2, 6, 5), (3, 2, 2, 3), {"auto_pad": "SAME_LOWER"}),
    "1x1": ((1, 4, 3, 3), (5, 4, 1, 1), {}),
    "1d": ((1, 2, 9), (3, 2, 3), {"pads": [1, 1]}),
}
for _form, (_xs, _ws, _attrs) in _CONV_FORMS.items():
    @qcase(f"convint_{_form}_u8")
    def _(rng, xs=_xs, ws=_ws, attrs=_attrs):
        return _convint(_qvals(rng, xs, np.uint8), _qvals(rng, ws, np.uint8), attrs,
                        np.array(120, np.uint8), np.array(130, np.uint8))


@qcase("convint_u8_i8")
def _(rng):
    return _convint(_qvals(rng, (1, 2, 5, 5), np.uint8), _qvals(rng, (3, 2, 3, 3), np.int8),
                    {"pads": [1, 1, 1, 1]}, np.array(120, np.uint8), np.array(-3, np.int8))


@qcase("convint_i8_i8")
def _(rng):
    return _convint(_qvals(rng, (1, 2, 5, 5), np.int8), _qvals(rng, (3, 2, 3, 3), np.int8), {},
                    np.array(5, np.int8), np.array(-3, np.int8))


@qcase("convint_no_zero_points")
def _(rng):
    return _convint(_qvals(rng, (1, 2, 5, 5), np.uint8), _qvals(rng, (3, 2, 3, 3), np.uint8), {})


@qcase("convint_x_zero_point_only")
def _(rng):
    # Padding is filled with the zero point, so padded taps add nothing.
    return _convint(_qvals(rng, (1, 2, 4, 4), np.uint8), _qvals(rng, (2, 2, 3, 3), np.uint8),
                    {"pads": [1, 1, 1, 1]}, np.array(200, np.uint8))


# --- QLinearConv -------------------------------------------------------------

def _qlconv(rng, xs, ws, attrs, tx=np.uint8, tw=np.int8, ty=None, per_channel=False,
            bias=True, y_scale=None, w_scale=None, x_scale=0.02):
    ty = ty or tx
    m = ws[0]
    w_scale = w_scale if w_scale is not None else (
        _scales(rng, m, 0.002, 0.01) if per_channel else np.array(0.005, np.float32))
    w_zp = (np.zeros(m, tw) if per_channel and tw == np.int8 else
            _zps(rng, m, tw) if per_channel else
            np.array(0 if tw == np.int8 else 128, tw))
    inits = {"xs": np.array(x_scale, np.float32), "xz": _zps(rng, (), tx),
             "w": _qvals(rng, ws, tw), "ws": w_scale, "wz": w_zp,
             "ys": np.array(y_scale if y_scale is not None else 0.05, np.float32),
             "yz": _zps(rng, (), ty)}
    names = ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz"]
    if bias:
        inits["b"] = rng.integers(-3000, 3000, size=m).astype(np.int32)
        names.append("b")
    node = helper.make_node("QLinearConv", names, ["y"], **attrs)
    return _qmodel([node], {"x": _qvals(rng, xs, tx)}, ["y"], 10, inits=inits,
                   out_types={"y": _elem(ty)})


_QLCONV_FORMS = {
    "basic": ((1, 3, 5, 5), (4, 3, 3, 3), {}),
    "pads_strides": ((1, 3, 7, 6), (4, 3, 3, 3), {"pads": [1, 1, 1, 1], "strides": [2, 2]}),
    "dilations": ((1, 2, 7, 7), (3, 2, 3, 3), {"dilations": [2, 2], "pads": [2, 2, 2, 2]}),
    "group": ((1, 4, 5, 5), (6, 2, 3, 3), {"group": 2, "pads": [1, 1, 1, 1]}),
    "depthwise": ((1, 4, 6, 6), (4, 1, 3, 3), {"group": 4, "pads": [1, 1, 1, 1]}),
    "same_upper": ((1, 3, 6, 5), (2, 3, 3, 3), {"auto_pad": "SAME_UPPER", "strides": [2, 2]}),
    "1x1": ((2, 8, 3, 3), (5, 8, 1, 1), {}),
    "1d": ((1, 3, 10), (4, 3, 3), {"pads": [1, 1]}),
}
for _form, (_xs, _ws, _attrs) in _QLCONV_FORMS.items():
    @qcase(f"qlconv_{_form}_u8_i8")
    def _(rng, xs=_xs, ws=_ws, attrs=_attrs):
        return _qlconv(rng, xs, ws, attrs)

    @qcase(f"qlconv_{_form}_u8_i8_per_channel")
    def _(rng, xs=_xs, ws=_ws, attrs=_attrs):
        return _qlconv(rng, xs, ws, attrs, per_channel=True)

for _form in ("basic", "depthwise", "group"):
    _xs, _ws, _attrs = _QLCONV_FORMS[_form]

    @qcase(f"qlconv_{_form}_u8_u8")
    def _(rng, xs=_xs, ws=_ws, attrs=_attrs):
        return _qlconv(rng, xs, ws, attrs, tw=np.uint8)

    @qcase(f"qlconv_{_form}_u8_u8_per_channel")
    def _(rng, xs=_xs, ws=_ws, attrs=_attrs):
        return _qlconv(rng, xs, ws, attrs, tw=np.uint8, per_channel=True)

    @qcase(f"qlconv_{_form}_i8_i8")
    def _(rng, xs=_xs, ws=_ws, attrs=_attrs):
        return _qlconv(rng, xs, ws, attrs, tx=np.int8)

    @qcase(f"qlconv_{_form}_i8_i8_per_channel")
    def _(rng, xs=_xs, ws=_ws, attrs=_attrs):
        return _qlconv(rng, xs, ws, attrs, tx=np.int8, per_channel=True)


@qcase("qlconv_no_bias")
def _(rng):
    return _qlconv(rng, (1, 3, 5, 5), (4, 3, 3, 3), {"pads": [1, 1, 1, 1]}, bias=False)


@qcase("qlconv_saturate")
def _(rng):
    # A small y_scale: most outputs clamp at both ends.
    return _qlconv(rng, (1, 3, 5, 5), (4, 3, 3, 3), {}, y_scale=0.002)


@qcase("qlconv_requant_ties")
def _(rng):
    # x_scale * w_scale / y_scale = 0.5: odd accumulators land on .5 ties.
    return _qlconv(rng, (1, 2, 4, 4), (3, 2, 1, 1), {}, x_scale=0.5, y_scale=1.0,
                   w_scale=np.array(1.0, np.float32), bias=False)


@qcase("qlconv_requant_ties_per_channel")
def _(rng):
    return _qlconv(rng, (1, 2, 4, 4), (3, 2, 1, 1), {}, x_scale=0.25, y_scale=1.0,
                   w_scale=np.array([1, 2, 6], np.float32), per_channel=True)


# --- QLinearMatMul -----------------------------------------------------------

def _qlmm(rng, sa, sb, ta, tb, ty, opset, b_scale=None, b_zp=None, scale_dtype=np.float32):
    inits = {"as": np.array(0.03, scale_dtype), "az": _zps(rng, (), ta),
             "b": _qvals(rng, sb, tb),
             "bs": b_scale if b_scale is not None else np.array(0.02, scale_dtype),
             "bz": b_zp if b_zp is not None else _zps(rng, (), tb),
             "ys": np.array(0.4, scale_dtype), "yz": _zps(rng, (), ty)}
    node = helper.make_node("QLinearMatMul", ["a", "as", "az", "b", "bs", "bz", "ys", "yz"],
                            ["y"])
    return _qmodel([node], {"a": _qvals(rng, sa, ta)}, ["y"], opset, inits=inits,
                   out_types={"y": _elem(ty)})


for _opset in (10, 21):
    for _tag in ("u8_u8", "u8_i8", "i8_i8"):  # ORT has no int8 x uint8 kernel
        _ta, _tb = _MMI_TYPES[_tag]
        @qcase(f"qlmm{_opset}_2d_{_tag}")
        def _(rng, opset=_opset, ta=_ta, tb=_tb):
            return _qlmm(rng, (3, 8), (8, 5), ta, tb, ta, opset)

    @qcase(f"qlmm{_opset}_batched_u8_u8")
    def _(rng, opset=_opset):
        return _qlmm(rng, (2, 3, 8), (2, 8, 4), np.uint8, np.uint8, np.uint8, opset)

    @qcase(f"qlmm{_opset}_broadcast_i8_i8")
    def _(rng, opset=_opset):
        return _qlmm(rng, (2, 3, 8), (8, 4), np.int8, np.int8, np.int8, opset)

    @qcase(f"qlmm{_opset}_b_per_column")
    def _(rng, opset=_opset):
        return _qlmm(rng, (3, 8), (8, 4), np.uint8, np.int8, np.uint8, opset,
                     b_scale=_scales(rng, 4, 0.01, 0.03), b_zp=np.zeros(4, np.int8))


@qcase("qlmm21_float16_scales")
def _(rng):
    return _qlmm(rng, (3, 8), (8, 4), np.uint8, np.int8, np.uint8, 21, scale_dtype=np.float16)


# --- com.microsoft QLinear* ops (ONNX Runtime's contrib domain) ---------------

def _ms(op, inputs, names, inits, ty, **attrs):
    node = helper.make_node(op, names, ["y"], domain="com.microsoft", **attrs)
    return _qmodel([node], inputs, ["y"], 13, inits=inits, out_types={"y": ty}, ms=True)


def _qparams(rng, prefix, dt, scale=None):
    return {f"{prefix}_s": np.array(scale or rng.uniform(0.01, 0.05), np.float32),
            f"{prefix}_z": _zps(rng, (), dt)}


for _dt, _tag in ((np.uint8, "u8"), (np.int8, "i8")):
    for _op in ("QLinearAdd", "QLinearMul"):
        for _bshape, _btag in (((2, 3, 4), ""), ((3, 1), "_broadcast"), ((), "_scalar_b")):
            @qcase(f"ms_{_op[7:].lower()}{_btag}_{_tag}")
            def _(rng, op=_op, dt=_dt, bshape=_bshape):
                inits = {**_qparams(rng, "a", dt), **_qparams(rng, "b", dt),
                         **_qparams(rng, "c", dt, 0.08)}
                inputs = {"a": _qvals(rng, (2, 3, 4), dt), "b": _qvals(rng, bshape, dt)}
                return _ms(op, inputs, ["a", "a_s", "a_z", "b", "b_s", "b_z", "c_s", "c_z"],
                           inits, _elem(dt))

    for _cl in (0, 1):
        @qcase(f"ms_global_avgpool_channels_last{_cl}_{_tag}")
        def _(rng, dt=_dt, cl=_cl):
            inits = {**_qparams(rng, "x", dt), **_qparams(rng, "y", dt)}
            return _ms("QLinearGlobalAveragePool", {"x": _qvals(rng, (2, 3, 4, 5), dt)},
                       ["x", "x_s", "x_z", "y_s", "y_z"], inits, _elem(dt), channels_last=cl)

    for _ptag, _pattrs in {"k2s2": {"kernel_shape": [2, 2], "strides": [2, 2]},
                           "pads": {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]},
                           "pads_count_include_pad": {"kernel_shape": [3, 3],
                                                      "pads": [1, 1, 1, 1],
                                                      "count_include_pad": 1},
                           "ceil_mode": {"kernel_shape": [2, 2], "strides": [2, 2],
                                         "ceil_mode": 1},
                           "channels_last": {"kernel_shape": [2, 2], "channels_last": 1}}.items():
        @qcase(f"ms_avgpool_{_ptag}_{_tag}")
        def _(rng, dt=_dt, pattrs=_pattrs):
            inits = {**_qparams(rng, "x", dt), **_qparams(rng, "y", dt)}
            return _ms("QLinearAveragePool", {"x": _qvals(rng, (1, 3, 5, 5), dt)},
                       ["x", "x_s", "x_z", "y_s", "y_z"], inits, _elem(dt), **pattrs)

    @qcase(f"ms_concat_{_tag}")
    def _(rng, dt=_dt):
        inits = {**_qparams(rng, "y", dt), **_qparams(rng, "a", dt), **_qparams(rng, "b", dt),
                 **_qparams(rng, "c", dt)}
        inputs = {"a": _qvals(rng, (2, 3, 2), dt), "b": _qvals(rng, (2, 1, 2), dt),
                  "c": _qvals(rng, (2, 2, 2), dt)}
        return _ms("QLinearConcat", inputs,
                   ["y_s", "y_z", "a", "a_s", "a_z", "b", "b_s", "b_z", "c", "c_s", "c_z"],
                   inits, _elem(dt), axis=1)

    @qcase(f"ms_concat_negative_axis_same_scales_{_tag}")
    def _(rng, dt=_dt):
        p = _qparams(rng, "y", dt)
        inputs = {"a": _qvals(rng, (2, 3), dt), "b": _qvals(rng, (2, 4), dt)}
        return _ms("QLinearConcat", inputs,
                   ["y_s", "y_z", "a", "y_s", "y_z", "b", "y_s", "y_z"], p, _elem(dt), axis=-1)

    for _op, _attrs in (("QLinearSigmoid", {}), ("QLinearLeakyRelu", {"alpha": 0.13})):
        @qcase(f"ms_{_op[7:].lower()}_{_tag}")
        def _(rng, dt=_dt, op=_op, attrs=_attrs):
            inits = {**_qparams(rng, "x", dt, 0.05), **_qparams(rng, "y", dt, 0.02)}
            if op == "QLinearSigmoid":
                # The quantizer's fixed output range for sigmoid: [0, 1).
                inits["y_s"] = np.array(1 / 256, np.float32)
                inits["y_z"] = np.array(np.iinfo(dt).min, dt)
            return _ms(op, {"x": _qvals(rng, (3, 20), dt)}, ["x", "x_s", "x_z", "y_s", "y_z"],
                       inits, _elem(dt), **attrs)

    for _sop, _axis in ((13, -1), (13, 1), (12, 1)):
        @qcase(f"ms_softmax_opset{_sop}_axis{_axis}_{_tag}".replace("-", "neg"))
        def _(rng, dt=_dt, sop=_sop, axis=_axis):
            # y_scale 1/256 and zero point at the type's minimum: the
            # quantizer's fixed output parameters for softmax.
            zmin = 0 if dt == np.uint8 else -128
            inits = {"x_s": np.array(0.1, np.float32), "x_z": _zps(rng, (), dt),
                     "y_s": np.array(1 / 256, np.float32), "y_z": np.array(zmin, dt)}
            return _ms("QLinearSoftmax", {"x": _qvals(rng, (2, 3, 5), dt)},
                       ["x", "x_s", "x_z", "y_s", "y_z"], inits, _elem(dt), axis=axis,
                       opset=sop)

    @qcase(f"ms_where_{_tag}")
    def _(rng, dt=_dt):
        inits = {**_qparams(rng, "a", dt), **_qparams(rng, "b", dt), **_qparams(rng, "z", dt)}
        inputs = {"c": rng.integers(0, 2, size=(3, 4)).astype(np.bool_),
                  "a": _qvals(rng, (3, 4), dt), "b": _qvals(rng, (1, 4), dt)}
        return _ms("QLinearWhere", inputs, ["c", "a", "a_s", "a_z", "b", "b_s", "b_z", "z_s", "z_z"],
                   inits, _elem(dt))



def _qgemm(rng, ta, tb, out_float, trans_b=False, bias=True, alpha=1.0, per_column=False):
    m, k, n = 3, 8, 5
    bshape = (n, k) if trans_b else (k, n)
    inits = {"a_s": np.array(0.03, np.float32), "a_z": _zps(rng, (), ta), "b": _qvals(rng, bshape, tb),
             "b_s": _scales(rng, n) if per_column else np.array(0.02, np.float32),
             "b_z": np.zeros(n, tb) if per_column else _zps(rng, (), tb)}
    names = ["a", "a_s", "a_z", "b", "b_s", "b_z"]
    if bias:
        inits["c"] = rng.integers(-2000, 2000, size=n).astype(np.int32)
    names.append("c" if bias else "")
    if not out_float:
        inits.update(_qparams(rng, "y", ta, 0.3))
        names += ["y_s", "y_z"]
    while names[-1] == "":
        names.pop()
    return _ms("QGemm", {"a": _qvals(rng, (m, k), ta)}, names, inits,
               F32 if out_float else _elem(ta), transB=int(trans_b), alpha=alpha)


@qcase("ms_qgemm_float_out_u8_i8")
def _(rng):
    return _qgemm(rng, np.uint8, np.int8, True)


@qcase("ms_qgemm_u8_out_transb")
def _(rng):
    return _qgemm(rng, np.uint8, np.int8, False, trans_b=True)


@qcase("ms_qgemm_i8_out_alpha_no_bias")
def _(rng):
    return _qgemm(rng, np.int8, np.int8, False, bias=False, alpha=0.5)


@qcase("ms_qgemm_u8_u8_per_column")
def _(rng):
    return _qgemm(rng, np.uint8, np.uint8, False, per_column=True)


for _tb, _tag in ((np.int8, "i8"), (np.uint8, "u8")):
    @qcase(f"ms_dynamic_quantize_matmul_{_tag}")
    def _(rng, tb=_tb):
        inits = {"b": _qvals(rng, (6, 4), tb), "b_s": np.array(0.02, np.float32),
                 "b_z": _zps(rng, (), tb)}
        return _ms("DynamicQuantizeMatMul", {"a": _unif(rng, 2, 3, 6)}, ["a", "b", "b_s", "b_z"],
                   inits, F32)

    @qcase(f"ms_dynamic_quantize_matmul_bias_per_column_{_tag}")
    def _(rng, tb=_tb):
        inits = {"b": _qvals(rng, (6, 4), tb), "b_s": _scales(rng, 4),
                 "b_z": np.zeros(4, tb) if tb == np.int8 else _zps(rng, 4, tb),
                 "bias": _unif(rng, 4)}
        return _ms("DynamicQuantizeMatMul", {"a": _unif(rng, 3, 6)},
                   ["a", "b", "b_s", "b_z", "bias"], inits, F32)

    @qcase(f"ms_matmul_integer_to_float_{_tag}")
    def _(rng, tb=_tb):
        inits = {"b": _qvals(rng, (6, 4), tb), "a_s": np.array(0.03, np.float32),
                 "b_s": _scales(rng, 4), "a_z": np.array(120, np.uint8),
                 "b_z": _zps(rng, 4, tb), "bias": _unif(rng, 4)}
        return _ms("MatMulIntegerToFloat", {"a": _qvals(rng, (2, 3, 6), np.uint8)},
                   ["a", "b", "a_s", "b_s", "a_z", "b_z", "bias"], inits, F32)


@qcase("ms_dynamic_quantize_matmul_all_zero_a")
def _(rng):
    inits = {"b": _qvals(rng, (6, 4), np.int8), "b_s": np.array(0.02, np.float32)}
    return _ms("DynamicQuantizeMatMul", {"a": np.zeros((3, 6), np.float32)}, ["a", "b", "b_s"],
               inits, F32)


# --- QDQ patterns as ONNX Runtime's quantizer writes them ---------------------

def _q(x, s, z, y, **attrs):
    return helper.make_node("QuantizeLinear", [x, s, z], [y], **attrs)


def _dq(x, s, z, y, **attrs):
    return helper.make_node("DequantizeLinear", [x, s, z], [y], **attrs)


def _act_params(rng, prefix, dt=np.uint8, scale=None):
    return {f"{prefix}_s": np.array(scale or rng.uniform(0.01, 0.03), np.float32),
            f"{prefix}_z": _zps(rng, (), dt)}


def _register_qdq():
    for opset in (13, 21):
        @qcase(f"qdq{opset}_conv_relu")
        def _(rng, opset=opset):
            # x -> Q -> DQ -> Conv(DQ(w int8 per channel), DQ(b int32)) -> Q -> DQ
            #   -> Relu -> Q -> DQ (float out).
            cout = 4
            x_s = np.float32(0.02)
            w_s = _scales(rng, cout, 0.005, 0.02)
            inits = {"x_s": np.array(x_s), "x_z": np.array(128, np.uint8),
                     "w_q": _qvals(rng, (cout, 3, 3, 3), np.int8), "w_s": w_s,
                     "w_z": np.zeros(cout, np.int8),
                     "b_q": rng.integers(-500, 500, size=cout).astype(np.int32),
                     "b_s": (x_s * w_s).astype(np.float32), "b_z": np.zeros(cout, np.int32),
                     **_act_params(rng, "c", scale=0.05), **_act_params(rng, "r", scale=0.03)}
            inits["r_z"] = np.array(0, np.uint8)
            nodes = [_q("x", "x_s", "x_z", "xq"), _dq("xq", "x_s", "x_z", "xd"),
                     _dq("w_q", "w_s", "w_z", "w", axis=0), _dq("b_q", "b_s", "b_z", "b", axis=0),
                     helper.make_node("Conv", ["xd", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
                     _q("c", "c_s", "c_z", "cq"), _dq("cq", "c_s", "c_z", "cd"),
                     helper.make_node("Relu", ["cd"], ["r"]),
                     _q("r", "r_s", "r_z", "rq"), _dq("rq", "r_s", "r_z", "y")]
            return _qmodel(nodes, {"x": _unif(rng, 1, 3, 6, 6, lo=-2.5, hi=2.5)}, ["y"], opset,
                           inits=inits)

        @qcase(f"qdq{opset}_matmul")
        def _(rng, opset=opset):
            inits = {**_act_params(rng, "x"), "w_q": _qvals(rng, (8, 5), np.int8),
                     "w_s": np.array(0.01, np.float32), "w_z": np.array(0, np.int8),
                     **_act_params(rng, "m", scale=0.08)}
            nodes = [_q("x", "x_s", "x_z", "xq"), _dq("xq", "x_s", "x_z", "xd"),
                     _dq("w_q", "w_s", "w_z", "w"),
                     helper.make_node("MatMul", ["xd", "w"], ["m"]),
                     _q("m", "m_s", "m_z", "mq"), _dq("mq", "m_s", "m_z", "y")]
            return _qmodel(nodes, {"x": _unif(rng, 2, 3, 8, lo=-1.5, hi=1.5)}, ["y"], opset,
                           inits=inits)

        @qcase(f"qdq{opset}_add")
        def _(rng, opset=opset):
            inits = {**_act_params(rng, "a"), **_act_params(rng, "b"),
                     **_act_params(rng, "c", scale=0.04)}
            nodes = [_q("a", "a_s", "a_z", "aq"), _dq("aq", "a_s", "a_z", "ad"),
                     _q("b", "b_s", "b_z", "bq"), _dq("bq", "b_s", "b_z", "bd"),
                     helper.make_node("Add", ["ad", "bd"], ["c"]),
                     _q("c", "c_s", "c_z", "cq"), _dq("cq", "c_s", "c_z", "y")]
            return _qmodel(nodes, {"a": _unif(rng, 2, 3, 4, lo=-2, hi=2),
                                   "b": _unif(rng, 3, 4, lo=-2, hi=2)}, ["y"], opset, inits=inits)

        @qcase(f"qdq{opset}_maxpool")
        def _(rng, opset=opset):
            inits = _act_params(rng, "x", np.int8)
            nodes = [_q("x", "x_s", "x_z", "xq"), _dq("xq", "x_s", "x_z", "xd"),
                     helper.make_node("MaxPool", ["xd"], ["p"], kernel_shape=[2, 2],
                                      strides=[2, 2]),
                     _q("p", "x_s", "x_z", "pq"), _dq("pq", "x_s", "x_z", "y")]
            return _qmodel(nodes, {"x": _unif(rng, 1, 2, 6, 6, lo=-2, hi=2)}, ["y"], opset,
                           inits=inits)

        @qcase(f"qdq{opset}_concat")
        def _(rng, opset=opset):
            inits = {**_act_params(rng, "a"), **_act_params(rng, "b"),
                     **_act_params(rng, "c", scale=0.03)}
            nodes = [_q("a", "a_s", "a_z", "aq"), _dq("aq", "a_s", "a_z", "ad"),
                     _q("b", "b_s", "b_z", "bq"), _dq("bq", "b_s", "b_z", "bd"),
                     helper.make_node("Concat", ["ad", "bd"], ["c"], axis=1),
                     _q("c", "c_s", "c_z", "cq"), _dq("cq", "c_s", "c_z", "y")]
            return _qmodel(nodes, {"a": _unif(rng, 1, 2, 3, 3, lo=-2, hi=2),
                                   "b": _unif(rng, 1, 3, 3, 3, lo=-3, hi=3)}, ["y"], opset,
                           inits=inits)

    @qcase("qdq21_conv_uint16_activations")
    def _(rng):
        # 16-bit activations with int8 weights (the quantizer's A16W8).
        cout = 3
        x_s = np.float32(1e-4)
        w_s = _scales(rng, cout, 0.005, 0.02)
        inits = {"x_s": np.array(x_s), "x_z": np.array(32768, np.uint16),
                 "w_q": _qvals(rng, (cout, 2, 3, 3), np.int8), "w_s": w_s,
                 "w_z": np.zeros(cout, np.int8),
                 "c_s": np.array(3e-4, np.float32), "c_z": np.array(30000, np.uint16)}
        nodes = [_q("x", "x_s", "x_z", "xq"), _dq("xq", "x_s", "x_z", "xd"),
                 _dq("w_q", "w_s", "w_z", "w", axis=0),
                 helper.make_node("Conv", ["xd", "w"], ["c"]),
                 _q("c", "c_s", "c_z", "cq"), _dq("cq", "c_s", "c_z", "y")]
        return _qmodel(nodes, {"x": _unif(rng, 1, 2, 5, 5, lo=-3, hi=3)}, ["y"], 21, inits=inits)

    @qcase("qdq21_matmul_blocked_int4_weights")
    def _(rng):
        # Weight-only 4-bit: DQ(int4 weights, blocked along K) -> MatMul.
        k, n = 8, 3
        w = _raw("w_q", INT4, [k, n], _pack4(rng.integers(-8, 7, size=k * n, endpoint=True)))
        inits = {"w_s": _scales(rng, (2, n), 0.05, 0.1)}
        nodes = [helper.make_node("DequantizeLinear", ["w_q", "w_s"], ["w"], axis=0,
                                  block_size=4),
                 helper.make_node("MatMul", ["x", "w"], ["y"])]
        return _qmodel(nodes, {"x": _unif(rng, 2, k)}, ["y"], 21, inits=inits, raw_inits=[w])


_register_qdq()


# --- uint8/int8 tensors through data-movement ops (QOperator models) ----------

# 8-bit linear Resize truncates float sums back to integers, as ONNX
# Runtime does: a sum within float rounding of an integer lands on either
# side depending on the order of the arithmetic.
_LINEAR_RESIZE_TOLERANCE = ("1: 8-bit linear Resize truncates float sums; ONNX Runtime's "
                            "order of float arithmetic decides sums within rounding of an "
                            "integer")


def _register_data_movement():
    forms = {
        "maxpool": lambda: ((1, 2, 5, 5), [helper.make_node(
            "MaxPool", ["x"], ["y"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])], {}),
        "maxpool_ceil_dilations": lambda: ((1, 2, 7, 7), [helper.make_node(
            "MaxPool", ["x"], ["y"], kernel_shape=[2, 2], dilations=[2, 2], ceil_mode=1)], {}),
        "reshape": lambda: ((2, 3, 4), [helper.make_node("Reshape", ["x", "shape"], ["y"])],
                            {"shape": np.array([4, -1], np.int64)}),
        "transpose": lambda: ((2, 3, 4), [helper.make_node("Transpose", ["x"], ["y"],
                                                           perm=[2, 0, 1])], {}),
        "flatten": lambda: ((2, 3, 2, 2), [helper.make_node("Flatten", ["x"], ["y"], axis=2)], {}),
        "concat": lambda: ((2, 3), [helper.make_node("Concat", ["x", "c"], ["y"], axis=0)],
                           {"c": None}),
        "slice": lambda: ((4, 6), [helper.make_node("Slice", ["x", "st", "en", "ax", "sp"], ["y"])],
                          {"st": np.array([1, -1], np.int64), "en": np.array([4, 0], np.int64),
                           "ax": np.array([0, 1], np.int64), "sp": np.array([2, -2], np.int64)}),
        "pad_constant": lambda: ((2, 3), [helper.make_node("Pad", ["x", "pads", "cv"], ["y"])],
                                 {"pads": np.array([1, 0, 0, 2], np.int64), "cv": None}),
        "pad_reflect": lambda: ((3, 4), [helper.make_node("Pad", ["x", "pads"], ["y"],
                                                          mode="reflect")],
                                {"pads": np.array([1, 2, 1, 1], np.int64)}),
        "resize_nearest": lambda: ((1, 2, 3, 3), [helper.make_node(
            "Resize", ["x", "", "scales"], ["y"], mode="nearest")],
            {"scales": np.array([1, 1, 2, 1.5], np.float32)}),
        "resize_linear": lambda: ((1, 2, 4, 5), [helper.make_node(
            "Resize", ["x", "", "scales"], ["y"], mode="linear")],
            {"scales": np.array([1, 1, 1.75, 2.4], np.float32)}),
        "resize_linear_align_corners": lambda: ((1, 1, 3, 4), [helper.make_node(
            "Resize", ["x", "", "", "sizes"], ["y"], mode="linear",
            coordinate_transformation_mode="align_corners")],
            {"sizes": np.array([1, 1, 7, 5], np.int64)}),
        "squeeze_unsqueeze": lambda: ((1, 3, 1, 4), [
            helper.make_node("Squeeze", ["x", "sq"], ["t"]),
            helper.make_node("Unsqueeze", ["t", "usq"], ["y"])],
            {"sq": np.array([0, 2], np.int64), "usq": np.array([1, -1], np.int64)}),
        "gather": lambda: ((5, 3), [helper.make_node("Gather", ["x", "idx"], ["y"], axis=0)],
                           {"idx": np.array([[4, 0], [-1, 2]], np.int64)}),
        "split": lambda: ((2, 7), [helper.make_node("Split", ["x", "sp"], ["y", "y2"], axis=1)],
                          {"sp": np.array([3, 4], np.int64)}),
    }
    for form, make in forms.items():
        for dt, tag in ((np.uint8, "u8"), (np.int8, "i8")):
            @qcase(f"dm_{form}_{tag}")
            def _(rng, make=make, dt=dt):
                shape, nodes, inits = make()
                x = _qvals(rng, shape, dt)
                inits = {k: (v if v is not None else
                             (_qvals(rng, (1, 3), dt) if k == "c" else _zps(rng, (), dt)))
                         for k, v in inits.items()}
                outs = [o for n in nodes for o in n.output if o.startswith("y")]
                m, feeds = _qmodel(nodes, {"x": x}, outs, 13, inits=inits,
                                   out_types={o: _elem(dt) for o in outs})
                if any(n.op_type == "Resize" and n.attribute and any(
                        a.name == "mode" and a.s == b"linear" for a in n.attribute)
                       for n in nodes):
                    return m, feeds, {"integer_tolerance": _LINEAR_RESIZE_TOLERANCE}
                return m, feeds


_register_data_movement()


# --- Hostile quantization parameters -----------------------------------------
# Each must be refused with an error naming the ONNX input or attribute at
# fault, zero, negative and NaN scales among them.

def _hostile_q(rng, scale, zp, opset=13, attrs=None, x_shape=(2, 3, 4)):
    return _quantize(_unif(rng, *x_shape), scale, zp, opset, attrs)


def _hostile_dq(rng, scale, zp, opset=13, attrs=None, x_shape=(2, 3, 4), dt=np.uint8):
    return _dequantize(_qvals(rng, x_shape, dt), scale, zp, opset, attrs)


# Zero, negative and NaN scales: ONNX Runtime runs them all (x / 0 is an
# infinity or NaN, then saturated; a negative scale mirrors), but no
# quantizer writes one on purpose and the results mean nothing, so
# Switchyard refuses a scale it can read at import, naming the input and the
# value (issue 37).
for _sname, _sval in (("zero", 0.0), ("negative", -0.05), ("nan", NAN)):
    @qrefusal(f"q13_scale_{_sname}", "y_scale has value")
    def _(rng, sval=_sval):
        x = np.concatenate([_unif(rng, 8), np.array([0, 1, -1, 0.01], np.float32)])
        return _quantize(x, np.array(sval, np.float32), np.array(100, np.uint8), 13)

    @qrefusal(f"dq13_scale_{_sname}", "x_scale has value")
    def _(rng, sval=_sval):
        x = np.array([0, 1, 99, 100, 101, 255], np.uint8)
        return _dequantize(x, np.array(sval, np.float32), np.array(100, np.uint8), 13)

    @qrefusal(f"q13_per_axis_scale_{_sname}", "y_scale has value")
    def _(rng, sval=_sval):
        return _quantize(_unif(rng, 2, 3), np.array([0.1, sval, 0.2], np.float32),
                         np.array([3, 4, 5], np.int8), 13)

    @qrefusal(f"qlconv_w_scale_{_sname}", "w_scale has value")
    def _(rng, sval=_sval):
        return _qlconv(rng, (1, 2, 4, 4), (3, 2, 3, 3), {"pads": [1, 1, 1, 1]},
                       per_channel=True, w_scale=np.array([0.01, sval, 0.02], np.float32))

    @qrefusal(f"qlconv_y_scale_{_sname}", "y_scale has value")
    def _(rng, sval=_sval):
        return _qlconv(rng, (1, 2, 4, 4), (3, 2, 3, 3), {}, y_scale=sval)

    @qrefusal(f"qlconv_x_scale_{_sname}", "x_scale has value")
    def _(rng, sval=_sval):
        return _qlconv(rng, (1, 2, 4, 4), (3, 2, 3, 3), {}, x_scale=sval)


@qrefusal("dq13_zero_point_dtype_not_x", "x_zero_point")
def _(rng):
    # x is uint8, its zero point int8: DequantizeLinear's x and x_zero_point
    # share one type T.
    return _hostile_dq(rng, np.array(0.1, np.float32), np.array(3, np.int8))


@qrefusal("q21_zero_point_dtype_not_output_dtype", "output_dtype")
def _(rng):
    # output_dtype says int8, the zero point is uint8.
    return _hostile_q(rng, np.array(0.1, np.float32), np.array(3, np.uint8), 21,
                      {"output_dtype": TensorProto.INT8})


@qrefusal("q13_zero_point_shape_not_scale", "y_zero_point")
def _(rng):
    # Per-axis scale of 3, zero point of 2.
    return _hostile_q(rng, _scales(rng, 3), np.array([1, 2], np.uint8))


@qrefusal("q13_zero_point_per_axis_scale_scalar", "y_zero_point")
def _(rng):
    # Scalar scale, per-axis zero point: shapes must match.
    return _hostile_q(rng, np.array(0.1, np.float32), np.array([1, 2, 3], np.uint8))


@qrefusal("dq13_zero_point_shape_not_scale", "x_zero_point")
def _(rng):
    return _hostile_dq(rng, _scales(rng, 3), np.array([1, 2, 3, 4], np.uint8))


@qrefusal("q13_per_axis_scale_length", "y_scale")
def _(rng):
    # axis 1 has 3 elements, the scale 4.
    return _hostile_q(rng, _scales(rng, 4), _zps(rng, 4, np.uint8))


@qrefusal("dq13_per_axis_scale_length", "x_scale")
def _(rng):
    return _hostile_dq(rng, _scales(rng, 2), _zps(rng, 2, np.uint8), attrs={"axis": -1})


@qrefusal("q13_scale_rank2_without_block", "y_scale")
def _(rng):
    # A 2-D scale at opset 13 (no blocked form): neither a scalar nor 1-D.
    return _hostile_q(rng, _scales(rng, (2, 3)), _zps(rng, (2, 3), np.uint8))


@qrefusal("q13_axis_out_of_range", "axis")
def _(rng):
    return _hostile_q(rng, _scales(rng, 4), _zps(rng, 4, np.uint8), attrs={"axis": 3})


@qrefusal("q13_axis_negative_out_of_range", "axis")
def _(rng):
    return _hostile_q(rng, _scales(rng, 2), _zps(rng, 2, np.uint8), attrs={"axis": -4})


@qrefusal("dq13_axis_huge", "axis")
def _(rng):
    return _hostile_dq(rng, _scales(rng, 3), _zps(rng, 3, np.uint8), attrs={"axis": 2 ** 62})


@qrefusal("q21_blocked_axis_out_of_range", "axis")
def _(rng):
    return _hostile_q(rng, _scales(rng, (3, 3)), _zps(rng, (3, 3), np.uint8), 21,
                      {"axis": 2, "block_size": 4}, x_shape=(3, 10))


@qrefusal("q21_block_size_zero", "block_size")
def _(rng):
    # A blocked scale shape with block_size 0 (the per-axis form).
    return _hostile_q(rng, _scales(rng, (3, 3)), _zps(rng, (3, 3), np.uint8), 21,
                      {"axis": 1, "block_size": 0}, x_shape=(3, 10))


@qrefusal("q21_block_size_negative", "block_size")
def _(rng):
    return _hostile_q(rng, _scales(rng, (3, 3)), _zps(rng, (3, 3), np.uint8), 21,
                      {"axis": 1, "block_size": -4}, x_shape=(3, 10))


@qrefusal("dq21_block_size_negative", "block_size")
def _(rng):
    return _hostile_dq(rng, _scales(rng, (3, 3)), _zps(rng, (3, 3), np.uint8), 21,
                       {"axis": 1, "block_size": -4}, x_shape=(3, 10))


@qrefusal("q21_block_size_scale_count_mismatch", "block_size")
def _(rng):
    # dim 10 in blocks of 4 needs ceil(10 / 4) = 3 scales; there are 2.
    return _hostile_q(rng, _scales(rng, (3, 2)), _zps(rng, (3, 2), np.uint8), 21,
                      {"axis": 1, "block_size": 4}, x_shape=(3, 10))


@qrefusal("dq21_block_size_scale_count_mismatch", "block_size")
def _(rng):
    # dim 10 in blocks of 2 needs 5 scales; there are 4 (a block size of 3
    # would fit).
    return _hostile_dq(rng, _scales(rng, (3, 4)), _zps(rng, (3, 4), np.int8), 21,
                       {"axis": 1, "block_size": 2}, x_shape=(3, 10), dt=np.int8)


@qrefusal("q21_blocked_scale_other_dim", "y_scale")
def _(rng):
    # The scale's non-blocked dimension (2) differs from x's (3).
    return _hostile_q(rng, _scales(rng, (2, 3)), _zps(rng, (2, 3), np.uint8), 21,
                      {"axis": 1, "block_size": 4}, x_shape=(3, 10))


@qrefusal("q21_blocked_scale_rank", "y_scale")
def _(rng):
    # A blocked scale of rank 3 for a rank-2 x.
    return _hostile_q(rng, _scales(rng, (3, 3, 1)), _zps(rng, (3, 3, 1), np.uint8), 21,
                      {"axis": 1, "block_size": 4}, x_shape=(3, 10))


@qrefusal("dq21_blocked_zero_point_shape", "x_zero_point")
def _(rng):
    return _hostile_dq(rng, _scales(rng, (3, 3)), _zps(rng, (3, 2), np.uint8), 21,
                       {"axis": 1, "block_size": 4}, x_shape=(3, 10))


@qrefusal("dq23_output_dtype_not_scale", "output_dtype")
def _(rng):
    # output_dtype must be x_scale's type (float here).
    return _hostile_dq(rng, np.array(0.1, np.float32), np.array(3, np.uint8), 23,
                       {"output_dtype": TensorProto.FLOAT16}, x_shape=(3, 4))


@qrefusal("q19_scale_dtype_not_x", "y_scale")
def _(rng):
    # Before opset 23, x and y_scale share one type.
    return _quantize(_unif(rng, 3, 4), np.array(0.1, np.float16), np.array(3, np.uint8), 19)


@qrefusal("qlconv_w_scale_length", "w_scale")
def _(rng):
    # 3 output channels, 2 weight scales.
    return _qlconv(rng, (1, 2, 4, 4), (3, 2, 3, 3), {}, per_channel=True,
                   w_scale=np.array([0.01, 0.02], np.float32))


@qrefusal("qlconv_w_zero_point_length", "w_zero_point")
def _(rng):
    m, built = _qlconv(rng, (1, 2, 4, 4), (3, 2, 3, 3), {}, per_channel=True)
    _replace_init(m, "wz", np.zeros(2, np.int8))
    return m, built


@qrefusal("qlconv_x_scale_not_scalar", "x_scale")
def _(rng):
    m, built = _qlconv(rng, (1, 2, 4, 4), (3, 2, 3, 3), {})
    _replace_init(m, "xs", np.array([0.02, 0.03], np.float32))
    return m, built


@qrefusal("qlconv_y_zero_point_not_scalar", "y_zero_point")
def _(rng):
    m, built = _qlconv(rng, (1, 2, 4, 4), (3, 2, 3, 3), {})
    _replace_init(m, "yz", np.array([1, 2, 3], np.uint8))
    return m, built


@qrefusal("qlconv_x_zero_point_dtype", "x_zero_point")
def _(rng):
    # x uint8, x_zero_point int8.
    m, built = _qlconv(rng, (1, 2, 4, 4), (3, 2, 3, 3), {})
    _replace_init(m, "xz", np.array(1, np.int8))
    return m, built


@qcase("qlconv_w_zero_point_nonzero_per_channel_i8")
def _(rng):
    # int8 weights with nonzero per-channel zero points (ORT's quantizer
    # writes 0, but ORT runs any).
    m, built = _qlconv(rng, (1, 2, 4, 4), (3, 2, 3, 3), {}, per_channel=True)
    _replace_init(m, "wz", np.array([0, 3, 0], np.int8))
    return m, built


@qrefusal("mmi_a_zero_point_length", "a_zero_point")
def _(rng):
    # A has 4 rows; a per-row zero point of 5.
    return _mmi(_qvals(rng, (4, 6), np.uint8), _qvals(rng, (6, 3), np.int8),
                _zps(rng, 5, np.uint8), np.array(1, np.int8))


@qrefusal("mmi_b_zero_point_length", "b_zero_point")
def _(rng):
    return _mmi(_qvals(rng, (4, 6), np.uint8), _qvals(rng, (6, 3), np.int8),
                np.array(1, np.uint8), _zps(rng, 4, np.int8))


@qrefusal("mmi_a_zero_point_dtype", "a_zero_point")
def _(rng):
    return _mmi(_qvals(rng, (4, 6), np.uint8), _qvals(rng, (6, 3), np.int8),
                np.array(1, np.int8), np.array(1, np.int8))


@qrefusal("convint_w_zero_point_length", "w_zero_point")
def _(rng):
    return _convint(_qvals(rng, (1, 2, 5, 5), np.uint8), _qvals(rng, (3, 2, 3, 3), np.uint8), {},
                    np.array(10, np.uint8), _zps(rng, 2, np.uint8))


@qrefusal("convint_x_zero_point_not_scalar", "x_zero_point")
def _(rng):
    return _convint(_qvals(rng, (1, 2, 5, 5), np.uint8), _qvals(rng, (3, 2, 3, 3), np.uint8), {},
                    np.array([10, 11], np.uint8), np.array(3, np.uint8))


@qrefusal("qlmm10_a_scale_not_scalar", "a_scale")
def _(rng):
    m, built = _qlmm(rng, (3, 8), (8, 4), np.uint8, np.int8, np.uint8, 10)
    _replace_init(m, "as", np.array([0.1, 0.2, 0.3], np.float32))
    return m, built


@qrefusal("qlmm10_b_scale_length", "b_scale")
def _(rng):
    return _qlmm(rng, (3, 8), (8, 4), np.uint8, np.int8, np.uint8, 10,
                 b_scale=_scales(rng, 3), b_zp=np.zeros(3, np.int8))


def _replace_init(m, name, array):
    from onnx import numpy_helper
    for i, t in enumerate(m.graph.initializer):
        if t.name == name:
            m.graph.initializer[i].CopyFrom(numpy_helper.from_array(array, name))
            return
    raise KeyError(name)


# --- The quantized storage types outside Q/DQ --------------------------------

def _register_cast_float8():
    # Cast-19 to each float8 type and back: ties, subnormals, the largest
    # finite values, out of range, infinities, NaN and -0. Without
    # saturation ONNX Runtime 1.30 gives 448 for [480, 496) in e4m3fn and
    # NaN for [61440, 65536) in e5m2, where rounding says NaN and infinity
    # (docs/quantization.md), so those cases keep out of both bands.
    x = np.array([0.0, -0.0, 1.0625, 1.1875, -2.75, 0.3, 1e-3, -1e-3, 2 ** -9, 3 * 2 ** -10,
                  1e-7, 240, 250, 448, 464, 470, 57344, 61440, 70000, -1e6, 3e38,
                  INF, -INF, NAN], np.float32)
    for fname, code in FLOAT8.items():
        for saturate in (1, 0):
            @qcase(f"cast19_roundtrip_saturate{saturate}_{fname}")
            def _(rng, code=code, saturate=saturate):
                x_case = x if saturate else x[x != 61440]
                nodes = [helper.make_node("Cast", ["x"], ["f8"], to=code, saturate=saturate),
                         helper.make_node("Cast", ["f8"], ["y"], to=F32)]
                return _qmodel(nodes, {"x": x_case}, ["y"], 19)


_register_cast_float8()


@qcase("cast21_int16_wraps_and_truncates")
def _(rng):
    # float -> int16 truncates; int32 -> int16 wraps; back to int32.
    f = np.array([1.9, -1.9, 300.5, -32768.0, 32767.0, 0.0], np.float32)
    i = np.array([70000, -70000, 32768, -32769, 5, -5], np.int32)
    nodes = [helper.make_node("Cast", ["f"], ["fa"], to=I16),
             helper.make_node("Cast", ["i"], ["ia"], to=I16),
             helper.make_node("Cast", ["fa"], ["y0"], to=I32),
             helper.make_node("Cast", ["ia"], ["y1"], to=I32)]
    return _qmodel(nodes, {"f": f, "i": i}, ["y0", "y1"], 21,
                   out_types={"y0": I32, "y1": I32})


@qcase("qdq21_int16_through_transpose_and_concat")
def _(rng):
    # 16-bit activations moved by the data-movement ops between Q and DQ.
    x = _unif(rng, 2, 3, 4, lo=-30, hi=30)
    s, z = np.array(0.001, np.float32), np.array(-7, np.int16)
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"]),
             helper.make_node("Transpose", ["q"], ["t"], perm=[0, 2, 1]),
             helper.make_node("Reshape", ["t", "shape"], ["r"]),
             helper.make_node("Concat", ["r", "r"], ["c"], axis=0),
             helper.make_node("DequantizeLinear", ["c", "s", "z"], ["y"])]
    return _qmodel(nodes, {"x": x}, ["y"], 21,
                   inits={"s": s, "z": z, "shape": np.array([4, 6], np.int64)})


@qcase("dq21_int4_int32_data_odd_count")
def _(rng):
    # An int4 weight kept in int32_data (one packed byte per entry), an odd
    # number of values, per-axis scales.
    values = rng.integers(-8, 7, size=15, endpoint=True)
    t = TensorProto()
    t.name, t.data_type = "x", INT4
    t.dims.extend([3, 5])
    t.int32_data.extend(list(_pack4(values)))
    scale = _scales(rng, 3, 0.1, 0.2)
    return _dequantize(None, scale, None, 21, {"axis": 0}, raw_x=t)


@qrefusal("dq21_int4_packed_size_wrong", "packs into")
def _(rng):
    # 6 int4 values pack into 3 bytes; the file holds 4.
    return _dequantize(None, np.array(0.5, np.float32), None, 21,
                       raw_x=_raw("x", INT4, [6], b"\x12\x34\x56\x78"))


@qrefusal("dq19_float8_zero_point_nonzero", "float8 zero point must be 0")
def _(rng):
    return _dequantize(None, np.array(0.5, np.float32), None, 19,
                       raw_x=_raw("x", FLOAT8["float8e4m3fn"], [3], b"\x38\x40\x48"),
                       raw_zp=_raw("z", FLOAT8["float8e4m3fn"], [], b"\x38"))


@qrefusal("q19_saturate_out_of_range", "saturate")
def _(rng):
    node = helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"], saturate=2)
    return _qmodel([node], {"x": _unif(rng, 4)}, ["y"], 19,
                   inits={"s": np.array(1, np.float32)},
                   raw_inits=[_raw("z", FLOAT8["float8e4m3fn"], [], b"\0")])
