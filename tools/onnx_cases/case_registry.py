"""Cases for Switchyard's own ONNX test suites (tests/onnx_cases/).

A case is a function that builds one small model with onnx.helper and its
inputs; make_cases.py saves it in ONNX's backend-test layout (model.onnx,
test_data_set_0/input_N.pb) and takes the expected outputs from ONNX Runtime
(ort_oracle.js), so the suites check what ONNX Runtime computes at opsets
Debian's onnx 1.12 cannot check.

    @case("opset18", "reduce_mean_axes_input")
    def _():
        x = rand(2, 3, 4)
        axes = np.array([1], np.int64)
        node = helper.make_node("ReduceMean", ["x", "axes"], ["y"])
        return model([node], {"x": x}, ["y"], opset=18, initializers={"axes": axes})

Each case returns (ModelProto, {input name: numpy array}) or that and an
options dict ({"external_data": True} saves the initializers in
model.onnx.data); `model` and `single` below return the first two. Outputs
are declared without shapes, float32 unless out_types says otherwise.
"""

import numpy as np
from onnx import TensorProto, helper, numpy_helper

CASES = []  # (suite, name, "match", "refusal" or "known_gap", builder, expected error text)


def case(suite, name):
    """A model Switchyard must run and match ONNX Runtime on."""
    def register(fn):
        CASES.append((suite, name, "match", fn, None))
        return fn
    return register


def refusal(suite, name, expected_error):
    """A hostile model: loading or running it must fail with an
    InvalidArgument-class error whose message contains `expected_error`."""
    def register(fn):
        CASES.append((suite, name, "refusal", fn, expected_error))
        return fn
    return register


def known_gap(suite, name, expected_error):
    """A model ONNX Runtime runs and Switchyard does not yet: it must be
    refused as unsupported (Unimplemented) with `expected_error` in the
    message. ONNX Runtime's outputs are kept, so that deleting known_gap.txt
    makes it a match case the day it runs."""
    def register(fn):
        CASES.append((suite, name, "known_gap", fn, expected_error))
        return fn
    return register


_rng = np.random.default_rng(0)


def rand(*shape, dtype=np.float32, low=-2.0, high=2.0):
    """Seeded uniform values (every run of make_cases.py writes the same)."""
    return _rng.uniform(low, high, size=shape).astype(dtype)


def ints(*shape, low=0, high=10, dtype=np.int64):
    return _rng.integers(low, high, size=shape).astype(dtype)


def onnx_type(array):
    return helper.np_dtype_to_tensor_dtype(array.dtype) if hasattr(
        helper, "np_dtype_to_tensor_dtype") else {
            np.dtype(np.float32): TensorProto.FLOAT,
            np.dtype(np.float16): TensorProto.FLOAT16,
            np.dtype(np.float64): TensorProto.DOUBLE,
            np.dtype(np.int64): TensorProto.INT64,
            np.dtype(np.int32): TensorProto.INT32,
            np.dtype(np.int16): TensorProto.INT16,
            np.dtype(np.int8): TensorProto.INT8,
            np.dtype(np.uint8): TensorProto.UINT8,
            np.dtype(np.uint16): TensorProto.UINT16,
            np.dtype(np.uint32): TensorProto.UINT32,
            np.dtype(np.uint64): TensorProto.UINT64,
            np.dtype(np.bool_): TensorProto.BOOL,
        }[np.dtype(array.dtype)]


def model(nodes, inputs, outputs, opset, initializers=None, out_types=None,
          ir_version=None, functions=None, extra_opsets=None):
    """A ModelProto of one graph: `inputs` {name: array} become graph inputs
    of their shapes and dtypes, `outputs` names with out_types {name: elem
    type} (float32 when not given) and no shapes, `initializers` {name:
    array}."""
    out_types = out_types or {}
    graph = helper.make_graph(
        nodes, "case",
        [helper.make_tensor_value_info(n, onnx_type(a), list(a.shape))
         for n, a in inputs.items()],
        [helper.make_tensor_value_info(n, out_types.get(n, TensorProto.FLOAT), None)
         for n in outputs],
        [numpy_helper.from_array(a, n) for n, a in (initializers or {}).items()])
    opsets = [helper.make_opsetid("", opset)]
    for domain, version in (extra_opsets or {}).items():
        opsets.append(helper.make_opsetid(domain, version))
    m = helper.make_model(graph, opset_imports=opsets,
                          functions=functions or [],
                          producer_name="switchyard make_cases")
    # The IR version each opset came with (ONNX's table): ORT refuses an IR
    # too old for the opset.
    m.ir_version = ir_version or {18: 8, 19: 9, 20: 9, 21: 10, 22: 10, 23: 11}.get(
        opset, 8)
    return m, inputs


def single(op, inputs, opset, attrs=None, n_outputs=1, initializers=None,
           out_types=None, input_names=None):
    """A model of one node `op` over `inputs` (graph inputs) and
    `initializers` (constants), in that order unless `input_names` orders
    them ("" for an omitted optional input)."""
    names = input_names or list(inputs) + list(initializers or {})
    outs = ["y"] if n_outputs == 1 else [f"y{i}" for i in range(n_outputs)]
    node = helper.make_node(op, names, outs, **(attrs or {}))
    return model([node], inputs, outs, opset, initializers=initializers,
                 out_types=out_types)
