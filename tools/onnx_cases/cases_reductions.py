"""Reductions at opset 18 and later: axes as an optional input (ReduceSum
took it at 13), noop_with_empty_axes, and opset 20's bool ReduceMax/Min."""

import numpy as np
from onnx import TensorProto, helper

from case_registry import case, model, rand, single

REDUCTIONS = ["ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1",
              "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare",
              "ReduceSum"]


def _positive(op, x):
    # ReduceLogSum of negative sums is NaN in both runtimes: keep it finite.
    return np.abs(x) + 0.1 if op == "ReduceLogSum" else x


for _op in REDUCTIONS:
    def _axes_input(op=_op):
        x = _positive(op, rand(2, 3, 4))
        return single(op, {"x": x}, 18, attrs={"keepdims": 0},
                      initializers={"axes": np.array([-1, 0], np.int64)})

    def _no_axes(op=_op):
        x = _positive(op, rand(2, 3, 4))
        return single(op, {"x": x}, 18)

    def _noop(op=_op):
        x = _positive(op, rand(3, 4))
        return single(op, {"x": x}, 18, attrs={"noop_with_empty_axes": 1},
                      initializers={"axes": np.zeros([0], np.int64)})

    def _axes_fed(op=_op):
        # axes as a graph input: read from the data at run time.
        x = _positive(op, rand(2, 3, 4))
        return single(op, {"x": x, "axes": np.array([1], np.int64)}, 18)

    name = _op[len("Reduce"):].lower()
    case("opset18", f"reduce_{name}_axes_input")(_axes_input)
    case("opset18", f"reduce_{name}_default_axes")(_no_axes)
    case("opset18", f"reduce_{name}_noop_empty_axes")(_noop)
    case("opset18", f"reduce_{name}_axes_graph_input")(_axes_fed)


@case("opset20", "reduce_max_bool")
def _():
    x = rand(3, 4) > 0
    return single("ReduceMax", {"x": x}, 20, attrs={"keepdims": 1},
                  initializers={"axes": np.array([1], np.int64)},
                  out_types={"y": TensorProto.BOOL})


@case("opset20", "reduce_min_bool")
def _():
    x = rand(3, 4) > 0
    return single("ReduceMin", {"x": x}, 20,
                  out_types={"y": TensorProto.BOOL})
