// ONNX ops without a Switchyard op of their own, written as a few of the
// ops there are (each formula is ONNX's definition of the op).

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "onnx/activation_formulas.h"
#include "onnx/convert_util.h"
#include "onnx/converter_registry.h"

namespace switchyard {
namespace onnx_import {
namespace {

DType InDType(NodeContext& ctx) { return ctx.Type(ctx.In(0)).dtype; }

// PRelu: relu(x) - slope * relu(-x).
absl::Status ConvertPRelu(NodeContext& ctx) {
  const Shape x = ctx.InShape(0);
  Val slope = ctx.In(1);
  const Shape s = ctx.Type(slope).shape;
  // Files from before opset 7 (and ONNX's converter, which keeps them) give
  // a per-channel slope as [C] for an [N, C, ...] input, which numpy rules
  // would align with the last axis: read it per channel when it cannot
  // broadcast otherwise.
  if (x.rank() > 2 && s.rank() == 1 && s.dim(0) == x.dim(1) && s.dim(0) != 1 &&
      s.dim(0) != x.dim(x.rank() - 1)) {
    std::vector<int64_t> per_channel(static_cast<size_t>(x.rank() - 1), 1);
    per_channel[0] = s.dim(0);
    SY_ASSIGN_OR_RETURN(slope, Reshape(ctx, slope, per_channel));
  }
  SY_ASSIGN_OR_RETURN(Val pos, Op(ctx, "relu", {ctx.In(0)}));
  SY_ASSIGN_OR_RETURN(Val negated, Op(ctx, "neg", {ctx.In(0)}));
  SY_ASSIGN_OR_RETURN(Val neg, Op(ctx, "relu", {negated}));
  SY_ASSIGN_OR_RETURN(Val scaled, Op(ctx, "mul", {neg, slope}));
  SY_ASSIGN_OR_RETURN(Val y, Op(ctx, "sub", {pos, scaled}));
  return ctx.SetOutput(0, y);
}

// Elu: relu(x) + alpha * (exp(min(x, 0)) - 1).
absl::Status ConvertElu(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(float alpha, ctx.Float("alpha", 1.0f));
  SY_ASSIGN_OR_RETURN(Val y, EluOf(ctx, ctx.In(0), alpha));
  return ctx.SetOutput(0, y);
}

// Celu: relu(x) + alpha * (exp(min(x, 0) / alpha) - 1).
absl::Status ConvertCelu(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(float alpha, ctx.Float("alpha", 1.0f));
  if (alpha == 0) return absl::InvalidArgumentError("alpha must not be 0");
  SY_ASSIGN_OR_RETURN(Val pos, Op(ctx, "relu", {ctx.In(0)}));
  SY_ASSIGN_OR_RETURN(Val neg, ExpMinusOne(ctx, ctx.In(0), alpha, alpha));
  SY_ASSIGN_OR_RETURN(Val y, Op(ctx, "add", {pos, neg}));
  return ctx.SetOutput(0, y);
}

// Selu: gamma * (relu(x) + alpha * (exp(min(x, 0)) - 1)).
absl::Status ConvertSelu(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(float alpha, ctx.Float("alpha", 1.67326319217681884765625f));
  SY_ASSIGN_OR_RETURN(float gamma, ctx.Float("gamma", 1.05070102214813232421875f));
  SY_ASSIGN_OR_RETURN(Val pos, Op(ctx, "relu", {ctx.In(0)}));
  SY_ASSIGN_OR_RETURN(Val neg, ExpMinusOne(ctx, ctx.In(0), alpha, 1.0));
  SY_ASSIGN_OR_RETURN(Val sum, Op(ctx, "add", {pos, neg}));
  SY_ASSIGN_OR_RETURN(Val y, Op(ctx, "mul", {sum, Scalar(ctx, gamma, InDType(ctx))}));
  return ctx.SetOutput(0, y);
}

// Softsign: x / (1 + |x|).
absl::Status ConvertSoftsign(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(Val y, SoftsignOf(ctx, ctx.In(0)));
  return ctx.SetOutput(0, y);
}

// Sum, Mean, Max and Min of one or more inputs, broadcast: `op` applied
// pairwise from the left (Mean: the sum, divided by the count).
absl::Status Variadic(NodeContext& ctx, const char* op, bool mean = false) {
  Val acc = ctx.In(0);
  int n = 1;
  for (int i = 1; i < ctx.num_inputs(); ++i) {
    if (!ctx.HasInput(i)) continue;
    SY_ASSIGN_OR_RETURN(acc, Op(ctx, op, {acc, ctx.In(i)}));
    ++n;
  }
  if (mean && n > 1) {
    SY_ASSIGN_OR_RETURN(acc, Op(ctx, "div", {acc, Scalar(ctx, n, InDType(ctx))}));
  }
  return ctx.SetOutput(0, acc);
}
absl::Status ConvertSum(NodeContext& ctx) { return Variadic(ctx, "add"); }
absl::Status ConvertMean(NodeContext& ctx) { return Variadic(ctx, "add", true); }
absl::Status ConvertMax(NodeContext& ctx) { return Variadic(ctx, "max"); }
absl::Status ConvertMin(NodeContext& ctx) { return Variadic(ctx, "min"); }

// ReduceL1, ReduceL2, ReduceSumSquare, ReduceLogSum, ReduceLogSumExp:
// reduce_sum of |x|, x * x, x or exp(x) (then a square root for L2, a log
// for the log ones), with ReduceSum's axes and keepdims (axes an attribute
// before opset 18, an optional input from it). LogSumExp subtracts the
// maximum first, so large inputs do not overflow: log(sum(exp(x - m))) + m.
// Opset 18's noop_with_empty_axes with no axes skips the sum but not the
// rest (ONNX Runtime: ReduceL1 gives |x|, ReduceLogSum log(x)).
absl::Status ReduceOf(NodeContext& ctx, const char* kind) {
  std::vector<int64_t> axes;
  int64_t noop = 0;
  if (ctx.opset() < 18) {
    SY_ASSIGN_OR_RETURN(axes, ctx.Ints("axes"));
  } else {
    if (ctx.HasInput(1)) {
      SY_ASSIGN_OR_RETURN(axes, ctx.ConstInts(1, "axes"));
    }
    SY_ASSIGN_OR_RETURN(noop, ctx.Int("noop_with_empty_axes", 0));
  }
  SY_ASSIGN_OR_RETURN(int64_t keepdims, ctx.Int("keepdims", 1));
  const int rank = ctx.InShape(0).rank();
  for (int64_t& a : axes) {
    SY_ASSIGN_OR_RETURN(a, NormalizeAxis(a, rank, "axis"));
  }
  const bool skip_sum = axes.empty() && noop != 0;
  const AttrMap reduced = Attrs({{"axes", axes}, {"keepdims", keepdims != 0}});
  // reduce_sum, or nothing under noop_with_empty_axes.
  auto sum = [&](const char* op, Val v, const AttrMap& attrs) -> absl::StatusOr<Val> {
    if (skip_sum) return v;
    return Op(ctx, op, {v}, attrs);
  };
  const std::string k = kind;
  Val x = ctx.In(0);
  std::optional<Val> shift;  // LogSumExp's maximum, in the output's shape
  if (k == "l1") {
    SY_ASSIGN_OR_RETURN(x, Op(ctx, "abs", {x}));
  } else if (k == "l2" || k == "square") {
    SY_ASSIGN_OR_RETURN(x, Op(ctx, "mul", {x, x}));
  } else if (k == "log_sum_exp") {
    SY_ASSIGN_OR_RETURN(
        Val m, sum("reduce_max", x, Attrs({{"axes", axes}, {"keepdims", true}})));
    SY_ASSIGN_OR_RETURN(Val centered, Op(ctx, "sub", {x, m}));
    SY_ASSIGN_OR_RETURN(x, Op(ctx, "exp", {centered}));
    SY_ASSIGN_OR_RETURN(shift, sum("reduce_max", ctx.In(0), reduced));
  }
  SY_ASSIGN_OR_RETURN(Val y, sum("reduce_sum", x, reduced));
  if (k == "l2") {
    SY_ASSIGN_OR_RETURN(y, Op(ctx, "sqrt", {y}));
  } else if (k == "log_sum" || k == "log_sum_exp") {
    SY_ASSIGN_OR_RETURN(y, Op(ctx, "log", {y}));
  }
  if (shift.has_value()) {
    SY_ASSIGN_OR_RETURN(y, Op(ctx, "add", {y, *shift}));
  }
  return ctx.SetOutput(0, y);
}
absl::Status ConvertReduceL1(NodeContext& ctx) { return ReduceOf(ctx, "l1"); }
absl::Status ConvertReduceL2(NodeContext& ctx) { return ReduceOf(ctx, "l2"); }
absl::Status ConvertReduceSumSquare(NodeContext& ctx) { return ReduceOf(ctx, "square"); }
absl::Status ConvertReduceLogSum(NodeContext& ctx) { return ReduceOf(ctx, "log_sum"); }
absl::Status ConvertReduceLogSumExp(NodeContext& ctx) { return ReduceOf(ctx, "log_sum_exp"); }

// Hardmax: 1 at the first largest element along `axis`, 0 elsewhere (a
// one_hot of argmax). Before opset 13 the input is seen as 2-D,
// [prod(dims before axis), prod(dims from axis)], as Softmax.
absl::Status ConvertHardmax(NodeContext& ctx) {
  const Shape& x = ctx.InShape(0);
  const bool old = ctx.opset() < 13;
  SY_ASSIGN_OR_RETURN(int64_t axis, ctx.Int("axis", old ? 1 : -1));
  SY_ASSIGN_OR_RETURN(axis, NormalizeAxis(axis, x.rank(), "axis"));
  Val in = ctx.In(0);
  if (old) {
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < x.rank(); ++d) (d < axis ? outer : inner) *= x.dim(d);
    SY_ASSIGN_OR_RETURN(in, Reshape(ctx, in, {outer, inner}));
    axis = 1;
  }
  const Shape shape = ctx.Type(in).shape;
  SY_ASSIGN_OR_RETURN(Val index, Op(ctx, "argmax", {in},
                                    Attrs({{"axis", axis}, {"keepdims", false}})));
  std::vector<char> off_on(2 * DTypeSize(InDType(ctx)));
  SetElementFromDouble(off_on.data(), InDType(ctx), 0, 0.0);
  SetElementFromDouble(off_on.data(), InDType(ctx), 1, 1.0);
  const Val values = ctx.Constant(HostArray(Shape({2}), InDType(ctx), std::move(off_on)));
  SY_ASSIGN_OR_RETURN(Val y, Op(ctx, "one_hot", {index, values},
                                Attrs({{"depth", shape.dim(static_cast<int>(axis))},
                                       {"axis", axis}})));
  if (old) {
    SY_ASSIGN_OR_RETURN(y, Reshape(ctx, y, x.dims()));
  }
  return ctx.SetOutput(0, y);
}

// InstanceNormalization: per (n, c), normalize over the spatial dimensions
// (layer_norm from axis 2 with unit scale), then scale and bias per channel.
absl::Status ConvertInstanceNormalization(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(float epsilon, ctx.Float("epsilon", 1e-5f));
  const Shape& x = ctx.InShape(0);
  if (x.rank() < 3) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input must be [N, C, D1, ...], got ", x.ToString()));
  }
  const DType t = InDType(ctx);
  std::vector<int64_t> spatial(x.dims().begin() + 2, x.dims().end());
  const Shape unit_shape(spatial);
  std::vector<char> ones(static_cast<size_t>(unit_shape.num_elements()) * DTypeSize(t));
  for (int64_t i = 0; i < unit_shape.num_elements(); ++i) {
    SetElementFromDouble(ones.data(), t, i, 1.0);
  }
  const Val unit = ctx.Constant(HostArray(unit_shape, t, std::move(ones)));
  SY_ASSIGN_OR_RETURN(
      Val normalized,
      Op(ctx, "layer_norm", {ctx.In(0), unit},
         Attrs({{"axis", int64_t{2}}, {"epsilon", double{epsilon}}})));
  std::vector<int64_t> per_channel = {x.dim(1)};
  for (int d = 2; d < x.rank(); ++d) per_channel.push_back(1);
  SY_ASSIGN_OR_RETURN(Val scale, Reshape(ctx, ctx.In(1), per_channel));
  SY_ASSIGN_OR_RETURN(Val bias, Reshape(ctx, ctx.In(2), per_channel));
  SY_ASSIGN_OR_RETURN(Val scaled, Op(ctx, "mul", {normalized, scale}));
  SY_ASSIGN_OR_RETURN(Val y, Op(ctx, "add", {scaled, bias}));
  return ctx.SetOutput(0, y);
}

// Tile: per axis, [.., d, ..] -> [.., 1, d, ..] expanded to [.., r, d, ..]
// -> [.., r * d, ..], all axes at once.
absl::Status ConvertTile(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(std::vector<int64_t> repeats, ctx.ConstInts(1, "repeats"));
  const Shape& x = ctx.InShape(0);
  if (static_cast<int>(repeats.size()) != x.rank()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "repeats has ", repeats.size(), " values for an input of rank ", x.rank()));
  }
  std::vector<int64_t> split, expanded, tiled;
  for (int d = 0; d < x.rank(); ++d) {
    if (repeats[d] < 0) return absl::InvalidArgumentError("repeats must be >= 0");
    split.insert(split.end(), {1, x.dim(d)});
    expanded.insert(expanded.end(), {repeats[d], x.dim(d)});
    tiled.push_back(repeats[d] * x.dim(d));
  }
  SY_ASSIGN_OR_RETURN(Val s, Reshape(ctx, ctx.In(0), split));
  SY_ASSIGN_OR_RETURN(Val e, Op(ctx, "expand", {s}, Attrs({{"shape", expanded}})));
  SY_ASSIGN_OR_RETURN(Val y, Reshape(ctx, e, tiled));
  return ctx.SetOutput(0, y);
}

// DepthToSpace and SpaceToDepth: a reshape, a transpose, a reshape.
absl::Status ConvertDepthToSpace(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(int64_t b, ctx.Int("blocksize", 0));
  SY_ASSIGN_OR_RETURN(std::string mode, ctx.String("mode", "DCR"));
  const Shape& x = ctx.InShape(0);
  if (x.rank() != 4 || b < 1 || x.dim(1) % (b * b) != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "needs a [N, C, H, W] input with C divisible by blocksize^2; got ",
        x.ToString(), " and blocksize ", b));
  }
  const int64_t n = x.dim(0), c = x.dim(1) / (b * b), h = x.dim(2), w = x.dim(3);
  std::vector<int64_t> dims, perm;
  if (mode == "DCR") {
    dims = {n, b, b, c, h, w};
    perm = {0, 3, 4, 1, 5, 2};
  } else if (mode == "CRD") {
    dims = {n, c, b, b, h, w};
    perm = {0, 1, 4, 2, 5, 3};
  } else {
    return absl::InvalidArgumentError(absl::StrCat("unknown mode '", mode, "'"));
  }
  SY_ASSIGN_OR_RETURN(Val r, Reshape(ctx, ctx.In(0), dims));
  SY_ASSIGN_OR_RETURN(Val t, Op(ctx, "transpose", {r}, Attrs({{"perm", perm}})));
  SY_ASSIGN_OR_RETURN(Val y, Reshape(ctx, t, {n, c, h * b, w * b}));
  return ctx.SetOutput(0, y);
}

absl::Status ConvertSpaceToDepth(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(int64_t b, ctx.Int("blocksize", 0));
  const Shape& x = ctx.InShape(0);
  if (x.rank() != 4 || b < 1 || x.dim(2) % b != 0 || x.dim(3) % b != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "needs a [N, C, H, W] input with H and W divisible by blocksize; got ",
        x.ToString(), " and blocksize ", b));
  }
  const int64_t n = x.dim(0), c = x.dim(1), h = x.dim(2) / b, w = x.dim(3) / b;
  SY_ASSIGN_OR_RETURN(Val r, Reshape(ctx, ctx.In(0), {n, c, h, b, w, b}));
  SY_ASSIGN_OR_RETURN(
      Val t, Op(ctx, "transpose", {r}, Attrs({{"perm", std::vector<int64_t>{0, 3, 5, 1, 2, 4}}})));
  SY_ASSIGN_OR_RETURN(Val y, Reshape(ctx, t, {n, c * b * b, h, w}));
  return ctx.SetOutput(0, y);
}

// Softplus: log(1 + exp(x)).
absl::Status ConvertSoftplus(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(Val y, SoftplusOf(ctx, ctx.In(0)));
  return ctx.SetOutput(0, y);
}

// ThresholdedRelu: x where x > alpha, else 0.
absl::Status ConvertThresholdedRelu(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(float alpha, ctx.Float("alpha", 1.0f));
  SY_ASSIGN_OR_RETURN(Val y, ThresholdedReluOf(ctx, ctx.In(0), alpha));
  return ctx.SetOutput(0, y);
}

// Shrink: x + bias below -lambd, x - bias above lambd, 0 between.
absl::Status ConvertShrink(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(float lambd, ctx.Float("lambd", 0.5f));
  SY_ASSIGN_OR_RETURN(float bias, ctx.Float("bias", 0.0f));
  const DType t = InDType(ctx);
  const Val x = ctx.In(0);
  SY_ASSIGN_OR_RETURN(Val below, Op(ctx, "less", {x, Scalar(ctx, -lambd, t)}));
  SY_ASSIGN_OR_RETURN(Val above, Op(ctx, "greater", {x, Scalar(ctx, lambd, t)}));
  SY_ASSIGN_OR_RETURN(Val up, Op(ctx, "add", {x, Scalar(ctx, bias, t)}));
  SY_ASSIGN_OR_RETURN(Val down, Op(ctx, "sub", {x, Scalar(ctx, bias, t)}));
  SY_ASSIGN_OR_RETURN(Val upper, Op(ctx, "where", {above, down, Scalar(ctx, 0.0, t)}));
  SY_ASSIGN_OR_RETURN(Val y, Op(ctx, "where", {below, up, upper}));
  return ctx.SetOutput(0, y);
}

// IsNaN: x != x.
absl::Status ConvertIsNaN(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(Val same, Op(ctx, "equal", {ctx.In(0), ctx.In(0)}));
  SY_ASSIGN_OR_RETURN(Val y, Op(ctx, "logical_not", {same}));
  return ctx.SetOutput(0, y);
}

// IsInf: x == +inf (detect_positive) or x == -inf (detect_negative).
absl::Status ConvertIsInf(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(int64_t positive, ctx.Int("detect_positive", 1));
  SY_ASSIGN_OR_RETURN(int64_t negative, ctx.Int("detect_negative", 1));
  const DType t = InDType(ctx);
  if (t != DType::kFloat32 && t != DType::kFloat64) {
    return absl::InvalidArgumentError(absl::StrCat(
        "IsInf takes float or double, got ", DTypeName(t)));
  }
  SY_ASSIGN_OR_RETURN(Val pos, Op(ctx, "equal", {ctx.In(0), Scalar(ctx, INFINITY, t)}));
  SY_ASSIGN_OR_RETURN(Val neg, Op(ctx, "equal", {ctx.In(0), Scalar(ctx, -INFINITY, t)}));
  Val y;
  if (positive != 0 && negative != 0) {
    SY_ASSIGN_OR_RETURN(y, Op(ctx, "logical_or", {pos, neg}));
  } else if (positive != 0) {
    y = pos;
  } else if (negative != 0) {
    y = neg;
  } else {
    // Neither: all false (x != x is false for numbers, so compare with NaN).
    SY_ASSIGN_OR_RETURN(y, Op(ctx, "equal", {ctx.In(0), Scalar(ctx, NAN, t)}));
  }
  return ctx.SetOutput(0, y);
}

// Sign: (x > 0) - (x < 0) in x's dtype (NaN stays NaN: x * 0 + sign).
absl::Status ConvertSign(NodeContext& ctx) {
  const DType t = InDType(ctx);
  const Val x = ctx.In(0);
  const Val zero = Scalar(ctx, 0.0, t);
  SY_ASSIGN_OR_RETURN(Val gt, Op(ctx, "greater", {x, zero}));
  SY_ASSIGN_OR_RETURN(Val lt, Op(ctx, "less", {x, zero}));
  const AttrMap to = Attrs({{"to", std::string(DTypeName(t))}});
  SY_ASSIGN_OR_RETURN(Val p, Op(ctx, "cast", {gt}, to));
  SY_ASSIGN_OR_RETURN(Val n, Op(ctx, "cast", {lt}, to));
  SY_ASSIGN_OR_RETURN(Val y, Op(ctx, "sub", {p, n}));
  if (t == DType::kFloat32 || t == DType::kFloat64) {
    SY_ASSIGN_OR_RETURN(Val x0, Op(ctx, "mul", {x, zero}));
    SY_ASSIGN_OR_RETURN(y, Op(ctx, "add", {y, x0}));
  }
  return ctx.SetOutput(0, y);
}

// MeanVarianceNormalization, ONNX's own function body: (x - E[x]) /
// (sqrt(E[x^2] - E[x]^2) + 1e-9), the means over `axes`.
absl::Status ConvertMeanVarianceNormalization(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(std::vector<int64_t> axes,
                      ctx.Ints("axes", std::vector<int64_t>{0, 2, 3}));
  const int rank = ctx.InShape(0).rank();
  for (int64_t& a : axes) {
    SY_ASSIGN_OR_RETURN(a, NormalizeAxis(a, rank, "axes"));
  }
  const DType t = InDType(ctx);
  const AttrMap mean = Attrs({{"axes", axes}, {"keepdims", true}});
  const Val x = ctx.In(0);
  SY_ASSIGN_OR_RETURN(Val m, Op(ctx, "reduce_mean", {x}, mean));
  SY_ASSIGN_OR_RETURN(Val m2, Op(ctx, "mul", {m, m}));
  SY_ASSIGN_OR_RETURN(Val x2, Op(ctx, "mul", {x, x}));
  SY_ASSIGN_OR_RETURN(Val ex2, Op(ctx, "reduce_mean", {x2}, mean));
  SY_ASSIGN_OR_RETURN(Val var, Op(ctx, "sub", {ex2, m2}));
  SY_ASSIGN_OR_RETURN(Val sd, Op(ctx, "sqrt", {var}));
  SY_ASSIGN_OR_RETURN(Val den, Op(ctx, "add", {sd, Scalar(ctx, 1e-9, t)}));
  SY_ASSIGN_OR_RETURN(Val centered, Op(ctx, "sub", {x, m}));
  SY_ASSIGN_OR_RETURN(Val y, Op(ctx, "div", {centered, den}));
  return ctx.SetOutput(0, y);
}

// LRN: x / (bias + alpha / size * sum of x^2 over the channels
// [c - floor((size - 1) / 2), c + ceil((size - 1) / 2)])^beta. The window
// sum adds shifted copies of x^2 padded with zeros along C; shifts beyond
// the channel count add nothing, so at most 2C - 1 are added.
absl::Status ConvertLRN(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(float alpha, ctx.Float("alpha", 1e-4f));
  SY_ASSIGN_OR_RETURN(float beta, ctx.Float("beta", 0.75f));
  SY_ASSIGN_OR_RETURN(float bias, ctx.Float("bias", 1.0f));
  SY_ASSIGN_OR_RETURN(int64_t size, ctx.Int("size", 0));
  const Shape& x = ctx.InShape(0);
  if (size < 1 || x.rank() < 3) {
    return absl::InvalidArgumentError(absl::StrCat(
        "needs size >= 1 and an input [N, C, D1, ...]; got size ", size,
        " and input ", x.ToString()));
  }
  const DType t = InDType(ctx);
  const int64_t c = x.dim(1);
  const int64_t before = std::min((size - 1) / 2, c - 1);
  const int64_t after = std::min(size - 1 - (size - 1) / 2, c - 1);
  SY_ASSIGN_OR_RETURN(Val sq, Op(ctx, "mul", {ctx.In(0), ctx.In(0)}));
  std::vector<int64_t> pads(2 * static_cast<size_t>(x.rank()), 0);
  pads[1] = before;
  pads[x.rank() + 1] = after;
  SY_ASSIGN_OR_RETURN(Val padded, Op(ctx, "pad", {sq}, Attrs({{"pads", pads}})));
  std::optional<Val> sum;
  for (int64_t shift = 0; shift <= before + after; ++shift) {
    SY_ASSIGN_OR_RETURN(
        Val part, Op(ctx, "slice", {padded},
                     Attrs({{"starts", std::vector<int64_t>{shift}},
                            {"ends", std::vector<int64_t>{shift + c}},
                            {"axes", std::vector<int64_t>{1}}})));
    if (sum.has_value()) {
      SY_ASSIGN_OR_RETURN(part, Op(ctx, "add", {*sum, part}));
    }
    sum = part;
  }
  SY_ASSIGN_OR_RETURN(Val scaled,
                      Op(ctx, "mul", {*sum, Scalar(ctx, double{alpha} / size, t)}));
  SY_ASSIGN_OR_RETURN(Val base, Op(ctx, "add", {scaled, Scalar(ctx, bias, t)}));
  SY_ASSIGN_OR_RETURN(Val den, Op(ctx, "pow", {base, Scalar(ctx, beta, t)}));
  SY_ASSIGN_OR_RETURN(Val y, Op(ctx, "div", {ctx.In(0), den}));
  return ctx.SetOutput(0, y);
}

SY_REGISTER_ONNX_CONVERTER("PRelu", ConvertPRelu, 2);
SY_REGISTER_ONNX_CONVERTER("Elu", ConvertElu);
SY_REGISTER_ONNX_CONVERTER("Celu", ConvertCelu);
SY_REGISTER_ONNX_CONVERTER("Selu", ConvertSelu);
SY_REGISTER_ONNX_CONVERTER("Softsign", ConvertSoftsign);
SY_REGISTER_ONNX_CONVERTER("Sum", ConvertSum);
SY_REGISTER_ONNX_CONVERTER("Mean", ConvertMean);
SY_REGISTER_ONNX_CONVERTER("Max", ConvertMax);
SY_REGISTER_ONNX_CONVERTER("Min", ConvertMin);
SY_REGISTER_ONNX_CONVERTER("ReduceL1", ConvertReduceL1);
SY_REGISTER_ONNX_CONVERTER("ReduceL2", ConvertReduceL2);
SY_REGISTER_ONNX_CONVERTER("ReduceSumSquare", ConvertReduceSumSquare);
SY_REGISTER_ONNX_CONVERTER("ReduceLogSum", ConvertReduceLogSum);
SY_REGISTER_ONNX_CONVERTER("ReduceLogSumExp", ConvertReduceLogSumExp);
SY_REGISTER_ONNX_CONVERTER("Hardmax", ConvertHardmax);
SY_REGISTER_ONNX_CONVERTER("InstanceNormalization", ConvertInstanceNormalization, 3);
SY_REGISTER_ONNX_CONVERTER("Tile", ConvertTile, 2);
SY_REGISTER_ONNX_CONVERTER("DepthToSpace", ConvertDepthToSpace);
SY_REGISTER_ONNX_CONVERTER("SpaceToDepth", ConvertSpaceToDepth);
SY_REGISTER_ONNX_CONVERTER("Softplus", ConvertSoftplus);
SY_REGISTER_ONNX_CONVERTER("ThresholdedRelu", ConvertThresholdedRelu);
SY_REGISTER_ONNX_CONVERTER("Shrink", ConvertShrink);
SY_REGISTER_ONNX_CONVERTER("IsNaN", ConvertIsNaN);
SY_REGISTER_ONNX_CONVERTER("IsInf", ConvertIsInf);
SY_REGISTER_ONNX_CONVERTER("Sign", ConvertSign);
SY_REGISTER_ONNX_CONVERTER("MeanVarianceNormalization", ConvertMeanVarianceNormalization);
SY_REGISTER_ONNX_CONVERTER("LRN", ConvertLRN);

}  // namespace
}  // namespace onnx_import
}  // namespace switchyard
