"""The quantized storage dtypes from Python: int16 outputs as int16 arrays,
float8 outputs as float32 arrays of the rounded values, int4 inputs as int8
arrays whose values must fit, float8 inputs rounded to the type."""

import numpy as np
import pytest
from onnx import TensorProto, helper

import switchyard

INT4, FLOAT8E4M3FN = 22, 17


def _model(nodes, inputs, outputs, opset, initializers=()):
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(initializers))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 10
    return m.SerializeToString()


def _value(name, elem_type, shape):
    return helper.make_tensor_value_info(name, elem_type, shape)


def test_int16_output_is_an_int16_array():
    scale = helper.make_tensor("s", TensorProto.FLOAT, [], [0.5])
    zero = helper.make_tensor("z", TensorProto.INT16, [], [-3])
    node = helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"])
    model = _model([node], [_value("x", TensorProto.FLOAT, [4])],
                   [_value("y", TensorProto.INT16, [4])], 21, [scale, zero])
    y = switchyard.Session(model, device="cpu:0").run(
        np.array([1.25, -1.25, 1e6, -1e6], np.float32))[0]
    assert y.dtype == np.int16
    # 2.5 and -2.5 round to even (2, -2); the large values saturate.
    np.testing.assert_array_equal(y, [-1, -5, 32767, -32768])


def test_float8_output_is_float32_of_the_rounded_values():
    node = helper.make_node("Cast", ["x"], ["y"], to=FLOAT8E4M3FN)
    model = _model([node], [_value("x", TensorProto.FLOAT, [4])],
                   [_value("y", FLOAT8E4M3FN, [4])], 19)
    session = switchyard.Session(model, device="cpu:0")
    y = session.run(np.array([1.0625, 1.1875, 1000.0, -0.3], np.float32))[0]
    assert y.dtype == np.float32
    # Ties to even, saturation at 448, 0.3 to the nearest e4m3 value.
    np.testing.assert_array_equal(y, [1.0, 1.25, 448.0, -0.3125])


def test_int4_input_takes_int8_values_that_fit():
    scale = helper.make_tensor("s", TensorProto.FLOAT, [], [0.25])
    node = helper.make_node("DequantizeLinear", ["q", "s"], ["y"])
    model = _model([node], [_value("q", INT4, [3])], [_value("y", TensorProto.FLOAT, [3])],
                   21, [scale])
    session = switchyard.Session(model, device="cpu:0")
    y = session.run(np.array([-8, 0, 7], np.int8))[0]
    np.testing.assert_array_equal(y, [-2.0, 0.0, 1.75])
    with pytest.raises(switchyard.Error, match=r"holds 9 at flat index 1.*\[-8, 7\]"):
        session.run(np.array([0, 9, 1], np.int8))


def test_float8_input_is_rounded_to_the_type():
    node = helper.make_node("Cast", ["x"], ["y"], to=TensorProto.FLOAT)
    model = _model([node], [_value("x", FLOAT8E4M3FN, [3])],
                   [_value("y", TensorProto.FLOAT, [3])], 19)
    y = switchyard.Session(model, device="cpu:0").run(
        np.array([0.3, 500.0, -1.0], np.float32))[0]
    np.testing.assert_array_equal(y, [0.3125, 448.0, -1.0])
