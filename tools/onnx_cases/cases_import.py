"""Models as today's tools write them, and hostile ones: nodes out of
order, model-local functions (torch.export), weights in an external data
file, a model without inputs; cycles, recursive or mismatched functions,
external data that leaves the model's folder, If branches of two dtypes,
Range with NaN bounds."""

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from case_registry import case, model, rand, refusal


def _block_nodes():
    return [helper.make_node("MatMul", ["x", "w"], ["h"], name="mm"),
            helper.make_node("Add", ["h", "b"], ["hb"], name="add"),
            helper.make_node("Relu", ["hb"], ["y"], name="relu")]


@case("import", "nodes_out_of_order")
def _():
    nodes = _block_nodes()[::-1]  # relu, add, mm: every node before its producer
    return model(nodes, {"x": rand(2, 4)}, ["y"], 18,
                 initializers={"w": rand(4, 3), "b": rand(3)})


@case("import", "external_data_ir10")
def _():
    m, inputs = model(_block_nodes(), {"x": rand(2, 4)}, ["y"], 18, ir_version=10,
                      initializers={"w": rand(4, 3), "b": rand(3)})
    return m, inputs, {"external_data": True}


def _function_model(functions, nodes, opset=18, extra=None):
    return model(nodes, {"x": rand(2, 5)}, ["y"], opset, ir_version=10,
                 functions=functions, extra_opsets={"pkg.local": 1, **(extra or {})})


def _ref(name, ref):
    a = helper.AttributeProto()
    a.name = name
    a.ref_attr_name = ref
    a.type = helper.AttributeProto.FLOAT
    return a


def _leaky_function():
    two = helper.make_node("Constant", [], ["two"],
                           value=numpy_helper.from_array(np.array(2.0, np.float32)))
    mul = helper.make_node("Mul", ["a", "two"], ["m"])
    leaky = helper.make_node("LeakyRelu", ["m"], ["l"])
    leaky.attribute.append(_ref("alpha", "slope"))
    add = helper.make_node("Add", ["l", "a"], ["out"])
    return helper.make_function("pkg.local", "ScaledLeaky", ["a"], ["out"],
                                [two, mul, leaky, add],
                                [helper.make_opsetid("", 18)], ["slope"])


@case("import", "local_function_twice_with_attribute")
def _():
    calls = [helper.make_node("ScaledLeaky", ["x"], ["h"], domain="pkg.local",
                              name="block1", slope=0.1),
             helper.make_node("ScaledLeaky", ["h"], ["y"], domain="pkg.local",
                              name="block2", slope=0.3)]
    return _function_model([_leaky_function()], calls)


@case("import", "local_function_calls_function")
def _():
    inner = _leaky_function()
    outer = helper.make_function(
        "pkg.local", "Twice", ["p"], ["q"],
        [helper.make_node("ScaledLeaky", ["p"], ["t"], domain="pkg.local", slope=0.2),
         helper.make_node("ScaledLeaky", ["t"], ["q"], domain="pkg.local", slope=0.5)],
        [helper.make_opsetid("", 18), helper.make_opsetid("pkg.local", 1)], [])
    call = helper.make_node("Twice", ["x"], ["y"], domain="pkg.local", name="twice")
    return _function_model([outer, inner], [call])


@case("import", "no_inputs")
def _():
    c = helper.make_node("Constant", [], ["c"],
                         value=numpy_helper.from_array(np.arange(6, dtype=np.float32).reshape(2, 3)))
    y = helper.make_node("Relu", ["c"], ["y"])
    return model([c, y], {}, ["y"], 18)


@refusal("import", "cycle", "cycle")
def _():
    nodes = [helper.make_node("Relu", ["b"], ["a"], name="first"),
             helper.make_node("Relu", ["a"], ["b"], name="second"),
             helper.make_node("Add", ["a", "x"], ["y"], name="sum")]
    return model(nodes, {"x": rand(3)}, ["y"], 18)


@refusal("import", "node_with_more_outputs_than_its_op",
         "output 1 ('extra') is not produced by Switchyard's Relu import")
def _():
    # Relu has one output; the node names two (found by fuzzing, as Conv).
    node = helper.make_node("Relu", ["x"], ["y", "extra"])
    return model([node], {"x": rand(2, 3)}, ["y"], 13)


@refusal("import", "value_with_two_producers", "produced by two nodes")
def _():
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="one"),
             helper.make_node("Neg", ["x"], ["y"], name="two")]
    return model(nodes, {"x": rand(3)}, ["y"], 18)


@refusal("import", "recursive_function", "calls itself")
def _():
    f = helper.make_function("pkg.local", "Loopy", ["a"], ["out"],
                             [helper.make_node("Loopy", ["a"], ["out"], domain="pkg.local")],
                             [helper.make_opsetid("", 18), helper.make_opsetid("pkg.local", 1)],
                             [])
    return _function_model([f], [helper.make_node("Loopy", ["x"], ["y"], domain="pkg.local")])


@refusal("import", "function_called_with_too_many_inputs", "the function declares 1")
def _():
    call = helper.make_node("ScaledLeaky", ["x", "x"], ["y"], domain="pkg.local", slope=0.1)
    return _function_model([_leaky_function()], [call])


@refusal("import", "function_output_never_made", "made by no node of its body")
def _():
    f = helper.make_function("pkg.local", "Broken", ["a"], ["out"],
                             [helper.make_node("Relu", ["a"], ["other"])],
                             [helper.make_opsetid("", 18)], [])
    return _function_model([f], [helper.make_node("Broken", ["x"], ["y"], domain="pkg.local")])


def _external_model(location, offset=None, length=None):
    m, inputs = model(_block_nodes(), {"x": rand(2, 4)}, ["y"], 18, ir_version=10,
                      initializers={"w": rand(4, 3), "b": rand(3)})
    w = m.graph.initializer[0]
    w.ClearField("raw_data")
    w.data_location = TensorProto.EXTERNAL
    entries = [("location", location)]
    if offset is not None:
        entries.append(("offset", str(offset)))
    if length is not None:
        entries.append(("length", str(length)))
    for k, v in entries:
        e = w.external_data.add()
        e.key, e.value = k, v
    return m, inputs


@refusal("import", "external_data_outside_the_folder", "..")
def _():
    return _external_model("../../../../etc/passwd")


@refusal("import", "external_data_absolute_path", "/etc/hostname")
def _():
    return _external_model("/etc/hostname")


@refusal("import", "external_data_missing_file", "weights.bin")
def _():
    return _external_model("weights.bin")


@refusal("import", "if_branches_of_two_dtypes", "both branches must give")
def _():
    then_g = helper.make_graph(
        [helper.make_node("Constant", [], ["t"],
                          value=numpy_helper.from_array(np.ones(3, np.float32)))],
        "then", [], [helper.make_tensor_value_info("t", TensorProto.FLOAT, [3])])
    else_g = helper.make_graph(
        [helper.make_node("Constant", [], ["e"],
                          value=numpy_helper.from_array(np.ones(3, np.int64)))],
        "else", [], [helper.make_tensor_value_info("e", TensorProto.INT64, [3])])
    node = helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)
    return model([node], {"c": np.array(True)}, ["y"], 18)


@refusal("import", "range_nan_start", "finite")
def _():
    node = helper.make_node("Range", ["s", "l", "d"], ["y"])
    return model([node], {"s": np.array(np.nan, np.float32)}, ["y"], 18,
                 initializers={"l": np.array(5, np.float32), "d": np.array(1, np.float32)})


@refusal("import", "range_infinite_limit", "finite")
def _():
    node = helper.make_node("Range", ["s", "l", "d"], ["y"])
    return model([node], {"s": np.array(0, np.float32)}, ["y"], 18,
                 initializers={"l": np.array(np.inf, np.float32), "d": np.array(1, np.float32)})
