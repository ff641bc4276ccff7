// The normalizations ONNX added at opsets 18-23, composed from reductions
// and elementwise ops: GroupNormalization (18: a scale and bias per group;
// 21: per channel, with stash_type) and RMSNormalization (23).

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "onnx/convert_util.h"
#include "onnx/converter_registry.h"
#include "onnx/float_precision.h"

namespace switchyard {
namespace onnx_import {
namespace {

// `x` divided by sqrt(mean over `axes` of `sq` + epsilon), computed in x's
// dtype: the shared first stage (`sq` is x * x for RMS, the squared
// deviations for GroupNormalization).
absl::StatusOr<Val> DivideByRoot(NodeContext& ctx, Val x, Val sq,
                                 const std::vector<int64_t>& axes, double epsilon) {
  const DType t = ctx.Type(x).dtype;
  SY_ASSIGN_OR_RETURN(
      Val mean_sq,
      Op(ctx, "reduce_mean", {sq}, Attrs({{"axes", axes}, {"keepdims", true}})));
  SY_ASSIGN_OR_RETURN(Val shifted, Op(ctx, "add", {mean_sq, Scalar(ctx, epsilon, t)}));
  SY_ASSIGN_OR_RETURN(Val root, Op(ctx, "sqrt", {shifted}));
  return Op(ctx, "div", {x, root});
}

// GroupNormalization: each instance's channels in num_groups groups, each
// group normalized over its channels and spatial dimensions (as
// [N, G, C / G * D1 * ...]), then scaled and shifted per channel. Version
// 18 gives scale and bias per group (each shared by the group's channels),
// version 21 per channel; a model with the other version's shapes is
// refused, as the two read the same [C] differently.
absl::Status ConvertGroupNormalization(NodeContext& ctx) {
  const int version = ctx.opset() >= 21 ? 21 : 18;
  if (!ctx.HasAttr("num_groups")) {
    return absl::InvalidArgumentError("attribute num_groups is required");
  }
  SY_ASSIGN_OR_RETURN(int64_t groups, ctx.Int("num_groups", 0));
  SY_ASSIGN_OR_RETURN(float epsilon, ctx.Float("epsilon", 1e-5f));
  const Shape x = ctx.InShape(0);
  const DType t = ctx.Type(ctx.In(0)).dtype;
  // Version 21's stage one runs in stash_type (float by default); version
  // 18 has no such attribute (the generic check refuses it if present).
  DType stash = t;
  if (version >= 21) {
    SY_ASSIGN_OR_RETURN(stash, FloatPrecisionAttr(ctx, "stash_type", DType::kFloat32));
  }
  if (!IsFloatingPoint(t)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "X is ", DTypeName(t), "; GroupNormalization takes a floating-point tensor"));
  }
  if (x.rank() < 3) {
    return absl::InvalidArgumentError(absl::StrCat(
        "X must have rank >= 3 ([N, C, D1, ...]), got ", x.ToString()));
  }
  const int64_t c = x.dim(1);
  if (groups <= 0 || c % groups != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "num_groups is ", groups, "; it must be > 0 and divide the ", c,
        " channels of X ", x.ToString()));
  }
  const int64_t param_len = version == 18 ? groups : c;
  const char* rule = version == 18 ? "[num_groups]" : "[C]";
  for (int i : {1, 2}) {
    const Shape& p = ctx.InShape(i);
    if (p != Shape({param_len})) {
      return absl::InvalidArgumentError(absl::StrCat(
          i == 1 ? "scale" : "bias", " is ", p.ToString(),
          "; GroupNormalization version ", version, " (opset ",
          version == 18 ? "18-20" : "21+", ") takes ", rule, " = [", param_len,
          "] for X ", x.ToString(), " and num_groups ", groups,
          version == 18 ? " (per-channel [C] needs opset 21)"
                        : " (per-group [num_groups] was version 18, opsets 18-20)"));
    }
    if (ctx.Type(ctx.In(i)).dtype != t) {
      return absl::InvalidArgumentError(absl::StrCat(
          i == 1 ? "scale" : "bias", " is ", DTypeName(ctx.Type(ctx.In(i)).dtype),
          "; it must have X's dtype ", DTypeName(t)));
    }
  }

  // Stage one: normalize each group.
  int64_t per_group = c / groups;
  for (int d = 2; d < x.rank(); ++d) per_group *= x.dim(d);
  SY_ASSIGN_OR_RETURN(Val xs, CastTo(ctx, ctx.In(0), stash));
  SY_ASSIGN_OR_RETURN(Val grouped, Reshape(ctx, xs, {x.dim(0), groups, per_group}));
  const std::vector<int64_t> axes = {2};
  SY_ASSIGN_OR_RETURN(
      Val mean, Op(ctx, "reduce_mean", {grouped}, Attrs({{"axes", axes}, {"keepdims", true}})));
  SY_ASSIGN_OR_RETURN(Val centered, Op(ctx, "sub", {grouped, mean}));
  SY_ASSIGN_OR_RETURN(Val sq, Op(ctx, "mul", {centered, centered}));
  SY_ASSIGN_OR_RETURN(Val normalized, DivideByRoot(ctx, centered, sq, axes, epsilon));
  SY_ASSIGN_OR_RETURN(normalized, Reshape(ctx, normalized, x.dims()));
  SY_ASSIGN_OR_RETURN(normalized, CastTo(ctx, normalized, t));

  // Stage two: per-channel scale and bias, as [C, 1, ..., 1].
  std::vector<int64_t> per_channel(static_cast<size_t>(x.rank() - 1), 1);
  per_channel[0] = c;
  Val params[2];
  for (int i : {1, 2}) {
    Val p = ctx.In(i);
    if (version == 18) {
      // [G] -> [G, 1] -> [G, C / G] -> [C]: each group's value on its channels.
      SY_ASSIGN_OR_RETURN(p, Reshape(ctx, p, {groups, 1}));
      SY_ASSIGN_OR_RETURN(p, Op(ctx, "expand", {p},
                                Attrs({{"shape", std::vector<int64_t>{groups, c / groups}}})));
    }
    SY_ASSIGN_OR_RETURN(params[i - 1], Reshape(ctx, p, per_channel));
  }
  SY_ASSIGN_OR_RETURN(Val scaled, Op(ctx, "mul", {normalized, params[0]}));
  SY_ASSIGN_OR_RETURN(Val y, Op(ctx, "add", {scaled, params[1]}));
  return ctx.SetOutput(0, y);
}

// RMSNormalization: x / sqrt(mean(x^2 over axis..rank-1) + epsilon) in
// stash_type, cast back to x's dtype, times scale (broadcast to x; Y has
// scale's dtype).
absl::Status ConvertRMSNormalization(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(int64_t axis, ctx.Int("axis", -1));
  SY_ASSIGN_OR_RETURN(float epsilon, ctx.Float("epsilon", 1e-5f));
  const DType t = ctx.Type(ctx.In(0)).dtype;
  SY_ASSIGN_OR_RETURN(DType stash, FloatPrecisionAttr(ctx, "stash_type", DType::kFloat32));
  const Shape x = ctx.InShape(0);
  const Shape scale = ctx.InShape(1);
  const DType scale_type = ctx.Type(ctx.In(1)).dtype;
  if (!IsFloatingPoint(t) || !IsFloatingPoint(scale_type)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "X is ", DTypeName(t), " and scale ", DTypeName(scale_type),
        "; RMSNormalization takes floating-point tensors"));
  }
  if (x.rank() < 1) {
    return absl::InvalidArgumentError("X must have rank >= 1, got a scalar");
  }
  SY_ASSIGN_OR_RETURN(axis, NormalizeAxis(axis, x.rank(), "axis"));
  // Unidirectional broadcast: Y keeps X's shape.
  bool broadcasts = scale.rank() <= x.rank();
  for (int i = 1; broadcasts && i <= scale.rank(); ++i) {
    const int64_t s = scale.dim(scale.rank() - i);
    broadcasts = s == 1 || s == x.dim(x.rank() - i);
  }
  if (!broadcasts) {
    return absl::InvalidArgumentError(absl::StrCat(
        "scale ", scale.ToString(), " does not broadcast to X ", x.ToString(),
        " (each of its trailing dims must be 1 or X's; normalized from axis ",
        axis, ")"));
  }
  std::vector<int64_t> axes;
  for (int64_t d = axis; d < x.rank(); ++d) axes.push_back(d);
  SY_ASSIGN_OR_RETURN(Val xs, CastTo(ctx, ctx.In(0), stash));
  SY_ASSIGN_OR_RETURN(Val sq, Op(ctx, "mul", {xs, xs}));
  SY_ASSIGN_OR_RETURN(Val normalized, DivideByRoot(ctx, xs, sq, axes, epsilon));
  SY_ASSIGN_OR_RETURN(normalized, CastTo(ctx, normalized, t));
  SY_ASSIGN_OR_RETURN(normalized, CastTo(ctx, normalized, scale_type));
  SY_ASSIGN_OR_RETURN(Val y, Op(ctx, "mul", {normalized, ctx.In(1)}));
  return ctx.SetOutput(0, y);
}

SY_REGISTER_ONNX_CONVERTER("GroupNormalization", ConvertGroupNormalization, 3);
SY_REGISTER_ONNX_CONVERTER("RMSNormalization", ConvertRMSNormalization, 2);

}  // namespace
}  // namespace onnx_import
}  // namespace switchyard
