// ONNX Resize (opsets 10, 11, 13, 18, 19) and Upsample (7, 9) as the
// resize op (ops/resize.cc). The output shape is an attribute there, so
// scales and sizes are read on the host: initializers, shapes folded at
// import (PyTorch's F.interpolate(size=x.shape[-2:]) exports Shape ->
// Gather -> Concat), or, in a staged run, values computed at run time
// (the runner ends the segment at this node and converts it again with
// their contents). Every value is checked before anything is allocated.
// Opset 18's antialias (linear and cubic) is composed: a matrix of filter
// weights per resized axis, computed at import, and a matmul.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"
#include "onnx/convert_util.h"
#include "onnx/converter_registry.h"
#include "onnx/float_precision.h"
#include "ops/resize_attrs.h"
#include "ops/resize_geometry.h"

namespace switchyard {
namespace onnx_import {
namespace {

// The most elements one Resize may produce (8 GiB of float32): beyond any
// real image or volume, and a guard against scales that ask for petabytes.
constexpr double kMaxOutputElements = double{int64_t{1} << 31};

// An optional input given with data: ONNX leaves an absent one out with an
// empty name or (as PyTorch's exporter does) passes an empty tensor.
bool Given(NodeContext& ctx, int i) {
  return ctx.HasInput(i) && ctx.InShape(i).num_elements() > 0;
}

// "input 2 (scales, 'scales_0')".
std::string InputName(NodeContext& ctx, int i, const char* what) {
  return absl::StrCat("input ", i, " (", what, ", '", ctx.node().input(i), "')");
}

// The axes the scales or sizes input lists (opset 18's `axes`; every axis
// before), each in [0, rank) once.
absl::StatusOr<std::vector<int64_t>> ResizedAxes(NodeContext& ctx, int rank) {
  std::vector<int64_t> axes;
  if (ctx.opset() >= 18) {
    SY_ASSIGN_OR_RETURN(axes, ctx.Ints("axes"));
  }
  if (axes.empty()) {
    for (int d = 0; d < rank; ++d) axes.push_back(d);
    return axes;
  }
  std::set<int64_t> seen;
  for (int64_t& a : axes) {
    SY_ASSIGN_OR_RETURN(a, NormalizeAxis(a, rank, "axes"));
    if (!seen.insert(a).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("attribute 'axes' lists axis ", a, " twice"));
    }
  }
  return axes;
}

// `values` (from `source`: "input 2 (scales, 's')") has one per listed
// axis.
absl::Status CheckCount(NodeContext& ctx, const std::string& source,
                        size_t count, const std::vector<int64_t>& axes) {
  if (count == axes.size()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      source, " has ", count, " values but X ", ctx.InShape(0).ToString(),
      " needs ", axes.size(), " (one per axis in [", absl::StrJoin(axes, ", "),
      "])"));
}

// The output dims and the coordinate transform's scales from `scales` (read
// from `source`): floor(in * scale), ONNX's rule.
absl::Status FromScales(NodeContext& ctx, const std::string& source,
                        const std::vector<double>& scales,
                        const std::vector<int64_t>& axes, ResizeAttrs& a) {
  SY_RETURN_IF_ERROR(CheckCount(ctx, source, scales.size(), axes));
  const Shape& x = ctx.InShape(0);
  for (size_t k = 0; k < axes.size(); ++k) {
    const double s = scales[k];
    const int64_t in = x.dim(static_cast<int>(axes[k]));
    if (!(std::isfinite(s) && s > 0)) {
      return absl::InvalidArgumentError(absl::StrCat(
          source, " must be finite and > 0, got ", s, " for axis ", axes[k]));
    }
    const double out = std::floor(static_cast<double>(in) * s);
    if (out > kMaxOutputElements) {
      return absl::ResourceExhaustedError(absl::StrCat(
          source, " asks for ", out, " elements along axis ", axes[k], " (", in,
          " x ", s, "), more than Switchyard allocates for one ",
          ctx.op_type(), " (", kMaxOutputElements, ")"));
    }
    if (out < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          source, " gives axis ", axes[k], " of length ", in,
          " an empty output (", in, " x ", s, " < 1)"));
    }
    a.sizes[axes[k]] = static_cast<int64_t>(out);
    a.scales[axes[k]] = s;
  }
  return absl::OkStatus();
}

// FromScales with the scales of input `i`.
absl::Status FromScalesInput(NodeContext& ctx, int i,
                             const std::vector<int64_t>& axes, ResizeAttrs& a) {
  SY_ASSIGN_OR_RETURN(std::vector<double> scales, ctx.ConstDoubles(i, "scales"));
  return FromScales(ctx, InputName(ctx, i, "scales"), scales, axes, a);
}

// The output dims from the sizes input (input `i`), with opset 18's
// keep_aspect_ratio_policy: not_larger and not_smaller scale every listed
// axis by one factor, the smallest or largest sizes / in, and round.
absl::Status FromSizes(NodeContext& ctx, int i, const std::vector<int64_t>& axes,
                       const std::string& policy, ResizeAttrs& a) {
  SY_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, ctx.ConstInts(i, "sizes"));
  SY_RETURN_IF_ERROR(
      CheckCount(ctx, InputName(ctx, i, "sizes"), sizes.size(), axes));
  const Shape& x = ctx.InShape(0);
  for (size_t k = 0; k < axes.size(); ++k) {
    if (sizes[k] <= 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          InputName(ctx, i, "sizes"), " must be > 0, got ", sizes[k],
          " for axis ", axes[k]));
    }
    if (static_cast<double>(sizes[k]) > kMaxOutputElements) {
      return absl::ResourceExhaustedError(absl::StrCat(
          InputName(ctx, i, "sizes"), " asks for ", sizes[k],
          " elements along axis ", axes[k], ", more than Switchyard allocates "
          "for one Resize (", kMaxOutputElements, ")"));
    }
  }
  if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller") {
    return absl::InvalidArgumentError(absl::StrCat(
        "attribute 'keep_aspect_ratio_policy' must be stretch, not_larger or "
        "not_smaller, got '", policy, "'"));
  }
  double common = policy == "not_larger" ? INFINITY : 0.0;
  for (size_t k = 0; k < axes.size(); ++k) {
    const double ratio = static_cast<double>(sizes[k]) /
                         static_cast<double>(x.dim(static_cast<int>(axes[k])));
    common = policy == "not_larger" ? std::min(common, ratio)
                                    : std::max(common, ratio);
  }
  for (size_t k = 0; k < axes.size(); ++k) {
    const int64_t in = x.dim(static_cast<int>(axes[k]));
    if (policy == "stretch") {
      a.sizes[axes[k]] = sizes[k];
      a.scales[axes[k]] = static_cast<double>(sizes[k]) / static_cast<double>(in);
      continue;
    }
    // ONNX: out = round(scale * in), at least 1.
    a.sizes[axes[k]] = std::max<int64_t>(
        1, static_cast<int64_t>(std::round(common * static_cast<double>(in))));
    a.scales[axes[k]] = common;
  }
  return absl::OkStatus();
}

// The rest of the checks, then the op (or the input itself when nothing
// changes).
absl::Status EmitResize(NodeContext& ctx, const ResizeAttrs& a) {
  const Shape& x = ctx.InShape(0);
  double elements = 1;
  for (int64_t d : a.sizes) elements *= static_cast<double>(d);
  if (elements > kMaxOutputElements) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "the output ", Shape(a.sizes).ToString(), " of X ", x.ToString(),
        " has ", elements, " elements, more than Switchyard allocates for one ",
        ctx.op_type(), " (", kMaxOutputElements, "); check its scales or sizes"));
  }
  bool identity = true;
  for (int d = 0; d < x.rank(); ++d) identity = identity && a.Axis(x, d).identity;
  if (identity) return Alias(ctx);
  const DType dtype = ctx.Type(ctx.In(0)).dtype;
  if (dtype == DType::kUInt8 || dtype == DType::kInt8) {
    // 8-bit images and quantized activations run in float32: nearest copies
    // values, which float32 holds exactly; linear's weighted sums are cast
    // back truncating toward zero, as ONNX Runtime's CPU kernel does.
    // Cubic is refused, as ONNX Runtime 1.30 refuses it for 8-bit data.
    if (a.mode == ResizeMode::kCubic) {
      return absl::UnimplementedError(absl::StrCat(
          "Resize of ", DTypeName(dtype), " X takes mode nearest or linear; "
          "dequantize first (DequantizeLinear) for cubic"));
    }
    SY_ASSIGN_OR_RETURN(Val wide, CastTo(ctx, ctx.In(0), DType::kFloat32));
    SY_ASSIGN_OR_RETURN(Val resized, ctx.EmitOne("resize", {wide}, a.ToAttrMap()));
    SY_ASSIGN_OR_RETURN(Val y, CastTo(ctx, resized, dtype));
    return ctx.SetOutput(0, y);
  }
  return EmitUnary(ctx, "resize", a.ToAttrMap());
}

// The most weights one antialiased axis may have (in x out, 128 MiB of
// float32): a guard before the matrix is allocated.
constexpr int64_t kMaxAntialiasWeights = int64_t{1} << 25;

// Output index o's source coordinate on axis `a`, as ONNX Runtime's
// antialiased resize takes it: align_corners divides by the integer output
// length less one (ResizeSourceCoordinate, by in * scale less one).
double AntialiasSource(const ResizeAxis& a, int64_t o) {
  if (a.coordinate == ResizeCoordinateMode::kAlignCorners) {
    return a.out == 1 ? 0.0
                      : static_cast<double>(o) * static_cast<double>(a.in - 1) /
                            static_cast<double>(a.out - 1);
  }
  return ResizeSourceCoordinate(a, o);
}

// Resize-18's antialias (linear and cubic): each output element of axis `a`
// is a weighted sum of the input elements under the interpolation filter
// stretched by 1 / scale when the axis shrinks (so every input element
// contributes), as ONNX Runtime and PIL compute it: taps from
// floor(center - support + 0.5) to floor(center + support + 0.5), weights
// normalized to sum to 1; taps outside the axis read the edge element, or
// with exclude_outside are dropped. A [out, in] matrix of weights.
absl::StatusOr<HostArray> AntialiasWeights(const ResizeAxis& a, DType dtype) {
  const double shrink = 1.0 / a.scale;  // input elements per output element
  const double stretch = std::max(shrink, 1.0);
  const double support = (a.mode == ResizeMode::kCubic ? 2.0 : 1.0) * stretch;
  std::vector<double> weights(static_cast<size_t>(a.out * a.in), 0.0);
  std::vector<double> row;
  for (int64_t o = 0; o < a.out; ++o) {
    const double center =
        (a.scale == 1.0 ? static_cast<double>(o) : AntialiasSource(a, o)) + 0.5;
    double first = std::floor(center - support + 0.5);
    double last = std::floor(center + support + 0.5);  // exclusive
    if (a.exclude_outside) {
      first = std::max(first, 0.0);
      last = std::min(last, static_cast<double>(a.in));
    }
    // The source coordinate is within an output's reach of the axis, so the
    // taps number at most 2 * support + 2 <= 4 * in + 2.
    if (!(last - first <= 4.0 * static_cast<double>(a.in) + 2.0)) {
      return absl::InternalError(absl::StrCat("antialias taps ", first, " to ", last,
                                              " for an axis of ", a.in));
    }
    double total = 0;
    row.assign(static_cast<size_t>(a.in), 0.0);
    for (double k = first; k < last; k += 1.0) {
      const double d = std::fabs((k - center + 0.5) / stretch);
      const double w = a.mode == ResizeMode::kCubic ? ResizeCubicWeight(d, a.cubic_a)
                                                    : std::max(0.0, 1.0 - d);
      total += w;
      row[ResizeClampIndex(static_cast<int64_t>(k), a.in)] += w;
    }
    const double scale = total == 0 ? 1.0 : 1.0 / total;
    for (int64_t i = 0; i < a.in; ++i) weights[o * a.in + i] = row[i] * scale;
  }
  const Shape shape({a.out, a.in});
  std::vector<char> bytes(weights.size() * DTypeSize(dtype));
  for (size_t i = 0; i < weights.size(); ++i) {
    SetElementFromDouble(bytes.data(), dtype, static_cast<int64_t>(i), weights[i]);
  }
  return HostArray(shape, dtype, std::move(bytes));
}

// Antialiased linear or cubic Resize, axis by axis (the filter is
// separable): X viewed as [outer, in, inner], the weights [out, in] times it.
absl::Status EmitAntialiasedResize(NodeContext& ctx, const ResizeAttrs& a) {
  const Shape x = ctx.InShape(0);
  const DType dtype = ctx.Type(ctx.In(0)).dtype;
  if (dtype != DType::kFloat32 && dtype != DType::kFloat64 && dtype != DType::kFloat16) {
    return absl::UnimplementedError(absl::StrCat(
        "antialias on ", DTypeName(dtype), " X: Switchyard's antialiased Resize takes "
        "float, float16 and double; cast X first"));
  }
  double elements = 1;
  for (int64_t d : a.sizes) elements *= static_cast<double>(d);
  if (elements > kMaxOutputElements) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "the output ", Shape(a.sizes).ToString(), " of X ", x.ToString(), " has ", elements,
        " elements, more than Switchyard allocates for one Resize (", kMaxOutputElements,
        "); check its scales or sizes"));
  }
  Val y = ctx.In(0);
  std::vector<int64_t> dims = x.dims();
  for (int d = 0; d < x.rank(); ++d) {
    const ResizeAxis axis = a.Axis(x, d);
    if (axis.identity) continue;
    if (static_cast<double>(axis.in) * static_cast<double>(axis.out) >
        static_cast<double>(kMaxAntialiasWeights)) {
      return absl::UnimplementedError(absl::StrCat(
          "antialias resizes axis ", d, " from ", axis.in, " to ", axis.out,
          ": Switchyard composes it as a matrix of ", axis.in, " x ", axis.out,
          " weights, more than the ", kMaxAntialiasWeights, " it allows"));
    }
    SY_ASSIGN_OR_RETURN(HostArray weights, AntialiasWeights(axis, dtype));
    int64_t outer = 1, inner = 1;
    for (int k = 0; k < d; ++k) outer *= dims[k];
    for (int k = d + 1; k < x.rank(); ++k) inner *= dims[k];
    SY_ASSIGN_OR_RETURN(Val view, Reshape(ctx, y, {outer, axis.in, inner}));
    SY_ASSIGN_OR_RETURN(Val mixed, Op(ctx, "matmul", {ctx.Constant(std::move(weights)), view}));
    dims[d] = axis.out;
    SY_ASSIGN_OR_RETURN(y, Reshape(ctx, mixed, dims));
  }
  if (y == ctx.In(0)) return Alias(ctx);
  return ctx.SetOutput(0, y);
}

// Every axis kept: sizes = X's dims, scales 1.
ResizeAttrs Unchanged(const Shape& x) {
  ResizeAttrs a;
  a.sizes = x.dims();
  a.scales.assign(x.rank(), 1.0);
  return a;
}

// Upsample and opset 10's Resize: asymmetric coordinates (x / scale); nearest
// takes the element at or before, as those ops and ONNX Runtime do (which
// rounds up instead when downsampling; so does this, when every resized
// axis shrinks).
absl::Status LegacyResize(NodeContext& ctx, ResizeAttrs& a) {
  const Shape& x = ctx.InShape(0);
  SY_ASSIGN_OR_RETURN(std::string mode, ctx.String("mode", "nearest"));
  if (mode != "nearest" && mode != "linear") {
    return absl::InvalidArgumentError(absl::StrCat(
        "attribute 'mode' of ", ctx.op_type(), "-", ctx.opset(),
        " must be nearest or linear, got '", mode, "'"));
  }
  a.mode = mode == "nearest" ? ResizeMode::kNearest : ResizeMode::kLinear;
  a.coordinate_transformation_mode = ResizeCoordinateMode::kAsymmetric;
  bool up = false, down = false;
  for (int d = 0; d < x.rank(); ++d) {
    up = up || a.scales[d] > 1;
    down = down || a.scales[d] < 1;
  }
  if (a.mode == ResizeMode::kNearest && up && down) {
    return absl::UnimplementedError(absl::StrCat(
        ctx.op_type(), "-", ctx.opset(), " nearest that enlarges some axes and "
        "shrinks others rounds each differently in ONNX Runtime; Switchyard "
        "takes one rounding per node. Use Resize (opset 11+) with nearest_mode"));
  }
  a.nearest_mode =
      down ? ResizeNearestMode::kCeil : ResizeNearestMode::kFloor;
  return EmitResize(ctx, a);
}

absl::Status ConvertResize(NodeContext& ctx) {
  const Shape& x = ctx.InShape(0);
  ResizeAttrs a = Unchanged(x);
  SY_ASSIGN_OR_RETURN(std::vector<int64_t> axes, ResizedAxes(ctx, x.rank()));
  if (ctx.opset() < 11) {
    // Resize-10: X and scales only.
    SY_RETURN_IF_ERROR(FromScalesInput(ctx, 1, axes, a));
    return LegacyResize(ctx, a);
  }
  SY_ASSIGN_OR_RETURN(std::string coordinate,
                      ctx.String("coordinate_transformation_mode", "half_pixel"));
  if (coordinate == "tf_crop_and_resize") {
    return absl::UnimplementedError(
        "coordinate_transformation_mode tf_crop_and_resize (a crop by roi, "
        "extrapolation_value outside it) is not supported by Switchyard's "
        "Resize import");
  }
  // Only tf_crop_and_resize reads roi and extrapolation_value.
  ctx.Ignore("extrapolation_value");
  ctx.IgnoreInput(1);
  const bool has_scales = Given(ctx, 2), has_sizes = Given(ctx, 3);
  if (has_scales == has_sizes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "exactly one of scales (input 2) and sizes (input 3) must be given "
        "with values; got ", has_scales ? "both" : "neither"));
  }
  SY_ASSIGN_OR_RETURN(std::string policy,
                      ctx.String("keep_aspect_ratio_policy", "stretch"));
  if (has_scales) {
    SY_RETURN_IF_ERROR(FromScalesInput(ctx, 2, axes, a));
  } else {
    SY_RETURN_IF_ERROR(FromSizes(ctx, 3, axes, policy, a));
  }
  AttrMap given = Attrs({{"sizes", a.sizes},
                         {"scales", a.scales},
                         {"coordinate_transformation_mode", coordinate}});
  SY_ASSIGN_OR_RETURN(ResizeAttrs parsed,
                      OnnxAttrs<ResizeAttrs>(
                          ctx,
                          {{"mode", "mode"},
                           {"nearest_mode", "nearest_mode"},
                           {"cubic_coeff_a", "cubic_coeff_a"},
                           {"exclude_outside", "exclude_outside"}},
                          given));
  SY_ASSIGN_OR_RETURN(int64_t antialias, ctx.Int("antialias", 0));
  if (antialias != 0 && parsed.mode != ResizeMode::kNearest) {
    return EmitAntialiasedResize(ctx, parsed);
  }
  return EmitResize(ctx, parsed);
}

absl::Status ConvertUpsample(NodeContext& ctx) {
  const Shape& x = ctx.InShape(0);
  ResizeAttrs a = Unchanged(x);
  std::vector<int64_t> axes;
  for (int d = 0; d < x.rank(); ++d) axes.push_back(d);
  if (ctx.opset() >= 9) {
    SY_RETURN_IF_ERROR(FromScalesInput(ctx, 1, axes, a));
  } else {
    // Upsample-7: scales is an attribute.
    SY_ASSIGN_OR_RETURN(std::vector<float> scales, ctx.Floats("scales"));
    SY_RETURN_IF_ERROR(FromScales(ctx, "attribute 'scales'",
                                  std::vector<double>(scales.begin(), scales.end()),
                                  axes, a));
  }
  return LegacyResize(ctx, a);
}

SY_REGISTER_ONNX_CONVERTER("Resize", ConvertResize);
SY_REGISTER_ONNX_CONVERTER("Upsample", ConvertUpsample);

}  // namespace
}  // namespace onnx_import
}  // namespace switchyard
