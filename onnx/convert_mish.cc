// ONNX Mish (opset 18): x * tanh(softplus(x)), composed of existing ops.
// Softplus in its overflow-free form, max(x, 0) + log(1 + exp(-|x|)), so a
// large |x| gives x (or 0) rather than inf * 0. (max, not relu: the CPU has
// relu in float32 only, and Mish takes float64 too.)

#include "core/status_macros.h"
#include "onnx/convert_util.h"
#include "onnx/converter_registry.h"

namespace switchyard {
namespace onnx_import {
namespace {

absl::Status ConvertMish(NodeContext& ctx) {
  const Val x = ctx.In(0);
  const DType t = ctx.Type(x).dtype;
  SY_ASSIGN_OR_RETURN(Val pos, Op(ctx, "max", {x, Scalar(ctx, 0.0, t)}));
  SY_ASSIGN_OR_RETURN(Val a, Op(ctx, "abs", {x}));
  SY_ASSIGN_OR_RETURN(Val na, Op(ctx, "neg", {a}));
  SY_ASSIGN_OR_RETURN(Val e, Op(ctx, "exp", {na}));
  SY_ASSIGN_OR_RETURN(Val e1, Op(ctx, "add", {e, Scalar(ctx, 1.0, t)}));
  SY_ASSIGN_OR_RETURN(Val l, Op(ctx, "log", {e1}));
  SY_ASSIGN_OR_RETURN(Val soft, Op(ctx, "add", {pos, l}));
  SY_ASSIGN_OR_RETURN(Val gate, Op(ctx, "tanh", {soft}));
  SY_ASSIGN_OR_RETURN(Val y, Op(ctx, "mul", {x, gate}));
  return ctx.SetOutput(0, y);
}

}  // namespace

SY_REGISTER_ONNX_CONVERTER("Mish", ConvertMish);

}  // namespace onnx_import
}  // namespace switchyard
