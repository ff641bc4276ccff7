#!/usr/bin/env python3
"""Writes the small ONNX models that show the utilization report's verdicts
from real runs (docs/benchmarks.md, issue 12):

benchmarks/models/detection_postprocess.onnx: a detector's post-processing
step, the graph behind "the GPU idles while NMS runs". Input `logits` [1,
boxes, classes] (float32); the graph takes sigmoid scores, transposes them to
[1, classes, boxes] and runs ONNX NonMaxSuppression against fixed RPN-like
anchors (clusters of overlapping boxes, seeded) with max 100 boxes per
class, IoU 0.5, score threshold 0.05. Verdict: one op.

benchmarks/models/copy_bound.onnx: a large input [8, 3, 1024, 1024] of which
the graph keeps one pixel per image (Slice): the time is the input's copy to
the device. Verdict: copies.

    /usr/bin/python3 tools/make_diagnosis_models.py [--boxes 6000] [--classes 20]
"""
import argparse
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def anchors(n, rng):
    # Clusters of jittered boxes around random centres, as a region
    # proposal network's top-n before NMS looks.
    centres = rng.uniform(0, 800, size=(max(n // 50, 1), 2))
    pick = centres[rng.integers(0, len(centres), size=n)]
    size = rng.uniform(16, 128, size=(n, 2))
    jitter = rng.normal(0, 6, size=(n, 2))
    c = pick + jitter
    y1x1 = c - size / 2
    y2x2 = c + size / 2
    return np.concatenate([y1x1, y2x2], axis=1).astype(np.float32)[None]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boxes", type=int, default=6000)
    parser.add_argument("--classes", type=int, default=20)
    parser.add_argument("--out_dir", default=os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
        "benchmarks/models"))
    args = parser.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    save(detection_postprocess(args.boxes, args.classes),
         os.path.join(args.out_dir, "detection_postprocess.onnx"))
    save(copy_bound(), os.path.join(args.out_dir, "copy_bound.onnx"))


def save(model, path):
    onnx.checker.check_model(model)
    onnx.save(model, path)
    print("wrote", path, os.path.getsize(path), "bytes")


def copy_bound():
    inits = [numpy_helper.from_array(np.array(v, np.int64), n) for n, v in
             [("starts", [0, 0]), ("ends", [1, 1]), ("axes", [2, 3])]]
    node = helper.make_node("Slice", ["x", "starts", "ends", "axes"], ["pixel"],
                            name="keep_one_pixel")
    graph = helper.make_graph(
        [node], "copy_bound",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [8, 3, 1024, 1024])],
        [helper.make_tensor_value_info("pixel", TensorProto.FLOAT, [8, 3, 1, 1])],
        inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                             producer_name="switchyard tools/make_diagnosis_models.py")


def detection_postprocess(boxes, classes):
    rng = np.random.default_rng(0)
    inits = [
        numpy_helper.from_array(anchors(boxes, rng), "anchors"),
        numpy_helper.from_array(np.array([100], np.int64), "max_per_class"),
        numpy_helper.from_array(np.array([0.5], np.float32), "iou"),
        numpy_helper.from_array(np.array([0.05], np.float32), "score_threshold"),
    ]
    nodes = [
        helper.make_node("Sigmoid", ["logits"], ["probs"], name="sigmoid"),
        helper.make_node("Transpose", ["probs"], ["scores"], perm=[0, 2, 1], name="to_classes"),
        helper.make_node("NonMaxSuppression",
                         ["anchors", "scores", "max_per_class", "iou", "score_threshold"],
                         ["selected"], name="nms"),
    ]
    graph = helper.make_graph(
        nodes, "detection_postprocess",
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT,
                                       [1, boxes, classes])],
        [helper.make_tensor_value_info("selected", TensorProto.INT64, ["selected", 3])],
        inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                             producer_name="switchyard tools/make_diagnosis_models.py")


if __name__ == "__main__":
    main()
