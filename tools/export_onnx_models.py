#!/usr/bin/python3
"""Exports torchvision classification models to ONNX with seeded random weights.

Usage:
    /usr/bin/python3 tools/export_onnx_models.py [--size=test|full] [--models=a,b,...]
        [--out=DIR] [--opset=13] [--dynamic-batch] [--batch=N] [--seed=0]
        [--resolution=N] [--ort] [--readme]

For every model it writes DIR/<name>/:
    model.onnx           torch.onnx.export (opset 13 by default, 11-17 allowed), checked
                         with onnx.checker (full_check: shape inference too)
    input.npy            a seeded standard-normal batch, float32 NCHW
    output_pytorch.npy   the model's output on input.npy in PyTorch (eval mode)
    output_onnxruntime.npy  with --ort: ONNX Runtime's output on input.npy
                         (benchmarks/onnxruntime_peer.js; needs tools/setup.sh --with-peers)

--size=test (default) builds SMALL variants of each family: the same block
structure (the family's own constructor or a small subclass of its class)
with narrow widths, 10 classes and a small input resolution, so the files are
small enough to commit (tests/onnx_models, the default --out). --size=full
builds the real architectures (torchvision's own constructors, 1000 classes)
at 224x224 into benchmarks/onnx_models (git-ignored: vgg11 alone is 500 MB);
with --size=full, --models also takes any other classifier of torchvision.models
(inception_v3 at 299x299), video model of torchvision.models.video (clips of
16 frames at 112x112) or segmenter of torchvision.models.segmentation (its
"out" map, at 1024x1024 unless --resolution says otherwise), for trying the
default path on models nobody tuned for.

Weights are random but seeded: torch.manual_seed(seed) before each model is
built (so a model does not depend on which others are exported), then every
BatchNorm gets random running statistics and affine parameters, every
LayerNorm a random affine, ConvNeXt's layer scale a value near 0.5 instead of
1e-6, and every parameter that the family initialises to all zeros (biases,
ViT's head and class token) small random values, so that no layer is an
identity and the outputs depend on every weight.

--dynamic-batch exports the first input and output dimension as the symbolic
"batch" (dynamic_axes); the folder gets the suffix "_dynamic". Otherwise all
shapes are static.

--readme (with --size=test) rewrites DIR/README.md: how the files were made
(command, versions, seed), their sizes, and the PyTorch vs ONNX Runtime
difference per model when the ORT outputs exist.
"""

import argparse
import importlib
import inspect
import json
import os
import subprocess
import sys

import numpy as np
import onnx
import torch
import torchvision
from torch import nn
from torchvision.models import convnext as tv_convnext
from torchvision.models import efficientnet as tv_efficientnet
from torchvision.models import mobilenetv3 as tv_mobilenetv3
from torchvision.models import resnet as tv_resnet

tv_googlenet = importlib.import_module("torchvision.models.googlenet")
tv_squeezenet = importlib.import_module("torchvision.models.squeezenet")
tv_vgg = importlib.import_module("torchvision.models.vgg")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FAMILIES = ["alexnet", "vgg11_bn", "resnet18", "resnet50", "squeezenet1_1",
            "densenet121", "googlenet", "shufflenet_v2_x1_0", "mobilenet_v2",
            "mobilenet_v3_small", "efficientnet_b0", "convnext_tiny", "vit_b_16"]
# Exported on request only (the benchmarks' VGG11).
EXTRA = ["vgg11"]
TEST_CLASSES = 10


# ---------------------------------------------------------------------------
# Small variants: the family's structure, narrow widths.

class SmallAlexNet(torchvision.models.AlexNet):
    """AlexNet's five convolutions, three pools and three linears, narrow.
    At 128x128 the features end at 3x3, so the adaptive pool is (3, 3)
    (at 224 torchvision's (6, 6) is the identity too)."""

    def __init__(self, num_classes):
        nn.Module.__init__(self)
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, kernel_size=11, stride=4, padding=2), nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2),
            nn.Conv2d(16, 32, kernel_size=5, padding=2), nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2),
            nn.Conv2d(32, 48, kernel_size=3, padding=1), nn.ReLU(inplace=True),
            nn.Conv2d(48, 32, kernel_size=3, padding=1), nn.ReLU(inplace=True),
            nn.Conv2d(32, 32, kernel_size=3, padding=1), nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2),
        )
        self.avgpool = nn.AdaptiveAvgPool2d((3, 3))
        self.classifier = nn.Sequential(
            nn.Dropout(p=0.5), nn.Linear(32 * 3 * 3, 128), nn.ReLU(inplace=True),
            nn.Dropout(p=0.5), nn.Linear(128, 128), nn.ReLU(inplace=True),
            nn.Linear(128, num_classes),
        )


class SmallVGG(tv_vgg.VGG):
    """torchvision's VGG (its forward) with narrow features; at 128x128 the
    features end at 4x4 and the adaptive pool makes 2x2 (a 2x2 average)."""

    def __init__(self, cfg, batch_norm, num_classes):
        nn.Module.__init__(self)
        self.features = tv_vgg.make_layers(cfg, batch_norm=batch_norm)
        last = [c for c in cfg if c != "M"][-1]
        self.avgpool = nn.AdaptiveAvgPool2d((2, 2))
        self.classifier = nn.Sequential(
            nn.Linear(last * 2 * 2, 128), nn.ReLU(True), nn.Dropout(p=0.5),
            nn.Linear(128, 128), nn.ReLU(True), nn.Dropout(p=0.5),
            nn.Linear(128, num_classes),
        )


class NarrowResNet(tv_resnet.ResNet):
    """torchvision's ResNet (its _make_layer and forward) with stage widths
    w, 2w, 4w, 8w instead of 64 ... 512 (BasicBlock refuses width_per_group
    other than 64, so the width is set here)."""

    def __init__(self, block, layers, width, num_classes):
        nn.Module.__init__(self)
        self._norm_layer = nn.BatchNorm2d
        self.inplanes = width
        self.dilation = 1
        self.groups = 1
        self.base_width = 64
        self.conv1 = nn.Conv2d(3, width, kernel_size=7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._make_layer(block, width, layers[0])
        self.layer2 = self._make_layer(block, 2 * width, layers[1], stride=2)
        self.layer3 = self._make_layer(block, 4 * width, layers[2], stride=2)
        self.layer4 = self._make_layer(block, 8 * width, layers[3], stride=2)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(8 * width * block.expansion, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")


class SmallSqueezeNet(torchvision.models.SqueezeNet):
    """SqueezeNet 1.1's layer sequence (Fire modules, ceil-mode pools, the
    1x1 classifier convolution) with a quarter of its widths."""

    def __init__(self, num_classes):
        nn.Module.__init__(self)
        fire = tv_squeezenet.Fire
        self.num_classes = num_classes
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, kernel_size=3, stride=2), nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True),
            fire(16, 4, 16, 16), fire(32, 4, 16, 16),
            nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True),
            fire(32, 8, 32, 32), fire(64, 8, 32, 32),
            nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True),
            fire(64, 12, 48, 48), fire(96, 12, 48, 48),
            fire(96, 16, 64, 64), fire(128, 16, 64, 64),
        )
        self.classifier = nn.Sequential(
            nn.Dropout(p=0.5), nn.Conv2d(128, num_classes, kernel_size=1),
            nn.ReLU(inplace=True), nn.AdaptiveAvgPool2d((1, 1)))


class SmallGoogLeNet(torchvision.models.GoogLeNet):
    """GoogLeNet's stem and nine Inception blocks with every width divided
    by 8 (torchvision's are all multiples of 8); no auxiliary heads, no
    input transform."""

    def __init__(self, num_classes, div=8):
        nn.Module.__init__(self)
        conv, inception = tv_googlenet.BasicConv2d, tv_googlenet.Inception

        def block(*widths):
            return inception(*[w // div for w in widths])

        self.aux_logits = False
        self.transform_input = False
        self.conv1 = conv(3, 64 // div, kernel_size=7, stride=2, padding=3)
        self.maxpool1 = nn.MaxPool2d(3, stride=2, ceil_mode=True)
        self.conv2 = conv(64 // div, 64 // div, kernel_size=1)
        self.conv3 = conv(64 // div, 192 // div, kernel_size=3, padding=1)
        self.maxpool2 = nn.MaxPool2d(3, stride=2, ceil_mode=True)
        self.inception3a = block(192, 64, 96, 128, 16, 32, 32)
        self.inception3b = block(256, 128, 128, 192, 32, 96, 64)
        self.maxpool3 = nn.MaxPool2d(3, stride=2, ceil_mode=True)
        self.inception4a = block(480, 192, 96, 208, 16, 48, 64)
        self.inception4b = block(512, 160, 112, 224, 24, 64, 64)
        self.inception4c = block(512, 128, 128, 256, 24, 64, 64)
        self.inception4d = block(512, 112, 144, 288, 32, 64, 64)
        self.inception4e = block(528, 256, 160, 320, 32, 128, 128)
        self.maxpool4 = nn.MaxPool2d(2, stride=2, ceil_mode=True)
        self.inception5a = block(832, 256, 160, 320, 32, 128, 128)
        self.inception5b = block(832, 384, 192, 384, 48, 128, 128)
        self.aux1 = None
        self.aux2 = None
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.dropout = nn.Dropout(p=0.2)
        self.fc = nn.Linear(1024 // div, num_classes)


def small_model(name):
    """(model, input resolution) of the small variant of a family."""
    k = TEST_CLASSES
    if name == "alexnet":
        return SmallAlexNet(k), 128
    if name in ("vgg11", "vgg11_bn"):
        cfg = [8, "M", 16, "M", 32, 32, "M", 64, 64, "M", 64, 64, "M"]
        return SmallVGG(cfg, name.endswith("_bn"), k), 128
    if name == "resnet18":
        return NarrowResNet(tv_resnet.BasicBlock, [2, 2, 2, 2], 8, k), 64
    if name == "resnet50":
        return NarrowResNet(tv_resnet.Bottleneck, [3, 4, 6, 3], 8, k), 64
    if name == "squeezenet1_1":
        return SmallSqueezeNet(k), 64
    if name == "densenet121":
        return torchvision.models.DenseNet(growth_rate=8, block_config=(6, 12, 24, 16),
                                           num_init_features=16, bn_size=2,
                                           num_classes=k), 64
    if name == "googlenet":
        return SmallGoogLeNet(k), 64
    if name == "shufflenet_v2_x1_0":
        return torchvision.models.ShuffleNetV2([4, 8, 4], [8, 16, 32, 64, 128],
                                               num_classes=k), 64
    if name == "mobilenet_v2":
        return torchvision.models.MobileNetV2(num_classes=k, width_mult=0.25), 64
    if name == "mobilenet_v3_small":
        setting, last = tv_mobilenetv3._mobilenet_v3_conf("mobilenet_v3_small",
                                                          width_mult=0.25)
        return torchvision.models.MobileNetV3(setting, last, num_classes=k), 64
    if name == "efficientnet_b0":
        setting, last = tv_efficientnet._efficientnet_conf("efficientnet_b0",
                                                           width_mult=0.25, depth_mult=1.0)
        return torchvision.models.EfficientNet(setting, dropout=0.2, last_channel=last,
                                               num_classes=k), 64
    if name == "convnext_tiny":
        cfg = tv_convnext.CNBlockConfig
        setting = [cfg(8, 16, 3), cfg(16, 32, 3), cfg(32, 64, 9), cfg(64, None, 3)]
        return torchvision.models.ConvNeXt(setting, num_classes=k), 64
    if name == "vit_b_16":
        return torchvision.models.VisionTransformer(
            image_size=32, patch_size=8, num_layers=12, num_heads=2, hidden_dim=32,
            mlp_dim=64, num_classes=k), 32
    raise ValueError("no small variant of %s" % name)


def full_model(name):
    """torchvision's own architecture, 1000 (video: 400) classes, and the
    input's spatial size: the 13 families above, or any other classifier of
    torchvision.models or video model of torchvision.models.video."""
    kwargs = {"weights": None}
    if name == "googlenet":
        kwargs.update(aux_logits=False, transform_input=False, init_weights=True)
    if name == "inception_v3":
        kwargs.update(aux_logits=False, transform_input=False, init_weights=True)
        return torchvision.models.inception_v3(**kwargs), 299
    if hasattr(torchvision.models.video, name):
        return getattr(torchvision.models.video, name)(**kwargs), 112
    if is_segmenter(name):
        # No pretrained backbone either (nothing is downloaded); the
        # benchmark size of a segmenter is a large photo's.
        kwargs.update(weights_backbone=None)
        return SegmentationOutput(getattr(torchvision.models.segmentation, name)(**kwargs)), 1024
    return getattr(torchvision.models, name)(**kwargs), 224


class SegmentationOutput(nn.Module):
    """A torchvision segmenter's "out" map ([N, classes, H, W]), without
    the dict it returns."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x)["out"]


def is_segmenter(name):
    return callable(getattr(torchvision.models.segmentation, name, None)) and \
        name[:1].islower()


def is_video(name):
    return name not in FAMILIES + EXTRA and hasattr(torchvision.models.video, name)


def is_torchvision_model(name):
    """A builder of torchvision.models (classifiers) or .video, not a module
    such as resnet or a helper such as get_weight."""
    for module in (torchvision.models, torchvision.models.video,
                   torchvision.models.segmentation):
        builder = getattr(module, name, None)
        if callable(builder) and not isinstance(builder, type) and name[:1].islower() \
                and name not in ("get_model", "get_weight", "get_model_weights",
                                 "list_models", "get_model_builder"):
            return True
    return False


# ---------------------------------------------------------------------------
# Seeded randomisation that leaves no layer an identity.

def randomize(model, gen):
    def uniform(t, lo, hi):
        t.copy_(torch.rand(t.shape, generator=gen) * (hi - lo) + lo)

    def normal(t, std):
        t.copy_(torch.randn(t.shape, generator=gen) * std)

    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.modules.batchnorm._BatchNorm):
                uniform(m.weight, 0.5, 1.5)
                normal(m.bias, 0.2)
                normal(m.running_mean, 0.2)
                uniform(m.running_var, 0.5, 2.0)
            elif isinstance(m, nn.LayerNorm):
                uniform(m.weight, 0.5, 1.5)
                normal(m.bias, 0.2)
            elif isinstance(m, tv_convnext.CNBlock):
                uniform(m.layer_scale, 0.3, 0.7)
        for pname, p in model.named_parameters():
            if p.numel() and not torch.any(p != 0):
                if p.dim() >= 2 and "token" not in pname and "pos" not in pname:
                    bound = 1.0 / float(np.sqrt(p[0].numel()))  # fan_in
                    uniform(p, -bound, bound)
                else:
                    normal(p, 0.05)


# ---------------------------------------------------------------------------

def build(name, size, seed):
    torch.manual_seed(seed)
    model, res = small_model(name) if size == "test" else full_model(name)
    randomize(model, torch.Generator().manual_seed(seed))
    return model.eval(), res


def check_output(name, y):
    if not np.all(np.isfinite(y)):
        raise RuntimeError("%s: PyTorch output is not finite" % name)
    if float(np.abs(y).max()) == 0 or float(y.std(axis=-1).min()) == 0:
        raise RuntimeError("%s: PyTorch output is degenerate (constant)" % name)


def torchscript_exporter():
    """torch.onnx.export's keyword for the TorchScript exporter, which made
    every committed file. PyTorch 2.5+ also has a dynamo-based exporter (the
    default from 2.9) that needs onnxscript and writes another graph;
    dynamo=False keeps 2.x's files the same kind. 1.13 has no such keyword."""
    if "dynamo" in inspect.signature(torch.onnx.export).parameters:
        return {"dynamo": False}
    return {}


def export_one(name, args, out_dir):
    model, res = build(name, args.size, args.seed)
    res = args.resolution or res
    batch = args.batch
    rng = np.random.default_rng(args.seed)
    # Video models take clips of 16 frames: [N, 3, T, H, W].
    clip = (16,) if args.size == "full" and is_video(name) else ()
    x = rng.standard_normal((batch, 3) + clip + (res, res)).astype(np.float32)
    with torch.no_grad():
        y = model(torch.from_numpy(x)).numpy().astype(np.float32)
    check_output(name, y)
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "model.onnx")
    dynamic = {"input": {0: "batch"}, "output": {0: "batch"}} if args.dynamic_batch else None
    # MultiheadAttention's fast path (torch._native_multi_head_attention,
    # which has no ONNX form) is taken only without autograd; exporting under
    # enable_grad keeps ViT on the plain matmul/softmax path.
    with torch.enable_grad():
        torch.onnx.export(model, torch.from_numpy(x), path, opset_version=args.opset,
                          input_names=["input"], output_names=["output"],
                          dynamic_axes=dynamic, do_constant_folding=True,
                          **torchscript_exporter())
    onnx.checker.check_model(path, full_check=True)
    proto = onnx.load(path)
    op_types = sorted({n.op_type for n in proto.graph.node})
    np.save(os.path.join(out_dir, "input.npy"), x)
    np.save(os.path.join(out_dir, "output_pytorch.npy"), y)
    info = {
        "name": name,
        "input_shape": list(x.shape),
        "output_shape": list(y.shape),
        "parameters": int(sum(p.numel() for p in model.parameters())),
        "onnx_bytes": os.path.getsize(path),
        "nodes": len(proto.graph.node),
        "op_types": op_types,
        "max_abs_logit": float(np.abs(y).max()),
    }
    print("%-22s %s -> %s  %7.2f MB  %4d nodes  params %d" % (
        os.path.basename(out_dir), "x".join(map(str, x.shape)), "x".join(map(str, y.shape)),
        info["onnx_bytes"] / 1e6, info["nodes"], info["parameters"]), flush=True)
    return info


def run_ort(out_dir, threads):
    """ONNX Runtime's output on input.npy, and its max |diff| / max |logit|
    against PyTorch's."""
    peer = os.path.join(ROOT, "benchmarks", "onnxruntime_peer.js")
    out = os.path.join(out_dir, "output_onnxruntime.npy")
    cmd = ["node", peer, "--model", os.path.join(out_dir, "model.onnx"),
           "--input", os.path.join(out_dir, "input.npy"), "--output", out,
           "--warmup", "0", "--iterations", "1", "--threads", str(threads)]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return compare(out_dir)


def compare(out_dir):
    ref = np.load(os.path.join(out_dir, "output_pytorch.npy"))
    path = os.path.join(out_dir, "output_onnxruntime.npy")
    if not os.path.exists(path):
        return None
    got = np.load(path)
    if got.shape != ref.shape:
        raise RuntimeError("%s: ONNX Runtime output shape %s, PyTorch %s" % (
            out_dir, got.shape, ref.shape))
    return float(np.abs(got.astype(np.float64) - ref).max() / np.abs(ref).max())


def write_readme(out, infos, args):
    lines = [
        "# ONNX test models",
        "",
        "Small variants of the torchvision classification families (the same block",
        "structure as the real model, narrow widths, %d classes, a small input" % TEST_CLASSES,
        "resolution), with seeded random weights, exported by",
        "`tools/export_onnx_models.py`. Regenerate them all with:",
        "",
        "    /usr/bin/python3 tools/export_onnx_models.py --size=test --ort --readme",
        "    /usr/bin/python3 tools/export_onnx_models.py --size=test --ort --readme \\",
        "        --models=resnet18,vit_b_16 --dynamic-batch",
        "",
        "(`--ort` needs ONNX Runtime: `tools/setup.sh --with-peers`.) Made with",
        "PyTorch %s, torchvision %s, onnx %s, numpy %s, ONNX Runtime %s (npm" % (
            torch.__version__, torchvision.__version__, onnx.__version__, np.__version__,
            ort_version()),
        "onnxruntime-node); opset %d, seed %d (torch.manual_seed before each model;" % (
            args.opset, args.seed),
        "the input is numpy's default_rng(seed).standard_normal).",
        "",
        "Each folder holds:",
        "",
        "- `model.onnx`: checked with `onnx.checker.check_model(full_check=True)`;",
        "  input `input`, output `output` (logits). Static shapes, except in the",
        "  `_dynamic` folders, whose first dimension is the symbolic `batch`.",
        "- `input.npy`: the float32 NCHW batch the outputs were computed from.",
        "- `output_pytorch.npy`: PyTorch's output (eval mode).",
        "- `output_onnxruntime.npy`: ONNX Runtime's (CPU, graph optimizations",
        "  all, `benchmarks/onnxruntime_peer.js`), a second reference.",
        "- `info.json`: shapes, parameter and node counts, op types (this README's",
        "  table is made from them: `--models= --readme` rewrites it alone).",
        "",
        "Weights: torchvision's initialisation, then every BatchNorm gets random running",
        "mean N(0, 0.2²), running variance U(0.5, 2), weight U(0.5, 1.5) and bias",
        "N(0, 0.2²); every LayerNorm a random affine; ConvNeXt's layer scale U(0.3, 0.7)",
        "(1e-6 by default would hide the blocks); parameters a family sets to zero",
        "(biases, ViT's head) small random values. So no normalisation is the identity.",
        "The exporter folds a BatchNorm that follows a Conv into the Conv (eval mode,",
        "do_constant_folding), so BatchNormalization nodes remain only where BN comes",
        "first (densenet121); shape arithmetic (Shape, Gather, ConstantOfShape, Expand",
        "...) remains in shufflenet and vit even with static shapes.",
        "",
        "`BUILD` has a filegroup per folder (`//tests/onnx_models:resnet18`) and",
        "`//tests/onnx_models:all` for tests to take as data.",
        "",
        "The ORT column is max |ONNX Runtime - PyTorch| / max |PyTorch logit|.",
        "",
        "| folder | input | output | params | model.onnx | nodes | max abs logit | ORT vs PyTorch |",
        "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    total = 0
    for info in infos:
        folder = os.path.join(out, info["folder"])
        files = sum(os.path.getsize(os.path.join(folder, f)) for f in os.listdir(folder))
        total += files
        diff = info.get("ort_rel_diff")
        lines.append("| %s | %s | %s | %d | %.0f KB | %d | %.3g | %s |" % (
            info["folder"], "x".join(map(str, info["input_shape"])),
            "x".join(map(str, info["output_shape"])), info["parameters"],
            info["onnx_bytes"] / 1024, info["nodes"], info["max_abs_logit"],
            "-" if diff is None else "%.1e" % diff))
    lines += ["", "All folders together: %.2f MB." % (total / 1e6), "",
              "ONNX op types per model:", ""]
    for info in infos:
        lines.append("- %s: %s" % (info["folder"], ", ".join(info["op_types"])))
    with open(os.path.join(out, "README.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


def ort_version():
    pkg = os.path.join(ROOT, "third_party", "onnxruntime_node", "node_modules",
                       "onnxruntime-node", "package.json")
    try:
        with open(pkg) as f:
            return json.load(f)["version"]
    except OSError:
        return "(not installed)"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", choices=["test", "full"], default="test")
    parser.add_argument("--models", default=",".join(FAMILIES),
                        help="comma-separated (default: the %d families; also: %s)" % (
                            len(FAMILIES), ", ".join(EXTRA)))
    parser.add_argument("--out", help="default: tests/onnx_models (test), "
                        "benchmarks/onnx_models (full)")
    parser.add_argument("--opset", type=int, default=13)
    parser.add_argument("--dynamic-batch", action="store_true",
                        help="symbolic batch dimension (folder suffix _dynamic)")
    parser.add_argument("--batch", type=int, default=0,
                        help="batch of input.npy (default: 2 for test, 1 for full)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--resolution", type=int, default=0,
                        help="input height and width (default: the model's own, e.g. 224)")
    parser.add_argument("--ort", action="store_true",
                        help="also write output_onnxruntime.npy with ONNX Runtime")
    parser.add_argument("--ort-threads", type=int, default=2)
    parser.add_argument("--readme", action="store_true",
                        help="rewrite OUT/README.md from every folder in OUT")
    args = parser.parse_args(argv)
    if not 11 <= args.opset <= 17:
        parser.error("--opset must be 11 to 17")
    names = [n.strip() for n in args.models.split(",") if n.strip()]
    unknown = [n for n in names if n not in FAMILIES + EXTRA and
               not (args.size == "full" and is_torchvision_model(n))]
    if unknown:
        parser.error("unknown model(s) %s; known: %s (with --size=full: any classifier "
                     "of torchvision.models or torchvision.models.video)" % (
                         ", ".join(unknown), ", ".join(FAMILIES + EXTRA)))
    if args.batch <= 0:
        args.batch = 2 if args.size == "test" else 1
    out = args.out or os.path.join(
        ROOT, "tests/onnx_models" if args.size == "test" else "benchmarks/onnx_models")
    torch.set_num_threads(max(1, os.cpu_count() or 1))

    suffix = "_dynamic" if args.dynamic_batch else ""
    for name in names:
        folder = name + suffix
        info = export_one(name, args, os.path.join(out, folder))
        info["folder"] = folder
        info["opset"] = args.opset
        info["dynamic_batch"] = args.dynamic_batch
        if args.ort:
            info["ort_rel_diff"] = run_ort(os.path.join(out, folder), args.ort_threads)
            print("%-22s ONNX Runtime vs PyTorch: max |diff| / max |logit| = %.2e" % (
                folder, info["ort_rel_diff"]), flush=True)
        with open(os.path.join(out, folder, "info.json"), "w") as f:
            json.dump(info, f, indent=1, sort_keys=True)
            f.write("\n")

    if args.readme:
        infos = []
        for folder in sorted(os.listdir(out)):
            path = os.path.join(out, folder, "info.json")
            if os.path.exists(path):
                with open(path) as f:
                    info = json.load(f)
                info["ort_rel_diff"] = compare(os.path.join(out, folder))
                infos.append(info)
        write_readme(out, infos, args)
        print("wrote %s" % os.path.join(out, "README.md"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
