"""ONNX's own backend test runner (onnx.backend.test.BackendTest) over
switchyard.onnx_backend: the suites Debian's libonnx-testdata ships (node,
simple, pytorch-converted, pytorch-operator), on every ONNX device the
machine has (CPU; CUDA where a GPU is).

What Switchyard does not implement (an op, attribute or dtype the importer
does not convert, sequence and optional inputs) skips with the reason, as
the C++ runner (tests/onnx_node_test.cc) counts it. Excluded here, with why:
the "real" suite (whole models ONNX's runner downloads; none offline) and
the cases listed in EXCLUDED below.

    PYTHONPATH=bazel-bin/python /usr/bin/python3 -m pytest -q -rs \\
        python/tests/onnx_backend_test.py -k "relu"
"""

import re
import unittest

import numpy as np
import onnx.backend.test
from onnx.backend.test.loader import load_model_tests

import switchyard.onnx_backend

# onnx 1.12's runner compares with `dtype == np.object`, which numpy 1.24
# (Debian 12's) removed; the alias is the builtin it always meant.
if "object" not in vars(np):
    np.object = object


class SkippingBackend(switchyard.onnx_backend.SwitchyardBackend):
    """Unimplemented -> unittest.SkipTest with the reason."""
    skip_unimplemented = True


# Cases run but excluded from the verdict, with the reason (pattern: reason).
EXCLUDED = {
    r"^test_castlike_(BFLOAT16_to_FLOAT|FLOAT_to_BFLOAT16)(_expanded)?_":
        "ONNX 1.12's data feeds input 'like' with shape [1] where the model declares "
        "[3, 4]; Switchyard refuses inputs that contradict the declared shape "
        "(InvalidArgument). The C++ runner skips them earlier: its reader takes the "
        "data's bfloat16 stored as UINT16 for an unsupported dtype.",
}

for _case in load_model_tests(kind="real"):
    EXCLUDED[f"^{_case.name}_"] = (
        "a whole model ONNX's runner downloads from the internet (the 'real' suite); "
        "Debian's libonnx-testdata ships none of them and this machine is offline")



def _test_cases():
    """BackendTest's unittest classes (OnnxBackendNodeModelTest, ...), each
    excluded case skipping with its reason (the runner's own exclude() would
    only name the pattern)."""
    cases = onnx.backend.test.BackendTest(SkippingBackend, __name__).test_cases
    for test_case in cases.values():
        for name in dir(test_case):
            for pattern, reason in EXCLUDED.items():
                if name.startswith("test_") and re.search(pattern, name):
                    setattr(test_case, name, unittest.skip(reason)(getattr(test_case, name)))
    return cases


globals().update(_test_cases())



# The backend API itself, outside ONNX's runner.

def test_run_node_prepare_and_devices():
    from onnx import helper, TensorProto
    backend = switchyard.onnx_backend
    x = np.array([[-1.5, 0.0, 2.0]], np.float32)
    y, = backend.run_node(helper.make_node("Relu", ["x"], ["y"]), [x])
    np.testing.assert_array_equal(y, np.maximum(x, 0))
    graph = helper.make_graph(
        [helper.make_node("Add", ["a", "b"], ["c"])], "add",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, [3]) for n in "ab"],
        [helper.make_tensor_value_info("c", TensorProto.FLOAT, [3])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    a, b = np.ones(3, np.float32), np.arange(3, dtype=np.float32)
    rep = backend.prepare(model.SerializeToString(), "CPU")
    np.testing.assert_array_equal(rep.run([a, b]).c, a + b)  # outputs by name
    np.testing.assert_array_equal(backend.run_model(model, {"a": a, "b": b})[0], a + b)
    assert backend.supports_device("CPU")
    assert backend.supports_device("CUDA") == (switchyard.device_count("cuda") > 0)
    # Outside the test runner, what Switchyard lacks is an error, not a skip.
    unsupported = helper.make_graph(
        [helper.make_node("TfIdfVectorizer", ["x"], ["y"], mode="TF", min_gram_length=1,
                          max_gram_length=1, max_skip_count=0, ngram_counts=[0],
                          ngram_indexes=[0], pool_int64s=[1])], "tfidf",
        [helper.make_tensor_value_info("x", TensorProto.INT64, [4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
    with np.testing.assert_raises(switchyard.UnimplementedError):
        backend.prepare(helper.make_model(
            unsupported, opset_imports=[helper.make_opsetid("", 13)]))


if __name__ == "__main__":
    unittest.main()
