#ifndef SWITCHYARD_ONNX_CONVERT_VOLUMETRIC_H_
#define SWITCHYARD_ONNX_CONVERT_VOLUMETRIC_H_

// ONNX's 3-D Conv, MaxPool and AveragePool (input [N, C, D, H, W], video
// models such as torchvision's r3d_18), composed of the 2-D ops so that
// every backend with conv2d and the 2-D pools runs them. convert_nn.cc's
// converters call these when the input has rank 5.

#include "absl/status/status.h"
#include "onnx/node_context.h"

namespace switchyard {
namespace onnx_import {

// Conv with a [O, C/group, kD, kH, kW] weight.
absl::Status ConvertConv3d(NodeContext& ctx);

// MaxPool (is_max) or AveragePool over a 3-D window.
absl::Status ConvertPool3d(NodeContext& ctx, bool is_max);

}  // namespace onnx_import
}  // namespace switchyard

#endif  // SWITCHYARD_ONNX_CONVERT_VOLUMETRIC_H_
