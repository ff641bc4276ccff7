// 3-D convolution and pooling as 2-D ops.
//
// Conv: output frame d reads input frames d * stride + t * dilation for the
// kD taps t. Those frames are stacked as channels (tap-major within each
// group) and one conv2d with the weight reordered to [O, kD * C/g, kH, kW]
// runs over all N * D_out frames at once: the same multiply-adds as a 3-D
// convolution, with the input copied kD times.
//
// Pooling is separable because the 3-D window is a box: a 2-D pool over
// (H, W) on [N, C * D, H, W], then a 1-D pool over D. Max splits per axis;
// so does the sum, and average's divisor (valid elements, or the padded
// window with count_include_pad) is the product of per-axis counts.

#include "onnx/convert_volumetric.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "onnx/convert_util.h"
#include "onnx/window_ops.h"

namespace switchyard {
namespace onnx_import {
namespace {

absl::StatusOr<Val> Transpose(NodeContext& ctx, Val x, std::vector<int64_t> perm) {
  return ctx.EmitOne("transpose", {x}, Attrs({{"perm", std::move(perm)}}));
}

std::vector<int64_t> SpatialDims(const Shape& x) {
  return {x.dim(2), x.dim(3), x.dim(4)};
}

absl::Status RequireRank5(NodeContext& ctx, const Shape& x) {
  if (x.rank() == 5) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "a 3-D ", ctx.op_type(), " takes input [N, C, D, H, W]; got ", x.ToString()));
}

// The 2-D window of axes (H, W), or of D alone as (1, D).
Window HeightWidth(const Window& w) {
  Window hw;
  hw.kernel = {w.kernel[1], w.kernel[2]};
  hw.strides = {w.strides[1], w.strides[2]};
  hw.dilations = {w.dilations[1], w.dilations[2]};
  hw.pad_begin = {w.pad_begin[1], w.pad_begin[2]};
  hw.pad_end = {w.pad_end[1], w.pad_end[2]};
  return hw;
}
Window DepthAsWidth(const Window& w) {
  Window d;
  d.kernel = {1, w.kernel[0]};
  d.strides = {1, w.strides[0]};
  d.dilations = {1, w.dilations[0]};
  d.pad_begin = {0, w.pad_begin[0]};
  d.pad_end = {0, w.pad_end[0]};
  return d;
}

}  // namespace

absl::Status ConvertConv3d(NodeContext& ctx) {
  const Shape x = ctx.InShape(0);
  const Shape weight = ctx.InShape(1);
  SY_RETURN_IF_ERROR(RequireRank5(ctx, x));
  const std::vector<int64_t> kernel(weight.dims().begin() + 2, weight.dims().end());
  SY_ASSIGN_OR_RETURN(std::vector<int64_t> kernel_shape, ctx.Ints("kernel_shape", kernel));
  if (kernel_shape != kernel) {
    return absl::InvalidArgumentError(absl::StrCat(
        "kernel_shape does not match the weight ", weight.ToString()));
  }
  SY_ASSIGN_OR_RETURN(Window w, ReadWindow(ctx, SpatialDims(x), kernel, true));
  SY_ASSIGN_OR_RETURN(int64_t group, ctx.Int("group", 1));
  const int64_t n = x.dim(0), c = x.dim(1), out_c = weight.dim(0), group_c = weight.dim(1);
  if (group < 1 || group > c || group_c * group != c || out_c % group != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "group ", group, " does not fit input ", x.ToString(), " and weight ",
        weight.ToString(), ": the input's channels must be group * weight dim 1 and the "
        "weight's dim 0 a multiple of group"));
  }
  // Depth is always padded here; height and width by conv2d when symmetric.
  Window explicit_pads = w;
  const bool hw_symmetric = HeightWidth(w).symmetric();
  if (hw_symmetric) {
    explicit_pads.pad_begin[1] = explicit_pads.pad_begin[2] = 0;
    explicit_pads.pad_end[1] = explicit_pads.pad_end[2] = 0;
  }
  Val input = ctx.In(0);
  if (explicit_pads.pad_begin != std::vector<int64_t>(3, 0) ||
      explicit_pads.pad_end != std::vector<int64_t>(3, 0)) {
    SY_ASSIGN_OR_RETURN(input, PadSpatial(ctx, input, explicit_pads, 0.0));
  }
  const Shape padded = ctx.Type(input).shape;
  const int64_t depth = padded.dim(2), height = padded.dim(3), width = padded.dim(4);
  const int64_t taps = w.kernel[0], stride = w.strides[0], dilation = w.dilations[0];
  const int64_t span = (taps - 1) * dilation + 1;
  if (depth < span) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the padded input's depth ", depth, " is smaller than the kernel's span ", span,
        " (kernel ", taps, ", dilation ", dilation, "): no output frame; pad the input or "
        "use a smaller kernel"));
  }
  const int64_t out_depth = (depth - span) / stride + 1;

  // [N, D, C, H, W]; tap t's frames are every stride-th from t * dilation.
  SY_ASSIGN_OR_RETURN(Val frames, Transpose(ctx, input, {0, 2, 1, 3, 4}));
  std::vector<Val> tap_frames;
  for (int64_t t = 0; t < taps; ++t) {
    const int64_t start = t * dilation;
    SY_ASSIGN_OR_RETURN(
        Val tap, ctx.EmitOne("slice", {frames},
                             Attrs({{"starts", std::vector<int64_t>{start}},
                                    {"ends", std::vector<int64_t>{start + (out_depth - 1) * stride + 1}},
                                    {"axes", std::vector<int64_t>{1}},
                                    {"steps", std::vector<int64_t>{stride}}})));
    tap_frames.push_back(tap);
  }
  // [N, D_out, kD * C, H, W]: channel t * C + g * C/g + i.
  Val stacked = tap_frames[0];
  if (taps > 1) {
    SY_ASSIGN_OR_RETURN(stacked, ctx.EmitOne("concat", tap_frames,
                                             Attrs({{"axis", int64_t{2}}})));
  }
  // Each group's channels together, tap-major inside: g * kD * C/g + t * C/g + i.
  if (group > 1 && taps > 1) {
    SY_ASSIGN_OR_RETURN(stacked, Reshape(ctx, stacked, {n * out_depth, taps, group, group_c,
                                                        height * width}));
    SY_ASSIGN_OR_RETURN(stacked, Transpose(ctx, stacked, {0, 2, 1, 3, 4}));
  }
  SY_ASSIGN_OR_RETURN(stacked, Reshape(ctx, stacked, {n * out_depth, taps * c, height, width}));
  // [O, C/g, kD, kH, kW] -> [O, kD * C/g, kH, kW], tap-major as the channels.
  SY_ASSIGN_OR_RETURN(Val filters, Transpose(ctx, ctx.In(1), {0, 2, 1, 3, 4}));
  SY_ASSIGN_OR_RETURN(filters, Reshape(ctx, filters, {out_c, taps * group_c, kernel[1],
                                                      kernel[2]}));
  std::vector<Val> operands = {stacked, filters};
  if (ctx.HasInput(2)) operands.push_back(ctx.In(2));
  const std::vector<int64_t> padding =
      hw_symmetric ? std::vector<int64_t>{w.pad_begin[1], w.pad_begin[2]}
                   : std::vector<int64_t>{0, 0};
  SY_ASSIGN_OR_RETURN(
      Val y, ctx.EmitOne("conv2d", operands,
                         Attrs({{"stride", std::vector<int64_t>{w.strides[1], w.strides[2]}},
                                {"padding", padding},
                                {"dilation", std::vector<int64_t>{w.dilations[1],
                                                                  w.dilations[2]}},
                                {"groups", group}})));
  const Shape planes = ctx.Type(y).shape;  // [N * D_out, O, H_out, W_out]
  SY_ASSIGN_OR_RETURN(y, Reshape(ctx, y, {n, out_depth, out_c, planes.dim(2), planes.dim(3)}));
  SY_ASSIGN_OR_RETURN(y, Transpose(ctx, y, {0, 2, 1, 3, 4}));
  return ctx.SetOutput(0, y);
}

absl::Status ConvertPool3d(NodeContext& ctx, bool is_max) {
  const Shape x = ctx.InShape(0);
  SY_RETURN_IF_ERROR(RequireRank5(ctx, x));
  SY_ASSIGN_OR_RETURN(std::vector<int64_t> kernel, ctx.Ints("kernel_shape"));
  if (kernel.size() != 3) {
    return absl::InvalidArgumentError(absl::StrCat(
        "kernel_shape has ", kernel.size(), " values; a 3-D ", ctx.op_type(), " takes 3"));
  }
  SY_ASSIGN_OR_RETURN(Window w, ReadWindow(ctx, SpatialDims(x), kernel, is_max));
  SY_ASSIGN_OR_RETURN(int64_t ceil_mode, ctx.Int("ceil_mode", 0));
  int64_t count_include_pad = 0;
  if (is_max) {
    SY_ASSIGN_OR_RETURN(int64_t storage_order, ctx.Int("storage_order", 0));
    if (storage_order != 0) {
      return absl::UnimplementedError("storage_order 1 (column major) is not supported");
    }
    SY_RETURN_IF_ERROR(RequireUnusedOutput(ctx, 1, "Indices"));
  } else {
    SY_ASSIGN_OR_RETURN(count_include_pad, ctx.Int("count_include_pad", 0));
  }
  auto pool = [&](Val v, const Window& window) {
    return is_max ? EmitMaxPool2d(ctx, v, window, ceil_mode != 0)
                  : EmitAvgPool2d(ctx, v, window, ceil_mode != 0, count_include_pad != 0);
  };
  const int64_t n = x.dim(0), c = x.dim(1), depth = x.dim(2);
  // (H, W) over every frame: [N, C * D, H, W].
  SY_ASSIGN_OR_RETURN(Val y, Reshape(ctx, ctx.In(0), {n, c * depth, x.dim(3), x.dim(4)}));
  SY_ASSIGN_OR_RETURN(y, pool(y, HeightWidth(w)));
  const Shape plane = ctx.Type(y).shape;
  const int64_t out_h = plane.dim(2), out_w = plane.dim(3);
  // D as the width of [N, C * H_out * W_out, 1, D].
  SY_ASSIGN_OR_RETURN(y, Reshape(ctx, y, {n, c, depth, out_h * out_w}));
  SY_ASSIGN_OR_RETURN(y, Transpose(ctx, y, {0, 1, 3, 2}));
  SY_ASSIGN_OR_RETURN(y, Reshape(ctx, y, {n, c * out_h * out_w, 1, depth}));
  SY_ASSIGN_OR_RETURN(y, pool(y, DepthAsWidth(w)));
  const int64_t out_depth = ctx.Type(y).shape.dim(3);
  SY_ASSIGN_OR_RETURN(y, Reshape(ctx, y, {n, c, out_h * out_w, out_depth}));
  SY_ASSIGN_OR_RETURN(y, Transpose(ctx, y, {0, 1, 3, 2}));
  SY_ASSIGN_OR_RETURN(y, Reshape(ctx, y, {n, c, out_depth, out_h, out_w}));
  return ctx.SetOutput(0, y);
}

}  // namespace onnx_import
}  // namespace switchyard
