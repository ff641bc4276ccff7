#!/usr/bin/python3
"""Exports narrow variants of torchvision's segmentation, Swin and detection
families to ONNX and records PyTorch's outputs at two input sizes, to check
that Switchyard imports and runs each family at more than the export size.

Usage:
    /usr/bin/python3 tools/export_family_models.py [--families=a,b]
        [--out=/tmp/families] [--seed=0] [--opset=N]

Families (each the family's own torchvision classes, at small widths):
    fcn_resnet50                  FCN (FCNHead) on a dilated Bottleneck ResNet
                                  of widths 4..32 (torchvision: 64..512)
    deeplabv3_mobilenet_v3_large  DeepLabV3 (ASPP head of 16 channels, 256 in
                                  torchvision) on a dilated MobileNetV3-Large
                                  at width 0.25
    swin_t                        SwinTransformer, embed_dim 8, depths
                                  2,2,2,2 (every stage has a shifted block),
                                  window 4x4, 10 classes
    retinanet_resnet50_fpn        RetinaNet on the narrow ResNet with an FPN
                                  of 16 channels and P6/P7, 4 classes
    ssdlite320_mobilenet_v3_large SSD with SSDLite's feature extractor (extra
                                  layers at width 1/8) and head on a
                                  MobileNetV3-Large at width 0.25, 320x320
    maskrcnn_resnet50_fpn         MaskRCNN on the narrow ResNet with an FPN of
                                  16 channels, as tools/export_detection_model.py
                                  builds its Faster R-CNN, plus a 16-wide mask
                                  head
    r3d_18                        VideoResNet with r3d_18's blocks (3x3x3
                                  Conv3d, two BasicBlocks a stage) at widths
                                  8..64 (torchvision: 64..512), 10 classes

Weights are seeded random (tools/export_onnx_models.py's randomize; the
detectors' heads are re-drawn too), BatchNorm statistics are then set from
one seeded batch, and the detectors' class logits are scaled up, so that
outputs vary with the input and detection scores are spread out rather than
near-equal. Each model is exported once at 96x128 (swin_t and the
segmenters take [N, 3, H, W] with dynamic batch, height and width; the
detectors take one [3, H, W] image with dynamic height and width, as
tools/export_detection_model.py does) and run by PyTorch at 96x128 and
128x96 (the detectors' transform resizes them to 160 pixels and more);
r3d_18 takes a clip [N, 3, T, H, W] with dynamic batch, length, height and
width, exported at 8x32x32 and run at 8x32x32 and 6x40x48.
DIR/<family>_narrow/ gets:
    model.onnx                 checked with onnx.checker (full_check)
    input_<H>x<W>.npy          a seeded input: standard normal [1, 3, H, W]
                               for the dense models, uniform [3, H, W] images
                               for the detectors
    output_<H>x<W>.npy         PyTorch's output (dense models), or
    boxes_/labels_/scores_<H>x<W>.npy (+ masks_ for Mask R-CNN): its detections
    info.json                  sizes, parameters, node and op counts
"""

import argparse
import collections
import functools
import json
import os
import sys

import numpy as np
import onnx
import torch
import torchvision
from torch import nn
from torchvision.models import mobilenetv3 as tv_mobilenetv3
from torchvision.models import resnet as tv_resnet
from torchvision.models import swin_transformer as tv_swin
from torchvision.models.video import resnet as tv_video
from torchvision.models._utils import IntermediateLayerGetter
from torchvision.models.detection import MaskRCNN, RetinaNet
from torchvision.models.detection.ssd import SSD
from torchvision.models.detection import _utils as det_utils
from torchvision.models.detection import ssdlite as tv_ssdlite
from torchvision.models.detection.anchor_utils import AnchorGenerator, DefaultBoxGenerator
from torchvision.models.detection.backbone_utils import BackboneWithFPN
from torchvision.models.detection.faster_rcnn import FastRCNNPredictor, TwoMLPHead
from torchvision.models.detection.mask_rcnn import MaskRCNNHeads, MaskRCNNPredictor
from torchvision.models.segmentation import deeplabv3 as tv_deeplabv3
from torchvision.models.segmentation import fcn as tv_fcn
from torchvision.ops.feature_pyramid_network import LastLevelP6P7

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import export_onnx_models  # noqa: E402  (randomize, torchscript_exporter)

EXPORT_SIZE = (96, 128)
SIZES = [(96, 128), (128, 96)]
VIDEO_SIZES = [(8, 32, 32), (6, 40, 48)]  # T, H, W
CLASSES = 4          # detectors (background included)
SEG_CLASSES = 3      # segmenters
SWIN_CLASSES = 10
DEFAULT_OPSET = 14


# ---------------------------------------------------------------------------
# Narrow backbones.

def narrow_resnet(dilated):
    """torchvision's ResNet with Bottleneck blocks, one block per stage and
    widths 4, 8, 16, 32 (outputs 16, 32, 64, 128 channels; ResNet-50 has
    64..512 and 256..2048). dilated: layer3 and layer4 keep stride 8 with
    dilation, as fcn_resnet50's replace_stride_with_dilation=[False, True,
    True]."""
    model = tv_resnet.ResNet(tv_resnet.Bottleneck, [1, 1, 1, 1])
    # Rebuild the stem and the four stages narrow with ResNet's own
    # _make_layer (it reads self.inplanes and self.dilation as it goes).
    model.inplanes, model.dilation = 8, 1
    model.conv1 = nn.Conv2d(3, 8, kernel_size=7, stride=2, padding=3, bias=False)
    model.bn1 = nn.BatchNorm2d(8)
    model.layer1 = model._make_layer(tv_resnet.Bottleneck, 4, 1)
    model.layer2 = model._make_layer(tv_resnet.Bottleneck, 8, 1, stride=2)
    model.layer3 = model._make_layer(tv_resnet.Bottleneck, 16, 1, stride=2, dilate=dilated)
    model.layer4 = model._make_layer(tv_resnet.Bottleneck, 32, 1, stride=2, dilate=dilated)
    model.fc = nn.Linear(128, 10)  # unused by every family here
    return model


def narrow_mobilenet_v3(dilated, **kwargs):
    """MobileNetV3-Large at width 0.25 (its last feature layer has 240
    channels; 960 at width 1)."""
    setting, last = tv_mobilenetv3._mobilenet_v3_conf(
        "mobilenet_v3_large", width_mult=0.25, dilated=dilated,
        reduced_tail=kwargs.pop("reduced_tail", False))
    return torchvision.models.MobileNetV3(setting, last, **kwargs)


def calibrate_batchnorm(module, x):
    """Sets every BatchNorm's running statistics to those of the batch x
    (one forward in training mode, momentum None: a plain average). With
    randomize's random statistics the narrow MobileNets' features come out
    nearly constant over the image (SSD then gives the same detections for
    any image); calibrated, each layer's output keeps a spread, and BN's
    affine parameters stay randomize's."""
    bns = [m for m in module.modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)]
    for bn in bns:
        bn.reset_running_stats()
        bn.momentum = None
    module.train()
    with torch.no_grad():
        module(x)
    module.eval()


def class_layers(model):
    """The layers that compute a detector's class logits."""
    if isinstance(model, RetinaNet):
        return [model.head.classification_head.cls_logits]
    if isinstance(model, SSD):
        return [seq[-1] for seq in model.head.classification_head.module_list]
    return [model.roi_heads.box_predictor.cls_score]


def redraw(module):
    """Zeroes a module's parameters so that randomize draws them again
    (uniform in +-1/sqrt(fan_in), biases normal): torchvision's detection
    heads start with std 0.01 weights and a prior bias, which gives
    near-equal scores, whose order any rounding could change."""
    with torch.no_grad():
        for p in module.parameters():
            p.zero_()


# ---------------------------------------------------------------------------
# The families. Each builder returns (model, kind): kind "dense" takes and
# returns tensors, "detect" takes a list of [3, H, W] images and returns
# torchvision's list of detection dicts.

class DenseOut(nn.Module):
    """Segmentation models return {"out": logits}; ONNX wants a tensor."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x)["out"]


def build_fcn_resnet50():
    # As torchvision's _fcn_resnet builds it, with the head's in_channels
    # taken from the narrow backbone (2048 there); no aux classifier, as
    # fcn_resnet50's default.
    backbone = IntermediateLayerGetter(narrow_resnet(dilated=True), return_layers={"layer4": "out"})
    model = tv_fcn.FCN(backbone, tv_fcn.FCNHead(128, SEG_CLASSES), None)
    return DenseOut(model), "dense"


class NarrowDeepLabHead(tv_deeplabv3.DeepLabHead):
    """DeepLabHead (ASPP with rates 12, 24, 36, then 3x3 conv, BN, ReLU and
    the class conv) with `width` channels instead of 256."""

    def __init__(self, in_channels, num_classes, width):
        nn.Sequential.__init__(
            self,
            tv_deeplabv3.ASPP(in_channels, [12, 24, 36], out_channels=width),
            nn.Conv2d(width, width, 3, padding=1, bias=False),
            nn.BatchNorm2d(width),
            nn.ReLU(),
            nn.Conv2d(width, num_classes, 1),
        )


def build_deeplabv3_mobilenet_v3_large():
    # torchvision's own _deeplabv3_mobilenetv3 (C5 at output stride 16 from
    # a dilated backbone), then its 256-wide head swapped for a 16-wide one.
    model = tv_deeplabv3._deeplabv3_mobilenetv3(
        narrow_mobilenet_v3(dilated=True), SEG_CLASSES, aux=False)
    in_channels = model.classifier[0].convs[0][0].in_channels
    model.classifier = NarrowDeepLabHead(in_channels, SEG_CLASSES, 16)
    return DenseOut(model), "dense"


def build_swin_t():
    # swin_t is patch 4, embed_dim 96, depths 2,2,6,2, heads 3,6,12,24,
    # window 7. Here window 4, so an input that is a multiple of 32 (patch 4,
    # three 2x merges) has windows that tile every stage after padding.
    # torchvision 0.14's shifted_window_attention calls F.dropout(p=0.0)
    # without training=..., so the file has Dropout nodes (ratio 0,
    # training_mode true: the identity, per ONNX) as torchvision's swin_t's.
    model = tv_swin.SwinTransformer(
        patch_size=[4, 4], embed_dim=8, depths=[2, 2, 2, 2], num_heads=[1, 2, 2, 4],
        window_size=[4, 4], stochastic_depth_prob=0.0, num_classes=SWIN_CLASSES)
    return model, "dense"


def resnet_fpn(returned, extra_blocks=None):
    """BackboneWithFPN (16 channels) over the narrow ResNet's stages
    `returned` (1..4), as _resnet_fpn_extractor builds it (out_channels is
    fixed at 256 there)."""
    channels = {1: 16, 2: 32, 3: 64, 4: 128}
    return BackboneWithFPN(
        narrow_resnet(dilated=False),
        return_layers={"layer%d" % k: str(i) for i, k in enumerate(returned)},
        in_channels_list=[channels[k] for k in returned], out_channels=16,
        extra_blocks=extra_blocks)


def build_retinanet_resnet50_fpn():
    # retinanet_resnet50_fpn: C3..C5 with LastLevelP6P7 (P6, P7 from P5), 9
    # anchors a location. Anchor sizes halved (16..256) for small images.
    backbone = resnet_fpn([2, 3, 4], extra_blocks=LastLevelP6P7(16, 16))
    sizes = tuple((x, int(x * 2 ** (1.0 / 3)), int(x * 2 ** (2.0 / 3)))
                  for x in [16, 32, 64, 128, 256])
    anchors = AnchorGenerator(sizes, ((0.5, 1.0, 2.0),) * len(sizes))
    model = RetinaNet(backbone, CLASSES, min_size=160, max_size=256,
                      anchor_generator=anchors, detections_per_img=20,
                      topk_candidates=200)
    redraw(model.head)
    return model, "detect"


def build_ssdlite320_mobilenet_v3_large():
    # As ssdlite320_mobilenet_v3_large builds it (reduced tail, BatchNorm
    # eps 0.001, six feature maps from C4's expansion on, DefaultBoxGenerator,
    # SSDLiteHead), with the extra layers at width 1/8 (64, 32, 32, 16
    # channels; _mobilenet_extractor fixes width 1: 512, 256, 256, 128).
    norm_layer = functools.partial(nn.BatchNorm2d, eps=0.001, momentum=0.03)
    features = narrow_mobilenet_v3(dilated=False, reduced_tail=True, norm_layer=norm_layer).features
    stages = [0] + [i for i, b in enumerate(features) if getattr(b, "_is_cn", False)] + [len(features) - 1]
    backbone = tv_ssdlite.SSDLiteFeatureExtractorMobileNet(
        features, stages[-2], norm_layer, width_mult=0.125)
    size = (320, 320)
    anchors = DefaultBoxGenerator([[2, 3] for _ in range(6)], min_ratio=0.2, max_ratio=0.95)
    out_channels = det_utils.retrieve_out_channels(backbone, size)
    head = tv_ssdlite.SSDLiteHead(out_channels, anchors.num_anchors_per_location(),
                                  CLASSES, norm_layer)
    model = SSD(backbone, anchors, size, CLASSES, head=head,
                score_thresh=0.001, nms_thresh=0.55, detections_per_img=20,
                topk_candidates=300, image_mean=[0.5] * 3, image_std=[0.5] * 3)
    redraw(model.head)
    return model, "detect"


def build_maskrcnn_resnet50_fpn():
    # maskrcnn_resnet50_fpn: C2..C5 and the FPN's max-pool level, RoiAlign
    # 7x7 for boxes and 14x14 for masks; the heads narrow as in
    # tools/export_detection_model.py.
    model = MaskRCNN(
        # num_classes=None: the predictors given fix the classes (CLASSES).
        resnet_fpn([1, 2, 3, 4]), None, min_size=160, max_size=256,
        rpn_pre_nms_top_n_test=100, rpn_post_nms_top_n_test=50,
        box_head=TwoMLPHead(16 * 7 * 7, 32),
        box_predictor=FastRCNNPredictor(32, CLASSES),
        # Few detections: each mask is an image-sized float map.
        box_detections_per_img=8,
        mask_head=MaskRCNNHeads(16, [16, 16], 1),
        mask_predictor=MaskRCNNPredictor(16, 16, CLASSES))
    redraw(model.roi_heads.box_predictor)
    return model, "detect"


def build_r3d_18():
    # torchvision's r3d_18 is VideoResNet(BasicBlock, [Conv3DSimple] * 4,
    # [2, 2, 2, 2], BasicStem): a (3, 7, 7) stem of stride (1, 2, 2), then
    # stages of 64..512 channels, the last three of stride 2 in time and
    # space. Here its own _make_layer builds the stages at 8..64 channels.
    model = tv_video.VideoResNet(tv_video.BasicBlock, [tv_video.Conv3DSimple] * 4,
                                 [1, 1, 1, 1], tv_video.BasicStem, num_classes=SWIN_CLASSES)
    model.inplanes = 8
    model.stem = nn.Sequential(
        nn.Conv3d(3, 8, kernel_size=(3, 7, 7), stride=(1, 2, 2), padding=(1, 3, 3), bias=False),
        nn.BatchNorm3d(8), nn.ReLU(inplace=True))
    model.layer1 = model._make_layer(tv_video.BasicBlock, tv_video.Conv3DSimple, 8, 2, stride=1)
    model.layer2 = model._make_layer(tv_video.BasicBlock, tv_video.Conv3DSimple, 16, 2, stride=2)
    model.layer3 = model._make_layer(tv_video.BasicBlock, tv_video.Conv3DSimple, 32, 2, stride=2)
    model.layer4 = model._make_layer(tv_video.BasicBlock, tv_video.Conv3DSimple, 64, 2, stride=2)
    model.fc = nn.Linear(64, SWIN_CLASSES)
    return model, "video"


FAMILIES = collections.OrderedDict([
    ("fcn_resnet50", build_fcn_resnet50),
    ("deeplabv3_mobilenet_v3_large", build_deeplabv3_mobilenet_v3_large),
    ("swin_t", build_swin_t),
    ("retinanet_resnet50_fpn", build_retinanet_resnet50_fpn),
    ("ssdlite320_mobilenet_v3_large", build_ssdlite320_mobilenet_v3_large),
    ("maskrcnn_resnet50_fpn", build_maskrcnn_resnet50_fpn),
    ("r3d_18", build_r3d_18),
])


# ---------------------------------------------------------------------------
# Export and PyTorch's outputs.

def count_ops(graph, ops):
    """Op counts over a graph and its subgraphs (If branches, Loop bodies)."""
    for node in graph.node:
        ops[node.op_type] += 1
        for a in node.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                count_ops(a.g, ops)
            for g in a.graphs:
                count_ops(g, ops)
    return ops


def set_roialign_mode(proto):
    """torchvision 0.14 writes RoiAlign without coordinate_transformation_mode;
    from opset 16 ONNX reads that as half_pixel, not the output_half_pixel
    MultiScaleRoIAlign computes (see tools/export_detection_model.py)."""
    def visit(graph):
        for node in graph.node:
            if node.op_type == "RoiAlign" and not any(
                    a.name == "coordinate_transformation_mode" for a in node.attribute):
                node.attribute.append(onnx.helper.make_attribute(
                    "coordinate_transformation_mode", "output_half_pixel"))
            for a in node.attribute:
                if a.type == onnx.AttributeProto.GRAPH:
                    visit(a.g)
    visit(proto.graph)


def export(name, model, kind, path, opset, example):
    if kind in ("dense", "video"):
        axes = ({0: "batch", 2: "height", 3: "width"} if kind == "dense" else
                {0: "batch", 2: "time", 3: "height", 4: "width"})
        out_axes = axes if name not in ("swin_t", "r3d_18") else {0: "batch"}
        args = (example,)
        names = ["output"]
        dynamic = {"input": axes, "output": out_axes}
        input_names = ["input"]
    else:
        args = ([example],)
        # The outputs in the order of the model's detection dict (R-CNNs:
        # boxes, labels, scores[, masks]; RetinaNet and SSD: boxes, scores,
        # labels), which is the order the export writes them in.
        with torch.no_grad():
            names = list(model([example])[0].keys())
        dynamic = {"image": {1: "height", 2: "width"}}
        for key in names:
            dynamic[key] = {0: "detections"}
        if "masks" in names:
            dynamic["masks"] = {0: "detections", 2: "height", 3: "width"}
        input_names = ["image"]
    torch.onnx.export(model, args, path, opset_version=opset,
                      input_names=input_names, output_names=names,
                      dynamic_axes=dynamic, do_constant_folding=True,
                      **export_onnx_models.torchscript_exporter())
    proto = onnx.load(path)
    if opset >= 16:
        set_roialign_mode(proto)
        onnx.save(proto, path)
    onnx.checker.check_model(path, full_check=True)
    return onnx.load(path)


def export_family(name, out_root, seed, opset):
    torch.manual_seed(seed)
    model, kind = FAMILIES[name]()
    export_onnx_models.randomize(model, torch.Generator().manual_seed(seed))
    calib = torch.Generator().manual_seed(seed + 1)
    sizes = VIDEO_SIZES if kind == "video" else SIZES
    if kind in ("dense", "video"):
        calibrate_batchnorm(model, torch.randn((4, 3) + sizes[0], generator=calib))
    else:
        # The backbone sees the transform's output: SSD's fixed 320x320, the
        # others the image at its own size here (160..256 pixels).
        size = tuple(model.transform.fixed_size or EXPORT_SIZE)
        calibrate_batchnorm(model.backbone, torch.randn((4, 3) + size, generator=calib))
        # Spread the class logits (x5) so that the scores differ by much
        # more than rounding: near-equal scores make which boxes NMS and the
        # top-k keep depend on the last bit.
        with torch.no_grad():
            for layer in class_layers(model):
                layer.weight.mul_(5.0)
    model.eval()
    out = os.path.join(out_root, name + "_narrow")
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, "model.onnx")

    rng = np.random.default_rng(seed)
    if kind in ("dense", "video"):
        inputs = {s: rng.standard_normal((1, 3) + s).astype(np.float32) for s in sizes}
    else:
        inputs = {s: rng.random((3,) + s, dtype=np.float32) for s in sizes}
    proto = export(name, model, kind, path, opset, torch.from_numpy(inputs[sizes[0]]))

    outputs = {}
    for size, x in inputs.items():
        tag = "x".join(str(d) for d in size)
        np.save(os.path.join(out, "input_%s.npy" % tag), x)
        with torch.no_grad():
            if kind in ("dense", "video"):
                y = model(torch.from_numpy(x)).numpy().astype(np.float32)
                if not np.all(np.isfinite(y)) or float(y.std()) == 0:
                    raise RuntimeError("%s %s: PyTorch output is degenerate" % (name, tag))
                np.save(os.path.join(out, "output_%s.npy" % tag), y)
                outputs[tag] = {"shape": list(y.shape), "max_abs": float(np.abs(y).max())}
            else:
                found = model([torch.from_numpy(x)])[0]
                if found["boxes"].shape[0] == 0:
                    raise RuntimeError("%s %s: PyTorch finds nothing" % (name, tag))
                for key, value in found.items():
                    np.save(os.path.join(out, "%s_%s.npy" % (key, tag)), value.numpy())
                outputs[tag] = {"detections": int(found["boxes"].shape[0])}

    ops = count_ops(proto.graph, collections.Counter())
    info = {
        "name": name + "_narrow",
        "family": name,
        "export_size": list(sizes[0]),
        "outputs": outputs,
        "parameters": int(sum(p.numel() for p in model.parameters())),
        "onnx_bytes": os.path.getsize(path),
        "nodes": sum(ops.values()),
        "op_types": dict(sorted(ops.items())),
        "versions": {"torch": torch.__version__,
                     "torchvision": torchvision.__version__,
                     "onnx": onnx.__version__, "opset": opset, "seed": seed},
    }
    with open(os.path.join(out, "info.json"), "w") as f:
        json.dump(info, f, indent=1)
        f.write("\n")
    print("%s: %d nodes, %d parameters, %d bytes; %s" % (
        name, info["nodes"], info["parameters"], info["onnx_bytes"], outputs))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--families", default=",".join(FAMILIES),
                        help="comma-separated, of: " + ", ".join(FAMILIES))
    parser.add_argument("--out", default="/tmp/families")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--opset", type=int, default=DEFAULT_OPSET)
    args = parser.parse_args(argv)
    names = [n for n in args.families.split(",") if n]
    unknown = [n for n in names if n not in FAMILIES]
    if unknown:
        parser.error("unknown families: %s" % ", ".join(unknown))
    for name in names:
        export_family(name, args.out, args.seed, args.opset)


if __name__ == "__main__":
    main()
