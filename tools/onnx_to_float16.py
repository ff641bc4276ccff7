#!/usr/bin/python3
"""Converts a float32 ONNX model to float16, as model.half() before export
would: every float32 initializer, Constant and declared type becomes
float16 (Cast nodes to float32 now cast to float16).

    /usr/bin/python3 tools/onnx_to_float16.py IN.onnx OUT.onnx [--input=IN.npy --input-out=OUT.npy]

For benchmarking float16 models on the CPU backends (docs/benchmarks.md,
"float16 models on CPU"); the weights are the model's, rounded to float16.
"""

import argparse

import numpy as np
import onnx
from onnx import TensorProto, numpy_helper

FLOAT, HALF = TensorProto.FLOAT, TensorProto.FLOAT16


def half_tensor(t):
    if t.data_type != FLOAT:
        return t
    converted = numpy_helper.from_array(numpy_helper.to_array(t).astype(np.float16), t.name)
    t.CopyFrom(converted)
    return t


def convert_graph(graph):
    for t in graph.initializer:
        half_tensor(t)
    for info in list(graph.input) + list(graph.output) + list(graph.value_info):
        tt = info.type.tensor_type
        if tt.elem_type == FLOAT:
            tt.elem_type = HALF
    for node in graph.node:
        for attr in node.attribute:
            if attr.type == onnx.AttributeProto.TENSOR:
                half_tensor(attr.t)
            elif attr.type == onnx.AttributeProto.GRAPH:
                convert_graph(attr.g)
            elif node.op_type == "Cast" and attr.name == "to" and attr.i == FLOAT:
                attr.i = HALF


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("src")
    parser.add_argument("dst")
    parser.add_argument("--input", help="a float32 .npy input to convert too")
    parser.add_argument("--input-out")
    args = parser.parse_args()
    m = onnx.load(args.src)
    convert_graph(m.graph)
    onnx.checker.check_model(m)
    onnx.save(m, args.dst)
    if args.input:
        np.save(args.input_out, np.load(args.input).astype(np.float16))


if __name__ == "__main__":
    main()
