#!/usr/bin/python3
"""Exports a narrow LRASPP segmenter to ONNX once and records PyTorch's
outputs at several input sizes, for tests/onnx_image_sizes_test.cc: one
loaded OnnxModel must serve every size without re-import.

Usage:
    /usr/bin/python3 tools/export_segmentation_model.py [--out=DIR] [--seed=0]
        [--opset=13]

The model is torchvision's LRASPP (torchvision.models.segmentation.lraspp,
built by its own _lraspp_mobilenetv3, as lraspp_mobilenet_v3_large is) on a
dilated MobileNetV3-Large at width 0.25, with a one-channel stem, a head of
32 channels (128 in torchvision) and one class: the 512x512 input and output
are then 1 MB each (three RGB channels and two classes would make 8 MB of
inputs and outputs). It ends in
F.interpolate(size=input.shape[-2:], mode="bilinear", align_corners=False),
exported as Resize with its sizes computed from the input's Shape; the head
resizes its high-level features to the low-level ones' size the same way.

Weights are seeded random (tools/export_onnx_models.py's randomize: random
BatchNorm statistics and affine parameters), the export is at 240x320 with
dynamic batch, height and width, and DIR (tests/onnx_models/<name>) gets:
    model.onnx                 checked with onnx.checker (full_check)
    input_<H>x<W>.npy          a seeded standard-normal [1, 1, H, W] float32
    output_<H>x<W>.npy         PyTorch's output on it (eval mode)
    info.json                  sizes, parameters, node and op counts
for H x W in 240x320 (the export's), 300x260 and 512x512.
"""

import argparse
import json
import os
import sys

import numpy as np
import onnx
import torch
import torchvision
from torch import nn
from torchvision.models import mobilenetv3 as tv_mobilenetv3
from torchvision.models.segmentation import lraspp as tv_lraspp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import export_onnx_models  # noqa: E402  (randomize, torchscript_exporter)

NAME = "lraspp_mobilenet_v3_narrow"
EXPORT_SIZE = (240, 320)
SIZES = [(240, 320), (300, 260), (512, 512)]


class Segmenter(nn.Module):
    """LRASPP returns {"out": logits}; ONNX wants a tensor."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x)["out"]


def build(seed):
    torch.manual_seed(seed)
    setting, last = tv_mobilenetv3._mobilenet_v3_conf(
        "mobilenet_v3_large", width_mult=0.25, dilated=True)
    backbone = torchvision.models.MobileNetV3(setting, last)
    # Grayscale: the stem convolution reads one channel.
    stem = backbone.features[0][0]
    backbone.features[0][0] = nn.Conv2d(1, stem.out_channels, stem.kernel_size,
                                        stem.stride, stem.padding, bias=False)
    lraspp = tv_lraspp._lraspp_mobilenetv3(backbone, num_classes=1)
    # A narrow head too: 32 channels between the high-level features and the
    # class scores instead of 128.
    head = lraspp.classifier
    lraspp.classifier = tv_lraspp.LRASPPHead(
        head.low_classifier.in_channels, head.cbr[0].in_channels, 1, 32)
    model = Segmenter(lraspp)
    export_onnx_models.randomize(model, torch.Generator().manual_seed(seed))
    return model.eval()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=os.path.join(
        export_onnx_models.ROOT, "tests", "onnx_models", NAME))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--opset", type=int, default=13)
    args = parser.parse_args(argv)

    model = build(args.seed)
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "model.onnx")
    example = torch.zeros(1, 1, *EXPORT_SIZE)
    axes = {0: "batch", 2: "height", 3: "width"}
    torch.onnx.export(model, example, path, opset_version=args.opset,
                      input_names=["input"], output_names=["output"],
                      dynamic_axes={"input": axes, "output": axes},
                      do_constant_folding=True,
                      **export_onnx_models.torchscript_exporter())
    onnx.checker.check_model(path, full_check=True)
    proto = onnx.load(path)

    rng = np.random.default_rng(args.seed)
    outputs = {}
    for h, w in SIZES:
        x = rng.standard_normal((1, 1, h, w)).astype(np.float32)
        with torch.no_grad():
            y = model(torch.from_numpy(x)).numpy().astype(np.float32)
        if not np.all(np.isfinite(y)) or float(y.std()) == 0:
            raise RuntimeError("%dx%d: PyTorch output is degenerate" % (h, w))
        np.save(os.path.join(args.out, "input_%dx%d.npy" % (h, w)), x)
        np.save(os.path.join(args.out, "output_%dx%d.npy" % (h, w)), y)
        outputs["%dx%d" % (h, w)] = {"shape": list(y.shape),
                                     "max_abs": float(np.abs(y).max())}
    info = {
        "name": NAME,
        "export_size": list(EXPORT_SIZE),
        "outputs": outputs,
        "parameters": int(sum(p.numel() for p in model.parameters())),
        "onnx_bytes": os.path.getsize(path),
        "nodes": len(proto.graph.node),
        "op_types": sorted({n.op_type for n in proto.graph.node}),
        "versions": {"torch": torch.__version__,
                     "torchvision": torchvision.__version__,
                     "onnx": onnx.__version__, "opset": args.opset,
                     "seed": args.seed},
    }
    with open(os.path.join(args.out, "info.json"), "w") as f:
        json.dump(info, f, indent=1)
        f.write("\n")
    print("%s: %d nodes, %d parameters, %s" % (
        NAME, info["nodes"], info["parameters"], ", ".join(info["op_types"])))


if __name__ == "__main__":
    main()
