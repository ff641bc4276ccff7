#ifndef SWITCHYARD_ONNX_WINDOW_OPS_H_
#define SWITCHYARD_ONNX_WINDOW_OPS_H_

// The window of ONNX's Conv, MaxPool and AveragePool (kernel, strides,
// dilations, begin and end pads per spatial axis, auto_pad resolved), and
// the 2-D pooling ops emitted over one. Shared by the 1-D/2-D converters
// (convert_nn.cc) and the 3-D ones (convert_volumetric.cc).
//
//   SY_ASSIGN_OR_RETURN(Window w, ReadWindow(ctx, {h, w}, kernel, true));
//   SY_ASSIGN_OR_RETURN(Val y, EmitMaxPool2d(ctx, x, w, ceil_mode));

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "onnx/node_context.h"

namespace switchyard {
namespace onnx_import {

struct Window {
  std::vector<int64_t> kernel, strides, dilations, pad_begin, pad_end;
  bool symmetric() const { return pad_begin == pad_end; }
};

// The node's strides, dilations (when the op has them; else 1), pads and
// auto_pad for a window of `kernel` over an input whose spatial dims are
// `spatial` (as many as the kernel). Every value is checked before any
// arithmetic: strides and dilations in [1, 2^30], pads and the kernel in
// [0, 2^30] (the kernel at least 1).
absl::StatusOr<Window> ReadWindow(NodeContext& ctx,
                                  const std::vector<int64_t>& spatial,
                                  const std::vector<int64_t>& kernel,
                                  bool has_dilations);

// ReadWindow for a 1-D or 2-D window over `input` ([N, C, L] or [N, C, H,
// W]): a 1-D window runs as a 2-D one over [N, C, 1, L], its kernel,
// strides, dilations and pads given a leading 1 (or 0 pads).
absl::StatusOr<Window> Read2dWindow(NodeContext& ctx, const Shape& input,
                                    const std::vector<int64_t>& kernel,
                                    bool has_dilations);
// A 1-D input as 4-D ([N, C, L] -> [N, C, 1, L]; others unchanged), and a
// result back to the input's rank.
absl::StatusOr<Val> As4d(NodeContext& ctx, Val x);
absl::StatusOr<Val> BackToRank(NodeContext& ctx, Val y, int rank);

// `x` padded explicitly on its trailing spatial axes (w's begin and end
// pads) with `value`, for pads an op cannot take itself.
absl::StatusOr<Val> PadSpatial(NodeContext& ctx, Val x, const Window& w,
                               double value);

// max_pool2d and avg_pool2d of a [N, C, H, W] value over a 2-D window.
// Pads max_pool2d cannot take (asymmetric, or more than half the window,
// PyTorch's rule) become an explicit -inf pad, which max ignores.
absl::StatusOr<Val> EmitMaxPool2d(NodeContext& ctx, Val x, const Window& w,
                                  bool ceil_mode);
absl::StatusOr<Val> EmitAvgPool2d(NodeContext& ctx, Val x, const Window& w,
                                  bool ceil_mode, bool count_include_pad);

}  // namespace onnx_import
}  // namespace switchyard

#endif  // SWITCHYARD_ONNX_WINDOW_OPS_H_
