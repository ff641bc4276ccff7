// ONNX LpPool (opsets 2, 11 and 18: kernel_shape, strides, pads, auto_pad,
// p; dilations and ceil_mode from 18) and GlobalLpPool, composed of
// existing ops: (sum over the window of |x|^p)^(1/p).
//
// A box window's sum is separable, so LpPool sums one spatial axis at a
// time, for any number of them: the axis is zero-padded (a pad adds
// |0|^p = 0 to the sum), the tensor viewed as [outer, 1, length, inner]
// and a conv2d with a [1, 1, k, 1] kernel of ones (stride and dilation on
// that axis) sums each window. ceil_mode's extra last window is more zero
// padding at the end. The sums run in float32 (conv2d's dtype).

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "models/host_array.h"
#include "onnx/convert_util.h"
#include "onnx/converter_registry.h"
#include "onnx/window_ops.h"

namespace switchyard {
namespace onnx_import {
namespace {

// The most elements a padded intermediate may have: pads come from the
// model, so they are bounded before anything is allocated.
constexpr int64_t kMaxElements = int64_t{1} << 28;

absl::StatusOr<int64_t> ReadP(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(int64_t p, ctx.Int("p", 2));
  if (p < 1 || p > 1024) {
    return absl::InvalidArgumentError(absl::StrCat(
        "p is ", p, "; the Lp norm needs p in [1, 1024]"));
  }
  return p;
}

// |x|^p.
absl::StatusOr<Val> PowerOfAbs(NodeContext& ctx, Val x, int64_t p) {
  SY_ASSIGN_OR_RETURN(Val a, Op(ctx, "abs", {x}));
  if (p == 1) return a;
  if (p == 2) return Op(ctx, "mul", {a, a});
  return Op(ctx, "pow", {a, Scalar(ctx, static_cast<double>(p), ctx.Type(x).dtype)});
}

// sum^(1/p).
absl::StatusOr<Val> Root(NodeContext& ctx, Val sum, int64_t p) {
  if (p == 1) return sum;
  if (p == 2) return Op(ctx, "sqrt", {sum});
  return Op(ctx, "pow", {sum, Scalar(ctx, 1.0 / static_cast<double>(p),
                                     ctx.Type(sum).dtype)});
}

// Float32 for the sums (conv2d's dtype); float16 and float64 convert.
absl::StatusOr<Val> ToFloat32(NodeContext& ctx, Val x) {
  const DType t = ctx.Type(x).dtype;
  if (t == DType::kFloat32) return x;
  if (!IsFloatingPoint(t)) {
    return absl::InvalidArgumentError(absl::StrCat(
        ctx.op_type(), " takes a floating-point input; got ", DTypeName(t)));
  }
  return Op(ctx, "cast", {x}, Attrs({{"to", std::string("float32")}}));
}
absl::StatusOr<Val> BackTo(NodeContext& ctx, Val y, DType t) {
  if (t == DType::kFloat32) return y;
  return Op(ctx, "cast", {y}, Attrs({{"to", DTypeName(t)}}));
}

// The sum of every window along `axis` of `x` (already padded): kernel `k`,
// `stride` and `dilation`.
absl::StatusOr<Val> WindowSum(NodeContext& ctx, Val x, int axis, int64_t k,
                              int64_t stride, int64_t dilation) {
  const std::vector<int64_t> dims = ctx.Type(x).shape.dims();
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= dims[d];
  for (size_t d = axis + 1; d < dims.size(); ++d) inner *= dims[d];
  SY_ASSIGN_OR_RETURN(Val view, Reshape(ctx, x, {outer, 1, dims[axis], inner}));
  std::vector<float> ones(static_cast<size_t>(k), 1.0f);
  const Val weight = ctx.Constant(HostArray(Shape({1, 1, k, 1}), std::move(ones)));
  SY_ASSIGN_OR_RETURN(
      Val sums, Op(ctx, "conv2d", {view, weight},
                   Attrs({{"stride", std::vector<int64_t>{stride, 1}},
                          {"padding", std::vector<int64_t>{0, 0}},
                          {"dilation", std::vector<int64_t>{dilation, 1}},
                          {"groups", int64_t{1}}})));
  std::vector<int64_t> out = dims;
  out[axis] = ctx.Type(sums).shape.dim(2);
  return Reshape(ctx, sums, out);
}

absl::Status ConvertLpPool(NodeContext& ctx) {
  const Shape x = ctx.InShape(0);
  SY_ASSIGN_OR_RETURN(std::vector<int64_t> kernel, ctx.Ints("kernel_shape"));
  if (x.rank() < 3 || kernel.size() != static_cast<size_t>(x.rank() - 2)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input must be [N, C, D1, ...] with one kernel_shape value per spatial dim; got ",
        x.ToString(), " and ", kernel.size(), " kernel values"));
  }
  const std::vector<int64_t> spatial(x.dims().begin() + 2, x.dims().end());
  SY_ASSIGN_OR_RETURN(Window w, ReadWindow(ctx, spatial, kernel, /*has_dilations=*/true));
  SY_ASSIGN_OR_RETURN(int64_t ceil_mode, ctx.Int("ceil_mode", 0));
  SY_ASSIGN_OR_RETURN(int64_t p, ReadP(ctx));
  const DType dtype = ctx.Type(ctx.In(0)).dtype;
  SY_ASSIGN_OR_RETURN(Val y, ToFloat32(ctx, ctx.In(0)));
  SY_ASSIGN_OR_RETURN(y, PowerOfAbs(ctx, y, p));
  for (size_t d = 0; d < kernel.size(); ++d) {
    const int axis = static_cast<int>(d) + 2;
    const int64_t in = spatial[d], s = w.strides[d];
    const int64_t span = w.dilations[d] * (kernel[d] - 1) + 1;
    const int64_t total = in + w.pad_begin[d] + w.pad_end[d];
    if (span > total) {
      return absl::InvalidArgumentError(absl::StrCat(
          "on spatial axis ", d, " the dilated kernel (", span,
          ") is larger than the padded input (", total, ")"));
    }
    int64_t out = (total - span) / s + 1;
    if (ceil_mode != 0) {
      out = (total - span + s - 1) / s + 1;
      // The last window must start inside the input or its front padding.
      if ((out - 1) * s >= in + w.pad_begin[d]) --out;
    }
    const int64_t end_pad = std::max<int64_t>(w.pad_end[d], (out - 1) * s + span - in -
                                                               w.pad_begin[d]);
    const Shape& cur = ctx.Type(y).shape;
    const int64_t rest = cur.num_elements() / std::max<int64_t>(1, cur.dim(axis));
    const int64_t padded = in + w.pad_begin[d] + end_pad;
    if (rest != 0 && padded > kMaxElements / rest) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the padded input along spatial axis ", d, " (", padded,
          ") gives over 2^28 elements; pads are too large"));
    }
    if (w.pad_begin[d] != 0 || end_pad != 0) {
      std::vector<int64_t> pads(2 * cur.rank(), 0);
      pads[axis] = w.pad_begin[d];
      pads[cur.rank() + axis] = end_pad;
      SY_ASSIGN_OR_RETURN(y, Op(ctx, "pad", {y},
                                Attrs({{"pads", pads},
                                       {"mode", std::string("constant")},
                                       {"value", 0.0}})));
    }
    SY_ASSIGN_OR_RETURN(y, WindowSum(ctx, y, axis, kernel[d], s, w.dilations[d]));
  }
  SY_ASSIGN_OR_RETURN(y, Root(ctx, y, p));
  SY_ASSIGN_OR_RETURN(y, BackTo(ctx, y, dtype));
  return ctx.SetOutput(0, y);
}

// GlobalLpPool: the Lp norm over every spatial dim, kept as dims of 1.
absl::Status ConvertGlobalLpPool(NodeContext& ctx) {
  const Shape& x = ctx.InShape(0);
  if (x.rank() < 3) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input must be [N, C, D1, ...]; got ", x.ToString()));
  }
  SY_ASSIGN_OR_RETURN(int64_t p, ReadP(ctx));
  if (!IsFloatingPoint(ctx.Type(ctx.In(0)).dtype)) {
    return absl::InvalidArgumentError("GlobalLpPool takes a floating-point input");
  }
  std::vector<int64_t> axes;
  for (int d = 2; d < x.rank(); ++d) axes.push_back(d);
  SY_ASSIGN_OR_RETURN(Val y, PowerOfAbs(ctx, ctx.In(0), p));
  SY_ASSIGN_OR_RETURN(y, Op(ctx, "reduce_sum", {y},
                            Attrs({{"axes", axes}, {"keepdims", true}})));
  SY_ASSIGN_OR_RETURN(y, Root(ctx, y, p));
  return ctx.SetOutput(0, y);
}

}  // namespace

SY_REGISTER_ONNX_CONVERTER("LpPool", ConvertLpPool);
SY_REGISTER_ONNX_CONVERTER("GlobalLpPool", ConvertGlobalLpPool);

}  // namespace onnx_import
}  // namespace switchyard
