#include "onnx/activation_formulas.h"

#include <cmath>

#include "core/status_macros.h"
#include "onnx/convert_util.h"

namespace switchyard {
namespace onnx_import {

absl::StatusOr<Val> ExpMinusOne(NodeContext& ctx, Val x, double alpha, double beta) {
  const DType t = ctx.Type(x).dtype;
  SY_ASSIGN_OR_RETURN(Val neg,
                      Op(ctx, "clip", {x}, Attrs({{"min", -INFINITY}, {"max", 0.0}})));
  if (beta != 1.0) {
    SY_ASSIGN_OR_RETURN(neg, Op(ctx, "div", {neg, Scalar(ctx, beta, t)}));
  }
  SY_ASSIGN_OR_RETURN(Val e, Op(ctx, "exp", {neg}));
  SY_ASSIGN_OR_RETURN(Val em1, Op(ctx, "sub", {e, Scalar(ctx, 1.0, t)}));
  return Op(ctx, "mul", {em1, Scalar(ctx, alpha, t)});
}

absl::StatusOr<Val> EluOf(NodeContext& ctx, Val x, double alpha) {
  SY_ASSIGN_OR_RETURN(Val pos, Op(ctx, "relu", {x}));
  SY_ASSIGN_OR_RETURN(Val neg, ExpMinusOne(ctx, x, alpha, 1.0));
  return Op(ctx, "add", {pos, neg});
}

absl::StatusOr<Val> SoftplusOf(NodeContext& ctx, Val x) {
  const DType t = ctx.Type(x).dtype;
  SY_ASSIGN_OR_RETURN(Val pos, Op(ctx, "relu", {x}));
  SY_ASSIGN_OR_RETURN(Val a, Op(ctx, "abs", {x}));
  SY_ASSIGN_OR_RETURN(Val na, Op(ctx, "neg", {a}));
  SY_ASSIGN_OR_RETURN(Val e, Op(ctx, "exp", {na}));
  SY_ASSIGN_OR_RETURN(Val e1, Op(ctx, "add", {e, Scalar(ctx, 1.0, t)}));
  SY_ASSIGN_OR_RETURN(Val l, Op(ctx, "log", {e1}));
  return Op(ctx, "add", {pos, l});
}

absl::StatusOr<Val> SoftsignOf(NodeContext& ctx, Val x) {
  SY_ASSIGN_OR_RETURN(Val a, Op(ctx, "abs", {x}));
  SY_ASSIGN_OR_RETURN(Val d, Op(ctx, "add", {a, Scalar(ctx, 1.0, ctx.Type(x).dtype)}));
  return Op(ctx, "div", {x, d});
}

absl::StatusOr<Val> ThresholdedReluOf(NodeContext& ctx, Val x, double alpha) {
  const DType t = ctx.Type(x).dtype;
  SY_ASSIGN_OR_RETURN(Val above, Op(ctx, "greater", {x, Scalar(ctx, alpha, t)}));
  return Op(ctx, "where", {above, x, Scalar(ctx, 0.0, t)});
}

}  // namespace onnx_import
}  // namespace switchyard
