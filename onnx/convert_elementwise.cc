// ONNX's elementwise ops: activations, arithmetic with numpy broadcasting,
// Clip, Cast, comparisons and the logical ops on bools.

#include <cmath>
#include <limits>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "core/status_macros.h"
#include "onnx/convert_util.h"
#include "onnx/converter_registry.h"
#include "onnx/onnx_tensor.h"
#include "ops/elementwise_attrs.h"

namespace switchyard {
namespace onnx_import {
namespace {

absl::Status ConvertRelu(NodeContext& ctx) { return EmitUnary(ctx, "relu"); }
absl::Status ConvertSigmoid(NodeContext& ctx) { return EmitUnary(ctx, "sigmoid"); }
absl::Status ConvertTanh(NodeContext& ctx) { return EmitUnary(ctx, "tanh"); }
absl::Status ConvertSin(NodeContext& ctx) { return EmitUnary(ctx, "sin"); }
absl::Status ConvertCos(NodeContext& ctx) { return EmitUnary(ctx, "cos"); }
absl::Status ConvertTan(NodeContext& ctx) { return EmitUnary(ctx, "tan"); }
absl::Status ConvertAsin(NodeContext& ctx) { return EmitUnary(ctx, "asin"); }
absl::Status ConvertAcos(NodeContext& ctx) { return EmitUnary(ctx, "acos"); }
absl::Status ConvertAtan(NodeContext& ctx) { return EmitUnary(ctx, "atan"); }
absl::Status ConvertSinh(NodeContext& ctx) { return EmitUnary(ctx, "sinh"); }
absl::Status ConvertCosh(NodeContext& ctx) { return EmitUnary(ctx, "cosh"); }
absl::Status ConvertAsinh(NodeContext& ctx) { return EmitUnary(ctx, "asinh"); }
absl::Status ConvertAcosh(NodeContext& ctx) { return EmitUnary(ctx, "acosh"); }
absl::Status ConvertAtanh(NodeContext& ctx) { return EmitUnary(ctx, "atanh"); }
absl::Status ConvertExp(NodeContext& ctx) { return EmitUnary(ctx, "exp"); }
absl::Status ConvertErf(NodeContext& ctx) { return EmitUnary(ctx, "erf"); }
absl::Status ConvertLog(NodeContext& ctx) { return EmitUnary(ctx, "log"); }
absl::Status ConvertFloor(NodeContext& ctx) { return EmitUnary(ctx, "floor"); }
absl::Status ConvertCeil(NodeContext& ctx) { return EmitUnary(ctx, "ceil"); }
absl::Status ConvertRound(NodeContext& ctx) { return EmitUnary(ctx, "round"); }
absl::Status ConvertSqrt(NodeContext& ctx) { return EmitUnary(ctx, "sqrt"); }
absl::Status ConvertNeg(NodeContext& ctx) { return EmitUnary(ctx, "neg"); }
absl::Status ConvertAbs(NodeContext& ctx) { return EmitUnary(ctx, "abs"); }
absl::Status ConvertReciprocal(NodeContext& ctx) {
  return EmitUnary(ctx, "reciprocal");
}
absl::Status ConvertHardSwish(NodeContext& ctx) {
  return EmitUnary(ctx, "hard_swish");
}

// Gelu (opset 20): approximate "none" is the gelu op; "tanh" is composed,
//   0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))),
// as torch's gelu(approximate="tanh"), from ops every backend has.
absl::Status ConvertGelu(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(std::string approximate, ctx.String("approximate", "none"));
  if (approximate == "none") return EmitUnary(ctx, "gelu");
  if (approximate != "tanh") {
    return absl::InvalidArgumentError(absl::StrCat(
        "attribute approximate is '", approximate,
        "'; ONNX Gelu takes 'none' (exact, erf) or 'tanh'"));
  }
  const Val x = ctx.In(0);
  const DType t = ctx.Type(x).dtype;
  if (!IsFloatingPoint(t)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input is ", DTypeName(t), "; Gelu takes a floating-point tensor"));
  }
  constexpr double kSqrtTwoOverPi = 0.79788456080286535588;
  SY_ASSIGN_OR_RETURN(Val x2, Op(ctx, "mul", {x, x}));
  SY_ASSIGN_OR_RETURN(Val x3, Op(ctx, "mul", {x2, x}));
  SY_ASSIGN_OR_RETURN(Val cubic, Op(ctx, "mul", {x3, Scalar(ctx, 0.044715, t)}));
  SY_ASSIGN_OR_RETURN(Val inner, Op(ctx, "add", {x, cubic}));
  SY_ASSIGN_OR_RETURN(Val arg, Op(ctx, "mul", {inner, Scalar(ctx, kSqrtTwoOverPi, t)}));
  SY_ASSIGN_OR_RETURN(Val th, Op(ctx, "tanh", {arg}));
  SY_ASSIGN_OR_RETURN(Val one_plus, Op(ctx, "add", {th, Scalar(ctx, 1.0, t)}));
  SY_ASSIGN_OR_RETURN(Val half_x, Op(ctx, "mul", {x, Scalar(ctx, 0.5, t)}));
  SY_ASSIGN_OR_RETURN(Val y, Op(ctx, "mul", {half_x, one_plus}));
  return ctx.SetOutput(0, y);
}

absl::Status ConvertLeakyRelu(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(LeakyReluAttrs a,
                      OnnxAttrs<LeakyReluAttrs>(ctx, {{"alpha", "alpha"}}));
  return EmitUnary(ctx, "leaky_relu", a.ToAttrMap());
}

absl::Status ConvertHardSigmoid(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(
      HardSigmoidAttrs a,
      OnnxAttrs<HardSigmoidAttrs>(ctx, {{"alpha", "alpha"}, {"beta", "beta"}}));
  return EmitUnary(ctx, "hard_sigmoid", a.ToAttrMap());
}

absl::Status ConvertClip(NodeContext& ctx) {
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  if (ctx.HasInput(1)) {
    SY_ASSIGN_OR_RETURN(lo, ctx.ConstScalar(1, "min"));
  }
  if (ctx.HasInput(2)) {
    SY_ASSIGN_OR_RETURN(hi, ctx.ConstScalar(2, "max"));
  }
  return EmitUnary(ctx, "clip", Attrs({{"min", lo}, {"max", hi}}));
}

// A value converted to `dtype` (a cast op; nothing when it already is).
absl::StatusOr<Val> CastTo(NodeContext& ctx, Val v, DType dtype) {
  if (ctx.Type(v).dtype == dtype) return v;
  return ctx.EmitOne("cast", {v}, Attrs({{"to", DTypeName(dtype)}}));
}

absl::Status Binary(NodeContext& ctx, const char* op) {
  Val a = ctx.In(0), b = ctx.In(1);
  // Pow's exponent may have another type than its base (x ** 2 exports an
  // int64 or float 2); everything else has one type, as ONNX requires.
  if (std::string(op) == "pow") {
    SY_ASSIGN_OR_RETURN(b, CastTo(ctx, b, ctx.Type(a).dtype));
  }
  SY_ASSIGN_OR_RETURN(Val y, ctx.EmitOne(op, {a, b}, AttrMap()));
  return ctx.SetOutput(0, y);
}

absl::Status ConvertAdd(NodeContext& ctx) { return Binary(ctx, "add"); }
absl::Status ConvertSub(NodeContext& ctx) { return Binary(ctx, "sub"); }
absl::Status ConvertMul(NodeContext& ctx) { return Binary(ctx, "mul"); }
absl::Status ConvertDiv(NodeContext& ctx) { return Binary(ctx, "div"); }
absl::Status ConvertPow(NodeContext& ctx) { return Binary(ctx, "pow"); }

// Not, And, Or, Xor: bool tensors (ops/logical.cc).
absl::Status ConvertNot(NodeContext& ctx) { return EmitUnary(ctx, "logical_not"); }
absl::Status ConvertAnd(NodeContext& ctx) { return Binary(ctx, "logical_and"); }
absl::Status ConvertOr(NodeContext& ctx) { return Binary(ctx, "logical_or"); }
absl::Status ConvertXor(NodeContext& ctx) { return Binary(ctx, "logical_xor"); }

absl::Status ConvertMod(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ModAttrs a, OnnxAttrs<ModAttrs>(ctx, {{"fmod", "fmod"}}));
  SY_ASSIGN_OR_RETURN(Val y, ctx.EmitOne("mod", {ctx.In(0), ctx.In(1)}, a.ToAttrMap()));
  return ctx.SetOutput(0, y);
}

// Cast-19's saturate (to float8 only): 0 or 1. The ONNX types Switchyard
// has no dtype for (FLOAT4E2M1, FLOAT8E8M0, strings...) are refused by
// DTypeFromOnnx, by name.
absl::StatusOr<bool> CastSaturate(NodeContext& ctx) {
  if (ctx.opset() < 19) return true;
  SY_ASSIGN_OR_RETURN(int64_t saturate, ctx.Int("saturate", 1));
  if (saturate != 0 && saturate != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("attribute 'saturate' is ", saturate, "; it takes 0 or 1"));
  }
  return saturate == 1;
}

absl::Status CastToType(NodeContext& ctx, DType dtype) {
  SY_ASSIGN_OR_RETURN(bool saturate, CastSaturate(ctx));
  Val x = ctx.In(0);
  if (ctx.Type(x).dtype == dtype) return ctx.SetOutput(0, x);
  SY_ASSIGN_OR_RETURN(Val y, ctx.EmitOne("cast", {x}, Attrs({{"to", DTypeName(dtype)},
                                                              {"saturate", saturate}})));
  return ctx.SetOutput(0, y);
}

absl::Status ConvertCast(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(int64_t to, ctx.Int("to", 0));
  absl::StatusOr<DType> dtype = DTypeFromOnnx(static_cast<int32_t>(to));
  if (!dtype.ok()) {
    return absl::Status(dtype.status().code(),
                        absl::StrCat("attribute 'to': ", dtype.status().message()));
  }
  return CastToType(ctx, *dtype);
}

// CastLike: Cast to the dtype of input 1 (whose values are not read).
absl::Status ConvertCastLike(NodeContext& ctx) {
  return CastToType(ctx, ctx.Type(ctx.In(1)).dtype);
}

// Comparisons (ops/comparison.cc): folded at import when both operands are
// known there (shape subgraphs: a dynamic batch's Expand), a device op
// otherwise (an If's "no boxes left" condition, a mask), whose bool result
// the staged runner copies to the host only when a shape or a branch needs
// it.
absl::Status ConvertEqual(NodeContext& ctx) { return Binary(ctx, "equal"); }
absl::Status ConvertLess(NodeContext& ctx) { return Binary(ctx, "less"); }
absl::Status ConvertGreater(NodeContext& ctx) { return Binary(ctx, "greater"); }
absl::Status ConvertLessOrEqual(NodeContext& ctx) { return Binary(ctx, "less_equal"); }
absl::Status ConvertGreaterOrEqual(NodeContext& ctx) { return Binary(ctx, "greater_equal"); }

SY_REGISTER_ONNX_CONVERTER("Equal", ConvertEqual, 2);
SY_REGISTER_ONNX_CONVERTER("Less", ConvertLess, 2);
SY_REGISTER_ONNX_CONVERTER("Greater", ConvertGreater, 2);
SY_REGISTER_ONNX_CONVERTER("LessOrEqual", ConvertLessOrEqual, 2);
SY_REGISTER_ONNX_CONVERTER("GreaterOrEqual", ConvertGreaterOrEqual, 2);
SY_REGISTER_ONNX_CONVERTER("Relu", ConvertRelu);
SY_REGISTER_ONNX_CONVERTER("Sigmoid", ConvertSigmoid);
SY_REGISTER_ONNX_CONVERTER("Tanh", ConvertTanh);
SY_REGISTER_ONNX_CONVERTER("Sin", ConvertSin);
SY_REGISTER_ONNX_CONVERTER("Cos", ConvertCos);
SY_REGISTER_ONNX_CONVERTER("Tan", ConvertTan);
SY_REGISTER_ONNX_CONVERTER("Asin", ConvertAsin);
SY_REGISTER_ONNX_CONVERTER("Acos", ConvertAcos);
SY_REGISTER_ONNX_CONVERTER("Atan", ConvertAtan);
SY_REGISTER_ONNX_CONVERTER("Sinh", ConvertSinh);
SY_REGISTER_ONNX_CONVERTER("Cosh", ConvertCosh);
SY_REGISTER_ONNX_CONVERTER("Asinh", ConvertAsinh);
SY_REGISTER_ONNX_CONVERTER("Acosh", ConvertAcosh);
SY_REGISTER_ONNX_CONVERTER("Atanh", ConvertAtanh);
SY_REGISTER_ONNX_CONVERTER("Exp", ConvertExp);
SY_REGISTER_ONNX_CONVERTER("Erf", ConvertErf);
SY_REGISTER_ONNX_CONVERTER("Log", ConvertLog);
SY_REGISTER_ONNX_CONVERTER("Floor", ConvertFloor);
SY_REGISTER_ONNX_CONVERTER("Ceil", ConvertCeil);
SY_REGISTER_ONNX_CONVERTER("Round", ConvertRound);
SY_REGISTER_ONNX_CONVERTER("Sqrt", ConvertSqrt);
SY_REGISTER_ONNX_CONVERTER("Neg", ConvertNeg);
SY_REGISTER_ONNX_CONVERTER("Abs", ConvertAbs);
SY_REGISTER_ONNX_CONVERTER("Reciprocal", ConvertReciprocal);
SY_REGISTER_ONNX_CONVERTER("HardSwish", ConvertHardSwish);
SY_REGISTER_ONNX_CONVERTER("Gelu", ConvertGelu);
SY_REGISTER_ONNX_CONVERTER("LeakyRelu", ConvertLeakyRelu);
SY_REGISTER_ONNX_CONVERTER("HardSigmoid", ConvertHardSigmoid);
SY_REGISTER_ONNX_CONVERTER("Clip", ConvertClip);
SY_REGISTER_ONNX_CONVERTER("Add", ConvertAdd, 2);
SY_REGISTER_ONNX_CONVERTER("Sub", ConvertSub, 2);
SY_REGISTER_ONNX_CONVERTER("Mul", ConvertMul, 2);
SY_REGISTER_ONNX_CONVERTER("Div", ConvertDiv, 2);
SY_REGISTER_ONNX_CONVERTER("Mod", ConvertMod, 2);
SY_REGISTER_ONNX_CONVERTER("Pow", ConvertPow, 2);
SY_REGISTER_ONNX_CONVERTER("Cast", ConvertCast);
SY_REGISTER_ONNX_CONVERTER("CastLike", ConvertCastLike, 2);
SY_REGISTER_ONNX_CONVERTER("Not", ConvertNot);
SY_REGISTER_ONNX_CONVERTER("And", ConvertAnd, 2);
SY_REGISTER_ONNX_CONVERTER("Or", ConvertOr, 2);
SY_REGISTER_ONNX_CONVERTER("Xor", ConvertXor, 2);

}  // namespace
}  // namespace onnx_import
}  // namespace switchyard
