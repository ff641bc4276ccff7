#!/usr/bin/python3
"""Exports a narrow Faster R-CNN to ONNX once and records PyTorch's
detections at several image sizes, for tests/onnx_detection_test.cc: one
loaded OnnxModel must serve every size, as the seed's detector needs.

Usage:
    /usr/bin/python3 tools/export_detection_model.py [--out=DIR] [--seed=0]
        [--opset=16]

The model is torchvision's own FasterRCNN (its transform, RPN with anchor
generation, NMS and the data-dependent number of proposals, MultiScaleRoIAlign
over four FPN levels, the box head and the post-processing with per-class NMS
and If on empty results), as fasterrcnn_resnet50_fpn builds it, on a narrow
backbone: four stride-2 conv stages (16 to 64 channels) and torchvision's
FeaturePyramidNetwork of 16 channels with its max-pool level, a 32-wide box
head, 4 classes, 50 proposals after NMS and at most 20 detections. Images are
resized to 160..256 pixels by the model's transform. Weights are seeded
random (tools/export_onnx_models.py's randomize), so the box scores sit near
1 / 4 and every image gives detections.

DIR (tests/onnx_models/<name>) gets:
    model.onnx                 checked with onnx.checker (full_check)
    input_<H>x<W>.npy          a seeded uniform [3, H, W] float32 image
    boxes_<H>x<W>.npy, labels_<H>x<W>.npy, scores_<H>x<W>.npy
                               PyTorch's detections on it (eval mode)
    info.json                  sizes, parameters, node and op counts
for H x W in 200x240 (the export's), 240x200 and 180x300.
"""

import argparse
import collections
import json
import os
import sys

import numpy as np
import onnx
import torch
import torchvision
from torch import nn
from torchvision.models.detection import FasterRCNN
from torchvision.models.detection.backbone_utils import BackboneWithFPN
from torchvision.models.detection.faster_rcnn import FastRCNNPredictor, TwoMLPHead

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import export_onnx_models  # noqa: E402  (randomize, torchscript_exporter)

NAME = "fasterrcnn_narrow"
EXPORT_SIZE = (200, 240)
SIZES = [(200, 240), (240, 200), (180, 300)]
CLASSES = 4


def body():
    """Four stride-2 stages, named as BackboneWithFPN's return_layers."""
    layers = collections.OrderedDict()
    channels = [3, 16, 24, 32, 48, 64]
    for i in range(5):
        layers["stage%d" % i] = nn.Sequential(
            nn.Conv2d(channels[i], channels[i + 1], 3, stride=2, padding=1, bias=False),
            nn.BatchNorm2d(channels[i + 1]), nn.ReLU(inplace=True))
    return nn.Sequential(layers)


def build(seed):
    torch.manual_seed(seed)
    backbone = BackboneWithFPN(
        body(), return_layers={"stage1": "0", "stage2": "1", "stage3": "2", "stage4": "3"},
        in_channels_list=[24, 32, 48, 64], out_channels=16)
    model = FasterRCNN(
        backbone, min_size=160, max_size=256,
        rpn_pre_nms_top_n_test=100, rpn_post_nms_top_n_test=50,
        box_head=TwoMLPHead(16 * 7 * 7, 32),
        box_predictor=FastRCNNPredictor(32, CLASSES),
        box_detections_per_img=20)
    export_onnx_models.randomize(model, torch.Generator().manual_seed(seed))
    return model.eval()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=os.path.join(
        export_onnx_models.ROOT, "tests", "onnx_models", NAME))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--opset", type=int, default=16)
    args = parser.parse_args(argv)

    model = build(args.seed)
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "model.onnx")
    rng = np.random.default_rng(args.seed)
    images = {size: rng.random((3,) + size, dtype=np.float32) for size in SIZES}
    example = [torch.from_numpy(images[EXPORT_SIZE])]
    torch.onnx.export(model, (example,), path, opset_version=args.opset,
                      input_names=["image"], output_names=["boxes", "labels", "scores"],
                      dynamic_axes={"image": {1: "height", 2: "width"},
                                    "boxes": {0: "detections"}, "labels": {0: "detections"},
                                    "scores": {0: "detections"}},
                      do_constant_folding=True,
                      **export_onnx_models.torchscript_exporter())
    proto = onnx.load(path)
    # torchvision 0.14 writes RoiAlign with its opset-11 symbolic, without
    # coordinate_transformation_mode; from opset 16 ONNX reads that as
    # half_pixel (aligned=True), not what MultiScaleRoIAlign computes
    # (aligned=False). Say so in the file, as later exporters do.
    if args.opset >= 16:
        for node in proto.graph.node:
            if node.op_type == "RoiAlign" and not any(
                    a.name == "coordinate_transformation_mode" for a in node.attribute):
                node.attribute.append(onnx.helper.make_attribute(
                    "coordinate_transformation_mode", "output_half_pixel"))
        onnx.save(proto, path)
    onnx.checker.check_model(path, full_check=True)

    outputs = {}
    for (h, w), x in images.items():
        with torch.no_grad():
            found = model([torch.from_numpy(x)])[0]
        if found["boxes"].shape[0] == 0:
            raise RuntimeError("%dx%d: PyTorch finds nothing" % (h, w))
        np.save(os.path.join(args.out, "input_%dx%d.npy" % (h, w)), x)
        for key in ("boxes", "labels", "scores"):
            np.save(os.path.join(args.out, "%s_%dx%d.npy" % (key, h, w)), found[key].numpy())
        outputs["%dx%d" % (h, w)] = {"detections": int(found["boxes"].shape[0])}
    ops = collections.Counter()

    def count(graph):
        for node in graph.node:
            ops[node.op_type] += 1
            for a in node.attribute:
                if a.type == onnx.AttributeProto.GRAPH:
                    count(a.g)
    count(proto.graph)
    info = {
        "name": NAME,
        "export_size": list(EXPORT_SIZE),
        "outputs": outputs,
        "parameters": int(sum(p.numel() for p in model.parameters())),
        "onnx_bytes": os.path.getsize(path),
        "nodes": sum(ops.values()),
        "op_types": dict(sorted(ops.items())),
        "versions": {"torch": torch.__version__,
                     "torchvision": torchvision.__version__,
                     "onnx": onnx.__version__, "opset": args.opset,
                     "seed": args.seed},
    }
    with open(os.path.join(args.out, "info.json"), "w") as f:
        json.dump(info, f, indent=1)
        f.write("\n")
    print("%s: %d nodes, %d parameters, %d bytes; detections %s" % (
        NAME, info["nodes"], info["parameters"], info["onnx_bytes"], outputs))


if __name__ == "__main__":
    main()
