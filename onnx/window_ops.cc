#include "onnx/window_ops.h"

#include <algorithm>
#include <limits>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "onnx/convert_util.h"
#include "ops/attr_fields.h"

namespace switchyard {
namespace onnx_import {

absl::StatusOr<Window> Read2dWindow(NodeContext& ctx, const Shape& input,
                                    const std::vector<int64_t>& kernel,
                                    bool has_dilations) {
  const bool one_d = input.rank() == 3 && kernel.size() == 1;
  if (!one_d && (input.rank() != 4 || kernel.size() != 2)) {
    return absl::UnimplementedError(absl::StrCat(
        "only 1-D, 2-D and 3-D ", ctx.op_type(),
        " (input [N, C, L], [N, C, H, W] or [N, C, D, H, W]) are supported; got input ",
        input.ToString(), " and a kernel of ", kernel.size(), " dims"));
  }
  const std::vector<int64_t> spatial(input.dims().begin() + 2, input.dims().end());
  SY_ASSIGN_OR_RETURN(Window w, ReadWindow(ctx, spatial, kernel, has_dilations));
  if (one_d) {
    for (std::vector<int64_t>* v : {&w.kernel, &w.strides, &w.dilations}) {
      v->insert(v->begin(), 1);
    }
    w.pad_begin.insert(w.pad_begin.begin(), 0);
    w.pad_end.insert(w.pad_end.begin(), 0);
  }
  return w;
}

absl::StatusOr<Val> As4d(NodeContext& ctx, Val x) {
  const Shape& s = ctx.Type(x).shape;
  if (s.rank() != 3) return x;
  return Reshape(ctx, x, {s.dim(0), s.dim(1), 1, s.dim(2)});
}
absl::StatusOr<Val> BackToRank(NodeContext& ctx, Val y, int rank) {
  const Shape& s = ctx.Type(y).shape;
  if (rank != 3) return y;
  return Reshape(ctx, y, {s.dim(0), s.dim(1), s.dim(3)});
}


absl::StatusOr<Window> ReadWindow(NodeContext& ctx,
                                  const std::vector<int64_t>& spatial,
                                  const std::vector<int64_t>& kernel,
                                  bool has_dilations) {
  const size_t n = kernel.size();
  Window w;
  w.kernel = kernel;
  SY_ASSIGN_OR_RETURN(w.strides, ctx.Ints("strides", std::vector<int64_t>(n, 1)));
  if (has_dilations) {
    SY_ASSIGN_OR_RETURN(w.dilations, ctx.Ints("dilations", std::vector<int64_t>(n, 1)));
  } else {
    w.dilations.assign(n, 1);
  }
  SY_ASSIGN_OR_RETURN(std::vector<int64_t> pads,
                      ctx.Ints("pads", std::vector<int64_t>(2 * n, 0)));
  SY_ASSIGN_OR_RETURN(std::string auto_pad, ctx.String("auto_pad", "NOTSET"));
  if (w.strides.size() != n || w.dilations.size() != n || pads.size() != 2 * n ||
      spatial.size() != n) {
    return absl::InvalidArgumentError(absl::StrCat(
        "strides and dilations need ", n, " values and pads ", 2 * n, " for a ", n,
        "-D window over an input with ", spatial.size(), " spatial dims"));
  }
  for (size_t d = 0; d < n; ++d) {
    const bool sane = w.strides[d] >= 1 && w.strides[d] <= kMaxAttrWindowValue &&
                      w.dilations[d] >= 1 && w.dilations[d] <= kMaxAttrWindowValue &&
                      kernel[d] >= 1 && kernel[d] <= kMaxAttrWindowValue &&
                      pads[d] >= 0 && pads[d] <= kMaxAttrWindowValue &&
                      pads[n + d] >= 0 && pads[n + d] <= kMaxAttrWindowValue &&
                      spatial[d] <= kMaxAttrWindowValue;
    if (!sane) {
      return absl::InvalidArgumentError(absl::StrCat(
          "strides and dilations must be in [1, 2^30], the kernel in [1, 2^30], pads and "
          "the input's spatial size in [0, 2^30]; spatial axis ", d, " has stride ",
          w.strides[d], ", dilation ", w.dilations[d], ", kernel ", kernel[d], ", pads ",
          pads[d], " and ", pads[n + d], ", input ", spatial[d]));
    }
  }
  w.pad_begin.assign(pads.begin(), pads.begin() + n);
  w.pad_end.assign(pads.begin() + n, pads.end());
  if (auto_pad == "NOTSET") return w;
  if (auto_pad == "VALID") {
    std::fill(w.pad_begin.begin(), w.pad_begin.end(), 0);
    std::fill(w.pad_end.begin(), w.pad_end.end(), 0);
    return w;
  }
  if (auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER") {
    return absl::InvalidArgumentError(absl::StrCat(
        "unknown auto_pad '", auto_pad, "' (NOTSET, VALID, SAME_UPPER or SAME_LOWER)"));
  }
  // The output is ceil(input / stride); the padding that gives it is split
  // with the smaller half first (SAME_UPPER) or last (SAME_LOWER).
  for (size_t d = 0; d < n; ++d) {
    const int64_t in = spatial[d], s = w.strides[d];
    const int64_t out = (in + s - 1) / s;
    const int64_t span = (kernel[d] - 1) * w.dilations[d] + 1;
    const int64_t total = std::max<int64_t>(0, (out - 1) * s + span - in);
    const int64_t small = total / 2;
    w.pad_begin[d] = auto_pad == "SAME_UPPER" ? small : total - small;
    w.pad_end[d] = total - w.pad_begin[d];
  }
  return w;
}

absl::StatusOr<Val> PadSpatial(NodeContext& ctx, Val x, const Window& w,
                               double value) {
  const int rank = ctx.Type(x).shape.rank();
  const int n = static_cast<int>(w.kernel.size());
  std::vector<int64_t> pads(2 * rank, 0);
  for (int d = 0; d < n; ++d) {
    pads[rank - n + d] = w.pad_begin[d];
    pads[2 * rank - n + d] = w.pad_end[d];
  }
  return ctx.EmitOne("pad", {x},
                     Attrs({{"pads", pads},
                            {"mode", std::string("constant")},
                            {"value", value}}));
}

absl::StatusOr<Val> EmitMaxPool2d(NodeContext& ctx, Val x, const Window& w,
                                  bool ceil_mode) {
  std::vector<int64_t> padding = w.pad_begin;
  const bool fits = w.symmetric() && 2 * w.pad_begin[0] <= w.kernel[0] &&
                    2 * w.pad_begin[1] <= w.kernel[1];
  if (!fits) {
    SY_ASSIGN_OR_RETURN(x, PadSpatial(ctx, x, w, -std::numeric_limits<double>::infinity()));
    padding = {0, 0};
  }
  return ctx.EmitOne("max_pool2d", {x},
                     Attrs({{"kernel_size", w.kernel},
                            {"stride", w.strides},
                            {"padding", padding},
                            {"dilation", w.dilations},
                            {"ceil_mode", ceil_mode}}));
}

absl::StatusOr<Val> EmitAvgPool2d(NodeContext& ctx, Val x, const Window& w,
                                  bool ceil_mode, bool count_include_pad) {
  return ctx.EmitOne(
      "avg_pool2d", {x},
      Attrs({{"kernel_size", w.kernel},
             {"stride", w.strides},
             {"padding", std::vector<int64_t>{w.pad_begin[0], w.pad_begin[1], w.pad_end[0],
                                              w.pad_end[1]}},
             {"ceil_mode", ceil_mode},
             {"count_include_pad", count_include_pad}}));
}

}  // namespace onnx_import
}  // namespace switchyard
