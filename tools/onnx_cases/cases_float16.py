"""float16 models (a network after model.half() and export): the CPU backends
run most ops in float32 only, so the compiler casts around those nodes
(core/passes/float32_fallback.h) and the outputs stay float16, as ONNX
Runtime's CPU provider does with its InsertCastTransformer."""

import numpy as np
from onnx import TensorProto, helper

from case_registry import case, model, rand

F16 = np.float16
HALF = TensorProto.FLOAT16


def _half(*shape, scale=1.0):
    return (rand(*shape) * scale).astype(F16)


def _bn_params(prefix, channels):
    return {
        f"{prefix}_scale": (1 + rand(channels) * 0.2).astype(F16),
        f"{prefix}_bias": _half(channels, scale=0.2),
        f"{prefix}_mean": _half(channels, scale=0.2),
        f"{prefix}_var": (1 + np.abs(rand(channels)) * 0.5).astype(F16),
    }


def _bn(prefix, x, y):
    return helper.make_node(
        "BatchNormalization",
        [x, f"{prefix}_scale", f"{prefix}_bias", f"{prefix}_mean", f"{prefix}_var"],
        [y], epsilon=1e-5)


@case("float16", "conv_bn_relu_pool_gemm")
def _():
    x = _half(1, 3, 8, 8)
    inits = {"w": _half(4, 3, 3, 3, scale=0.3), "b": _half(4, scale=0.1),
             "fc_w": _half(5, 64, scale=0.15), "fc_b": _half(5, scale=0.1)}
    inits.update(_bn_params("bn", 4))
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
        _bn("bn", "c", "n"),
        helper.make_node("Relu", ["n"], ["r"]),
        helper.make_node("MaxPool", ["r"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Flatten", ["p"], ["f"]),
        helper.make_node("Gemm", ["f", "fc_w", "fc_b"], ["y"], transB=1),
    ]
    return model(nodes, {"x": x}, ["y"], 18, initializers=inits,
                 out_types={"y": HALF})


@case("float16", "residual_block")
def _():
    # conv-bn-relu-conv-bn, plus the block's input, relu; the first conv's
    # output is also a graph output (a float16 value read by a fallback node
    # and returned).
    x = _half(1, 4, 6, 6)
    inits = {"w1": _half(4, 4, 3, 3, scale=0.25), "w2": _half(4, 4, 3, 3, scale=0.25)}
    inits.update(_bn_params("bn1", 4))
    inits.update(_bn_params("bn2", 4))
    nodes = [
        helper.make_node("Conv", ["x", "w1"], ["c1"], pads=[1, 1, 1, 1]),
        _bn("bn1", "c1", "n1"),
        helper.make_node("Relu", ["n1"], ["r1"]),
        helper.make_node("Conv", ["r1", "w2"], ["c2"], pads=[1, 1, 1, 1]),
        _bn("bn2", "c2", "n2"),
        helper.make_node("Add", ["n2", "x"], ["s"]),
        helper.make_node("Relu", ["s"], ["y"]),
    ]
    return model(nodes, {"x": x}, ["y", "c1"], 18, initializers=inits,
                 out_types={"y": HALF, "c1": HALF})


@case("float16", "matmul_layernorm_softmax")
def _():
    x = _half(2, 3, 8)
    inits = {"w": _half(8, 6, scale=0.4), "gamma": (1 + rand(6) * 0.2).astype(F16),
             "beta": _half(6, scale=0.2)}
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["m"]),
        helper.make_node("LayerNormalization", ["m", "gamma", "beta"], ["n"],
                         axis=-1, epsilon=1e-5),
        helper.make_node("Softmax", ["n"], ["y"], axis=-1),
    ]
    return model(nodes, {"x": x}, ["y"], 18, initializers=inits,
                 out_types={"y": HALF})


@case("float16", "resize_linear_and_nearest")
def _():
    x = _half(1, 2, 3, 4)
    scales = np.array([1, 1, 2, 1.5], np.float32)
    nodes = [
        helper.make_node("Resize", ["x", "", "scales"], ["lin"], mode="linear"),
        helper.make_node("Resize", ["x", "", "scales"], ["near"], mode="nearest"),
    ]
    return model(nodes, {"x": x}, ["lin", "near"], 18,
                 initializers={"scales": scales},
                 out_types={"lin": HALF, "near": HALF})


@case("float16", "concat_of_computed_and_input")
def _():
    # Concat moves elements (a float16 kernel where the backend has one)
    # between nodes that run in float32.
    a = _half(2, 3)
    b = _half(2, 2)
    nodes = [
        helper.make_node("Relu", ["a"], ["r"]),
        helper.make_node("Concat", ["r", "b"], ["c"], axis=1),
        helper.make_node("Sigmoid", ["c"], ["s"]),
        helper.make_node("Concat", ["s", "c"], ["y"], axis=0),
    ]
    return model(nodes, {"a": a, "b": b}, ["y"], 18, out_types={"y": HALF})


@case("float16", "cast_in_and_out_of_float16")
def _():
    # A float32 graph with a float16 stretch (Cast to float16, math, Cast
    # back), and a float16 input cast to float32 and back.
    x = rand(2, 5)
    h = _half(2, 5)
    nodes = [
        helper.make_node("Cast", ["x"], ["xh"], to=TensorProto.FLOAT16),
        helper.make_node("Mul", ["xh", "k"], ["m"]),
        helper.make_node("Relu", ["m"], ["r"]),
        helper.make_node("Cast", ["r"], ["y"], to=TensorProto.FLOAT),
        helper.make_node("Cast", ["h"], ["hf"], to=TensorProto.FLOAT),
        helper.make_node("Tanh", ["hf"], ["t"]),
        helper.make_node("Cast", ["t"], ["th"], to=TensorProto.FLOAT16),
        helper.make_node("Add", ["th", "h"], ["z"]),
    ]
    return model(nodes, {"x": x, "h": h}, ["y", "z"], 18,
                 initializers={"k": np.array([1.5], F16)},
                 out_types={"z": HALF})
