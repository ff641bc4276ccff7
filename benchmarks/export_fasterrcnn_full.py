#!/usr/bin/python3
"""Exports torchvision's full-size fasterrcnn_resnet50_fpn (default layers, seeded random
weights) at 800x800 for benchmarks/results/fasterrcnn_800_*.md: fasterrcnn.onnx, image_800.npy
and PyTorch's scores_800.npy in the current folder (run it from a scratch folder)."""
# Full-size fasterrcnn_resnet50_fpn (torchvision defaults, seeded random weights: no network here),
# exported at 800x800 as docs/detection.md shows, with the RoiAlign attribute fix.
import numpy as np, onnx, torch, torchvision
torch.manual_seed(0)
m = torchvision.models.detection.fasterrcnn_resnet50_fpn(weights=None, weights_backbone=None).eval()
x = torch.rand(3, 800, 800, generator=torch.Generator().manual_seed(1))
torch.onnx.export(m, ([x],), "fasterrcnn.onnx", opset_version=16, input_names=["image"],
                  output_names=["boxes", "labels", "scores"],
                  dynamic_axes={"image": {1: "height", 2: "width"}})
p = onnx.load("fasterrcnn.onnx")
for n in p.graph.node:
    if n.op_type == "RoiAlign" and not any(a.name == "coordinate_transformation_mode" for a in n.attribute):
        n.attribute.append(onnx.helper.make_attribute("coordinate_transformation_mode", "output_half_pixel"))
onnx.save(p, "fasterrcnn.onnx")
np.save("image_800.npy", x.numpy())
with torch.no_grad():
    out = m([x])[0]
print({k: tuple(v.shape) for k, v in out.items()})
np.save("scores_800.npy", out["scores"].numpy())
