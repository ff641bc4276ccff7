#!/usr/bin/python3
"""Writes the small ONNX models and .npy inputs of tests/model_cli_test.sh.

    /usr/bin/python3 tests/make_cli_test_models.py OUT_DIR

Needs Debian's python3-onnx (and numpy, which it brings). OUT_DIR gets:

- two_inputs.onnx: ids int64 [batch, seq] and mask bool [batch, seq] ->
  pooled float32 [batch, 4] (the ids' embedding rows summed where the mask
  is true) and count int64 [batch] (true entries per row): a transformer's
  inputs, in miniature. ids.npy, mask.npy ([2, 5]) and the expected
  pooled_expected.npy, count_expected.npy; bad inputs for the error cases:
  mask_int64.npy (wrong dtype), mask_short.npy ([2, 4]: 'seq' disagrees).
- symbolic.onnx: x float32 [batch, 3, height, width] -> mean float32
  [batch, 3] (over height and width) and dims int64 [4] (Shape(x)). x.npy is
  [2, 3, 5, 7]; mean_expected.npy; x_4channels.npy ([1, 4, 5, 7]) breaks the
  fixed dimension.
- empty.onnx: x float32 [batch, 4] -> none float32 [0, 4] (a Slice that
  keeps no rows): an output without elements.
- quantized_types.onnx (opset 21): x float32 [4] -> q16 int16 (QuantizeLinear,
  scale 0.5, zero point -3), f8 float8_e4m3fn (Cast), w4 float32 (an int4
  weight's DequantizeLinear, added to x); quant_x.npy and the expected
  q16_expected.npy (int16), f8_expected.npy and w4_expected.npy (float32, as
  .npy outputs carry float8).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 13


def save(model, path):
    onnx.checker.check_model(model)
    onnx.save(model, path)


def make_model(graph):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="make_cli_test_models.py")
    model.ir_version = 7
    return model


def two_inputs(out):
    emb = (np.arange(40, dtype=np.float32).reshape(10, 4) / 10).astype(np.float32)
    nodes = [
        helper.make_node("Gather", ["emb", "ids"], ["rows"], axis=0),
        helper.make_node("Cast", ["mask"], ["maskf"], to=TensorProto.FLOAT),
        helper.make_node("Unsqueeze", ["maskf", "axis2"], ["mask3"]),
        helper.make_node("Mul", ["rows", "mask3"], ["kept"]),
        helper.make_node("ReduceSum", ["kept", "axis1"], ["pooled"], keepdims=0),
        helper.make_node("ReduceSum", ["maskf", "axis1"], ["countf"], keepdims=0),
        helper.make_node("Cast", ["countf"], ["count"], to=TensorProto.INT64),
    ]
    graph = helper.make_graph(
        nodes, "two_inputs",
        [helper.make_tensor_value_info("ids", TensorProto.INT64, ["batch", "seq"]),
         helper.make_tensor_value_info("mask", TensorProto.BOOL, ["batch", "seq"])],
        [helper.make_tensor_value_info("pooled", TensorProto.FLOAT, ["batch", 4]),
         helper.make_tensor_value_info("count", TensorProto.INT64, ["batch"])],
        initializer=[numpy_helper.from_array(emb, "emb"),
                     numpy_helper.from_array(np.array([2], np.int64), "axis2"),
                     numpy_helper.from_array(np.array([1], np.int64), "axis1")])
    save(make_model(graph), os.path.join(out, "two_inputs.onnx"))

    ids = np.array([[1, 2, 3, 9, 0], [4, 4, 7, 0, 5]], dtype=np.int64)
    mask = np.array([[1, 1, 1, 0, 0], [1, 0, 1, 1, 1]], dtype=bool)
    np.save(os.path.join(out, "ids.npy"), ids)
    np.save(os.path.join(out, "mask.npy"), mask)
    np.save(os.path.join(out, "mask_int64.npy"), mask.astype(np.int64))
    np.save(os.path.join(out, "mask_short.npy"), mask[:, :4])
    pooled = (emb[ids] * mask[:, :, None].astype(np.float32)).sum(axis=1)
    np.save(os.path.join(out, "pooled_expected.npy"), pooled.astype(np.float32))
    np.save(os.path.join(out, "count_expected.npy"), mask.sum(axis=1).astype(np.int64))


def symbolic(out):
    nodes = [
        helper.make_node("ReduceMean", ["x"], ["mean"], axes=[2, 3], keepdims=0),
        helper.make_node("Shape", ["x"], ["dims"]),
    ]
    graph = helper.make_graph(
        nodes, "symbolic",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                       ["batch", 3, "height", "width"])],
        [helper.make_tensor_value_info("mean", TensorProto.FLOAT, ["batch", 3]),
         helper.make_tensor_value_info("dims", TensorProto.INT64, [4])])
    save(make_model(graph), os.path.join(out, "symbolic.onnx"))
    x = np.random.default_rng(0).standard_normal((2, 3, 5, 7)).astype(np.float32)
    np.save(os.path.join(out, "x.npy"), x)
    np.save(os.path.join(out, "mean_expected.npy"), x.mean(axis=(2, 3)))
    np.save(os.path.join(out, "x_4channels.npy"), np.zeros((1, 4, 5, 7), np.float32))


def empty(out):
    graph = helper.make_graph(
        [helper.make_node("Slice", ["x", "zero", "zero", "zero"], ["none"])], "empty",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4])],
        [helper.make_tensor_value_info("none", TensorProto.FLOAT, ["rows", 4])],
        initializer=[numpy_helper.from_array(np.array([0], np.int64), "zero")])
    save(make_model(graph), os.path.join(out, "empty.onnx"))


def staged(out):
    """Shapes decided while it runs: the positive values of x (NonZero ->
    Gather), doubled if their sum is positive, negated otherwise (If)."""
    zero = numpy_helper.from_array(np.array(0, np.float32), "zero")
    axes = numpy_helper.from_array(np.array([0], np.int64), "axes")
    then_graph = helper.make_graph(
        [helper.make_node("Add", ["kept", "kept"], ["doubled"])], "then", [],
        [helper.make_tensor_value_info("doubled", TensorProto.FLOAT, ["k"])])
    else_graph = helper.make_graph(
        [helper.make_node("Neg", ["kept"], ["negated"])], "else", [],
        [helper.make_tensor_value_info("negated", TensorProto.FLOAT, ["k"])])
    nodes = [
        helper.make_node("Greater", ["x", "zero"], ["positive"]),
        helper.make_node("NonZero", ["positive"], ["where"]),
        helper.make_node("Squeeze", ["where", "axes"], ["index"]),
        helper.make_node("Gather", ["x", "index"], ["kept"]),
        helper.make_node("ReduceSum", ["kept"], ["sum"], keepdims=0),
        helper.make_node("Greater", ["sum", "zero"], ["cond"]),
        helper.make_node("If", ["cond"], ["y"], then_branch=then_graph,
                         else_branch=else_graph),
    ]
    graph = helper.make_graph(
        nodes, "staged", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["k"])],
        initializer=[zero, axes])
    save(make_model(graph), os.path.join(out, "staged.onnx"))
    x = np.array([1.5, -2, 0, 3, -1], np.float32)
    np.save(os.path.join(out, "staged_x.npy"), x)
    np.save(os.path.join(out, "staged_expected.npy"), 2 * x[x > 0])


def loop(out):
    """A Loop whose trip count is x's length (a shape known only when it
    runs): acc doubles each iteration, and the scan output is its sum."""
    body = helper.make_graph(
        [helper.make_node("Add", ["acc", "acc"], ["acc_next"]),
         helper.make_node("ReduceSum", ["acc_next"], ["sum"], keepdims=0)],
        "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc", TensorProto.FLOAT, ["n"])],
        [helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_next", TensorProto.FLOAT, ["n"]),
         helper.make_tensor_value_info("sum", TensorProto.FLOAT, [])])
    zero = numpy_helper.from_array(np.array(0, np.int64), "zero")
    nodes = [
        helper.make_node("Shape", ["x"], ["shape"]),
        helper.make_node("Gather", ["shape", "zero"], ["n"]),
        helper.make_node("Loop", ["n", "", "x"], ["final", "sums"], body=body),
    ]
    graph = helper.make_graph(
        nodes, "loop", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n"])],
        [helper.make_tensor_value_info("final", TensorProto.FLOAT, ["n"]),
         helper.make_tensor_value_info("sums", TensorProto.FLOAT, ["n"])],
        initializer=[zero])
    save(make_model(graph), os.path.join(out, "loop.onnx"))
    np.save(os.path.join(out, "loop_x.npy"), np.array([1, 2, 3], np.float32))


def quantized_types(out):
    # onnx 1.12 writes the newer types by number and cannot check them.
    int4, float8e4m3fn = 22, 17
    w4 = onnx.TensorProto()
    w4.name, w4.data_type = "w4_packed", int4
    w4.dims.extend([4])
    w4.raw_data = bytes([0x9f & 0xff, 0x71])  # -1 (0xf), -7 (0x9), 1, 7
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q16"]),
        helper.make_node("Cast", ["x"], ["f8"], to=float8e4m3fn),
        helper.make_node("DequantizeLinear", ["w4_packed", "s"], ["w"]),
        helper.make_node("Add", ["x", "w"], ["w4"]),
    ]
    graph = helper.make_graph(
        nodes, "quantized_types", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("q16", TensorProto.INT16, [4]),
         helper.make_tensor_value_info("f8", float8e4m3fn, [4]),
         helper.make_tensor_value_info("w4", TensorProto.FLOAT, [4])],
        initializer=[numpy_helper.from_array(np.array(0.5, np.float32), "s"),
                     numpy_helper.from_array(np.array(-3, np.int16), "z"), w4])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    model.ir_version = 10
    onnx.save(model, os.path.join(out, "quantized_types.onnx"))
    x = np.array([1.25, -1.25, 1000.0, -0.3], np.float32)
    np.save(os.path.join(out, "quant_x.npy"), x)
    np.save(os.path.join(out, "q16_expected.npy"), np.array([-1, -5, 1997, -4], np.int16))
    np.save(os.path.join(out, "f8_expected.npy"),
            np.array([1.25, -1.25, 448.0, -0.3125], np.float32))
    np.save(os.path.join(out, "w4_expected.npy"),
            x + np.array([-0.5, -3.5, 0.5, 3.5], np.float32))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    two_inputs(out)
    symbolic(out)
    empty(out)
    staged(out)
    loop(out)
    quantized_types(out)


if __name__ == "__main__":
    main()
